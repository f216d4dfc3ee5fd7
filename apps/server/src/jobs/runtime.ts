import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import type { AppContext } from '../context';
import { outsideRequestTransaction } from '../db/request-transaction';
import { appendJobLog, JobCancelledError, type Queue, RetryJob, type RunningJob, registerWaker } from './queue';
import { nextTick, type Schedule, syncSchedules, tickSchedules } from './schedule';

/*
 * The worker of one node. Every JOB_POLL_MS (and when woken by an enqueue on this node) it
 * enqueues due schedule ticks, then claims due jobs of its queues with FOR UPDATE SKIP LOCKED
 * under a lease. A poll that finds nothing doubles the wait, up to JOB_IDLE_POLL_MS; a timer
 * still wakes it at each schedule's next tick, and any work found brings it back to JOB_POLL_MS. While jobs run it renews their leases and picks up cancellations (one query
 * per heartbeat). A job whose lease ran out — its node died — is claimed again by any node.
 */

export type JobRuntime = {
  nodeId: string;
  /** Look for due jobs now. */
  kick(): void;
  /** Look again at `at`, besides the regular polling. */
  wakeAt(at: Date): void;
  /** Stops claiming; lets running jobs finish for 3 s, then aborts them (they go back to the queue, uncounted). */
  stop(): Promise<void>;
};

type Claimed = { id: number; queue: string; payload: unknown; attempts: number; max_attempts: number };

type Running = { job: Claimed; abort: AbortController; cancelled: boolean; lost: boolean; done: Promise<void> };

class PlatformStopping extends Error {
  constructor() {
    super('the platform is stopping');
  }
}
class LeaseLost extends Error {
  constructor() {
    super('the lease was taken over by another node');
  }
}

const STOP_GRACE_MS = 3_000;

export function startJobRuntime(
  ctx: AppContext,
  logger: Pick<Logger, 'warn' | 'error'>,
  definitions: { queues: Queue[]; schedules?: Schedule[] },
): JobRuntime {
  // Background work never follows the request transaction of whoever started the runtime.
  return outsideRequestTransaction(() => createRuntime(ctx, logger, definitions));
}

function createRuntime(
  ctx: AppContext,
  logger: Pick<Logger, 'warn' | 'error'>,
  { queues, schedules = [] }: { queues: Queue[]; schedules?: Schedule[] },
): JobRuntime {
  const nodeId = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const byName = new Map(queues.map((q) => [q.name, q]));
  const leaseSeconds = (queue: Queue) => (queue.leaseMs?.(ctx) ?? ctx.config.jobLeaseMs) / 1000;
  const leaseSecondsOf = (name: string | undefined) => {
    const queue = name === undefined ? undefined : byName.get(name);
    return queue ? leaseSeconds(queue) : ctx.config.jobLeaseMs / 1000;
  };
  const shortestLeaseMs = Math.min(ctx.config.jobLeaseMs, ...queues.map((q) => leaseSeconds(q) * 1000));
  const heartbeatMs = Math.max(100, Math.min(1000, Math.floor(shortestLeaseMs / 3)));
  const running = new Map<number, Running>();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  let ticking: Promise<void> | undefined;
  let again = false;
  /** The current wait between polls: JOB_POLL_MS while there is work, doubling up to JOB_IDLE_POLL_MS. */
  let pollMs = ctx.config.jobPollMs;
  /** Set by a tick that found due jobs or enqueued schedule ticks. */
  let foundWork = false;
  let scheduleTimer: NodeJS.Timeout | undefined;
  let schedulesReady: Promise<void> | undefined = schedules.length > 0 ? syncSchedules(ctx, schedules) : Promise.resolve();

  const inflightOf = (queue: string) => [...running.values()].filter((r) => r.job.queue === queue).length;

  /** Claims up to `limit` due jobs of one queue; a dead node's job with no attempt left is failed instead. */
  async function claim(queue: Queue, limit: number): Promise<Claimed[]> {
    const client = await ctx.pool.connect();
    try {
      await client.query('BEGIN');
      const dead = await client.query<{ id: number }>(
        `WITH dead AS (
           SELECT id FROM jobs WHERE queue = $1 AND status = 'running' AND lease_until < clock_timestamp()
             AND (attempts >= max_attempts OR cancel_requested_at IS NOT NULL)
           FOR UPDATE SKIP LOCKED
         )
         UPDATE jobs j SET status = CASE WHEN j.cancel_requested_at IS NULL THEN 'failed' ELSE 'cancelled' END,
           last_error = CASE WHEN j.cancel_requested_at IS NULL
             THEN 'The node running it stopped, and no attempt is left' ELSE 'Cancelled' END,
           lease_until = NULL, locked_by = NULL, finished_at = clock_timestamp(), updated_at = clock_timestamp()
         FROM dead WHERE j.id = dead.id RETURNING j.id`,
        [queue.name],
      );
      const claimed = await client.query<Claimed>(
        `WITH due AS (
           SELECT id FROM jobs
           WHERE queue = $1 AND ((status = 'pending' AND run_at <= clock_timestamp())
              OR (status = 'running' AND lease_until < clock_timestamp()))
           ORDER BY run_at, id LIMIT $2
           FOR UPDATE SKIP LOCKED
         )
         UPDATE jobs j SET status = 'running', attempts = j.attempts + 1, locked_by = $3,
           lease_until = clock_timestamp() + make_interval(secs => $4::double precision),
           started_at = coalesce(j.started_at, clock_timestamp()), updated_at = clock_timestamp()
         FROM due WHERE j.id = due.id
         RETURNING j.id, j.queue, j.payload, j.attempts, j.max_attempts`,
        [queue.name, limit, nodeId, leaseSeconds(queue)],
      );
      await client.query('COMMIT');
      for (const row of dead.rows) {
        await appendJobLog(ctx, Number(row.id), 'The node running this job stopped; no attempt is left', 'error');
      }
      return claimed.rows.map((row) => ({ ...row, id: Number(row.id) }));
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Writes a run's outcome, only if this node still holds the job (its lease may have been taken over). */
  async function finish(job: Claimed, set: string, values: unknown[]): Promise<boolean> {
    const updated = await ctx.pool.query(
      `UPDATE jobs SET ${set}, lease_until = NULL, locked_by = NULL, updated_at = clock_timestamp()
       WHERE id = $1 AND status = 'running' AND locked_by = $2 AND attempts = $3`,
      [job.id, nodeId, job.attempts, ...values],
    );
    if (updated.rowCount === 0) {
      logger.warn({ job: job.id, queue: job.queue }, 'job was taken over by another node before its outcome was written');
      return false;
    }
    return true;
  }

  async function run(queue: Queue, job: Claimed, entry: Running) {
    const log = (message: string, level: 'info' | 'warn' | 'error' = 'info') => appendJobLog(ctx, job.id, message, level);
    const handle: RunningJob = {
      id: job.id,
      queue: job.queue,
      attempt: job.attempts,
      maxAttempts: job.max_attempts,
      nodeId,
      ctx,
      signal: entry.abort.signal,
      get cancelled() {
        return entry.cancelled;
      },
      log,
    };
    try {
      const payload = queue.payload.safeParse(job.payload);
      if (!payload.success) {
        const detail = `The payload does not match the queue's schema: ${payload.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
        await log(detail, 'error');
        await finish(job, `status = 'failed', last_error = $4, finished_at = clock_timestamp()`, [detail]);
        return;
      }
      await queue.handler(payload.data, handle);
      if (entry.cancelled) {
        await finish(job, `status = 'cancelled', last_error = 'Cancelled', finished_at = clock_timestamp()`, []);
      } else {
        await finish(job, `status = 'succeeded', last_error = NULL, finished_at = clock_timestamp()`, []);
      }
    } catch (caught) {
      await settleFailure(queue, job, entry, caught, log);
    }
  }

  async function settleFailure(
    queue: Queue,
    job: Claimed,
    entry: Running,
    caught: unknown,
    log: (message: string, level?: 'info' | 'warn' | 'error') => Promise<void>,
  ) {
    const reason: unknown = entry.abort.signal.reason;
    if (entry.lost) return; // another node runs it now: nothing of ours to write
    if (entry.cancelled) {
      await log('Cancelled', 'warn');
      await finish(job, `status = 'cancelled', last_error = 'Cancelled', finished_at = clock_timestamp()`, []);
      return;
    }
    if (caught instanceof RetryJob) {
      await finish(job, `status = 'pending', run_at = $4, attempts = attempts - $5::int, last_error = $6`, [
        caught.at.toISOString(),
        caught.counted ? 0 : 1,
        caught.counted ? caught.message : null,
      ]);
      wakeAt(caught.at);
      return;
    }
    if (reason instanceof PlatformStopping) {
      // Stopped mid-run: the outcome is unknown, so it goes back to the queue and is not counted.
      await log('Interrupted: the platform stopped; the job will run again', 'warn');
      await finish(job, `status = 'pending', run_at = clock_timestamp(), attempts = attempts - 1`, []);
      return;
    }
    const message = caught instanceof Error ? caught.message : String(caught);
    if (job.attempts >= job.max_attempts) {
      await log(`Failed: ${message} (attempt ${job.attempts} of ${job.max_attempts}, none left)`, 'error');
      await finish(job, `status = 'failed', last_error = $4, finished_at = clock_timestamp()`, [message]);
      return;
    }
    const delay = Math.min(queue.backoff.maxMs, queue.backoff.baseMs * 2 ** (job.attempts - 1));
    const at = new Date(Date.now() + delay);
    await log(`Failed: ${message} (attempt ${job.attempts} of ${job.max_attempts}); retrying in ${delay} ms`, 'warn');
    await finish(job, `status = 'pending', run_at = $4, last_error = $5`, [at.toISOString(), message]);
    wakeAt(at);
  }

  /** Renews the leases of running jobs; aborts those cancelled or taken over. */
  async function heartbeat() {
    if (running.size === 0) return;
    const ids = [...running.keys()];
    const rows = await ctx.pool.query<{ id: number; queue: string; cancel: boolean }>(
      `UPDATE jobs j SET lease_until = clock_timestamp() + make_interval(secs => l.seconds)
       FROM unnest($1::bigint[], $2::double precision[]) AS l(id, seconds)
       WHERE j.id = l.id AND j.status = 'running' AND j.locked_by = $3
       RETURNING j.id, j.queue, j.cancel_requested_at IS NOT NULL AS cancel`,
      [ids, ids.map((id) => leaseSecondsOf(running.get(id)?.job.queue)), nodeId],
    );
    const held = new Map(rows.rows.map((r) => [Number(r.id), r.cancel]));
    // Only the jobs this heartbeat asked about: one claimed meanwhile is not in its answer.
    for (const id of ids) {
      const entry = running.get(id);
      if (!entry) continue;
      const cancel = held.get(id);
      if (cancel === undefined) {
        entry.lost = true;
        entry.abort.abort(new LeaseLost());
      } else if (cancel && !entry.cancelled) {
        entry.cancelled = true;
        entry.abort.abort(new JobCancelledError());
      }
    }
  }

  async function runTick() {
    if (schedulesReady) {
      await schedulesReady;
      schedulesReady = undefined;
    }
    if (schedules.length > 0) {
      const ticked = await tickSchedules(ctx, schedules);
      for (const queue of ticked) wake(queue);
      foundWork ||= ticked.length > 0;
    }
    // One cheap look first, so an idle node costs two queries a poll whatever the number of queues.
    const due = await ctx.pool.query<{ queue: string }>(
      `SELECT DISTINCT queue FROM jobs WHERE queue = ANY($1::text[])
         AND ((status = 'pending' AND run_at <= clock_timestamp()) OR (status = 'running' AND lease_until < clock_timestamp()))`,
      [queues.map((q) => q.name)],
    );
    const dueNames = new Set(due.rows.map((r) => r.queue));
    foundWork ||= dueNames.size > 0;
    for (const queue of queues) {
      if (!dueNames.has(queue.name)) continue;
      while (!stopped) {
        const free = queue.concurrency - inflightOf(queue.name);
        if (free <= 0) break;
        const claimed = await claim(queue, free);
        if (claimed.length === 0) break;
        for (const job of claimed) start(queue, job);
      }
    }
  }

  function start(queue: Queue, job: Claimed) {
    const entry: Running = { job, abort: new AbortController(), cancelled: false, lost: false, done: Promise.resolve() };
    entry.done = run(queue, job, entry)
      .catch((error: unknown) => logger.error({ err: error, job: job.id, queue: job.queue }, 'job outcome could not be written'))
      .finally(() => {
        running.delete(job.id);
        kick();
      });
    running.set(job.id, entry);
  }

  function tick() {
    if (stopped) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = runTick()
      .catch((error: unknown) => {
        if (!stopped) logger.error({ err: error }, 'job runtime could not claim jobs');
      })
      .finally(() => {
        ticking = undefined;
        if (again && !stopped) {
          again = false;
          setImmediate(tick);
        }
      });
  }

  function kick() {
    if (!stopped) setImmediate(tick);
  }

  function later(ms: number, work: () => void) {
    const timer = setTimeout(() => {
      timers.delete(timer);
      work();
    }, ms);
    timer.unref();
    timers.add(timer);
  }

  function wakeAt(at: Date) {
    if (stopped) return;
    const delay = Math.max(0, at.getTime() - Date.now()) + 5;
    if (delay > 10 * 60_000) return; // the poll loop covers it
    later(delay, tick);
  }

  function wake(queueName: string, at?: Date) {
    if (!byName.has(queueName)) return;
    if (at) wakeAt(at);
    else kick();
  }

  /** Wakes the node at the next tick of its schedules (one timer, moved at each poll). */
  function armScheduleTimer() {
    clearTimeout(scheduleTimer);
    if (stopped || schedules.length === 0) return;
    const now = new Date();
    const next = Math.min(...schedules.map((schedule) => nextTick(schedule.cron, now).getTime()));
    const delay = next - now.getTime() + 5;
    if (delay > 10 * 60_000) return; // the poll loop comes by before then
    scheduleTimer = setTimeout(tick, delay);
    scheduleTimer.unref();
  }

  function poll() {
    if (stopped) return;
    foundWork = false;
    tick();
    void (ticking ?? Promise.resolve()).finally(() => {
      if (stopped) return;
      pollMs = foundWork || running.size > 0 ? ctx.config.jobPollMs : Math.min(pollMs * 2, ctx.config.jobIdlePollMs);
      armScheduleTimer();
      later(pollMs, poll);
    });
  }
  function beat() {
    if (stopped) return;
    heartbeat()
      .catch((error: unknown) => logger.warn({ err: error }, 'job leases could not be renewed'))
      .finally(() => later(heartbeatMs, beat));
  }
  poll();
  later(heartbeatMs, beat);
  const unregister = registerWaker(ctx.pool, { wake });

  return {
    nodeId,
    kick,
    wakeAt,
    async stop() {
      if (stopped) return;
      stopped = true;
      unregister();
      for (const timer of timers) clearTimeout(timer);
      clearTimeout(scheduleTimer);
      await ticking;
      if (running.size > 0) {
        // Let runs in progress finish briefly, renewing their leases; then cut them short.
        const keepAlive = setInterval(() => void heartbeat().catch(() => undefined), heartbeatMs);
        const grace = new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
        await Promise.race([Promise.allSettled([...running.values()].map((r) => r.done)), grace]);
        clearInterval(keepAlive);
        for (const entry of running.values()) entry.abort.abort(new PlatformStopping());
        await Promise.allSettled([...running.values()].map((r) => r.done));
      }
    },
  };
}
