import type { Environment } from '@launchbay/contract';
import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { notFound } from '../../lib/errors';
import { toIso } from '../../lib/time';
import { getSettings } from '../settings/service';
import { environments } from './schema';

export type EnvironmentRow = typeof environments.$inferSelect;

/**
 * The host names an environment is served at. Production answers at the project's slug, the
 * others at `{project}-{environment}`; under `.localhost` while the access mode is local (every
 * browser resolves it to this machine), under the base domain once one is set.
 */
export async function environmentHosts(
  ctx: AppContext,
  projectSlug: string,
  environment: Pick<EnvironmentRow, 'slug' | 'isProduction' | 'hostLabel'>,
): Promise<string[]> {
  const label = environment.hostLabel ?? (environment.isProduction ? projectSlug : `${projectSlug}-${environment.slug}`);
  const settings = await getSettings(ctx);
  const hosts = [`${label}.localhost`];
  if (settings.base_domain) hosts.push(`${label}.${settings.base_domain}`);
  return hosts;
}

/** The address users open: the first host, with the edge's port unless it is 80. */
export async function environmentUrl(
  ctx: AppContext,
  projectSlug: string,
  environment: Pick<EnvironmentRow, 'slug' | 'isProduction' | 'hostLabel'>,
): Promise<string> {
  const settings = await getSettings(ctx);
  const hosts = await environmentHosts(ctx, projectSlug, environment);
  const host = settings.access_mode !== 'local' && hosts[1] ? hosts[1] : (hosts[0] as string);
  const port = ctx.edge.port();
  return `http://${host}${port === 80 ? '' : `:${port}`}`;
}

export async function toEnvironment(ctx: AppContext, projectSlug: string, row: EnvironmentRow): Promise<Environment> {
  return {
    id: row.id,
    project_id: row.projectId,
    name: row.name,
    slug: row.slug,
    branch: row.branch,
    is_production: row.isProduction,
    url: await environmentUrl(ctx, projectSlug, row),
    current_deployment_id: row.currentDeploymentId,
    memory_mb: row.memoryMb,
    cpu_percent: row.cpuPercent,
    instances: row.instances,
    pr_number: row.prNumber,
    created_at: toIso(row.createdAt),
  };
}

export async function listEnvironmentRows(ctx: AppContext, projectId: number): Promise<EnvironmentRow[]> {
  return ctx.db
    .select()
    .from(environments)
    .where(eq(environments.projectId, projectId))
    .orderBy(desc(environments.isProduction), asc(environments.id));
}

/** The environments of several projects (a page of the project list), in one query. */
export async function listEnvironmentRowsOf(ctx: AppContext, projectIds: readonly number[]): Promise<EnvironmentRow[]> {
  if (projectIds.length === 0) return [];
  return ctx.db
    .select()
    .from(environments)
    .where(inArray(environments.projectId, [...projectIds]))
    .orderBy(desc(environments.isProduction), asc(environments.id));
}

export async function getEnvironmentRow(ctx: AppContext, projectId: number, environmentId: number): Promise<EnvironmentRow> {
  const [row] = await ctx.db
    .select()
    .from(environments)
    .where(and(eq(environments.projectId, projectId), eq(environments.id, environmentId)))
    .limit(1);
  if (!row) throw notFound(`Environment ${environmentId} not found in this project`);
  return row;
}

export async function productionEnvironment(ctx: AppContext, projectId: number): Promise<EnvironmentRow | undefined> {
  const [row] = await ctx.db
    .select()
    .from(environments)
    .where(and(eq(environments.projectId, projectId), eq(environments.isProduction, true)))
    .limit(1);
  return row;
}

export async function createEnvironmentRow(
  ctx: AppContext,
  values: { projectId: number; name: string; slug: string; branch: string; isProduction: boolean },
): Promise<EnvironmentRow> {
  const [row] = await ctx.db.insert(environments).values(values).returning();
  if (!row) throw new Error('the environment was not created');
  return row;
}

/** The id of the project's production environment, or null when it has none. */
export async function productionEnvironmentId(ctx: AppContext, projectId: number): Promise<number | null> {
  const rows = await listEnvironmentRows(ctx, projectId);
  return rows.find((env) => env.isProduction)?.id ?? null;
}
