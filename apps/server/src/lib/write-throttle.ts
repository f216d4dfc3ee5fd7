import { TtlCache } from './cache';

/**
 * Bookkeeping writes such as "last used at" run at most once per interval per key, so a hot
 * path (every API call) costs no query. The write is fire-and-forget: losing one is harmless.
 */
export class WriteThrottle<K> {
  private readonly recent: TtlCache<K, true>;

  constructor(everyMs: number, maxKeys = 10_000) {
    this.recent = new TtlCache<K, true>(everyMs, maxKeys);
  }

  /** Whether `key`'s write is due (then it counts as done): a throttled call allocates nothing. */
  due(key: K, now = Date.now()): boolean {
    if (this.recent.get(key, now)) return false;
    this.recent.set(key, true, now);
    return true;
  }

  run(key: K, write: () => Promise<unknown>): void {
    if (this.due(key)) void write().catch(() => undefined);
  }
}
