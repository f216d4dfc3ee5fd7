import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { type Gc, GROWN_BYTES, QUIET_EVENT_LOOP, QuietCollector, releaseMemoryWhenQuiet } from '../src/memory';

const MB = 1024 * 1024;

describe("giving a burst's memory back once quiet", () => {
  it('collects only when quiet and grown since the last collection, and once per burst', () => {
    const collector = new QuietCollector(40 * MB);
    // Busy with a grown heap: the burst goes on, nothing is collected.
    expect(collector.shouldCollect({ rssBytes: 90 * MB, eventLoop: 0.9 })).toBe(false);
    expect(collector.shouldCollect({ rssBytes: 90 * MB, eventLoop: QUIET_EVENT_LOOP })).toBe(false);
    // Quiet with a heap grown by less than the threshold: not worth it.
    expect(collector.shouldCollect({ rssBytes: 40 * MB + GROWN_BYTES - 1, eventLoop: 0 })).toBe(false);
    // Quiet and grown: collect, once.
    expect(collector.shouldCollect({ rssBytes: 90 * MB, eventLoop: 0.001 })).toBe(true);
    collector.collected(42 * MB);
    expect(collector.shouldCollect({ rssBytes: 42 * MB, eventLoop: 0 })).toBe(false);
    expect(collector.shouldCollect({ rssBytes: 50 * MB, eventLoop: 0 })).toBe(false);
    // A heap that shrank by itself lowers the floor: growing from there counts.
    expect(collector.shouldCollect({ rssBytes: 30 * MB, eventLoop: 0.5 })).toBe(false);
    expect(collector.shouldCollect({ rssBytes: 30 * MB + GROWN_BYTES, eventLoop: 0 })).toBe(true);
  });

  it('collects a real grown heap once the process is quiet, and once only', async () => {
    // The edge runs with --expose-gc; the test process does not, so it takes V8's gc the same way.
    v8.setFlagsFromString('--expose-gc');
    const realGc = vm.runInNewContext('gc') as Gc;
    realGc({ type: 'major', execution: 'sync' });
    const lines: string[] = [];
    let burst: number[][] | null = null;
    let collections = 0;
    const gc: Gc = (options) => {
      collections += 1;
      burst = null;
      realGc(options);
    };
    const stop = releaseMemoryWhenQuiet((line) => lines.push(line), { lookMs: 200, gc });
    try {
      // A burst: 48 MB the process holds while busy, let go when the collector collects.
      burst = Array.from({ length: 48 }, () => new Array<number>(128 * 1024).fill(1.5));
      expect(burst.length).toBe(48);
      const deadline = Date.now() + 5000;
      while (lines.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(lines).toEqual([expect.stringMatching(/^quiet again: memory \d+ -> \d+ MB$/)]);
      expect(collections).toBe(2);
      expect(burst).toBeNull();
      // Quiet and not grown again: no further collection, however many looks go by.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(lines).toHaveLength(1);
      expect(collections).toBe(2);
    } finally {
      stop();
    }
  });

  it('does nothing without a gc (a process started without --expose-gc)', () => {
    const stop = releaseMemoryWhenQuiet(() => undefined, { gc: undefined });
    expect(typeof stop).toBe('function');
    stop();
  });
});
