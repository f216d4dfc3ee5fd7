/** A small time-bounded LRU: Map keeps insertion order, so the first key is the oldest. */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();
  private readonly loading = new Map<K, Promise<V | undefined>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /** `now`: the time the caller read already (one clock read per request on the hot path). */
  get(key: K, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt < now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V, now = Date.now()): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  /**
   * The cached value, or the loader's answer (cached unless undefined). Concurrent misses for one
   * key share a single load: when a hot entry expires under load, one query runs, not hundreds.
   */
  async getOrLoad(key: K, loader: () => Promise<V | undefined>): Promise<V | undefined> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    let pending = this.loading.get(key);
    if (!pending) {
      pending = loader()
        .then((value) => {
          if (value !== undefined && this.loading.get(key) === pending) this.set(key, value);
          return value;
        })
        .finally(() => {
          if (this.loading.get(key) === pending) this.loading.delete(key);
        });
      this.loading.set(key, pending);
    }
    return pending;
  }

  delete(key: K): void {
    this.entries.delete(key);
    this.loading.delete(key);
  }

  /** Drops matching entries, and every load in flight (it may have read the state being changed). */
  deleteWhere(predicate: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (predicate(entry.value)) this.entries.delete(key);
    this.loading.clear();
  }

  clear(): void {
    this.entries.clear();
    this.loading.clear();
  }
}
