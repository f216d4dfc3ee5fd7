import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { AppContext } from '../context';
import type { Db } from '../db/client';
import { afterCommit } from '../db/request-transaction';

/*
 * Queues and what a handler sees. A module defines its queues in its `jobs.ts`; the composition
 * root (src/platform-jobs.ts) lists them for the runtime, which runs them on every node.
 */

/** What a running job's handler gets besides its payload. */
export type RunningJob = {
  id: number;
  queue: string;
  /** 1 for the first run; a run cut short by a stop is not counted. */
  attempt: number;
  maxAttempts: number;
  /** The node running it (host:pid:random), the same in every log line of this run. */
  nodeId: string;
  /** The node's context: handlers use ctx.db outside any request transaction. */
  ctx: AppContext;
  /** Aborts when the job is cancelled, its lease is lost, or the platform stops: stop soon after. */
  signal: AbortSignal;
  /** True once a cancellation was requested (the signal then aborted with a JobCancelledError). */
  readonly cancelled: boolean;
  /** Appends a line to the job's stored log (streamed to the console over SSE). */
  log(message: string, level?: 'info' | 'warn' | 'error'): Promise<void>;
};

export type QueueOptions<Schema extends z.ZodType> = {
  /** Dotted, area first: `notifications.deliver`, `deployments.build`. */
  name: string;
  payload: Schema;
  // Method syntax on purpose: it lets a Queue<Schema> stand in a list of Queue (checked bivariantly).
  handler(payload: z.output<Schema>, job: RunningJob): Promise<void>;
  /** Runs allowed in all (default 3): a failed run is retried after backoff until then. */
  maxAttempts?: number;
  /** Retry delay: base, 2x base, 4x base... up to max (defaults 1 s and 1 h). */
  backoff?: { baseMs: number; maxMs: number };
  /** How long a claim lasts without renewal (the runtime renews it while the job runs). Default: JOB_LEASE_SECONDS. */
  leaseMs?: (ctx: AppContext) => number;
  /** Jobs of this queue one node runs at once (default 4). */
  concurrency?: number;
};

export type Queue<Schema extends z.ZodType = z.ZodType> = Required<Omit<QueueOptions<Schema>, 'leaseMs'>> &
  Pick<QueueOptions<Schema>, 'leaseMs'>;

export function defineQueue<Schema extends z.ZodType>(options: QueueOptions<Schema>): Queue<Schema> {
  return {
    maxAttempts: 3,
    backoff: { baseMs: 1000, maxMs: 3600_000 },
    concurrency: 4,
    ...options,
  };
}

/** Thrown by a handler to run the job again at `at`; `counted: false` gives the attempt back. */
export class RetryJob extends Error {
  constructor(
    readonly at: Date,
    readonly counted = true,
    message = 'retry requested',
  ) {
    super(message);
  }
}

/** The abort reason of a job whose cancellation was requested. */
export class JobCancelledError extends Error {
  constructor() {
    super('Cancelled');
  }
}

export type EnqueueOptions = {
  /** While a job with this key is pending or running in the queue, enqueueing it again returns that job. */
  singletonKey?: string;
  runAt?: Date;
  delayMs?: number;
  maxAttempts?: number;
  /** Enqueue inside this transaction (it becomes visible when that commits). Default: ctx.db. */
  tx?: Db;
  /** False when the caller wakes the workers itself (with wakeQueue) once its own transaction committed. */
  wake?: boolean;
};

export type Enqueued = { id: number; created: boolean };

type Waker = { wake(queue: string, at?: Date): void };
const wakers = new WeakMap<object, Set<Waker>>();

/** For the runtime: enqueues on this pool wake it. */
export function registerWaker(pool: object, waker: Waker): () => void {
  let set = wakers.get(pool);
  if (!set) {
    set = new Set();
    wakers.set(pool, set);
  }
  set.add(waker);
  return () => set.delete(waker);
}

/**
 * Queues a job. The payload is checked against the queue's schema here, so a bad payload fails
 * the caller, not a worker later. Inside a request the job exists once the request commits; the
 * local workers are woken then (other nodes find it at their next poll).
 */
export async function enqueue<Schema extends z.ZodType>(
  ctx: AppContext,
  queue: Queue<Schema>,
  payload: z.input<Schema>,
  options: EnqueueOptions = {},
): Promise<Enqueued> {
  const parsed = queue.payload.parse(payload);
  const db = options.tx ?? ctx.db;
  const runAt = options.runAt ?? (options.delayMs ? new Date(Date.now() + options.delayMs) : undefined);
  const key = options.singletonKey ?? null;
  const inserted = await db.execute<{ id: number }>(
    sql`INSERT INTO jobs (queue, payload, singleton_key, max_attempts, run_at)
        VALUES (${queue.name}, ${JSON.stringify(parsed)}::jsonb, ${key}, ${options.maxAttempts ?? queue.maxAttempts},
                coalesce(${runAt?.toISOString() ?? null}::timestamptz, clock_timestamp()))
        ON CONFLICT (queue, singleton_key) WHERE singleton_key IS NOT NULL AND status IN ('pending', 'running') DO NOTHING
        RETURNING id`,
  );
  let result: Enqueued;
  const created = inserted.rows[0];
  if (created) {
    result = { id: Number(created.id), created: true };
  } else {
    const existing = await db.execute<{ id: number }>(
      sql`SELECT id FROM jobs WHERE queue = ${queue.name} AND singleton_key = ${key} AND status IN ('pending', 'running') LIMIT 1`,
    );
    const found = existing.rows[0];
    // Finished between the conflict and this read: a rare race, worth one more try.
    if (!found) return enqueue(ctx, queue, payload, options);
    result = { id: Number(found.id), created: false };
  }
  if (result.created && options.wake !== false) wakeQueue(ctx, queue, runAt);
  return result;
}

/** Wakes this node's workers of `queue` once the calling request commits (at once outside a request). */
export function wakeQueue(ctx: AppContext, queue: Queue, at?: Date): void {
  afterCommit(() => {
    for (const waker of wakers.get(ctx.pool) ?? []) waker.wake(queue.name, at);
  });
}

/**
 * Cancels a job: a pending one at once; a running one is asked to stop (its handler's signal
 * aborts within a heartbeat) and is recorded cancelled when it returns. Null for an unknown id.
 */
export async function cancelJob(ctx: AppContext, id: number): Promise<{ status: string } | null> {
  const rows = await ctx.db.execute<{ status: string }>(
    sql`UPDATE jobs SET cancel_requested_at = coalesce(cancel_requested_at, clock_timestamp()),
          status = CASE WHEN status = 'pending' THEN 'cancelled' ELSE status END,
          finished_at = CASE WHEN status = 'pending' THEN clock_timestamp() ELSE finished_at END,
          last_error = CASE WHEN status = 'pending' THEN 'Cancelled' ELSE last_error END,
          updated_at = clock_timestamp()
        WHERE id = ${id} AND status IN ('pending', 'running')
        RETURNING status`,
  );
  const changed = rows.rows[0];
  if (changed) return changed;
  const existing = await ctx.db.execute<{ status: string }>(sql`SELECT status FROM jobs WHERE id = ${id}`);
  return existing.rows[0] ?? null;
}

/** Appends a line to a job's log (outside any request transaction: a log line is never rolled back). */
export async function appendJobLog(
  ctx: AppContext,
  jobId: number,
  message: string,
  level: 'info' | 'warn' | 'error' = 'info',
): Promise<void> {
  await ctx.pool.query('INSERT INTO job_logs (job_id, level, message) VALUES ($1, $2, $3)', [jobId, level, message]);
}
