import path from 'node:path';
import type { Route, RouteState } from '@launchbay/edge-protocol';
import type { AppContext } from '../../context';
import { afterCommit, outsideRequestTransaction } from '../../db/request-transaction';
import { publishRouteTable, waitForEdgeVersion } from '../../engine/edge/route-table';
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
    return routes;
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
