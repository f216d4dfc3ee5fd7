import { describe, expect, it } from 'vitest';
import { TtlCache } from './cache';

describe('TtlCache.getOrLoad', () => {
  it('runs one load for many concurrent misses of the same key, then serves the cached value', async () => {
    const cache = new TtlCache<string, number>(60_000, 10);
    let loads = 0;
    const loader = async () => {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return 42;
    };
    const answers = await Promise.all(Array.from({ length: 200 }, () => cache.getOrLoad('token', loader)));
    expect(answers.every((a) => a === 42)).toBe(true);
    expect(loads).toBe(1);
    expect(await cache.getOrLoad('token', loader)).toBe(42);
    expect(loads).toBe(1);
  });

  it('does not cache undefined, and an invalidation during a load keeps its stale answer out of the cache', async () => {
    const cache = new TtlCache<string, string>(60_000, 10);
    expect(await cache.getOrLoad('missing', async () => undefined)).toBeUndefined();
    let calls = 0;
    expect(
      await cache.getOrLoad('missing', async () => {
        calls++;
        return 'now here';
      }),
    ).toBe('now here');
    expect(calls).toBe(1);

    let release: (value: string) => void = () => undefined;
    const slow = cache.getOrLoad('session', () => new Promise<string>((resolve) => (release = resolve)));
    cache.deleteWhere(() => true); // e.g. the session is revoked while its lookup is in flight
    release('stale');
    expect(await slow).toBe('stale');
    expect(cache.get('session')).toBeUndefined();
  });

  it('expires entries after the TTL and evicts the oldest past the size bound', async () => {
    const cache = new TtlCache<string, number>(30, 2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(cache.get('c')).toBeUndefined();
  });
});
