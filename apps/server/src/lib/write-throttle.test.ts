import { describe, expect, it } from 'vitest';
import { WriteThrottle } from './write-throttle';

describe('WriteThrottle', () => {
  it('lets one write per key through per interval, measured on the clock the caller passes', () => {
    const throttle = new WriteThrottle<number>(1_000);
    expect(throttle.due(7, 10_000)).toBe(true);
    expect(throttle.due(7, 10_500)).toBe(false);
    expect(throttle.due(8, 10_500)).toBe(true); // keys are throttled apart
    expect(throttle.due(7, 11_000)).toBe(false); // the interval is not over at its last millisecond
    expect(throttle.due(7, 11_001)).toBe(true);
    expect(throttle.due(7, 11_002)).toBe(false);
  });

  it('runs the write when due and swallows its failure (bookkeeping must never fail a request)', async () => {
    const throttle = new WriteThrottle<string>(60_000);
    let writes = 0;
    const failing = () => {
      writes++;
      return Promise.reject(new Error('database away'));
    };
    throttle.run('key', failing);
    throttle.run('key', failing);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toBe(1);
  });
});
