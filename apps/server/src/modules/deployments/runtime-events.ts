import { and, eq, isNotNull } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { BuildPlan } from '../../engine/pipeline/build-plan';
import type { RuntimeEvent } from '../../engine/runtime/driver';
import { environments } from '../environments/schema';
import { publishAlert } from '../notifications/service';
import { projects } from '../projects/schema';
import { publishRoutes } from './edge-routes';
import { deploymentLogWriter } from './logs';
import { deploymentEnv, startProcesses } from './pipeline';
import { deployments } from './schema';
import { transition } from './state';

type Log = { info(message: string): void; warn(message: string): void };

/**
 * What the runtime reports about running deployments reaches the platform here: every stdout and
 * stderr line into the deployment's log, restarts as log notes, and a crash loop of a serving
 * deployment marks it crashed, publishes the `deployment_failed` alert and shows the edge's
 * "down" page. (A deployment that crash-loops before it takes traffic fails in its pipeline.)
 */
export function followRuntime(ctx: AppContext, log: Log): () => void {
  const writer = deploymentLogWriter(ctx.pool);
  const offLog = ctx.runtime.onLog((line) => {
    writer.write({ deploymentId: line.deploymentId, stream: line.stream, process: line.process, at: line.at, line: line.line });
  });
  const offEvent = ctx.runtime.onEvent((event) => {
    void onEvent(ctx, event).catch((error: Error) =>
      log.warn(`Could not record a runtime event of deployment ${event.deploymentId}: ${error.message}`),
    );
  });
  return () => {
    offLog();
    offEvent();
  };
}

async function onEvent(ctx: AppContext, event: RuntimeEvent): Promise<void> {
  const writer = deploymentLogWriter(ctx.pool);
  const note = (line: string) =>
    writer.write({ deploymentId: event.deploymentId, stream: 'system', process: event.type, at: new Date(), line });
  if (event.kind === 'exited' && !event.expected)
    note(`${event.type}.${event.index} exited (${event.signal ? `signal ${event.signal}` : `code ${event.code}`})`);
  if (event.kind === 'restarting')
    note(`${event.type}.${event.index} restarts in ${Math.round(event.delayMs / 100) / 10} s (attempt ${event.attempt})`);
  if (event.kind !== 'crash_loop') return;
  note(
    `${event.type}.${event.index} crashed ${event.restarts} times within ${Math.round(event.windowMs / 1000)} s: the platform stopped restarting it`,
  );
  const [row] = await ctx.db.select().from(deployments).where(eq(deployments.id, event.deploymentId));
  if (!row || (row.status !== 'ready' && row.status !== 'paused')) return;
  const crashed = await transition(ctx, row.id, 'crashed', {
    error: `The ${event.type} process kept crashing (${event.restarts} restarts within ${Math.round(event.windowMs / 1000)} s)`,
  });
  if (!crashed) return;
  const [project] = await ctx.db.select().from(projects).where(eq(projects.id, row.projectId));
  await publishRoutes(ctx, { waitMs: 0 });
  await publishAlert(ctx, {
    type: 'deployment_failed',
    severity: 'critical',
    title: `${project?.name ?? `Project ${row.projectId}`}: deployment ${row.id} crashed`,
    message: `The ${event.type} process exited ${event.restarts} times within ${Math.round(event.windowMs / 1000)} seconds and is no longer restarted. Roll back or push a fix.`,
    group_key: `deployment:${row.projectId}:${row.environmentId}`,
    project_id: row.projectId,
    data: { deployment_id: row.id, environment_id: row.environmentId },
  });
}

/**
 * At start: the runtime finds the processes still running from before (they kept serving) and
 * watches them again; serving deployments whose processes are gone (a reboot) start again from
 * their builds. The route table is then published with what runs.
 */
export async function adoptRunningDeployments(ctx: AppContext, log: Log): Promise<void> {
  const running = await ctx.runtime.adopt();
  for (const found of running) {
    await ctx.db
      .update(deployments)
      .set({ runtime: found as unknown as Record<string, unknown> })
      .where(eq(deployments.id, found.deploymentId));
  }
  const adopted = new Set(running.map((d) => d.deploymentId));
  const serving = await ctx.db
    .select({ deployment: deployments, environment: environments })
    .from(environments)
    .innerJoin(deployments, eq(deployments.id, environments.currentDeploymentId))
    .where(and(isNotNull(environments.currentDeploymentId), eq(deployments.status, 'ready')));
  for (const { deployment, environment } of serving) {
    const plan = deployment.plan as unknown as BuildPlan | null;
    if (plan?.kind !== 'server' || adopted.has(deployment.id)) continue;
    if (!deployment.artifactDir) continue;
    log.info(`Deployment ${deployment.id} was not running: starting it again from its build`);
    await startProcesses(ctx, {
      deploymentId: deployment.id,
      appDir: deployment.artifactDir,
      plan,
      env: deploymentEnv(ctx, deployment),
      environment,
    });
  }
  await publishRoutes(ctx, { waitMs: 0 });
}

/** Stops every deployment's processes (the platform taken down on purpose, with its edge). */
export async function stopAllDeployments(ctx: AppContext): Promise<void> {
  const rows = await ctx.db.select({ id: deployments.id }).from(deployments).where(isNotNull(deployments.runtime));
  await Promise.all(rows.map((row) => ctx.runtime.stop(row.id, { graceMs: 3000 })));
}
