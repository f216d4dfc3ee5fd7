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

  /** `now`: the time the caller read already (the hot path reads the clock once per request). */
  run(key: K, write: () => Promise<unknown>, now = Date.now()): void {
    if (this.recent.get(key, now)) return;
    this.recent.set(key, true, now);
    void write().catch(() => undefined);
  }
}
