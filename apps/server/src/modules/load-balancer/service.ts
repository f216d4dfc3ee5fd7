import {
  DEFAULT_HEALTH_CHECK,
  type LbHealthCheck,
  type LbRoute,
  type LbTarget,
  type lbRouteRequestSchema,
} from '@launchbay/contract';
import { asc, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import type { AppContext } from '../../context';
import { conflict, notFound, validationError } from '../../lib/errors';
import { toIso } from '../../lib/time';
import { publishRoutesAfterCommit } from '../deployments/service';
import { projectDomains } from '../domains/schema';
import { environments } from '../environments/schema';
import { environmentHosts } from '../environments/service';
import { projects } from '../projects/schema';
import { lbRoutes, lbUpstreamHealth } from './schema';

type LbRouteRow = typeof lbRoutes.$inferSelect;
type LbRouteInput = z.output<typeof lbRouteRequestSchema>;

function healthCheckOf(row: LbRouteRow): LbHealthCheck {
  return {
    enabled: row.healthCheckEnabled,
    path: row.healthCheckPath,
    interval_seconds: row.healthCheckIntervalSeconds,
    timeout_seconds: row.healthCheckTimeoutSeconds,
  };
}

function targetOf(row: LbRouteRow): LbTarget {
  return row.targetKind === 'environment'
    ? { kind: 'environment', project_id: row.projectId ?? 0, environment_id: row.environmentId ?? 0 }
    : { kind: 'upstreams', upstreams: row.upstreams };
}

async function toDtos(ctx: AppContext, rows: LbRouteRow[]): Promise<LbRoute[]> {
  if (rows.length === 0) return [];
  const environmentIds = rows.flatMap((row) => (row.environmentId ? [row.environmentId] : []));
  const [names, health] = await Promise.all([
    environmentIds.length
      ? ctx.db
          .select({ id: environments.id, environment: environments.name, project: projects.name })
          .from(environments)
          .innerJoin(projects, eq(projects.id, environments.projectId))
          .where(inArray(environments.id, environmentIds))
      : [],
    ctx.db
      .select()
      .from(lbUpstreamHealth)
      .where(
        inArray(
          lbUpstreamHealth.host,
          rows.map((row) => row.domain),
        ),
      ),
  ]);
  const port = ctx.edge.port();
  return rows.map((row) => {
    const name = names.find((n) => n.id === row.environmentId);
    const seen = health.filter((h) => h.host === row.domain);
    // Upstream addresses are listed even before their first check; an environment's are whatever the edge checked.
    const listed = row.targetKind === 'upstreams' ? row.upstreams : seen.map((h) => h.upstream);
    return {
      id: row.id,
      domain: row.domain,
      target: targetOf(row),
      target_label:
        row.targetKind === 'environment'
          ? `${name?.project ?? 'Project'} / ${name?.environment ?? 'environment'}`
          : row.upstreams.join(', '),
      health_check: healthCheckOf(row),
      upstream_health: listed.map((upstream) => {
        const h = row.healthCheckEnabled ? seen.find((s) => s.upstream === upstream) : undefined;
        return {
          upstream,
          healthy: h ? h.healthy : null,
          since: h ? toIso(h.since) : null,
          checked_at: h ? toIso(h.checkedAt) : null,
          error: h?.error ?? null,
        };
      }),
      url: `http://${row.domain}${port === 80 ? '' : `:${port}`}`,
      created_at: toIso(row.createdAt),
      updated_at: toIso(row.updatedAt),
    };
  });
}

export async function listLbRoutes(ctx: AppContext): Promise<LbRoute[]> {
  return toDtos(ctx, await ctx.db.select().from(lbRoutes).orderBy(asc(lbRoutes.domain)));
}

async function routeRow(ctx: AppContext, domain: string): Promise<LbRouteRow> {
  const [row] = await ctx.db.select().from(lbRoutes).where(eq(lbRoutes.domain, domain)).limit(1);
  if (!row) throw notFound(`No load-balancer route for ${domain}`);
  return row;
}

export async function getLbRoute(ctx: AppContext, domain: string): Promise<LbRoute> {
  return (await toDtos(ctx, [await routeRow(ctx, domain)]))[0] as LbRoute;
}

/**
 * A name the edge routes one way only: not an environment's own address, a project's domain or a
 * load-balancer route already (409 on `domain`).
 */
export async function assertDomainFree(ctx: AppContext, domain: string): Promise<void> {
  const taken = (detail: string, message: string) => conflict(detail, [{ path: 'domain', message }]);
  const [route] = await ctx.db.select({ id: lbRoutes.id }).from(lbRoutes).where(eq(lbRoutes.domain, domain));
  if (route) throw taken(`A route for ${domain} already exists`, 'This domain already has a route');
  const [owned] = await ctx.db
    .select({ project: projects.name })
    .from(projectDomains)
    .innerJoin(projects, eq(projects.id, projectDomains.projectId))
    .where(eq(projectDomains.domain, domain));
  if (owned) throw taken(`${domain} is a domain of ${owned.project}`, `Already a domain of ${owned.project}`);
  await assertNotAnEnvironmentAddress(ctx, domain);
}

/** A domain a project environment already answers at (its generated address) cannot be routed elsewhere. */
async function assertNotAnEnvironmentAddress(ctx: AppContext, domain: string): Promise<void> {
  const rows = await ctx.db
    .select({ slug: projects.slug, project: projects.name, env: environments })
    .from(environments)
    .innerJoin(projects, eq(projects.id, environments.projectId));
  for (const row of rows) {
    if ((await environmentHosts(ctx, row.slug, row.env)).includes(domain)) {
      throw conflict(`${domain} is the address of ${row.project} (${row.env.name})`, [
        { path: 'domain', message: `Already the address of ${row.project} (${row.env.name})` },
      ]);
    }
  }
}

async function assertEnvironmentTarget(ctx: AppContext, target: LbTarget): Promise<void> {
  if (target.kind !== 'environment') return;
  const [row] = await ctx.db
    .select({ projectId: environments.projectId })
    .from(environments)
    .where(eq(environments.id, target.environment_id))
    .limit(1);
  if (!row || row.projectId !== target.project_id) {
    throw validationError([{ path: 'target.environment_id', message: 'No such environment in this project' }]);
  }
}

function columnsOf(input: Omit<LbRouteInput, 'domain'>) {
  const check = input.health_check ?? DEFAULT_HEALTH_CHECK;
  const target = input.target;
  return {
    targetKind: target.kind,
    projectId: target.kind === 'environment' ? target.project_id : null,
    environmentId: target.kind === 'environment' ? target.environment_id : null,
    upstreams: target.kind === 'upstreams' ? target.upstreams : [],
    healthCheckEnabled: check.enabled,
    healthCheckPath: check.path,
    healthCheckIntervalSeconds: check.interval_seconds,
    healthCheckTimeoutSeconds: check.timeout_seconds,
  };
}

export async function createLbRoute(ctx: AppContext, input: LbRouteInput): Promise<LbRoute> {
  await assertDomainFree(ctx, input.domain);
  await assertEnvironmentTarget(ctx, input.target);
  const [row] = await ctx.db
    .insert(lbRoutes)
    .values({ domain: input.domain, ...columnsOf(input) })
    .returning();
  publishRoutesAfterCommit(ctx);
  return (await toDtos(ctx, [row as LbRouteRow]))[0] as LbRoute;
}

export async function updateLbRoute(ctx: AppContext, domain: string, input: Omit<LbRouteInput, 'domain'>): Promise<LbRoute> {
  await routeRow(ctx, domain);
  await assertEnvironmentTarget(ctx, input.target);
  const [row] = await ctx.db
    .update(lbRoutes)
    .set({ ...columnsOf(input), updatedAt: new Date() })
    .where(eq(lbRoutes.domain, domain))
    .returning();
  // Health seen for upstreams no longer named is history of another configuration.
  await ctx.db.delete(lbUpstreamHealth).where(eq(lbUpstreamHealth.host, domain));
  publishRoutesAfterCommit(ctx);
  return (await toDtos(ctx, [row as LbRouteRow]))[0] as LbRoute;
}

export async function deleteLbRoute(ctx: AppContext, domain: string): Promise<void> {
  await routeRow(ctx, domain);
  await ctx.db.delete(lbRoutes).where(eq(lbRoutes.domain, domain));
  await ctx.db.delete(lbUpstreamHealth).where(eq(lbUpstreamHealth.host, domain));
  publishRoutesAfterCommit(ctx);
}
