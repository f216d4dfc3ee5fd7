import { describe, expect, it } from 'vitest';
import { type ProxyLogSink, ProxyLogWriter } from '../src/proxy-log-writer';
import { proxyLogRow } from './helpers';

/** A database stand-in that records what it takes, and refuses it while `down`. */
function recordingSink() {
  const sink = {
    down: false,
    /** The path of each row taken (the fourth field of its COPY line). */
    paths: [] as string[],
    drops: [] as unknown[][],
    copyRows(lines: Buffer) {
      if (sink.down) return Promise.reject(new Error('connection refused'));
      for (const line of lines.toString('utf8').split('\n').slice(0, -1)) sink.paths.push(line.split('\t')[3] ?? '');
      return Promise.resolve();
    },
    recordDrops(count: number, first: string | null, last: string | null) {
      if (sink.down) return Promise.reject(new Error('connection refused'));
      sink.drops.push([count, first, last]);
      return Promise.resolve();
    },
  };
  return sink;
}

describe('the proxy-log writer', () => {
  it('writes in batches, in order', async () => {
    const sink = recordingSink();
    const writer = new ProxyLogWriter({ sink: () => sink, log: () => undefined, batchRows: 3, bufferRows: 100 });
    for (let i = 0; i < 7; i++) writer.record(proxyLogRow(i));
    await writer.flush();
    expect(sink.paths).toEqual(['/0', '/1', '/2', '/3', '/4', '/5', '/6']);
    expect(writer.stats).toEqual({ buffered: 0, dropped: 0, written: 7 });
  });

  it('keeps rows while the database is away, drops and counts what does not fit, and writes the count after', async () => {
    const sink = recordingSink();
    let connected: ProxyLogSink | undefined;
    const problems: string[] = [];
    const writer = new ProxyLogWriter({
      sink: () => connected,
      log: (message) => problems.push(message),
      batchRows: 4,
      bufferRows: 10,
    });
    for (let i = 0; i < 14; i++) writer.record(proxyLogRow(i)); // no database at all: 10 wait, 4 are dropped
    await writer.flush();
    expect(writer.stats).toEqual({ buffered: 10, dropped: 4, written: 0 });

    connected = sink;
    sink.down = true; // connected, but every write fails: nothing is lost beyond the bound
    await writer.flush();
    expect(writer.stats.buffered).toBe(10);
    expect(problems).toHaveLength(1);
    await writer.flush();
    expect(problems).toHaveLength(1); // the same problem is said once

    sink.down = false;
    await writer.flush();
    expect(sink.paths).toEqual(['/0', '/1', '/2', '/3', '/4', '/5', '/6', '/7', '/8', '/9']);
    expect(sink.drops).toEqual([[4, proxyLogRow(10).at, proxyLogRow(13).at]]);
    expect(writer.stats).toEqual({ buffered: 0, dropped: 4, written: 10 });
    await writer.flush();
    expect(sink.drops).toHaveLength(1); // counted once
  });

  it('never blocks the caller: record returns at once even while a write hangs', async () => {
    let release: () => void = () => undefined;
    const slow: ProxyLogSink = {
      copyRows: () => new Promise<void>((resolve) => (release = resolve)),
      recordDrops: () => Promise.resolve(),
    };
    const writer = new ProxyLogWriter({ sink: () => slow, log: () => undefined, batchRows: 2, bufferRows: 5 });
    const started = performance.now();
    for (let i = 0; i < 1000; i++) writer.record(proxyLogRow(i));
    expect(performance.now() - started).toBeLessThan(200);
    expect(writer.stats.buffered).toBeLessThanOrEqual(5);
    expect(writer.stats.dropped).toBeGreaterThan(990);
    release();
  });

  it('counts a batch the database refuses for what it holds as dropped, says so once, and goes on with the next', async () => {
    const sink = recordingSink();
    const refusing: ProxyLogSink = {
      copyRows: (lines) =>
        lines.includes('\t/bad\t')
          ? Promise.reject(Object.assign(new Error('value out of range'), { code: '22003' }))
          : sink.copyRows(lines),
      recordDrops: (...args) => sink.recordDrops(...args),
    };
    const problems: string[] = [];
    const writer = new ProxyLogWriter({ sink: () => refusing, log: (m) => problems.push(m), batchRows: 2, bufferRows: 10 });
    writer.record(proxyLogRow(0));
    writer.record({ ...proxyLogRow(1), path: '/bad' });
    writer.record(proxyLogRow(2));
    await writer.flush();
    expect(sink.paths).toEqual(['/2']);
    expect(sink.drops).toEqual([[2, proxyLogRow(0).at, proxyLogRow(1).at]]);
    expect(writer.stats).toEqual({ buffered: 0, dropped: 2, written: 1 });
    expect(problems).toEqual(['the database refused a batch of 2 proxy-log rows (value out of range); counted as dropped']);
  });
});
