import {
  PROXY_LOG_BATCH_ROWS,
  PROXY_LOG_BUFFER_ROWS,
  PROXY_LOG_COPY_SQL,
  PROXY_LOG_DROPS_INSERT_SQL,
  PROXY_LOG_FLUSH_MS,
  type ProxyLogRow,
  proxyLogCopyLine,
  validProxyLogBatch,
} from '@launchbay/edge-protocol';
import type postgres from 'postgres';
import { liveLoadGauge, ProxyLogPacer } from './proxy-log-pacer';

/** Where the writer puts what it has: batches of rows as COPY text lines, and episodes of rows it could not keep. */
export type ProxyLogSink = {
  copyRows(lines: Buffer): Promise<void>;
  recordDrops(count: number, first: string | null, last: string | null): Promise<void>;
};

/** The sink on the edge's database connection: each batch is one COPY, each episode of drops one INSERT. */
export function postgresProxyLogSink(client: postgres.Sql<Record<string, unknown>>): ProxyLogSink {
  return {
    async copyRows(lines) {
      const query = client.unsafe(PROXY_LOG_COPY_SQL);
      // postgres.js (3.4.9) never settles a COPY's stream when the server refuses the data after the
      // last chunk (porsager/postgres#1173): the error only reaches the query's own reject, hooked here.
      const refused = new Promise<never>((_resolve, reject) => {
        const internal = query as unknown as { reject: (error: unknown) => void };
        const original = internal.reject;
        internal.reject = (error) => {
          reject(error);
          original(error);
        };
      });
      refused.catch(() => undefined); // raced below; a refusal before the stream exists is thrown by writable()
      const copy = await query.writable();
      const written = new Promise<void>((resolve, reject) => {
        copy.once('error', reject);
        copy.once('finish', resolve);
        copy.end(lines);
      });
      await Promise.race([written, refused]);
    },
    async recordDrops(count, first, last) {
      await client.unsafe(PROXY_LOG_DROPS_INSERT_SQL, [count, first, last]);
    },
  };
}

/** SQLSTATE classes 22 (data exception) and 23 (integrity): the batch itself is refused, and would be again. */
const refusedForItsData = (error: unknown) => /^2[23]/.test(String((error as { code?: unknown }).code ?? ''));

export type ProxyLogWriterOptions = {
  /** The connected database, or undefined while it is away (rows wait meanwhile). */
  sink: () => ProxyLogSink | undefined;
  log: (message: string) => void;
  batchRows?: number;
  flushMs?: number;
  bufferRows?: number;
  /** Keeps the writes back while the edge is saturated (logging yields to serving); without it rows go as they come. */
  pacer?: ProxyLogPacer;
};

export type ProxyLogWriterStats = { buffered: number; dropped: number; written: number };

/** How often the pacer weighs the load (ProxyLogPacer). */
const PACE_MS = 250;

/** Rows wait as COPY lines in pages of this size: one page is one batch. */
const PAGE_BYTES = 256 * 1024;

/** A batch being filled or waiting: its COPY lines, off the JavaScript heap; `since` is when its first row came (performance.now()). */
type Page = { bytes: Buffer; used: number; rows: number; firstAt: string; lastAt: string; sealed: boolean; since: number };

/**
 * Keeps the edge's request log off the request path: `record` only appends to a bounded buffer,
 * and batches go to the database from a timer. When the database is slow or away the rows wait;
 * when the buffer is full new rows are dropped and counted, and the count is written as soon as
 * the database takes writes again, so the console can say how many requests went unlogged.
 *
 * A row is turned into its COPY line at once and copied into a page outside the JavaScript heap:
 * the thousands of rows waiting for their batch are then no work for the garbage collector, which
 * they were as objects (measured: a third of the edge's cost of logging a request).
 */
export class ProxyLogWriter {
  /** Oldest first; the last one is being filled. */
  #pages: Page[] = [];
  #rows = 0;
  /** The flush under way: a second call waits for it (it writes whatever arrives meanwhile too). */
  #flushing: Promise<void> | null = null;
  #timer: NodeJS.Timeout | undefined;
  #paceTimer: NodeJS.Timeout | undefined;
  #dropped = 0;
  #droppedFirst: string | null = null;
  #droppedLast: string | null = null;
  #stats: ProxyLogWriterStats = { buffered: 0, dropped: 0, written: 0 };
  #lastProblem = '';
  /** Rows recorded since the pacer last asked (the edge's request rate). */
  #recordedSinceTick = 0;
  #closing = false;
  readonly #batchRows: number;
  readonly #bufferRows: number;

  constructor(private readonly options: ProxyLogWriterOptions) {
    this.#batchRows = options.batchRows ?? PROXY_LOG_BATCH_ROWS;
    this.#bufferRows = options.bufferRows ?? PROXY_LOG_BUFFER_ROWS;
  }

  start(): void {
    const flushMs = this.options.flushMs ?? PROXY_LOG_FLUSH_MS;
    this.#timer = setInterval(() => {
      if (!this.options.pacer?.waiting) void this.flush();
    }, flushMs);
    this.#timer.unref();
    if (this.options.pacer) {
      // The pacer looks more often than batches go: a burst is caught within its first half second (the first
      // look after a quiet time spans that time, liveLoadGauge).
      this.#paceTimer = setInterval(() => this.#pace(), Math.min(PACE_MS, flushMs));
      this.#paceTimer.unref();
    }
  }

  #pace(): void {
    const { pacer } = this.options;
    if (!pacer) return;
    const wasWaiting = pacer.waiting;
    const oldest = this.#pages[0];
    const oldestWaitMs = oldest ? performance.now() - oldest.since : 0;
    // The burst is over: what waited goes now rather than at the next flush.
    if (!pacer.tick(this.#rows / this.#bufferRows, oldestWaitMs) && wasWaiting) void this.flush();
  }

  get stats(): ProxyLogWriterStats {
    return { ...this.#stats, buffered: this.#rows };
  }

  /** The rows recorded since the last call: the requests the embedded edge served meanwhile. */
  takeRecordedCount(): number {
    const count = this.#recordedSinceTick;
    this.#recordedSinceTick = 0;
    return count;
  }

  /**
   * `byteStrings`: the row's texts are one character per byte received (the edge's own rows, from
   * Node's HTTP parser), written as latin1, which is a copy; otherwise they are Unicode (rows read from
   * nginx's JSON log), written as UTF-8.
   */
  record(row: ProxyLogRow, byteStrings = false): void {
    this.#recordedSinceTick++;
    if (this.#rows >= this.#bufferRows) {
      this.#countDropped(1, row.at, row.at);
      return;
    }
    const line = proxyLogCopyLine(row);
    // A UTF-16 code unit is at most 3 bytes of UTF-8: room for that is room enough.
    const room = byteStrings ? line.length : line.length * 3;
    let page = this.#pages.at(-1);
    if (!page || page.sealed || page.rows >= this.#batchRows || page.used + room > page.bytes.length) {
      page = {
        bytes: Buffer.allocUnsafe(Math.max(PAGE_BYTES, room)),
        used: 0,
        rows: 0,
        firstAt: row.at,
        lastAt: row.at,
        sealed: false,
        since: performance.now(),
      };
      this.#pages.push(page);
    }
    page.used += page.bytes.write(line, page.used, byteStrings ? 'latin1' : 'utf8');
    page.rows++;
    page.lastAt = row.at;
    this.#rows++;
    if (page.rows >= this.#batchRows && !this.#flushing && !this.options.pacer?.waiting) void this.flush();
  }

  #countDropped(count: number, first: string, last: string): void {
    this.#dropped += count;
    this.#stats.dropped += count;
    this.#droppedFirst ??= first;
    this.#droppedLast = last;
  }

  /** Writes what waits, batch by batch, until the buffer is empty or the database refuses. */
  flush(): Promise<void> {
    if (this.#flushing) return this.#flushing;
    // finally() runs after this assignment even when #drain ends at once.
    const flushing = this.#drain().finally(() => {
      this.#flushing = null;
    });
    this.#flushing = flushing;
    return flushing;
  }

  async #drain(): Promise<void> {
    while (this.#rows > 0 || this.#dropped > 0) {
      // A burst began meanwhile: the rest waits for it to pass (the timer decides again each tick).
      if (this.options.pacer?.waiting && !this.#closing) return;
      const sink = this.options.sink();
      if (!sink) return;
      if (!(await this.#writeBatch(sink))) return;
    }
  }

  async #writeBatch(sink: ProxyLogSink): Promise<boolean> {
    // The oldest page, sealed: rows recorded while it is written go to a new one.
    const page = this.#pages[0];
    if (page) page.sealed = true;
    try {
      if (page) {
        const rows = page.rows;
        try {
          await sink.copyRows(validProxyLogBatch(page.bytes.subarray(0, page.used)));
          this.#stats.written += rows;
        } catch (error) {
          if (!refusedForItsData(error)) throw error;
          // Retrying a batch the database refuses for what it holds would stop every later row:
          // it is counted as dropped (and said once), and the rows after it go on.
          this.#countDropped(rows, page.firstAt, page.lastAt);
          this.options.log(
            `the database refused a batch of ${rows} proxy-log rows (${(error as Error).message}); counted as dropped`,
          );
        }
        this.#pages.shift();
        this.#rows -= rows;
      }
      if (this.#dropped > 0) {
        const dropped = this.#dropped;
        await sink.recordDrops(dropped, this.#droppedFirst, this.#droppedLast);
        this.#dropped -= dropped;
        if (this.#dropped === 0) this.#droppedFirst = null;
      }
      this.#lastProblem = '';
      return true;
    } catch (error) {
      // The batch stays first in line, as it was; the buffer's bound keeps applying to new rows.
      const message = `cannot write proxy-log rows (${(error as Error).message}); ${this.#rows} wait`;
      if (message.replace(/\d+ wait$/, '') !== this.#lastProblem) this.options.log(message);
      this.#lastProblem = message.replace(/\d+ wait$/, '');
      return false;
    }
  }

  /** Stops the timer and writes what waits, for at most `timeoutMs`. */
  async close(timeoutMs = 2000): Promise<void> {
    clearInterval(this.#timer);
    clearInterval(this.#paceTimer);
    this.#closing = true;
    this.options.pacer?.release();
    await Promise.race([this.flush(), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  }
}

/**
 * A process's proxy-log writer to the database connection `database` holds while it is up, paced by
 * the load it sees: `requestsSince` is the traffic served since the last look (the writer's own rows
 * unless given; behind nginx, what nginx logged).
 */
export function pacedProxyLog(
  database: { readonly client: postgres.Sql<Record<string, unknown>> | undefined },
  log: (message: string) => void,
  requestsSince?: () => number,
): { proxyLog: ProxyLogWriter; pacer: ProxyLogPacer } {
  const requests = requestsSince ?? (() => proxyLog.takeRecordedCount());
  const pacer = new ProxyLogPacer(liveLoadGauge(requests));
  const proxyLog: ProxyLogWriter = new ProxyLogWriter({
    sink: () => (database.client ? postgresProxyLogSink(database.client) : undefined),
    log,
    pacer,
  });
  return { proxyLog, pacer };
}
