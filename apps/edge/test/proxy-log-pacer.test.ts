import { describe, expect, it } from 'vitest';
import { type LoadSample, liveLoadGauge, PACER_MAX_WAIT_MS, ProxyLogPacer } from '../src/proxy-log-pacer';
import { ProxyLogWriter } from '../src/proxy-log-writer';
import { proxyLogRow, sleep } from './helpers';

/** A gauge that answers what the test sets, as the live one would after a second of that load. */
function playedLoad(initial: LoadSample) {
  const load = { ...initial };
  return { load, gauge: () => ({ ...load }) };
}

const burst: LoadSample = { requestsPerSecond: 15_000, eventLoop: 0.97, machine: 0.8 };
const quiet: LoadSample = { requestsPerSecond: 3, eventLoop: 0.01, machine: 0.05 };

describe('the proxy-log pacer', () => {
  it('lets rows go as they come on a quiet edge, and on a busy machine with little traffic', () => {
    const { load, gauge } = playedLoad(quiet);
    const pacer = new ProxyLogPacer(gauge);
    expect(pacer.tick(0, 0)).toBe(false);
    // A build saturates the machine, the edge serves 200 requests a second: its rows show at once.
    Object.assign(load, { requestsPerSecond: 200, eventLoop: 0.1, machine: 1 });
    expect(pacer.tick(0.01, 500)).toBe(false);
  });

  it('keeps rows back while a burst saturates the edge or the machine, and lets them go once it is over', () => {
    const { load, gauge } = playedLoad(burst);
    const pacer = new ProxyLogPacer(gauge);
    expect(pacer.tick(0.01, 900)).toBe(true);
    expect(pacer.waiting).toBe(true);
    // Half as busy, still heavy traffic: it keeps waiting (no write every other second).
    Object.assign(load, { eventLoop: 0.6, machine: 0.6 });
    expect(pacer.tick(0.1, 2000)).toBe(true);
    // The burst is over.
    Object.assign(load, quiet);
    expect(pacer.tick(0.2, 3000)).toBe(false);
    // nginx serving: the edge's event loop is idle, the machine is not.
    Object.assign(load, { requestsPerSecond: 30_000, eventLoop: 0.05, machine: 0.95 });
    expect(pacer.tick(0, 0)).toBe(true);
    // A machine without /proc: only the event loop tells.
    Object.assign(load, { requestsPerSecond: 30_000, eventLoop: 0.05, machine: null });
    expect(pacer.tick(0, 0)).toBe(false);
  });

  it('never keeps rows past three quarters of the buffer or past the longest wait', () => {
    const pacer = new ProxyLogPacer(playedLoad(burst).gauge);
    expect(pacer.tick(0.5, 10_000)).toBe(true);
    expect(pacer.tick(0.75, 10_000)).toBe(false);
    expect(pacer.tick(0.5, 10_000)).toBe(true);
    expect(pacer.tick(0.1, PACER_MAX_WAIT_MS)).toBe(false);
  });

  it('measures the traffic, the event loop and the machine since its last look', async () => {
    let counted = 0;
    const gauge = liveLoadGauge(() => {
      const n = counted;
      counted = 0;
      return n;
    });
    const started = performance.now();
    while (performance.now() - started < 200) counted++; // the event loop busy for 200 ms
    const sample = gauge();
    expect(sample.requestsPerSecond).toBeGreaterThan(1000);
    expect(sample.eventLoop).toBeGreaterThan(0.5);
    if (sample.machine !== null) expect(sample.machine).toBeGreaterThan(0.2);
    await sleep(200);
    const idle = gauge();
    expect(idle.requestsPerSecond).toBe(0);
    expect(idle.eventLoop).toBeLessThan(0.5);
  });
});

describe('the proxy-log writer with a pacer', () => {
  it('writes nothing during a burst, then every row in order; closing writes whatever the load', async () => {
    const { load, gauge } = playedLoad(burst);
    const written: string[] = [];
    const sink = {
      copyRows: (lines: Buffer) => {
        for (const line of lines.toString('utf8').split('\n').slice(0, -1)) written.push(line.split('\t')[3] ?? '');
        return Promise.resolve();
      },
      recordDrops: () => Promise.resolve(),
    };
    const pacer = new ProxyLogPacer(gauge);
    const writer = new ProxyLogWriter({
      sink: () => sink,
      log: () => undefined,
      batchRows: 5,
      bufferRows: 1000,
      flushMs: 10,
      pacer,
    });
    writer.start();
    await sleep(30);
    for (let i = 0; i < 40; i++) writer.record(proxyLogRow(i)); // eight full batches
    await sleep(60);
    expect(pacer.waiting).toBe(true);
    expect(written).toEqual([]);
    expect(writer.stats.buffered).toBe(40);
    expect(writer.takeRecordedCount()).toBe(40);

    Object.assign(load, quiet);
    await expect.poll(() => written.length).toBe(40);
    expect(written).toEqual(Array.from({ length: 40 }, (_, i) => `/${i}`));

    Object.assign(load, burst);
    await sleep(30);
    expect(pacer.waiting).toBe(true);
    for (let i = 40; i < 43; i++) writer.record(proxyLogRow(i));
    await writer.close();
    expect(written.slice(40)).toEqual(['/40', '/41', '/42']);
    expect(writer.stats).toEqual({ buffered: 0, dropped: 0, written: 43 });
  });
});
