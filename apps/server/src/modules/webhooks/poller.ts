/**
 * Deploy on push where no webhook can reach the platform (the local access mode, no external
 * URL): every project from a git provider without a registered webhook has its environments'
 * branch heads read (`git ls-remote` with the provider's token) once per the settings' interval,
 * and a head that no deployment of the environment has asked for yet is deployed.
 */

import { and, desc, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { AppContext } from '../../context';
import { checkRemote, knownHostsPath } from '../../engine/pipeline/source';
import { everyWithPhase } from '../../lib/time';
import { deployments } from '../deployments/schema';
import { startDeployment } from '../deployments/service';
import { listEnvironmentRows } from '../environments/service';
import { projectFetchCredentials } from '../git-providers/service';
import { projects } from '../projects/schema';
import { getSettings } from '../settings/service';
import { webhookDeliveries } from './schema';

const LS_REMOTE_MS = 20_000;
/**
 * How often a node looks for projects whose interval has passed. A timer, not a scheduled job:
 * the claim below already keeps two nodes apart, and a job row a minute would fill the jobs table.
 */
const LOOK_EVERY_MS = 30_000;

export function startBranchPoller(ctx: AppContext, logger: Pick<Logger, 'warn'>) {
  let running: Promise<unknown> | null = null;
  // Phase 2.5 s into the edge-driver look's 10 s (lib/time.ts: idle looks never open connections together).
  const timer = everyWithPhase(LOOK_EVERY_MS, LOOK_EVERY_MS + 2_500, () => {
    if (running) return;
    running = pollBranches(ctx)
      .then((result) => {
        for (const failure of result.failures) logger.warn(`Polling the branches of ${failure}`);
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'Polling the git branches failed'))
      .finally(() => {
        running = null;
      });
  });
  return {
    async stop() {
      timer.stop();
      await running;
    },
  };
}

export type PollResult = { projects: number; deployed: number; failures: string[] };

/** One round: the projects whose interval has passed (claimed by moving git_polled_at, so two nodes never read one twice). */
export async function pollBranches(ctx: AppContext, options: { force?: boolean } = {}): Promise<PollResult> {
  const settings = await getSettings(ctx);
  const due = await ctx.db
    .update(projects)
    .set({ gitPolledAt: sql`now()` })
    .where(
      and(
        isNotNull(projects.gitConnectionId),
        isNull(projects.webhookHookId),
        eq(projects.automaticDeploy, true),
        options.force
          ? undefined
          : or(
              isNull(projects.gitPolledAt),
              lt(projects.gitPolledAt, sql`now() - make_interval(secs => ${settings.git_poll_interval_seconds})`),
            ),
      ),
    )
    .returning();
  const result: PollResult = { projects: due.length, deployed: 0, failures: [] };
  for (const project of due) {
    try {
      result.deployed += await pollProject(ctx, project, settings.allow_private_network_targets);
    } catch (error) {
      result.failures.push(`${project.name}: ${(error as Error).message}`);
    }
  }
  return result;
}

async function pollProject(ctx: AppContext, project: typeof projects.$inferSelect, allowPrivate: boolean): Promise<number> {
  const credentials = await projectFetchCredentials(ctx, project);
  if (!credentials || !project.gitUrl) return 0;
  let deployed = 0;
  // Previews follow their pull requests' events, not their branches.
  const environments = (await listEnvironmentRows(ctx, project.id)).filter((env) => env.prNumber === null);
  for (const environment of environments) {
    const head = await checkRemote({
      url: project.gitUrl,
      token: credentials.token,
      tokenUser: credentials.tokenUser,
      branch: environment.branch,
      allowPrivateNetwork: credentials.savedByAdmin || allowPrivate,
      knownHostsFile: knownHostsPath(ctx.config.dataDir),
      timeoutMs: LS_REMOTE_MS,
    });
    if (!head.ok) throw new Error(head.message);
    const [last] = await ctx.db
      .select({ requested: deployments.requestedCommit, built: deployments.commitSha })
      .from(deployments)
      .where(eq(deployments.environmentId, environment.id))
      .orderBy(desc(deployments.id))
      .limit(1);
    // A head some deployment already asked for (whatever became of it) is not deployed again by itself.
    if (last && (last.requested === head.headSha || last.built === head.headSha)) continue;
    const deployment = await startDeployment(ctx, {
      project,
      environment,
      trigger: 'poll',
      commit: head.headSha,
      createdBy: null,
    });
    await ctx.db.insert(webhookDeliveries).values({
      projectId: project.id,
      providerType: 'poll',
      event: 'poll',
      ref: `refs/heads/${environment.branch}`,
      commitSha: head.headSha,
      outcome: 'deployed',
      detail: `A new commit on ${environment.branch} was found by polling: deploying ${head.headSha.slice(0, 7)} to ${environment.name}`,
      deploymentId: deployment.id,
    });
    deployed += 1;
  }
  return deployed;
}
