import type { CustomDomain } from '@launchbay/contract';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { notFound, validationError } from '../../lib/errors';
import { toIso, toIsoOrNull } from '../../lib/time';
import { publishRoutesAfterCommit } from '../deployments/service';
import { environments } from '../environments/schema';
import { getEnvironmentRow, productionEnvironment } from '../environments/service';
import { assertDomainFree } from '../load-balancer/service';
import { domains, projectDomains } from './schema';

type Row = typeof projectDomains.$inferSelect;

async function toDtos(ctx: AppContext, rows: Row[]): Promise<CustomDomain[]> {
  if (rows.length === 0) return [];
  const [envs, certificates] = await Promise.all([
    ctx.db
      .select({ id: environments.id, name: environments.name })
      .from(environments)
      .where(
        inArray(
          environments.id,
          rows.map((row) => row.environmentId),
        ),
      ),
    ctx.db
      .select()
      .from(domains)
      .where(
        inArray(
          domains.domain,
          rows.map((row) => row.domain),
        ),
      ),
  ]);
  const port = ctx.edge.port();
  return rows.map((row) => {
    const certificate = certificates.find((c) => c.domain === row.domain);
    const tlsPort = ctx.edge.tlsPort();
    const secure = certificate?.fingerprint && tlsPort;
    return {
      id: row.id,
      project_id: row.projectId,
      domain: row.domain,
      environment_id: row.environmentId,
      environment_name: envs.find((e) => e.id === row.environmentId)?.name ?? 'environment',
      redirect_to: row.redirectTo,
      url: secure
        ? `https://${row.domain}${tlsPort === 443 ? '' : `:${tlsPort}`}`
        : `http://${row.domain}${port === 80 ? '' : `:${port}`}`,
      certificate: certificate
        ? {
            domain_id: certificate.id,
            status: certificate.status as 'pending' | 'provisioning' | 'active' | 'failed',
            expires_at: toIsoOrNull(certificate.expiresAt),
            served_status: certificate.servedStatus as 'match' | 'mismatch' | 'none' | 'unreachable' | null,
          }
        : null,
      created_at: toIso(row.createdAt),
    };
  });
}

export async function listCustomDomains(ctx: AppContext, projectId: number, environmentId?: number): Promise<CustomDomain[]> {
  const rows = await ctx.db
    .select()
    .from(projectDomains)
    .where(
      environmentId === undefined
        ? eq(projectDomains.projectId, projectId)
        : and(eq(projectDomains.projectId, projectId), eq(projectDomains.environmentId, environmentId)),
    )
    .orderBy(asc(projectDomains.domain));
  return toDtos(ctx, rows);
}

async function rowOf(ctx: AppContext, projectId: number, id: number): Promise<Row> {
  const [row] = await ctx.db
    .select()
    .from(projectDomains)
    .where(and(eq(projectDomains.projectId, projectId), eq(projectDomains.id, id)))
    .limit(1);
  if (!row) throw notFound(`Domain ${id} not found in this project`);
  return row;
}

/** A redirect goes to another name of the same project that serves (not to itself, not to a redirect). */
async function assertRedirect(ctx: AppContext, projectId: number, domain: string, to: string | null | undefined) {
  if (!to) return;
  if (to === domain) throw validationError([{ path: 'redirect_to', message: 'A domain cannot redirect to itself' }]);
  const [target] = await ctx.db
    .select()
    .from(projectDomains)
    .where(and(eq(projectDomains.projectId, projectId), eq(projectDomains.domain, to)));
  if (!target) throw validationError([{ path: 'redirect_to', message: 'Add that domain to this project first' }]);
  if (target.redirectTo) throw validationError([{ path: 'redirect_to', message: `${to} redirects itself` }]);
}

async function redirectingTo(ctx: AppContext, projectId: number, domain: string): Promise<string | undefined> {
  const [row] = await ctx.db
    .select({ domain: projectDomains.domain })
    .from(projectDomains)
    .where(and(eq(projectDomains.projectId, projectId), eq(projectDomains.redirectTo, domain)))
    .limit(1);
  return row?.domain;
}

export async function addCustomDomain(
  ctx: AppContext,
  projectId: number,
  input: { domain: string; environment_id?: number; redirect_to?: string | null },
): Promise<CustomDomain> {
  const environment =
    input.environment_id === undefined
      ? await productionEnvironment(ctx, projectId)
      : await getEnvironmentRow(ctx, projectId, input.environment_id).catch(() => undefined);
  if (!environment) throw validationError([{ path: 'environment_id', message: 'No such environment in this project' }]);
  await assertDomainFree(ctx, input.domain);
  await assertRedirect(ctx, projectId, input.domain, input.redirect_to);
  const [row] = await ctx.db
    .insert(projectDomains)
    .values({ projectId, environmentId: environment.id, domain: input.domain, redirectTo: input.redirect_to ?? null })
    .returning();
  // Its certificate is one click away in Domains (or provisioned from there automatically later).
  await ctx.db
    .insert(domains)
    .values({ domain: input.domain, isWildcard: false, challengeType: 'http-01' })
    .onConflictDoNothing();
  publishRoutesAfterCommit(ctx);
  return (await toDtos(ctx, [row as Row]))[0] as CustomDomain;
}

export async function updateCustomDomain(
  ctx: AppContext,
  projectId: number,
  id: number,
  input: { environment_id?: number; redirect_to?: string | null },
): Promise<CustomDomain> {
  const row = await rowOf(ctx, projectId, id);
  if (input.environment_id !== undefined) {
    await getEnvironmentRow(ctx, projectId, input.environment_id).catch(() => {
      throw validationError([{ path: 'environment_id', message: 'No such environment in this project' }]);
    });
  }
  if (input.redirect_to !== undefined) await assertRedirect(ctx, projectId, row.domain, input.redirect_to);
  if (input.redirect_to) {
    // A name others redirect to must keep serving (no chains of redirects).
    const pointing = await redirectingTo(ctx, projectId, row.domain);
    if (pointing) throw validationError([{ path: 'redirect_to', message: `${pointing} redirects here, so this one must serve` }]);
  }
  const [updated] = await ctx.db
    .update(projectDomains)
    .set({
      ...(input.environment_id !== undefined ? { environmentId: input.environment_id } : {}),
      ...(input.redirect_to !== undefined ? { redirectTo: input.redirect_to } : {}),
      updatedAt: new Date(),
    })
    .where(eq(projectDomains.id, row.id))
    .returning();
  publishRoutesAfterCommit(ctx);
  return (await toDtos(ctx, [updated as Row]))[0] as CustomDomain;
}

export async function removeCustomDomain(ctx: AppContext, projectId: number, id: number, environmentId?: number): Promise<void> {
  const row = await rowOf(ctx, projectId, id);
  if (environmentId !== undefined && row.environmentId !== environmentId) {
    throw notFound(`Domain ${id} not found in this environment`);
  }
  // Names that redirect here would point nowhere.
  const pointing = await redirectingTo(ctx, projectId, row.domain);
  if (pointing) throw validationError([{ path: 'domain', message: `${pointing} redirects here: change or remove it first` }]);
  await ctx.db.delete(projectDomains).where(eq(projectDomains.id, row.id));
  publishRoutesAfterCommit(ctx);
}
