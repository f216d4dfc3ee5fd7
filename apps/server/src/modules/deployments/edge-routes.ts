import path from 'node:path';
import type { AcmeChallengeAnswer, Route, RouteState, RouteUpstream, TlsCertificate } from '@launchbay/edge-protocol';
import type pg from 'pg';
import type { AppContext } from '../../context';
import { afterCommit, outsideRequestTransaction } from '../../db/request-transaction';
import { publishRouteTable, waitForEdgeVersion } from '../../engine/edge/route-table';
import { pruneCertificateFiles, writeCertificateFiles } from '../../engine/edge/tls-files';
import type { BuildPlan } from '../../engine/pipeline/build-plan';
import type { RunningDeployment } from '../../engine/runtime/driver';
import { environmentHosts } from '../environments/service';

type ServingRow = {
  project_id: number;
  project_slug: string;
  environment_id: number;
  environment_slug: string;
  is_production: boolean;
  host_label: string | null;
  deployment_id: number | null;
  status: string | null;
  plan: BuildPlan | null;
  runtime: RunningDeployment | null;
  artifact_dir: string | null;
  building: boolean;
};

/** What the edge serves for one environment: its current deployment's processes or static output, or a clear page. */
function routeTarget(row: ServingRow): Pick<Route, 'target' | 'state'> {
  const none = { target: { kind: 'upstreams' as const, upstreams: [] } };
  if (!row.deployment_id || !row.plan) return { ...none, state: row.building ? 'starting' : 'down' };
  // The environment's current deployment serves while it is ready, and while it is switching in (deploying).
  const state: RouteState = row.status === 'ready' || row.status === 'deploying' ? 'live' : 'down';
  if (row.plan.kind === 'static' && row.artifact_dir) {
    return {
      target: {
        kind: 'static',
        root: path.join(row.artifact_dir, row.plan.outputDirectory ?? '.'),
        spaFallback: row.plan.spaFallback,
      },
      state,
    };
  }
  const upstreams = (row.runtime?.processes ?? [])
    .filter((p) => p.type === 'web' && p.port !== null)
    .map((p) => ({ kind: 'tcp' as const, host: '127.0.0.1', port: p.port as number }));
  return { target: { kind: 'upstreams', upstreams }, state: upstreams.length > 0 ? state : 'down' };
}

/**
 * The certificates the edge serves (written out as files for it from their sealed copies) and the
 * HTTP-01 answers of orders in progress (modules/domains).
 */
async function tlsForEdge(ctx: AppContext, client: pg.PoolClient) {
  const { rows } = await client.query<{ domain: string; fingerprint: string; certificate_sealed: string; key_sealed: string }>(
    `SELECT domain, fingerprint, certificate_sealed, key_sealed FROM domains
     WHERE fingerprint IS NOT NULL AND certificate_sealed IS NOT NULL AND key_sealed IS NOT NULL AND expires_at > now()`,
  );
  const certificates: TlsCertificate[] = [];
  for (const row of rows) {
    try {
      const files = writeCertificateFiles(
        ctx.config.dataDir,
        row.fingerprint,
        ctx.box.open(row.certificate_sealed),
        ctx.box.open(row.key_sealed),
      );
      certificates.push({ names: [row.domain], fingerprint: row.fingerprint, ...files });
    } catch {
      // A certificate that cannot be opened (another encryption key) is not served; the domain's served check says so.
    }
  }
  pruneCertificateFiles(ctx.config.dataDir, new Set(certificates.map((c) => c.fingerprint)));
  const orders = await client.query<{ challenges: { type: string; token: string; keyAuthorization: string; status: string }[] }>(
    'SELECT challenges FROM domain_orders',
  );
  const challenges: AcmeChallengeAnswer[] = orders.rows.flatMap((order) =>
    order.challenges.filter((c) => c.type === 'http-01').map((c) => ({ token: c.token, keyAuthorization: c.keyAuthorization })),
  );
  const names = certificates.flatMap((c) => c.names);
  const covers = (host: string) =>
    names.includes(host) || (host.includes('.') && names.includes(`*${host.slice(host.indexOf('.'))}`));
  return { certificates, challenges, covers };
}

/** A project's domains (modules/domains project_domains): its environment's live target, or a redirect to another of its names. */
async function projectDomainRoutes(client: pg.PoolClient, serving: Map<number, ServingRow>): Promise<Route[]> {
  const { rows } = await client.query<{ domain: string; environment_id: number; redirect_to: string | null }>(
    'SELECT domain, environment_id, redirect_to FROM project_domains ORDER BY id',
  );
  const routes: Route[] = [];
  for (const row of rows) {
    const environment = serving.get(row.environment_id);
    if (!environment) continue;
    routes.push({
      host: row.domain,
      pathPrefix: '/',
      ...(row.redirect_to
        ? { target: { kind: 'redirect' as const, host: row.redirect_to }, state: 'live' as const }
        : routeTarget(environment)),
      projectId: environment.project_id,
      environmentId: environment.environment_id,
      deploymentId: environment.deployment_id,
      redirectToHttps: false,
    });
  }
  return routes;
}

type LbRow = {
  domain: string;
  target_kind: string;
  project_id: number | null;
  environment_id: number | null;
  upstreams: string[];
  health_check_enabled: boolean;
  health_check_path: string;
  health_check_interval_seconds: number;
  health_check_timeout_seconds: number;
};

/** `10.0.0.5:3000` or `[::1]:3000` as the edge's upstream. */
export function parseUpstreamAddress(address: string): RouteUpstream {
  const colon = address.lastIndexOf(':');
  return { kind: 'tcp', host: address.slice(0, colon).replace(/^\[|\]$/g, ''), port: Number(address.slice(colon + 1)) };
}

/** The load-balancer routes (modules/load-balancer) as edge routes: an environment's live target, or upstream addresses. */
async function loadBalancerRoutes(client: pg.PoolClient, serving: Map<number, ServingRow>): Promise<Route[]> {
  const { rows } = await client.query<LbRow>(
    `SELECT domain, target_kind, project_id, environment_id, upstreams, health_check_enabled, health_check_path,
            health_check_interval_seconds, health_check_timeout_seconds
     FROM lb_routes ORDER BY id`,
  );
  return rows.map((row): Route => {
    const environment = row.environment_id === null ? undefined : serving.get(row.environment_id);
    const target: Pick<Route, 'target' | 'state'> =
      row.target_kind === 'environment'
        ? environment
          ? routeTarget(environment)
          : { target: { kind: 'upstreams', upstreams: [] }, state: 'down' }
        : { target: { kind: 'upstreams', upstreams: row.upstreams.map(parseUpstreamAddress) }, state: 'live' };
    return {
      host: row.domain,
      pathPrefix: '/',
      ...target,
      projectId: environment?.project_id ?? null,
      environmentId: environment?.environment_id ?? null,
      deploymentId: environment?.deployment_id ?? null,
      redirectToHttps: false,
      healthCheck: row.health_check_enabled
        ? {
            path: row.health_check_path,
            intervalMs: row.health_check_interval_seconds * 1000,
            timeoutMs: row.health_check_timeout_seconds * 1000,
          }
        : null,
    };
  });
}

/**
 * Recomputes the whole route table from the database (every environment: its current deployment,
 * or a "starting" page while its first one builds) and tells the edge. Answers once the edge
 * serves it, or after a timeout (answering false) when no edge answers.
 */
export async function publishRoutes(ctx: AppContext, options: { waitMs?: number } = {}): Promise<boolean> {
  const version = await publishRouteTable(ctx.pool, async (client) => {
    const { rows } = await client.query<ServingRow>(
      `SELECT p.id AS project_id, p.slug AS project_slug, e.id AS environment_id, e.slug AS environment_slug,
              e.is_production, e.host_label, d.id AS deployment_id, d.status, d.plan, d.runtime, d.artifact_dir,
              EXISTS (SELECT 1 FROM deployments q WHERE q.environment_id = e.id AND q.status IN ('queued', 'building', 'deploying')) AS building
       FROM environments e
       JOIN projects p ON p.id = e.project_id
       LEFT JOIN deployments d ON d.id = e.current_deployment_id
       ORDER BY e.id`,
    );
    const routes: Route[] = [];
    const servingByEnvironment = new Map(rows.map((row) => [row.environment_id, row]));
    for (const row of rows) {
      const hosts = await environmentHosts(ctx, row.project_slug, {
        slug: row.environment_slug,
        isProduction: row.is_production,
        hostLabel: row.host_label,
      });
      for (const host of hosts) {
        routes.push({
          host,
          pathPrefix: '/',
          ...routeTarget(row),
          projectId: row.project_id,
          environmentId: row.environment_id,
          deploymentId: row.deployment_id,
          redirectToHttps: false,
        });
      }
    }
    // Projects' own domains, then load-balancer routes: never over an environment's own address.
    const taken = new Set(routes.map((route) => route.host));
    for (const route of await projectDomainRoutes(client, servingByEnvironment)) {
      if (taken.has(route.host)) continue;
      taken.add(route.host);
      routes.push(route);
    }
    for (const lb of await loadBalancerRoutes(client, servingByEnvironment)) if (!taken.has(lb.host)) routes.push(lb);
    const tls = await tlsForEdge(ctx, client);
    // Plain HTTP goes to HTTPS for every name the edge holds a certificate for.
    for (const route of routes) route.redirectToHttps = tls.covers(route.host);
    return { routes, certificates: tls.certificates, challenges: tls.challenges };
  });
  return waitForEdgeVersion(() => ctx.edge.current(), version, options.waitMs ?? 5000);
}

/** Republishes the route table once the calling request commits (the edge must see committed state). */
export function publishRoutesAfterCommit(ctx: AppContext): void {
  afterCommit(() => {
    outsideRequestTransaction(() => {
      publishRoutes(ctx, { waitMs: 0 }).catch(() => undefined);
    });
  });
}
