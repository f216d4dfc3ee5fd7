import { sql } from 'drizzle-orm';
import { bigserial, boolean, check, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { environments } from '../environments/schema';

/**
 * A cron job: GET `path` on the environment's live deployment on `schedule` (croner, UTC). Jobs
 * from `launchbay.json` are replaced by each deployment that goes live; console ones stay.
 */
export const cronJobs = pgTable(
  'cron_jobs',
  {
    id: serial('id').primaryKey(),
    environmentId: integer('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    schedule: text('schedule').notNull(),
    source: text('source').notNull().default('console'),
    enabled: boolean('enabled').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('cron_jobs_environment').on(t.environmentId),
    check('cron_jobs_source_check', sql`${t.source} IN ('console', 'launchbay.json')`),
  ],
);

/**
 * One run of a cron job. (cron_id, scheduled_for) is unique: of several platform nodes firing the
 * same tick, the one whose insert lands runs it; the others find the row and do nothing.
 */
export const cronExecutions = pgTable(
  'cron_executions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    cronId: integer('cron_id')
      .notNull()
      .references(() => cronJobs.id, { onDelete: 'cascade' }),
    scheduledFor: timestamp('scheduled_for', { withTimezone: true }).notNull(),
    trigger: text('trigger').notNull().default('schedule'),
    status: text('status').notNull(),
    deploymentId: integer('deployment_id'),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms'),
    responseBody: text('response_body'),
    error: text('error'),
  },
  (t) => [
    uniqueIndex('cron_executions_tick').on(t.cronId, t.scheduledFor),
    index('cron_executions_cron').on(t.cronId, t.id),
    check('cron_executions_status_check', sql`${t.status} IN ('running', 'succeeded', 'failed', 'skipped')`),
    check('cron_executions_trigger_check', sql`${t.trigger} IN ('schedule', 'manual')`),
  ],
);
