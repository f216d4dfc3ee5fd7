import fs from 'node:fs';
import type { Deployment, DeploymentStatus } from '@launchbay/contract';
import { and, count, desc, eq, inArray } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { cancelJob, enqueue } from '../../jobs';
import { conflict, notFound } from '../../lib/errors';
import { toIso, toIsoOrNull } from '../../lib/time';
import { type EnvironmentRow, environmentUrl, getEnvironmentRow, listEnvironmentRows } from '../environments/service';
import type { ProjectRow } from '../projects/service';
import { publishRoutesAfterCommit } from './edge-routes';

export { publishRoutes } from './edge-routes';

import { deploymentQueue } from './jobs';
import { deploymentDirs, projectCacheDir } from './pipeline';
import { deploymentSteps, deployments } from './schema';
import { ACTIVE_STATUSES, transition } from './state';

export type DeploymentRow = typeof deployments.$inferSelect;

export const PIPELINE_STEPS = [
  'clone',
  'configure',
  'restore cache',
  'install',
  'build',
  'save cache',
  'start',
  'health check',
  'switch',
  'drain',
] as const;
export const ROLLBACK_STEPS = ['start', 'health check', 'switch', 'drain'] as const;

export async function toDeployment(
  ctx: AppContext,
  row: DeploymentRow,
  project: Pick<ProjectRow, 'slug'>,
  env: EnvironmentRow,
): Promise<Deployment> {
  const plan = row.plan as { preset?: string } | null;
  return {
    id: row.id,
    project_id: row.projectId,
    environment_id: row.environmentId,
    environment_name: env.name,
    status: row.status as DeploymentStatus,
    trigger: row.trigger,
    branch: row.branch,
    commit_sha: row.commitSha,
    commit_message: row.commitMessage,
    commit_author: row.commitAuthor,
    url: await environmentUrl(ctx, project.slug, env),
    is_current: env.currentDeploymentId === row.id,
    source_deployment_id: row.sourceDeploymentId,
    preset: plan?.preset ?? null,
    artifact_bytes: row.artifactBytes,
    error: row.error,
    queued_at: toIso(row.queuedAt),
    building_at: toIsoOrNull(row.buildingAt),
    deploying_at: toIsoOrNull(row.deployingAt),
    ready_at: toIsoOrNull(row.readyAt),
    finished_at: toIsoOrNull(row.finishedAt),
    stopped_at: toIsoOrNull(row.stoppedAt),
  };
}

async function present(ctx: AppContext, project: ProjectRow, rows: DeploymentRow[]): Promise<Deployment[]> {
  const envs = new Map((await listEnvironmentRows(ctx, project.id)).map((env) => [env.id, env]));
  return Promise.all(
    rows.flatMap((row) => {
      const env = envs.get(row.environmentId);
      return env ? [toDeployment(ctx, row, project, env)] : [];
    }),
  );
}

export async function listDeployments(
  ctx: AppContext,
  project: ProjectRow,
  page: number,
  perPage: number,
  environmentId?: number,
) {
  const where = and(
    eq(deployments.projectId, project.id),
    environmentId ? eq(deployments.environmentId, environmentId) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select()
      .from(deployments)
      .where(where)
      .orderBy(desc(deployments.id))
      .limit(perPage)
      .offset((page - 1) * perPage),
    ctx.db.select({ n: count() }).from(deployments).where(where),
  ]);
  return { deployments: await present(ctx, project, rows), total: total?.n ?? 0, page, per_page: perPage };
}

export async function getDeploymentRow(ctx: AppContext, projectId: number, id: number): Promise<DeploymentRow> {
  const [row] = await ctx.db
    .select()
    .from(deployments)
    .where(and(eq(deployments.projectId, projectId), eq(deployments.id, id)))
    .limit(1);
  if (!row) throw notFound(`Deployment ${id} not found in this project`);
  return row;
}

export async function getDeployment(ctx: AppContext, project: ProjectRow, id: number): Promise<Deployment> {
  const row = await getDeploymentRow(ctx, project.id, id);
  const [presented] = await present(ctx, project, [row]);
  if (!presented) throw notFound(`Deployment ${id} not found in this project`);
  return presented;
}

export async function lastDeployment(ctx: AppContext, project: ProjectRow): Promise<Deployment | null> {
  const [row] = await ctx.db
    .select()
    .from(deployments)
    .where(eq(deployments.projectId, project.id))
    .orderBy(desc(deployments.id))
    .limit(1);
  if (!row) return null;
  return (await present(ctx, project, [row]))[0] ?? null;
}

export async function listDeploymentSteps(ctx: AppContext, deploymentId: number) {
  return ctx.db.select().from(deploymentSteps).where(eq(deploymentSteps.deploymentId, deploymentId)).orderBy(deploymentSteps.id);
}

/**
 * Creates a deployment and queues its pipeline (inside a request: both exist once it commits).
 * A new deployment of an environment supersedes the ones still queued there.
 */
export async function startDeployment(
  ctx: AppContext,
  options: {
    project: ProjectRow;
    environment: EnvironmentRow;
    trigger: 'create' | 'manual' | 'redeploy' | 'rollback' | 'env_change';
    commit?: string | null;
    branch?: string;
    source?: DeploymentRow;
    createdBy: number | null;
  },
): Promise<DeploymentRow> {
  const { project, environment, source } = options;
  const [row] = await ctx.db
    .insert(deployments)
    .values({
      projectId: project.id,
      environmentId: environment.id,
      trigger: options.trigger,
      branch: source?.branch ?? options.branch ?? environment.branch,
      requestedCommit: source?.commitSha ?? options.commit ?? null,
      // A rollback serves an earlier build as it was: its commit, plan, env vars and output.
      commitSha: source?.commitSha ?? null,
      commitMessage: source?.commitMessage ?? null,
      commitAuthor: source?.commitAuthor ?? null,
      sourceDeploymentId: source?.id ?? null,
      plan: source?.plan ?? null,
      envSealed: source?.envSealed ?? null,
      artifactDir: source?.artifactDir ?? null,
      artifactBytes: source?.artifactBytes ?? null,
      createdBy: options.createdBy,
    })
    .returning();
  if (!row) throw new Error('the deployment was not created');
  const steps = source ? ROLLBACK_STEPS : PIPELINE_STEPS;
  await ctx.db.insert(deploymentSteps).values(steps.map((name) => ({ deploymentId: row.id, name })));
  const job = await enqueue(ctx, deploymentQueue, { deployment_id: row.id }, { singletonKey: `deployment:${row.id}` });
  await ctx.db.update(deployments).set({ jobId: job.id }).where(eq(deployments.id, row.id));
  // Older deployments of this environment still waiting in the queue will never be wanted.
  const superseded = await ctx.db
    .select({ id: deployments.id, jobId: deployments.jobId })
    .from(deployments)
    .where(and(eq(deployments.environmentId, environment.id), eq(deployments.status, 'queued')));
  for (const older of superseded.filter((d) => d.id !== row.id && d.id < row.id)) {
    const cancelled = await transition(ctx, older.id, 'cancelled', { error: `Superseded by deployment ${row.id}` });
    if (cancelled && older.jobId) await cancelJob(ctx, older.jobId);
  }
  publishRoutesAfterCommit(ctx);
  return { ...row, jobId: job.id };
}

export async function cancelDeployment(ctx: AppContext, project: ProjectRow, id: number): Promise<Deployment> {
  const row = await getDeploymentRow(ctx, project.id, id);
  if (!ACTIVE_STATUSES.includes(row.status as DeploymentStatus)) {
    throw conflict(`Deployment ${id} is ${row.status}: only a queued, building or deploying deployment can be cancelled`);
  }
  const cancelled = await transition(ctx, id, 'cancelled', { error: 'Cancelled' });
  if (!cancelled) throw conflict(`Deployment ${id} finished before it could be cancelled`);
  if (row.jobId) await cancelJob(ctx, row.jobId);
  publishRoutesAfterCommit(ctx);
  return getDeployment(ctx, project, id);
}

/** Rollback: an earlier ready deployment of the environment serves again, from its kept build. */
export async function rollbackTo(
  ctx: AppContext,
  project: ProjectRow,
  id: number,
  createdBy: number | null,
): Promise<DeploymentRow> {
  const source = await getDeploymentRow(ctx, project.id, id);
  const environment = await getEnvironmentRow(ctx, project.id, source.environmentId);
  if (!source.readyAt || !source.commitSha) {
    throw conflict(`Deployment ${id} never went live: only a deployment that served traffic can be rolled back to`);
  }
  if (environment.currentDeploymentId === id) throw conflict(`Deployment ${id} is already serving ${environment.name}`);
  if (!source.artifactDir) {
    throw conflict(
      `The build of deployment ${id} is no longer kept (builds beyond the kept number are pruned): redeploy its commit instead`,
    );
  }
  return startDeployment(ctx, { project, environment, trigger: 'rollback', source, createdBy });
}

/** The deployments currently running processes for any environment of the project (for deletion). */
export async function projectDeploymentRows(ctx: AppContext, projectId: number): Promise<DeploymentRow[]> {
  return ctx.db.select().from(deployments).where(eq(deployments.projectId, projectId));
}

export async function activeDeploymentIds(ctx: AppContext, projectId: number): Promise<number[]> {
  const rows = await ctx.db
    .select({ id: deployments.id })
    .from(deployments)
    .where(and(eq(deployments.projectId, projectId), inArray(deployments.status, [...ACTIVE_STATUSES])));
  return rows.map((row) => row.id);
}

/**
 * Everything a project's deployments hold: their jobs are cancelled (and waited for), their
 * processes stop, their build folders and the project's build cache are removed. Only folders the
 * platform created for this project's deployments are touched. Runs outside a request transaction
 * (the route opts out): each step is visible to the jobs it stops, and a failure part-way leaves a
 * project whose deployments are cancelled, which a second DELETE finishes.
 */
export async function releaseProjectDeployments(ctx: AppContext, projectId: number): Promise<void> {
  const rows = await ctx.db.select().from(deployments).where(eq(deployments.projectId, projectId));
  const jobIds: number[] = [];
  for (const row of rows) {
    if (ACTIVE_STATUSES.includes(row.status as DeploymentStatus)) {
      await transition(ctx, row.id, 'cancelled', { error: 'The project was deleted' });
    }
    if (row.jobId) {
      jobIds.push(row.jobId);
      await cancelJob(ctx, row.jobId);
    }
  }
  // A cancelled job stops within a heartbeat; its build must not write into folders being removed.
  const deadline = Date.now() + 30_000;
  while (jobIds.length > 0 && Date.now() < deadline) {
    const { rows: running } = await ctx.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs WHERE id = ANY($1::bigint[]) AND status IN ('pending', 'running')",
      [jobIds],
    );
    if ((running[0]?.n ?? 0) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const row of rows) await ctx.runtime.stop(row.id, { graceMs: 5000 });
  const remove = (dir: string) => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  for (const row of rows) remove(deploymentDirs(ctx.config.dataDir, row.id).root);
  remove(projectCacheDir(ctx.config.dataDir, projectId));
}
