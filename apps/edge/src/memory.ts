import { eventLoopSampler } from './event-loop';

/** How often the edge looks whether it went quiet holding more memory than before. */
export const QUIET_LOOK_MS = 10_000;
/** Quiet: the event loop was busy less than this share of the last look (serving a request now and then stays below it). */
export const QUIET_EVENT_LOOP = 0.02;
/** Worth a collection: the process holds this much more memory (RSS) than right after the previous one. */
export const GROWN_BYTES = 16 * 1024 * 1024;

export type MemorySample = { rssBytes: number; eventLoop: number };

/**
 * Decides, once a look, whether to collect the heap now. Under a burst V8 grows its young
 * generation to its maximum (2 x 16 MB) and the old one with what the burst left; once the burst is
 * over nothing allocates, so no collection runs and the process keeps that memory for as long as it
 * stays quiet (measured: an edge at 52 MB went to 118 MB under 8 s of 200 connections, and stayed
 * there). Full collections once it is quiet give it back (V8 shrinks the young generation when
 * little is allocated): the same edge went back to 59 MB. The measure is the RSS, not the heap: the
 * buffers of the rows a burst's proxy log held back live outside the heap, and are freed only when
 * the collector finds them unreachable. It runs only when the RSS grew by GROWN_BYTES since the
 * previous one, so a quiet edge is never collected twice for nothing.
 */
export class QuietCollector {
  #floor: number;

  constructor(rssBytesNow: number) {
    this.#floor = rssBytesNow;
  }

  /** Whether to collect now; `collected` tells it the RSS right after. */
  shouldCollect(sample: MemorySample): boolean {
    // Memory given back by itself (a collection under load) is the new floor.
    if (sample.rssBytes < this.#floor) this.#floor = sample.rssBytes;
    return sample.eventLoop < QUIET_EVENT_LOOP && sample.rssBytes - this.#floor >= GROWN_BYTES;
  }

  collected(rssBytesAfter: number): void {
    this.#floor = rssBytesAfter;
  }
}

export type Gc = (options?: { type: 'major'; execution: 'sync' }) => void;

/**
 * Gives a burst's memory back once the process is quiet again (QuietCollector). Needs `--expose-gc`
 * on the command line (the control plane starts the edge with it; forked workers inherit it);
 * without it this does nothing. Returns a stop function.
 */
export function releaseMemoryWhenQuiet(log: (message: string) => void, options: { lookMs?: number; gc?: Gc } = {}): () => void {
  const gc = options.gc ?? (globalThis as { gc?: Gc }).gc;
  if (typeof gc !== 'function') return () => undefined;
  const rssBytes = () => process.memoryUsage.rss();
  const collector = new QuietCollector(rssBytes());
  const eventLoopSince = eventLoopSampler();
  const timer = setInterval(() => {
    const eventLoop = eventLoopSince();
    const before = rssBytes();
    if (!collector.shouldCollect({ rssBytes: before, eventLoop })) return;
    // Twice: a marking cycle begun during the burst keeps what was alive when it began, so the first
    // collection may only finish that cycle; the second one starts from what is alive now.
    gc({ type: 'major', execution: 'sync' });
    gc({ type: 'major', execution: 'sync' });
    const after = rssBytes();
    collector.collected(after);
    log(`quiet again: memory ${Math.round(before / 1048576)} -> ${Math.round(after / 1048576)} MB`);
    // The collections themselves must not count as busy time at the next look.
    eventLoopSince();
  }, options.lookMs ?? QUIET_LOOK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
