import { Cron } from 'croner';
import { z } from 'zod';
import type { AppContext } from '../context';
import { defineQueue, type Queue, type RunningJob } from './queue';

/*
 * Cron schedules, once per tick across all nodes. Each schedule has a row holding its next run;
 * every node looks at due rows each poll, and the one whose compare-and-set moves next_run_at
 * forward enqueues the tick (with the schedule's name as singleton key, so a slow run never
 * piles up behind itself). Times come from the database clock, so node clocks may differ.
 */

export type Schedule = {
  /** Unique across the platform: `auth.sweep`. */
  name: string;
  /** Croner syntax: 5 fields, or 6 with seconds first. Read in UTC. */
  cron: string;
  queue: Queue;
  payload: unknown;
};

export function defineSchedule<Schema extends z.ZodType>(schedule: {
  name: string;
  cron: string;
  queue: Queue<Schema>;
  payload: z.input<Schema>;
}): Schedule {
  nextTick(schedule.cron, new Date()); // a bad pattern fails at definition, not at the first tick
  return schedule as Schedule;
}

/**
 * A recurring chore without a payload (retention, sweeps): its queue and its schedule, defined
 * together. `run` does the work and answers the line for the job's log; one attempt per tick.
 */
export function definePeriodicTask(task: { name: string; cron: string; run(job: RunningJob): Promise<string> }): {
  queue: Queue;
  schedule: Schedule;
} {
  const queue = defineQueue({
    name: task.name,
    payload: z.object({}),
    maxAttempts: 1,
    async handler(_payload, job) {
      await job.log(await task.run(job));
    },
  });
  return { queue, schedule: defineSchedule({ name: task.name, cron: task.cron, queue, payload: {} }) };
}

export function nextTick(cron: string, after: Date): Date {
  // A fixed UTC offset instead of timezone 'UTC': the same ticks without Intl, whose time-zone data costs
  // the process about 8 MB of memory for good.
  const next = new Cron(cron, { utcOffset: 0 }).nextRun(after);
  if (!next) throw new Error(`The cron pattern "${cron}" never fires`);
  return next;
}

/** Adds schedules this node knows and the database does not; a changed pattern restarts its timing. */
export async function syncSchedules(ctx: AppContext, schedules: Schedule[]): Promise<void> {
  const now = await dbNow(ctx);
  for (const schedule of schedules) {
    await ctx.pool.query(
      `INSERT INTO job_schedules (name, cron, next_run_at) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET cron = excluded.cron, next_run_at = excluded.next_run_at, updated_at = clock_timestamp()
       WHERE job_schedules.cron <> excluded.cron`,
      [schedule.name, schedule.cron, nextTick(schedule.cron, now).toISOString()],
    );
  }
}

async function dbNow(ctx: AppContext): Promise<Date> {
  const { rows } = await ctx.pool.query<{ now: Date }>('SELECT clock_timestamp() AS now');
  return new Date(rows[0]?.now ?? Date.now());
}

/** Enqueues the due ticks this node wins; returns the queues it enqueued into. */
export async function tickSchedules(ctx: AppContext, schedules: Schedule[]): Promise<string[]> {
  const due = await ctx.pool.query<{ name: string; next_run_at: Date; now: Date }>(
    `SELECT name, next_run_at, clock_timestamp() AS now FROM job_schedules
     WHERE name = ANY($1::text[]) AND next_run_at <= clock_timestamp()`,
    [schedules.map((s) => s.name)],
  );
  const enqueued: string[] = [];
  for (const row of due.rows) {
    const schedule = schedules.find((s) => s.name === row.name);
    if (!schedule) continue;
    // Missed ticks (all nodes were down) are not caught up: the next tick is the next one from now.
    const next = nextTick(schedule.cron, new Date(row.now));
    const client = await ctx.pool.connect();
    try {
      await client.query('BEGIN');
      const won = await client.query(
        `UPDATE job_schedules SET next_run_at = $2, last_run_at = $3, updated_at = clock_timestamp()
         WHERE name = $1 AND next_run_at = $3`,
        [row.name, next.toISOString(), new Date(row.next_run_at).toISOString()],
      );
      if (won.rowCount === 1) {
        const tick = new Date(row.next_run_at).toISOString();
        const job = await client.query<{ id: number }>(
          `INSERT INTO jobs (queue, payload, singleton_key, max_attempts) VALUES ($1, $2::jsonb, $3, $4)
           ON CONFLICT (queue, singleton_key) WHERE singleton_key IS NOT NULL AND status IN ('pending', 'running') DO NOTHING
           RETURNING id`,
          [
            schedule.queue.name,
            JSON.stringify(schedule.queue.payload.parse(schedule.payload)),
            `schedule:${schedule.name}`,
            schedule.queue.maxAttempts,
          ],
        );
        const jobId = job.rows[0]?.id;
        if (jobId !== undefined) {
          await client.query('INSERT INTO job_logs (job_id, message) VALUES ($1, $2)', [
            jobId,
            `Scheduled by ${schedule.name} for ${tick}`,
          ]);
          enqueued.push(schedule.queue.name);
        }
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
  return enqueued;
}
