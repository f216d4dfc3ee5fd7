import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { eventLoopSampler } from './event-loop';

/** Below this many requests a second, rows are written as they come whatever the load (a quiet edge shows them at once). */
export const PACER_MIN_REQUESTS_PER_SECOND = 1000;
/** The edge's event loop busy this much of the last tick: it is the bottleneck, and writes would take from requests. */
const BUSY_EVENT_LOOP = 0.8;
/** The machine's CPUs busy this much of the last tick (nginx serving, the app, the database). */
const BUSY_MACHINE = 0.85;
/** Once waiting, writes go on again only when both are below these (no flapping each second). */
const CALM_EVENT_LOOP = 0.5;
const CALM_MACHINE = 0.5;
/** Rows never wait longer than this, nor beyond this share of the buffer's bound: past either, they are written under load too. */
export const PACER_MAX_WAIT_MS = 30_000;
const MAX_BUFFER_SHARE = 0.75;

type CpuTimes = { busy: number; total: number };

/** The machine's CPU time so far, all CPUs together (the first line of /proc/stat); null where there is no /proc. */
function readCpuTimes(): CpuTimes | null {
  try {
    const first = fs.readFileSync('/proc/stat', 'latin1').split('\n', 1)[0] ?? '';
    const fields = first.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = fields.reduce((sum, value) => sum + value, 0);
    // idle and iowait are the time nothing ran.
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return Number.isFinite(total) && total > 0 ? { busy: total - idle, total } : null;
  } catch {
    return null;
  }
}

export type LoadSample = { requestsPerSecond: number; eventLoop: number; machine: number | null };

/** What the pacer reads each tick; a parameter so tests can play a load. */
export type LoadGauge = () => LoadSample;

/**
 * Measures the load since its previous call: the requests counted meanwhile, the share of time the
 * edge's event loop was busy and the share of the machine's CPU time that was busy. With little
 * traffic the busy shares do not matter (ProxyLogPacer) and are not read: an idle edge reads no
 * /proc file four times a second; the next reading then spans the whole quiet time.
 */
export function liveLoadGauge(requestsSince: () => number): LoadGauge {
  const eventLoopSince = eventLoopSampler();
  let cpu = readCpuTimes();
  let at = performance.now();
  return () => {
    const now = performance.now();
    const seconds = Math.max(0.001, (now - at) / 1000);
    at = now;
    const requestsPerSecond = requestsSince() / seconds;
    if (requestsPerSecond < PACER_MIN_REQUESTS_PER_SECOND) return { requestsPerSecond, eventLoop: 0, machine: null };
    const eventLoop = eventLoopSince();
    const cpuNow = readCpuTimes();
    const machine = cpu && cpuNow && cpuNow.total > cpu.total ? (cpuNow.busy - cpu.busy) / (cpuNow.total - cpu.total) : null;
    cpu = cpuNow;
    return { requestsPerSecond, eventLoop, machine };
  };
}

/**
 * Decides, once a tick, whether proxy-log rows wait instead of going to the database: logging yields
 * to serving. Under a burst that saturates the edge (or the machine), writing each row to PostgreSQL
 * costs as much CPU again as proxying it; the rows wait in the writer's bounded buffer and go in
 * as soon as the burst is over. They never wait longer than PACER_MAX_WAIT_MS, nor beyond three
 * quarters of the buffer: past that they are written under load too, so no row is dropped for it.
 */
export class ProxyLogPacer {
  #waiting = false;

  constructor(private readonly gauge: LoadGauge) {}

  /** Whether rows wait now (as decided at the last tick). */
  get waiting(): boolean {
    return this.#waiting;
  }

  /**
   * Takes the load of the last tick and decides for the next one. `bufferShare` is how full the
   * writer's buffer is (0..1), `oldestWaitMs` how long its oldest row has waited.
   */
  tick(bufferShare: number, oldestWaitMs: number): boolean {
    const sample = this.gauge();
    const heavy = sample.requestsPerSecond >= PACER_MIN_REQUESTS_PER_SECOND;
    const machine = sample.machine ?? 0;
    const busy = sample.eventLoop >= BUSY_EVENT_LOOP || machine >= BUSY_MACHINE;
    const calm = sample.eventLoop < CALM_EVENT_LOOP && machine < CALM_MACHINE;
    const mustWrite = bufferShare >= MAX_BUFFER_SHARE || oldestWaitMs >= PACER_MAX_WAIT_MS;
    if (mustWrite || !heavy || calm) this.#waiting = false;
    else if (busy) this.#waiting = true;
    return this.#waiting;
  }

  /** Writes go on now whatever the load (the edge is stopping). */
  release(): void {
    this.#waiting = false;
  }
}
