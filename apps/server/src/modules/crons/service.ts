import http from 'node:http';
import type { CreateCronJobRequest, CronExecution, CronJob, UpdateCronJobRequest } from '@launchbay/contract';
import { Cron } from 'croner';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { afterCommit } from '../../db/request-transaction';
import type { CronSpec } from '../../engine/pipeline/build-plan';
import { conflict, notFound, validationError } from '../../lib/errors';
import { toIso, toIsoOrNull } from '../../lib/time';
import { environmentHosts, getEnvironmentRow } from '../environments/service';
import { publishAlert } from '../notifications/service';
import { getProjectRow } from '../projects/service';
import { cronExecutions, cronJobs } from './schema';

export type CronJobRow = typeof cronJobs.$inferSelect;
export type CronExecutionRow = typeof cronExecutions.$inferSelect;

/** How long a scheduled call may take; the first KB of its answer is kept. */
export const CRON_TIMEOUT_MS = 30_000;
const RESPONSE_BYTES = 1024;
/** A `running` execution older than this was left by a node that stopped: it no longer blocks the next. */
const STALE_RUNNING_MS = CRON_TIMEOUT_MS + 60_000;

/** The next tick of a pattern after `after` (UTC), or null for one that never fires again. */
export function nextCronRun(schedule: string, after: Date): Date | null {
  try {
    // A fixed UTC offset, like the job runtime's schedules: no Intl time-zone data in memory.
    return new Cron(schedule, { utcOffset: 0, paused: true }).nextRun(after);
  } catch {
    return null;
  }
}

/** Why croner refuses a pattern (the contract checked only its shape), or null. */
function scheduleProblem(schedule: string): string | null {
  try {
    const next = new Cron(schedule, { utcOffset: 0, paused: true }).nextRun();
    return next ? null : 'This schedule never fires';
  } catch (error) {
    return `Not a valid cron expression: ${(error as Error).message}`;
  }
}

export function toCronExecution(row: CronExecutionRow): CronExecution {
  return {
    id: row.id,
    cron_id: row.cronId,
    scheduled_for: toIso(row.scheduledFor),
    started_at: toIsoOrNull(row.startedAt),
    finished_at: toIsoOrNull(row.finishedAt),
    status: row.status as CronExecution['status'],
    status_code: row.statusCode,
    duration_ms: row.durationMs,
    response_body: row.responseBody,
    error: row.error,
    deployment_id: row.deploymentId,
    trigger: row.trigger as CronExecution['trigger'],
  };
}

async function lastExecutions(ctx: AppContext, cronIds: number[]): Promise<Map<number, CronExecutionRow>> {
  if (cronIds.length === 0) return new Map();
  const rows = await ctx.db
    .selectDistinctOn([cronExecutions.cronId])
    .from(cronExecutions)
    .where(inArray(cronExecutions.cronId, cronIds))
    .orderBy(cronExecutions.cronId, desc(cronExecutions.id));
  return new Map(rows.map((row) => [row.cronId, row]));
}

function toCronJob(row: CronJobRow, projectId: number, last: CronExecutionRow | undefined): CronJob {
  return {
    id: row.id,
    project_id: projectId,
    environment_id: row.environmentId,
    path: row.path,
    schedule: row.schedule,
    source: row.source as CronJob['source'],
    enabled: row.enabled,
    next_run_at: row.enabled ? toIsoOrNull(nextCronRun(row.schedule, new Date())) : null,
    last_execution: last ? toCronExecution(last) : null,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

export async function listCronJobs(ctx: AppContext, projectId: number, environmentId: number): Promise<CronJob[]> {
  await getEnvironmentRow(ctx, projectId, environmentId);
  const rows = await ctx.db.select().from(cronJobs).where(eq(cronJobs.environmentId, environmentId)).orderBy(cronJobs.id);
  const last = await lastExecutions(
    ctx,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toCronJob(row, projectId, last.get(row.id)));
}

export async function getCronJobRow(
  ctx: AppContext,
  projectId: number,
  environmentId: number,
  cronId: number,
): Promise<CronJobRow> {
  await getEnvironmentRow(ctx, projectId, environmentId);
  const [row] = await ctx.db
    .select()
    .from(cronJobs)
    .where(and(eq(cronJobs.id, cronId), eq(cronJobs.environmentId, environmentId)))
    .limit(1);
  if (!row) throw notFound(`Cron job ${cronId} not found in this environment`);
  return row;
}

export async function getCronJob(ctx: AppContext, projectId: number, row: CronJobRow): Promise<CronJob> {
  const last = await lastExecutions(ctx, [row.id]);
  return toCronJob(row, projectId, last.get(row.id));
}

export async function createCronJob(
  ctx: AppContext,
  projectId: number,
  environmentId: number,
  body: CreateCronJobRequest,
): Promise<CronJob> {
  await getEnvironmentRow(ctx, projectId, environmentId);
  const problem = scheduleProblem(body.schedule);
  if (problem) throw validationError([{ path: 'schedule', message: problem }]);
  const [row] = await ctx.db
    .insert(cronJobs)
    .values({ environmentId, path: body.path, schedule: body.schedule, enabled: body.enabled ?? true, source: 'console' })
    .returning();
  afterCommit(() => notifyCronsChanged(ctx));
  return toCronJob(row as CronJobRow, projectId, undefined);
}

export async function updateCronJob(
  ctx: AppContext,
  projectId: number,
  row: CronJobRow,
  body: UpdateCronJobRequest,
): Promise<CronJob> {
  if (row.source === 'launchbay.json' && (body.path !== undefined || body.schedule !== undefined)) {
    throw conflict("This cron job comes from the app's launchbay.json: change it there and redeploy", [
      { path: body.schedule !== undefined ? 'schedule' : 'path', message: 'Set by launchbay.json' },
    ]);
  }
  if (body.schedule !== undefined) {
    const problem = scheduleProblem(body.schedule);
    if (problem) throw validationError([{ path: 'schedule', message: problem }]);
  }
  const [updated] = await ctx.db
    .update(cronJobs)
    .set({ ...body, updatedAt: new Date() })
    .where(eq(cronJobs.id, row.id))
    .returning();
  afterCommit(() => notifyCronsChanged(ctx));
  return getCronJob(ctx, projectId, updated as CronJobRow);
}

export async function deleteCronJob(ctx: AppContext, row: CronJobRow): Promise<void> {
  if (row.source === 'launchbay.json') {
    throw conflict("This cron job comes from the app's launchbay.json: remove it there and redeploy (or disable it here)");
  }
  await ctx.db.delete(cronJobs).where(eq(cronJobs.id, row.id));
  afterCommit(() => notifyCronsChanged(ctx));
}

export async function listCronExecutions(
  ctx: AppContext,
  cronId: number,
  page: number,
  perPage: number,
): Promise<{ executions: CronExecution[]; total: number }> {
  const rows = await ctx.db
    .select()
    .from(cronExecutions)
    .where(eq(cronExecutions.cronId, cronId))
    .orderBy(desc(cronExecutions.id))
    .limit(perPage)
    .offset((page - 1) * perPage);
  const [count] = await ctx.db
    .select({ total: sql<number>`count(*)::int` })
    .from(cronExecutions)
    .where(eq(cronExecutions.cronId, cronId));
  return { executions: rows.map(toCronExecution), total: count?.total ?? 0 };
}

/**
 * The `launchbay.json` crons of the deployment that just went live become the environment's:
 * kept ones (same path and schedule) keep their history and their enabled switch, the others go.
 */
export async function syncLaunchbayCrons(ctx: AppContext, environmentId: number, crons: readonly CronSpec[]): Promise<void> {
  const existing = await ctx.db
    .select()
    .from(cronJobs)
    .where(and(eq(cronJobs.environmentId, environmentId), eq(cronJobs.source, 'launchbay.json')));
  const wanted = new Map(crons.map((cron) => [`${cron.schedule} ${cron.path}`, cron]));
  const stale = existing.filter((row) => !wanted.delete(`${row.schedule} ${row.path}`));
  if (stale.length > 0) {
    await ctx.db.delete(cronJobs).where(
      inArray(
        cronJobs.id,
        stale.map((row) => row.id),
      ),
    );
  }
  if (wanted.size > 0) {
    await ctx.db.insert(cronJobs).values(
      [...wanted.values()].map((cron) => ({
        environmentId,
        path: cron.path,
        schedule: cron.schedule,
        source: 'launchbay.json',
      })),
    );
  }
  if (stale.length > 0 || wanted.size > 0) notifyCronsChanged(ctx);
}

// --- running them --------------------------------------------------------------------------

const listeners = new WeakMap<AppContext, Set<() => void>>();

/** The node's scheduler listens here: a change made on this node takes effect at once. */
export function onCronsChanged(ctx: AppContext, listener: () => void): () => void {
  const set = listeners.get(ctx) ?? new Set<() => void>();
  listeners.set(ctx, set);
  set.add(listener);
  return () => set.delete(listener);
}

function notifyCronsChanged(ctx: AppContext): void {
  for (const listener of listeners.get(ctx) ?? []) listener();
}

/** The crons a node schedules: enabled ones whose environment has a live deployment or may get one. */
export async function listEnabledCrons(ctx: AppContext): Promise<Pick<CronJobRow, 'id' | 'schedule' | 'updatedAt'>[]> {
  return ctx.db
    .select({ id: cronJobs.id, schedule: cronJobs.schedule, updatedAt: cronJobs.updatedAt })
    .from(cronJobs)
    .where(eq(cronJobs.enabled, true));
}

/**
 * Records an execution for one tick of a cron job, unless another node already did. It is
 * `running` (the caller runs it), or `skipped` when the job is disabled, its environment has no
 * live deployment, or its previous execution is still running (never two at once). Null: another
 * node took this tick, or the job is gone.
 */
export async function claimCronExecution(
  ctx: AppContext,
  cronId: number,
  scheduledFor: Date,
  trigger: 'schedule' | 'manual',
): Promise<CronExecutionRow | null> {
  return ctx.db.transaction(async (tx) => {
    // One claimer per cron job at a time (on every node): the "still running" check and the insert are atomic.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(7226354, ${cronId})`);
    const found = await tx.execute<{ enabled: boolean; current_deployment_id: number | null }>(
      sql`SELECT c.enabled, e.current_deployment_id FROM cron_jobs c JOIN environments e ON e.id = c.environment_id
          WHERE c.id = ${cronId}`,
    );
    const job = found.rows[0];
    if (!job) return null;
    const staleBefore = new Date(Date.now() - STALE_RUNNING_MS);
    await tx
      .update(cronExecutions)
      .set({ status: 'failed', finishedAt: new Date(), error: 'The platform node running it stopped before it finished' })
      .where(
        and(
          eq(cronExecutions.cronId, cronId),
          eq(cronExecutions.status, 'running'),
          sql`${cronExecutions.startedAt} < ${staleBefore.toISOString()}`,
        ),
      );
    const [running] = await tx
      .select({ id: cronExecutions.id })
      .from(cronExecutions)
      .where(and(eq(cronExecutions.cronId, cronId), eq(cronExecutions.status, 'running')))
      .limit(1);
    const skip = !job.enabled
      ? 'The cron job is disabled'
      : job.current_deployment_id === null
        ? 'The environment has no live deployment'
        : running
          ? `The previous execution (${running.id}) is still running`
          : null;
    const now = new Date();
    const [row] = await tx
      .insert(cronExecutions)
      .values({
        cronId,
        scheduledFor,
        trigger,
        status: skip ? 'skipped' : 'running',
        deploymentId: job.current_deployment_id,
        startedAt: skip ? null : now,
        finishedAt: skip ? now : null,
        error: skip,
      })
      .onConflictDoNothing()
      .returning();
    return row ?? null;
  });
}

/** One GET to the live deployment through the edge, as a visitor's request would arrive. */
function callThroughEdge(port: number, host: string, path: string): Promise<{ statusCode: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      {
        host: '127.0.0.1',
        port,
        path,
        agent: false,
        headers: { host, 'user-agent': 'Launchbay-Cron/1', 'x-launchbay-cron': '1' },
        timeout: CRON_TIMEOUT_MS,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        response.on('end', () =>
          resolve({
            statusCode: response.statusCode ?? 0,
            body: Buffer.concat(chunks).subarray(0, RESPONSE_BYTES).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`No answer within ${CRON_TIMEOUT_MS / 1000} s`)));
    request.on('error', reject);
  });
}

/** Runs a claimed execution: the call, its outcome, and the alert when it failed. */
export async function runCronExecution(ctx: AppContext, execution: CronExecutionRow): Promise<CronExecutionRow> {
  const started = Date.now();
  let statusCode: number | null = null;
  let body: string | null = null;
  let error: string | null = null;
  const [job] = await ctx.db.select().from(cronJobs).where(eq(cronJobs.id, execution.cronId));
  let projectName = '';
  let projectId: number | null = null;
  let environmentName = '';
  try {
    if (!job) throw new Error('The cron job was deleted');
    const [environment] = await ctx.db
      .execute<{ project_id: number; slug: string; is_production: boolean; name: string; host_label: string | null }>(
        sql`SELECT project_id, slug, is_production, name, host_label FROM environments WHERE id = ${job.environmentId}`,
      )
      .then((result) => result.rows);
    if (!environment) throw new Error('The environment is gone');
    const project = await getProjectRow(ctx, environment.project_id);
    projectName = project.name;
    projectId = project.id;
    environmentName = environment.name;
    const [host] = await environmentHosts(ctx, project.slug, {
      slug: environment.slug,
      isProduction: environment.is_production,
      hostLabel: environment.host_label,
    });
    const answer = await callThroughEdge(ctx.edge.port(), host as string, job.path);
    statusCode = answer.statusCode;
    body = answer.body;
    if (statusCode >= 400) error = `The app answered ${statusCode}`;
  } catch (caught) {
    error = (caught as Error).message;
  }
  const [row] = await ctx.db
    .update(cronExecutions)
    .set({
      status: error ? 'failed' : 'succeeded',
      finishedAt: new Date(),
      durationMs: Date.now() - started,
      statusCode,
      responseBody: body,
      error,
    })
    .where(eq(cronExecutions.id, execution.id))
    .returning();
  if (error && job) {
    await publishAlert(ctx, {
      type: 'cron_failed',
      severity: 'warning',
      title: `${projectName || 'A project'}: cron job ${job.path} failed`,
      message: `${error}\n\nSchedule ${job.schedule} on ${environmentName || 'its environment'}; execution ${execution.id}.`,
      group_key: `cron:${job.id}`,
      project_id: projectId ?? undefined,
      data: { cron_id: job.id, execution_id: execution.id, status_code: statusCode },
    }).catch(() => undefined);
  }
  return row ?? execution;
}
