import fs from 'node:fs';
import type { Deployment, DeploymentStatus } from '@launchbay/contract';
import { and, asc, count, desc, eq, gt, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { cancelJob, enqueue } from '../../jobs';
import { conflict, notFound } from '../../lib/errors';
import { toIso, toIsoOrNull } from '../../lib/time';
import { type EnvironmentRow, environmentUrl, getEnvironmentRow, listEnvironmentRows } from '../environments/service';
import type { ProjectRow } from '../projects/service';
import { userEmails } from '../users/service';
import { publishRoutesAfterCommit } from './edge-routes';

export { publishRoutes, publishRoutesAfterCommit } from './edge-routes';

import { deploymentQueue } from './jobs';
import { deploymentDirs, projectCacheDir } from './pipeline';
import { deploymentLogs, deploymentSteps, deployments } from './schema';
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

/**
 * Whether a deployment's build output is still on disk: what a rollback to it serves. Pruning
 * (pipeline.ts) removes old builds and clears their artifact_dir; a folder removed by hand counts
 * as gone too. The deployment's `build_kept` and the rollback's refusal both answer from this.
 */
export async function buildKept(row: Pick<DeploymentRow, 'artifactDir'>): Promise<boolean> {
  if (!row.artifactDir) return false;
  return fs.promises.access(row.artifactDir).then(
    () => true,
    () => false,
  );
}

export async function toDeployment(
  ctx: AppContext,
  row: DeploymentRow,
  project: Pick<ProjectRow, 'slug'>,
  env: EnvironmentRow,
  /** The emails of the users who started deployments (userEmails), by id. */
  creators: ReadonlyMap<number, string>,
): Promise<Deployment> {
  const plan = row.plan as { preset?: string } | null;
  const creatorEmail = row.createdBy !== null ? creators.get(row.createdBy) : undefined;
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
    build_kept: await buildKept(row),
    created_by: row.createdBy !== null && creatorEmail !== undefined ? { id: row.createdBy, email: creatorEmail } : null,
    error: row.error,
    queued_at: toIso(row.queuedAt),
    building_at: toIsoOrNull(row.buildingAt),
    deploying_at: toIsoOrNull(row.deployingAt),
    ready_at: toIsoOrNull(row.readyAt),
    finished_at: toIsoOrNull(row.finishedAt),
    stopped_at: toIsoOrNull(row.stoppedAt),
  };
}

/** Deployments as the API answers them, their creators read in one query; a row whose environment is missing is left out. */
async function presentRows(
  ctx: AppContext,
  rows: DeploymentRow[],
  slugs: ReadonlyMap<number, string>,
  envs: ReadonlyMap<number, EnvironmentRow>,
): Promise<Deployment[]> {
  const creators = await userEmails(
    ctx.db,
    rows.flatMap((row) => (row.createdBy !== null ? [row.createdBy] : [])),
  );
  return Promise.all(
    rows.flatMap((row) => {
      const env = envs.get(row.environmentId);
      const slug = slugs.get(row.projectId);
      return env && slug !== undefined ? [toDeployment(ctx, row, { slug }, env, creators)] : [];
    }),
  );
}

async function present(ctx: AppContext, project: ProjectRow, rows: DeploymentRow[]): Promise<Deployment[]> {
  if (rows.length === 0) return [];
  const envs = new Map((await listEnvironmentRows(ctx, project.id)).map((env) => [env.id, env]));
  return presentRows(ctx, rows, new Map([[project.id, project.slug]]), envs);
}

/**
 * For a page of the project list: each project's latest deployment (what GET
 * /projects/{id}/last-deployment answers) and the one its production environment serves now.
 * A bounded number of queries whatever the page's size: the latest of every project at once
 * (DISTINCT ON), the served ones not among them by id, and their creators.
 */
export async function projectDeploymentSummaries(
  ctx: AppContext,
  projects: readonly Pick<ProjectRow, 'id' | 'slug'>[],
  environments: readonly EnvironmentRow[],
): Promise<Map<number, { last: Deployment | null; current: Deployment | null }>> {
  const ids = projects.map((project) => project.id);
  if (ids.length === 0) return new Map();
  const latest = await ctx.db
    .selectDistinctOn([deployments.projectId])
    .from(deployments)
    .where(inArray(deployments.projectId, ids))
    .orderBy(deployments.projectId, desc(deployments.id));
  const fetched = new Set(latest.map((row) => row.id));
  const servedIds = environments.flatMap((env) =>
    env.isProduction && env.currentDeploymentId !== null && !fetched.has(env.currentDeploymentId)
      ? [env.currentDeploymentId]
      : [],
  );
  const served =
    servedIds.length > 0
      ? await ctx.db
          .select()
          .from(deployments)
          .where(and(inArray(deployments.id, servedIds), inArray(deployments.projectId, ids)))
      : [];
  const presented = await presentRows(
    ctx,
    [...latest, ...served],
    new Map(projects.map((project) => [project.id, project.slug])),
    new Map(environments.map((env) => [env.id, env])),
  );
  const byId = new Map(presented.map((deployment) => [deployment.id, deployment]));
  const lastOf = new Map(latest.map((row) => [row.projectId, row.id]));
  const servedOf = new Map(
    environments.flatMap((env) =>
      env.isProduction && env.currentDeploymentId !== null ? [[env.projectId, env.currentDeploymentId]] : [],
    ),
  );
  return new Map(
    ids.map((id) => [id, { last: byId.get(lastOf.get(id) ?? 0) ?? null, current: byId.get(servedOf.get(id) ?? 0) ?? null }]),
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

/** Log lines of a deployment after `afterId`, oldest first (a push's output follows its deployment with it). */
export async function deploymentLogLinesAfter(ctx: AppContext, deploymentId: number, afterId: number, limit = 500) {
  return ctx.db
    .select({ id: deploymentLogs.id, line: deploymentLogs.line })
    .from(deploymentLogs)
    .where(and(eq(deploymentLogs.deploymentId, deploymentId), gt(deploymentLogs.id, afterId)))
    .orderBy(asc(deploymentLogs.id))
    .limit(limit);
}

export async function listDeploymentSteps(ctx: AppContext, deploymentId: number) {
  return ctx.db.select().from(deploymentSteps).where(eq(deploymentSteps.deploymentId, deploymentId)).orderBy(deploymentSteps.id);
}

/**
 * The trigger of a deployment asked for through trigger-pipeline: 'redeploy' when the commit asked
 * for is the one an earlier deployment of the environment deployed (or was asked for), 'manual'
 * otherwise (the head of a branch, or a commit new to the environment).
 */
export async function manualTrigger(
  ctx: AppContext,
  environmentId: number,
  commit: string | null | undefined,
): Promise<'manual' | 'redeploy'> {
  if (!commit) return 'manual';
  const sha = commit.toLowerCase();
  const [earlier] = await ctx.db
    .select({ id: deployments.id })
    .from(deployments)
    .where(
      and(
        eq(deployments.environmentId, environmentId),
        or(sql`lower(${deployments.commitSha}) = ${sha}`, sql`lower(${deployments.requestedCommit}) = ${sha}`),
      ),
    )
    .limit(1);
  return earlier ? 'redeploy' : 'manual';
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
    trigger: 'create' | 'manual' | 'redeploy' | 'rollback' | 'env_change' | 'git_push' | 'webhook' | 'poll' | 'preview';
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
  if (!(await buildKept(source))) {
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
  await releaseDeployments(ctx, eq(deployments.projectId, projectId), 'The project was deleted');
  fs.rmSync(projectCacheDir(ctx.config.dataDir, projectId), { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

/** The same for one environment that goes (a closed pull request's preview). */
export async function releaseEnvironmentDeployments(ctx: AppContext, environmentId: number, reason: string): Promise<void> {
  await releaseDeployments(ctx, eq(deployments.environmentId, environmentId), reason);
}

async function releaseDeployments(ctx: AppContext, where: SQL, reason: string): Promise<void> {
  const rows = await ctx.db.select().from(deployments).where(where);
  const jobIds: number[] = [];
  for (const row of rows) {
    if (ACTIVE_STATUSES.includes(row.status as DeploymentStatus)) {
      await transition(ctx, row.id, 'cancelled', { error: reason });
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
}
