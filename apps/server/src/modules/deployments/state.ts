import type { DeploymentStatus } from '@launchbay/contract';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { Db } from '../../db/client';
import { deploymentSteps, deployments } from './schema';

/**
 * Every status change of a deployment, in one place. A change is a compare-and-set on the row
 * (`UPDATE ... WHERE status IN (allowed sources)`), so two nodes, a cancel racing a build, or a
 * retried job can never move a deployment along an edge that is not in this table.
 */
export const TRANSITIONS: Record<DeploymentStatus, readonly DeploymentStatus[]> = {
  queued: ['building', 'deploying', 'failed', 'cancelled'],
  // A rollback goes from queued straight to deploying: its build already exists.
  building: ['deploying', 'failed', 'cancelled', 'queued'],
  // Back to building when the platform restarted while it was starting: its build folder may be
  // incomplete (the start was cut short), so it is built again from a clean folder.
  deploying: ['ready', 'failed', 'crashed', 'cancelled', 'queued', 'building'],
  ready: ['paused', 'crashed'],
  paused: ['ready', 'crashed'],
  // A crash loop that recovers after a manual resume serves again.
  crashed: ['ready'],
  failed: [],
  cancelled: [],
};

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

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
 * Whether a deployment ended before it went live (failed, cancelled, or crashed at start): its
 * pipeline is over, and the steps it did not reach never run. A crash of a deployment that
 * served (ready or paused before) is not one: its pipeline had finished.
 */
export function endedBeforeLive(row: { status: string; readyAt: Date | null }): boolean {
  return FINISHED_STATUSES.includes(row.status as DeploymentStatus) || (row.status === 'crashed' && row.readyAt === null);
}

/**
 * Moves a deployment to `to` when its status allows it; answers the updated row, or null when
 * the deployment is elsewhere (already cancelled, finished by another node...). A deployment that
 * ends before it went live settles its pipeline steps in the same transaction (settleSteps).
 */
export async function transition(
  ctx: Pick<AppContext, 'db'>,
  deploymentId: number,
  to: DeploymentStatus,
  fields: Partial<typeof deployments.$inferInsert> = {},
  /** Only from these (of the table's sources): the status the caller read, so a row another node moved meanwhile stays put. */
  onlyFrom?: readonly DeploymentStatus[],
) {
  const from = (Object.keys(TRANSITIONS) as DeploymentStatus[]).filter(
    (status) => canTransition(status, to) && (!onlyFrom || onlyFrom.includes(status)),
  );
  if (from.length === 0) return null;
  const stamp = STAMP[to];
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(deployments)
      .set({ ...fields, status: to, ...(stamp ? { [stamp]: sql`now()` } : {}) })
      .where(and(eq(deployments.id, deploymentId), inArray(deployments.status, from)))
      .returning();
    if (row && endedBeforeLive(row)) await settleSteps(tx, row);
    return row ?? null;
  });
}

/**
 * The steps of a deployment that ended before it went live: the one still running ends
 * 'cancelled' (or 'failed'), and those never reached end 'skipped' with why ('not reached: the
 * build step failed', 'not reached: cancelled'). Their finished_at stays null: they never ran.
 * The pipeline starts no step once its deployment has ended (pipeline.ts, Reporter), so a step
 * settled here stays as it is.
 */
async function settleSteps(db: Tx, row: typeof deployments.$inferSelect): Promise<void> {
  const ofDeployment = eq(deploymentSteps.deploymentId, row.id);
  const cancelled = row.status === 'cancelled';
  await db
    .update(deploymentSteps)
    .set({
      status: cancelled ? 'cancelled' : 'failed',
      finishedAt: new Date(),
      detail: (row.error ?? (cancelled ? 'Cancelled' : 'Failed')).slice(0, 2000),
    })
    .where(and(ofDeployment, eq(deploymentSteps.status, 'running')));
  let reason = 'cancelled';
  if (!cancelled) {
    const [failed] = await db
      .select({ name: deploymentSteps.name })
      .from(deploymentSteps)
      .where(and(ofDeployment, eq(deploymentSteps.status, 'failed')))
      .orderBy(desc(deploymentSteps.id))
      .limit(1);
    reason = failed
      ? `the ${failed.name} step failed`
      : row.status === 'crashed'
        ? 'the app crashed at start'
        : 'the deployment failed';
  }
  await db
    .update(deploymentSteps)
    .set({ status: 'skipped', detail: `not reached: ${reason}`, startedAt: null, finishedAt: null })
    .where(and(ofDeployment, eq(deploymentSteps.status, 'pending')));
}
