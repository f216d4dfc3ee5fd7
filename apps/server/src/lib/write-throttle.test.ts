import { describe, expect, it } from 'vitest';
import { WriteThrottle } from './write-throttle';

describe('WriteThrottle', () => {
  it('lets one write per key through per interval, measured on the clock the caller passes', () => {
    const throttle = new WriteThrottle<number>(1_000);
    const written: string[] = [];
    const write = (key: number, now: number) => throttle.run(key, async () => written.push(`${key}@${now}`), now);
    write(7, 10_000);
    write(7, 10_500);
    write(8, 10_500); // keys are throttled apart
    write(7, 11_000); // the interval is not over at its last millisecond
    write(7, 11_001);
    write(7, 11_002);
    expect(written).toEqual(['7@10000', '8@10500', '7@11001']);
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
