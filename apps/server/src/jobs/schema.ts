import { sql } from 'drizzle-orm';
import { bigint, bigserial, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * The durable job queue, shared by every node on one database. A job is claimed with
 * FOR UPDATE SKIP LOCKED and runs under a lease its node keeps renewing; a job whose lease ran
 * out (its node died) is claimed again by any node.
 */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    queue: text('queue').notNull(),
    payload: jsonb('payload').$type<unknown>().notNull(),
    status: text('status').notNull().default('pending'),
    /** While a job with this key is pending or running in its queue, enqueueing the key again returns that job. */
    singletonKey: text('singleton_key'),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(1),
    runAt: timestamp('run_at', { withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    lockedBy: text('locked_by'),
    cancelRequestedAt: timestamp('cancel_requested_at', { withTimezone: true }),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('jobs_status_check', sql`${t.status} IN ('pending', 'running', 'succeeded', 'failed', 'cancelled')`),
    uniqueIndex('jobs_singleton_idx')
      .on(t.queue, t.singletonKey)
      .where(sql`${t.singletonKey} IS NOT NULL AND ${t.status} IN ('pending', 'running')`),
    index('jobs_due_idx').on(t.runAt).where(sql`${t.status} = 'pending'`),
    index('jobs_lease_idx').on(t.leaseUntil).where(sql`${t.status} = 'running'`),
    index('jobs_finished_idx').on(t.finishedAt),
  ],
);

/** A job's log, one row per line; the row id is the SSE event id a reader resumes from. */
export const jobLogs = pgTable(
  'job_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    jobId: bigint('job_id', { mode: 'number' })
      .notNull()
      .references(() => jobs.id, { onDelete: 'cascade' }),
    level: text('level').notNull().default('info'),
    message: text('message').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('job_logs_job_idx').on(t.jobId, t.id)],
);

/**
 * One row per cron schedule: the node that moves `next_run_at` forward (a compare-and-set) is
 * the one that enqueues the tick, so each tick runs once across all nodes.
 */
export const jobSchedules = pgTable('job_schedules', {
  name: text('name').primaryKey(),
  cron: text('cron').notNull(),
  nextRunAt: timestamp('next_run_at', { withTimezone: true }).notNull(),
  lastRunAt: timestamp('last_run_at', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
