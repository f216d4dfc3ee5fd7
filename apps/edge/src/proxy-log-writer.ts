import {
  PROXY_LOG_BATCH_ROWS,
  PROXY_LOG_BUFFER_ROWS,
  PROXY_LOG_DROPS_INSERT_SQL,
  PROXY_LOG_FLUSH_MS,
  PROXY_LOG_INSERT_SQL,
  type ProxyLogRow,
} from '@launchbay/edge-protocol';

/** What the writer needs of a database connection: one parameterised statement at a time. */
export type ProxyLogSink = { unsafe(query: string, parameters: unknown[]): PromiseLike<unknown> };

export type ProxyLogWriterOptions = {
  /** The connected database, or undefined while it is away (rows wait meanwhile). */
  sink: () => ProxyLogSink | undefined;
  log: (message: string) => void;
  batchRows?: number;
  flushMs?: number;
  bufferRows?: number;
};

export type ProxyLogWriterStats = { buffered: number; dropped: number; written: number };

/**
 * Keeps the edge's request log off the request path: `record` only appends to a bounded buffer,
 * and batches go to the database from a timer. When the database is slow or away the rows wait;
 * when the buffer is full new rows are dropped and counted, and the count is written as soon as
 * the database takes writes again, so the console can say how many requests went unlogged.
 */
export class ProxyLogWriter {
  #buffer: ProxyLogRow[] = [];
  /** The flush under way: a second call waits for it (it writes whatever arrives meanwhile too). */
  #flushing: Promise<void> | null = null;
  #timer: NodeJS.Timeout | undefined;
  #dropped = 0;
  #droppedFirst: string | null = null;
  #droppedLast: string | null = null;
  #stats: ProxyLogWriterStats = { buffered: 0, dropped: 0, written: 0 };
  #lastProblem = '';
  readonly #batchRows: number;
  readonly #bufferRows: number;

  constructor(private readonly options: ProxyLogWriterOptions) {
    this.#batchRows = options.batchRows ?? PROXY_LOG_BATCH_ROWS;
    this.#bufferRows = options.bufferRows ?? PROXY_LOG_BUFFER_ROWS;
  }

  start(): void {
    this.#timer = setInterval(() => void this.flush(), this.options.flushMs ?? PROXY_LOG_FLUSH_MS);
    this.#timer.unref();
  }

  get stats(): ProxyLogWriterStats {
    return { ...this.#stats, buffered: this.#buffer.length };
  }

  record(row: ProxyLogRow): void {
    if (this.#buffer.length >= this.#bufferRows) {
      this.#countDropped(1, row.at, row.at);
      return;
    }
    this.#buffer.push(row);
    if (this.#buffer.length >= this.#batchRows && !this.#flushing) void this.flush();
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
    while (this.#buffer.length > 0 || this.#dropped > 0) {
      const sink = this.options.sink();
      if (!sink) return;
      if (!(await this.#writeBatch(sink))) return;
    }
  }

  async #writeBatch(sink: ProxyLogSink): Promise<boolean> {
    const batch = this.#buffer.splice(0, this.#batchRows);
    try {
      if (batch.length > 0) await sink.unsafe(PROXY_LOG_INSERT_SQL, [JSON.stringify(batch)]);
      this.#stats.written += batch.length;
      if (this.#dropped > 0) {
        const dropped = this.#dropped;
        await sink.unsafe(PROXY_LOG_DROPS_INSERT_SQL, [dropped, this.#droppedFirst, this.#droppedLast]);
        this.#dropped -= dropped;
        if (this.#dropped === 0) this.#droppedFirst = null;
      }
      this.#lastProblem = '';
      return true;
    } catch (error) {
      // Back to the front, in order; whatever no longer fits beside the newer rows is dropped (and counted).
      const room = Math.max(0, this.#bufferRows - this.#buffer.length);
      const kept = batch.slice(batch.length - Math.min(room, batch.length));
      const lost = batch.length - kept.length;
      if (lost > 0) this.#countDropped(lost, batch[0]?.at ?? '', batch[lost - 1]?.at ?? '');
      this.#buffer.unshift(...kept);
      const message = `cannot write proxy-log rows (${(error as Error).message}); ${this.#buffer.length} wait`;
      if (message.replace(/\d+ wait$/, '') !== this.#lastProblem) this.options.log(message);
      this.#lastProblem = message.replace(/\d+ wait$/, '');
      return false;
    }
  }

  /** Stops the timer and writes what waits, for at most `timeoutMs`. */
  async close(timeoutMs = 2000): Promise<void> {
    clearInterval(this.#timer);
    await Promise.race([this.flush(), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  }
}
