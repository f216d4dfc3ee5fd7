import type pg from 'pg';

export type LogStream = 'build' | 'stdout' | 'stderr' | 'system';
export type PendingLine = { deploymentId: number; stream: LogStream; process: string | null; at: Date; line: string };

const FLUSH_MS = 100;
const MAX_BUFFERED = 20_000;

/**
 * Build and runtime lines reach the database in batches (one INSERT per 100 ms at most), off the
 * path of the build or the app. A database that is away holds lines in a bounded buffer; what
 * did not fit is counted and noted in the log once it is back.
 */
export class DeploymentLogWriter {
  #buffer: PendingLine[] = [];
  #dropped = new Map<number, number>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #storedListeners = new Set<(deploymentIds: ReadonlySet<number>) => void>();

  constructor(private readonly pool: pg.Pool) {}

  write(line: PendingLine): void {
    if (this.#buffer.length >= MAX_BUFFERED) {
      this.#dropped.set(line.deploymentId, (this.#dropped.get(line.deploymentId) ?? 0) + 1);
      return;
    }
    this.#buffer.push(line);
    this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /**
   * Called after each stored batch with the deployments it held: a log stream in this process wakes
   * at once instead of at its next poll (streams served by another process still poll).
   */
  onStored(listener: (deploymentIds: ReadonlySet<number>) => void): () => void {
    this.#storedListeners.add(listener);
    return () => this.#storedListeners.delete(listener);
  }

  /** Writes what waits; resolves once it is stored (or failed, then it stays buffered). */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#flushing;
    if (this.#buffer.length === 0 && this.#dropped.size === 0) return;
    const batch = this.#buffer;
    this.#buffer = [];
    for (const [deploymentId, count] of this.#dropped) {
      batch.push({
        deploymentId,
        stream: 'system',
        process: null,
        at: new Date(),
        line: `${count} log lines were dropped while the database was away`,
      });
    }
    this.#dropped.clear();
    this.#flushing = this.pool
      .query(
        `INSERT INTO deployment_logs (deployment_id, stream, process, at, line)
         SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::timestamptz[], $5::text[])`,
        [
          batch.map((l) => l.deploymentId),
          batch.map((l) => l.stream),
          batch.map((l) => l.process),
          batch.map((l) => l.at.toISOString()),
          // NUL cannot be stored in a text column.
          batch.map((l) => l.line.replaceAll('\u0000', '')),
        ],
      )
      .then(
        () => {
          const ids = new Set(batch.map((l) => l.deploymentId));
          for (const listener of this.#storedListeners) listener(ids);
        },
        async (error: { code?: string }) => {
          let kept = batch;
          if (error.code === '23503') {
            // Lines of deployments deleted meanwhile (their project went): those are dropped, the rest written.
            const ids = [...new Set(batch.map((l) => l.deploymentId))];
            const existing = await this.pool
              .query<{ id: number }>('SELECT id FROM deployments WHERE id = ANY($1::int[])', [ids])
              .then((r) => new Set(r.rows.map((row) => row.id)))
              .catch(() => null);
            if (existing) kept = batch.filter((l) => existing.has(l.deploymentId));
          }
          // A database away: keep what waits, and try again.
          this.#buffer = [...kept, ...this.#buffer].slice(0, MAX_BUFFERED);
          if (this.#buffer.length > 0) this.#timer ??= setTimeout(() => void this.flush(), 1000);
        },
      );
    await this.#flushing;
    this.#flushing = undefined;
  }

  async close(): Promise<void> {
    await this.flush();
    clearTimeout(this.#timer);
  }
}

const writers = new WeakMap<pg.Pool, DeploymentLogWriter>();

/** The platform's one writer (per database pool). */
export function deploymentLogWriter(pool: pg.Pool): DeploymentLogWriter {
  let writer = writers.get(pool);
  if (!writer) {
    writer = new DeploymentLogWriter(pool);
    writers.set(pool, writer);
  }
  return writer;
}
