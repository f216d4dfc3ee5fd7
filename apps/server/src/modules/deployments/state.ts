import type { DeploymentStatus } from '@launchbay/contract';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { deployments } from './schema';

/**
 * Every status change of a deployment, in one place. A change is a compare-and-set on the row
 * (`UPDATE ... WHERE status IN (allowed sources)`), so two nodes, a cancel racing a build, or a
 * retried job can never move a deployment along an edge that is not in this table.
 */
export const TRANSITIONS: Record<DeploymentStatus, readonly DeploymentStatus[]> = {
  queued: ['building', 'deploying', 'failed', 'cancelled'],
  // A rollback goes from queued straight to deploying: its build already exists.
  building: ['deploying', 'failed', 'cancelled', 'queued'],
  deploying: ['ready', 'failed', 'crashed', 'cancelled', 'queued'],
  ready: ['paused', 'crashed'],
  paused: ['ready', 'crashed'],
  // A crash loop that recovers after a manual resume serves again.
  crashed: ['ready'],
  failed: [],
  cancelled: [],
};

/** The timestamp column each status stamps when entered. */
const STAMP: Partial<Record<DeploymentStatus, keyof typeof deployments.$inferInsert>> = {
  building: 'buildingAt',
  deploying: 'deployingAt',
  ready: 'readyAt',
  failed: 'finishedAt',
  crashed: 'finishedAt',
  cancelled: 'finishedAt',
};

export const FINISHED_STATUSES: readonly DeploymentStatus[] = ['failed', 'cancelled'];
export const ACTIVE_STATUSES: readonly DeploymentStatus[] = ['queued', 'building', 'deploying'];

export function canTransition(from: DeploymentStatus, to: DeploymentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/**
 * Moves a deployment to `to` when its status allows it; answers the updated row, or null when
 * the deployment is elsewhere (already cancelled, finished by another node...).
 */
export async function transition(
  ctx: Pick<AppContext, 'db'>,
  deploymentId: number,
  to: DeploymentStatus,
  fields: Partial<typeof deployments.$inferInsert> = {},
) {
  const from = (Object.keys(TRANSITIONS) as DeploymentStatus[]).filter((status) => canTransition(status, to));
  if (from.length === 0) return null;
  const stamp = STAMP[to];
  const [row] = await ctx.db
    .update(deployments)
    .set({ ...fields, status: to, ...(stamp ? { [stamp]: sql`now()` } : {}) })
    .where(and(eq(deployments.id, deploymentId), inArray(deployments.status, from)))
    .returning();
  return row ?? null;
}
