import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { BuildPlan } from '../../engine/pipeline/build-plan';
import { conflict } from '../../lib/errors';
import { getEnvironmentRow } from '../environments/service';
import type { ProjectRow } from '../projects/service';
import { publishRoutesAfterCommit } from './edge-routes';
import { deploymentEnv, startProcesses } from './pipeline';
import { deployments } from './schema';
import { buildKept, getDeploymentRow } from './service';
import { transition } from './state';

/** Pause: the current deployment stops serving (its processes stop, the edge answers a clear page); its build stays. */
export async function pauseDeployment(ctx: AppContext, project: ProjectRow, id: number): Promise<void> {
  const row = await getDeploymentRow(ctx, project.id, id);
  const environment = await getEnvironmentRow(ctx, project.id, row.environmentId);
  if (environment.currentDeploymentId !== id || row.status !== 'ready') {
    throw conflict(
      `Deployment ${id} is ${row.status}${environment.currentDeploymentId === id ? '' : ' and not serving'}: only the serving deployment can be paused`,
    );
  }
  const paused = await transition(ctx, id, 'paused');
  if (!paused) throw conflict(`Deployment ${id} changed while pausing it: try again`);
  await ctx.runtime.stop(id, { graceMs: 10_000 });
  await ctx.db.update(deployments).set({ runtime: null, stoppedAt: new Date() }).where(eq(deployments.id, id));
  publishRoutesAfterCommit(ctx);
}

/** Resume: a paused deployment's processes start again from its build, with the env vars it ran with. */
export async function resumeDeployment(ctx: AppContext, project: ProjectRow, id: number): Promise<void> {
  const row = await getDeploymentRow(ctx, project.id, id);
  const environment = await getEnvironmentRow(ctx, project.id, row.environmentId);
  if (row.status !== 'paused' && row.status !== 'crashed')
    throw conflict(`Deployment ${id} is ${row.status}: only a paused or crashed deployment can be resumed`);
  if (environment.currentDeploymentId !== id)
    throw conflict(`Deployment ${id} no longer serves ${environment.name}: roll back to it instead`);
  const plan = row.plan as unknown as BuildPlan | null;
  if (!plan || !row.artifactDir || !(await buildKept(row)))
    throw conflict(`The build of deployment ${id} is no longer kept: redeploy instead`);
  if (plan.kind === 'server') {
    await startProcesses(ctx, { deploymentId: id, appDir: row.artifactDir, plan, env: deploymentEnv(ctx, row), environment });
  }
  if (!(await transition(ctx, id, 'ready'))) throw conflict(`Deployment ${id} changed while resuming it: try again`);
  publishRoutesAfterCommit(ctx);
}
