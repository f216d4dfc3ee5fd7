import { sql } from 'drizzle-orm';
import { bigint, bigserial, check, index, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { environments } from '../environments/schema';
import { projects } from '../projects/schema';

/**
 * One deployment: a commit built (or an earlier build re-used, for a rollback) and run in an
 * environment. Its status moves only through deployments/state.ts. The build output, the plan
 * and the env vars it ran with are kept, so a rollback serves it again exactly, without a build.
 */
export const deployments = pgTable(
  'deployments',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    environmentId: integer('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    status: text('status').notNull().default('queued'),
    /** What started it: create, manual, redeploy, rollback, push (a later issue), env_change. */
    trigger: text('trigger').notNull(),
    branch: text('branch').notNull(),
    /** The sha asked for (trigger-pipeline `commit`), resolved to `commitSha` by the clone. */
    requestedCommit: text('requested_commit'),
    commitSha: text('commit_sha'),
    commitMessage: text('commit_message'),
    commitAuthor: text('commit_author'),
    /** For a rollback: the deployment whose build is served again. */
    sourceDeploymentId: integer('source_deployment_id'),
    /** The resolved build plan (engine/pipeline/build-plan.ts). */
    plan: jsonb('plan').$type<Record<string, unknown>>(),
    /** The env vars the build and the processes got, sealed as one JSON object. */
    envSealed: text('env_sealed'),
    /** The kept build output on disk; null once pruned. */
    artifactDir: text('artifact_dir'),
    artifactBytes: bigint('artifact_bytes', { mode: 'number' }),
    /** Where its processes run (the runtime driver's answer: pids and ports), while they run. */
    runtime: jsonb('runtime').$type<Record<string, unknown>>(),
    jobId: bigint('job_id', { mode: 'number' }),
    error: text('error'),
    createdBy: integer('created_by'),
    queuedAt: timestamp('queued_at', { withTimezone: true }).notNull().defaultNow(),
    buildingAt: timestamp('building_at', { withTimezone: true }),
    deployingAt: timestamp('deploying_at', { withTimezone: true }),
    readyAt: timestamp('ready_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /** When it stopped taking traffic (replaced, paused or rolled away from). */
    stoppedAt: timestamp('stopped_at', { withTimezone: true }),
  },
  (t) => [
    index('deployments_project_created').on(t.projectId, t.id),
    index('deployments_environment').on(t.environmentId, t.id),
    check(
      'deployments_status_check',
      sql`${t.status} IN ('queued', 'building', 'deploying', 'ready', 'failed', 'crashed', 'cancelled', 'paused')`,
    ),
  ],
);

/** The steps of a deployment's pipeline, for its job timeline. */
export const deploymentSteps = pgTable(
  'deployment_steps',
  {
    id: serial('id').primaryKey(),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    status: text('status').notNull().default('pending'),
    detail: text('detail'),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [index('deployment_steps_deployment').on(t.deploymentId, t.id)],
);

/** Build and runtime log lines of a deployment, kept for the retention in settings. */
export const deploymentLogs = pgTable(
  'deployment_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    deploymentId: integer('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    /** build (pipeline output), stdout or stderr (a process), system (the platform's own notes). */
    stream: text('stream').notNull(),
    /** The process type for runtime lines (`web`, `worker`); null for build lines. */
    process: text('process'),
    line: text('line').notNull(),
  },
  (t) => [index('deployment_logs_deployment').on(t.deploymentId, t.id), index('deployment_logs_at').on(t.at)],
);
