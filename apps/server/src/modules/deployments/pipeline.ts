import fs from 'node:fs';
import path from 'node:path';
import { type DeploymentStatus, formatBytes } from '@launchbay/contract';
import { and, desc, eq, inArray, isNotNull, lt, ne, type SQL } from 'drizzle-orm';
import type { AppContext } from '../../context';
import {
  dependencyCacheKey,
  folderBytes,
  installHasWork,
  restoreBuildCaches,
  restoreDependencies,
  runCommand,
  saveBuildCaches,
  saveDependencies,
} from '../../engine/pipeline/build';
import type { BuildPlan } from '../../engine/pipeline/build-plan';
import { directScriptCommand, readPackageJson } from '../../engine/pipeline/config';
import { resolveBuildPlan } from '../../engine/pipeline/config/resolve';
import { localRemoteHas, projectRepoDir } from '../../engine/pipeline/local-remote';
import { fetchCommit, knownHostsPath } from '../../engine/pipeline/source';
import type { RunningDeployment } from '../../engine/runtime/driver';
import { JobCancelledError, type RunningJob } from '../../jobs';
import { shellQuote } from '../../lib/shell';
import { syncLaunchbayCrons } from '../crons/service';
import { environmentValues, previewValues } from '../env-vars/service';
import { environments } from '../environments/schema';
import { type EnvironmentRow, environmentUrl, getEnvironmentRow, productionEnvironmentId } from '../environments/service';
import { projectFetchCredentials, reportCommitStatus } from '../git-providers/service';
import { publishAlert } from '../notifications/service';
import { getProjectRow, type ProjectRow } from '../projects/service';
import { getSettings } from '../settings/service';
import { publishRoutes } from './edge-routes';
import { deploymentLogWriter, type LogStream } from './logs';
import { deploymentSteps, deployments } from './schema';
import { endedBeforeLive, transition } from './state';

/**
 * A deployment's pipeline, run as one durable job: clone the exact commit, resolve the build
 * configuration, restore the cache, install, build, save the cache, start, health-check, switch
 * traffic, drain the previous deployment. A rollback starts at "start" with the kept build.
 * A platform restart in the middle re-runs the job: a build starts over from a clean folder
 * (it says so in the log); a deployment already switched is left as it is.
 */

type Row = typeof deployments.$inferSelect;

const HEALTH_TIMEOUT_MS = 60_000;
const HEALTH_RESTARTS = 2;
/** In-flight requests on the previous deployment get this long once the edge has switched. */
const DRAIN_MS = 2_000;
const STOP_GRACE_MS = 10_000;

export function deploymentDirs(dataDir: string, deploymentId: number) {
  const root = path.join(dataDir, 'deployments', String(deploymentId));
  return { root, app: path.join(root, 'app') };
}

export function projectCacheDir(dataDir: string, projectId: number) {
  return path.join(dataDir, 'build-cache', String(projectId));
}

export function buildCacheDir(dataDir: string, projectId: number, environmentId: number) {
  return path.join(projectCacheDir(dataDir, projectId), String(environmentId));
}

class Reporter {
  constructor(
    private readonly ctx: AppContext,
    readonly deploymentId: number,
  ) {}

  log(line: string, stream: LogStream = 'build'): void {
    deploymentLogWriter(this.ctx.pool).write({ deploymentId: this.deploymentId, stream, process: null, at: new Date(), line });
  }

  /**
   * Runs one step of the pipeline and records it. A step starts only while its deployment has not
   * ended: once a cancel (or a failure elsewhere) ended it, its steps are settled (state.ts) and
   * none of them runs or changes any more.
   */
  async step<T>(name: string, run: () => Promise<T>, describe?: (result: T) => string | null): Promise<T> {
    const where = and(eq(deploymentSteps.deploymentId, this.deploymentId), eq(deploymentSteps.name, name));
    const started = await this.whileRunning({ status: 'running', startedAt: new Date(), finishedAt: null, detail: null }, where);
    if (!started) throw new JobCancelledError();
    this.log(`── ${name}`, 'system');
    // Only the step's own outcome, while it is running: one the deployment's end settled stays settled.
    const running = and(where, eq(deploymentSteps.status, 'running'));
    try {
      const result = await run();
      await this.ctx.db
        .update(deploymentSteps)
        .set({ status: 'succeeded', finishedAt: new Date(), detail: describe?.(result) ?? null })
        .where(running);
      return result;
    } catch (error) {
      const cancelled = error instanceof JobCancelledError || error instanceof SupersededError;
      await this.ctx.db
        .update(deploymentSteps)
        .set({
          status: cancelled ? 'cancelled' : 'failed',
          finishedAt: new Date(),
          detail: (error as Error).message.slice(0, 2000),
        })
        .where(running);
      throw error;
    }
  }

  async skip(name: string, detail: string): Promise<void> {
    await this.whileRunning(
      { status: 'skipped', detail, finishedAt: new Date() },
      and(eq(deploymentSteps.deploymentId, this.deploymentId), eq(deploymentSteps.name, name)),
    );
  }

  /**
   * Updates a step unless its deployment has ended (answers whether it did). The deployment's row
   * is read with a share lock: a cancel being committed (which settles the steps in its own
   * transaction) is waited for, then seen.
   */
  private async whileRunning(set: Partial<typeof deploymentSteps.$inferInsert>, where: SQL | undefined): Promise<boolean> {
    return this.ctx.db.transaction(async (tx) => {
      const [row] = await tx
        .select({ status: deployments.status, readyAt: deployments.readyAt })
        .from(deployments)
        .where(eq(deployments.id, this.deploymentId))
        .for('share');
      if (!row || endedBeforeLive(row)) return false;
      await tx.update(deploymentSteps).set(set).where(where);
      return true;
    });
  }

  /** A build that starts over (after a restart of the platform) starts its steps over too. */
  async resetSteps(): Promise<void> {
    await this.ctx.db
      .update(deploymentSteps)
      .set({ status: 'pending', detail: null, startedAt: null, finishedAt: null })
      .where(eq(deploymentSteps.deploymentId, this.deploymentId));
  }
}

/** npm, when it runs an app's start script or a build, checks for its own updates and asks for funding: neither, here. */
export const QUIET_NPM = { npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

/**
 * Whether a deployment builds from the platform's own git remote: always for a project without a
 * git URL (its source is `git push` to the platform), and for a commit that a push brought.
 */
async function fromLocalRemote(ctx: AppContext, project: ProjectRow, row: Row): Promise<boolean> {
  if (!project.gitUrl) return true;
  return row.requestedCommit !== null && (await localRemoteHas(ctx.config.dataDir, project.id, row.requestedCommit));
}

/** The env vars a deployment was built and runs with (sealed on its row), in clear. */
export function deploymentEnv(ctx: AppContext, row: Pick<Row, 'envSealed'>): Record<string, string> {
  return row.envSealed ? (JSON.parse(ctx.box.open(row.envSealed)) as Record<string, string>) : {};
}

/**
 * Starts a built deployment's processes under the runtime, with the env vars it was built with and
 * its environment's limits, and records where they run: for a new deployment, a resume and a
 * restart after a reboot alike.
 */
export async function startProcesses(
  ctx: AppContext,
  options: { deploymentId: number; appDir: string; plan: BuildPlan; env: Record<string, string>; environment: EnvironmentRow },
): Promise<RunningDeployment> {
  const { deploymentId, appDir, plan, env, environment } = options;
  const pkg = await readPackageJson(appDir);
  const running = await ctx.runtime.start({
    deploymentId,
    appDir,
    // The environment's instances are copies of `web`, balanced by the edge; the other types run once each.
    processes: plan.processes.map((process) => ({
      ...process,
      command: directScriptCommand(process.command, pkg),
      ...(process.type === 'web' ? { instances: environment.instances } : {}),
    })),
    env: { ...env, ...QUIET_NPM, NODE_ENV: 'production' },
    port: plan.port,
    limits: { memoryMb: environment.memoryMb, cpuPercent: environment.cpuPercent, pids: null },
  });
  await ctx.db
    .update(deployments)
    .set({ runtime: running as unknown as Record<string, unknown>, stoppedAt: null })
    .where(eq(deployments.id, deploymentId));
  return running;
}

/** The environment a deployment's commands get: the user's env vars, over a minimal platform environment. */
function commandEnv(userEnv: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    LANG: 'C.UTF-8',
    CI: '1',
    ...QUIET_NPM,
    ...userEnv,
    ...extra,
  };
}

function overridesOf(project: ProjectRow) {
  return {
    preset: project.preset,
    installCommand: project.installCommand,
    buildCommand: project.buildCommand,
    startCommand: project.startCommand,
    outputDirectory: project.outputDirectory,
    port: project.port,
  };
}

async function build(
  ctx: AppContext,
  row: Row,
  project: ProjectRow,
  environment: EnvironmentRow,
  reporter: Reporter,
  signal: AbortSignal,
) {
  const dirs = deploymentDirs(ctx.config.dataDir, row.id);
  if (row.status === 'building') {
    reporter.log('The platform restarted during this build: building again from a clean folder', 'system');
    await reporter.resetSteps();
  } else if (!(await transition(ctx, row.id, 'building', {}, ['queued']))) return null;
  fs.rmSync(dirs.root, { recursive: true, force: true });
  fs.mkdirSync(dirs.root, { recursive: true });
  // A repository of a git provider is fetched with the provider's token of now (a new one applies at once).
  const viaProvider = await projectFetchCredentials(ctx, project);
  const token = viaProvider?.token ?? (project.gitTokenSealed ? ctx.box.open(project.gitTokenSealed) : undefined);
  const sshKey = project.deployKeySealed ? ctx.box.open(project.deployKeySealed) : undefined;
  const settings = await getSettings(ctx);

  const localRepo = await fromLocalRemote(ctx, project, row);
  const commit = await reporter.step(
    'clone',
    () =>
      fetchCommit({
        url: project.gitUrl ?? '',
        localRepo: localRepo ? projectRepoDir(ctx.config.dataDir, project.id) : undefined,
        token,
        tokenUser: viaProvider?.tokenUser,
        sshKey,
        branch: row.branch,
        commit: row.requestedCommit ?? undefined,
        dir: dirs.app,
        allowPrivateNetwork: settings.allow_private_network_targets || project.gitSavedByAdmin,
        knownHostsFile: knownHostsPath(ctx.config.dataDir),
        signal,
        log: (line) => reporter.log(line),
      }),
    (c) => `${c.sha.slice(0, 7)} ${c.message.split('\n')[0]}`,
  );
  await ctx.db
    .update(deployments)
    .set({
      commitSha: commit.sha,
      commitMessage: commit.message.slice(0, 2000),
      commitAuthor: `${commit.author.name} <${commit.author.email}>`,
    })
    .where(eq(deployments.id, row.id));

  const appDir = path.join(dirs.app, project.rootDirectory === '.' ? '' : project.rootDirectory);
  if (!fs.existsSync(appDir))
    throw new Error(`The root directory ${project.rootDirectory} does not exist in commit ${commit.sha.slice(0, 7)}`);
  const userEnv =
    environment.prNumber === null
      ? await environmentValues(ctx, project.id, environment.id)
      : await previewValues(ctx, project.id, environment.id, await productionEnvironmentId(ctx, project.id));
  const plan = await reporter.step(
    'configure',
    async () => {
      const result = await resolveBuildPlan(appDir, overridesOf(project));
      if ('errors' in result) {
        for (const error of result.errors)
          reporter.log(`${error.source}: ${error.path ? `${error.path}: ` : ''}${error.message}`);
        throw new Error(
          `The build configuration is not valid: ${result.errors.map((e) => `${e.path ? `${e.path}: ` : ''}${e.message}`).join('; ')}`,
        );
      }
      const missing = result.requiredEnv.filter((name) => !(name in userEnv));
      if (missing.length > 0) throw new Error(`Missing environment variables the app requires: ${missing.join(', ')}`);
      reporter.log(
        `${result.presetName} (${result.kind === 'static' ? `static site from ${result.outputDirectory}` : 'server'}), ` +
          `${result.packageManager ?? 'no package manager'}; install: ${result.installCommand ?? '-'}; build: ${result.buildCommand ?? '-'}`,
      );
      return result;
    },
    (p) => p.presetName,
  );
  await ctx.db
    .update(deployments)
    .set({ plan: plan as unknown as Record<string, unknown>, envSealed: ctx.box.seal(JSON.stringify(userEnv)) })
    .where(eq(deployments.id, row.id));

  const cache = { dir: buildCacheDir(ctx.config.dataDir, project.id, environment.id) };
  const key = plan.installCommand ? dependencyCacheKey(appDir, plan) : null;
  const restored = await reporter.step(
    'restore cache',
    async () => {
      const deps = await restoreDependencies(appDir, cache, key, signal);
      const caches = await restoreBuildCaches(appDir, cache, plan.cacheDirectories, signal);
      if (deps) await ctx.runtime.handOver(path.join(appDir, 'node_modules'));
      for (const folder of caches) await ctx.runtime.handOver(path.join(appDir, folder));
      reporter.log(
        deps ? `Dependencies restored from the cache (${key?.slice(0, 12)})` : 'No cached dependencies for this lockfile',
      );
      return { deps, caches };
    },
    (r) => (r.deps ? 'dependencies restored' : 'nothing cached'),
  );
  // Install and build scripts come from the repository: they run in the apps' sandbox, as the apps' user,
  // with only the deployment's folder writable (never the platform's data and keys).
  const run = (command: string, extra: Record<string, string> = {}) =>
    runCommand(command, {
      cwd: appDir,
      env: commandEnv(userEnv, { HOME: '/tmp', ...extra }),
      log: (line) => reporter.log(line),
      signal,
      timeoutMs: ctx.config.buildTimeoutSeconds * 1000,
      commandLine: (cmd) => ctx.runtime.commandLine(dirs.root, `cd ${shellQuote(appDir)} && ${cmd}`),
    });

  // A detected install of a package.json without dependencies is skipped; one the user set always runs.
  const installNeeded = plan.sources.installCommand !== 'detected' || (await installHasWork(appDir));
  if (plan.installCommand && !restored.deps && installNeeded) {
    await reporter.step('install', async () => {
      reporter.log(`$ ${plan.installCommand}`);
      await run(plan.installCommand as string);
    });
  } else {
    await reporter.skip(
      'install',
      !plan.installCommand
        ? 'nothing to install'
        : restored.deps
          ? 'dependencies restored from the cache'
          : 'package.json lists no dependencies',
    );
  }

  if (plan.buildCommand) {
    await reporter.step('build', async () => {
      reporter.log(`$ ${plan.buildCommand}`);
      await run(plan.buildCommand as string, { NODE_ENV: 'production' });
    });
  } else await reporter.skip('build', 'no build command');
  if (plan.kind === 'static' && !fs.existsSync(path.join(appDir, plan.outputDirectory ?? '.', 'index.html'))) {
    throw new Error(`The build produced no ${path.join(plan.outputDirectory ?? '.', 'index.html')}`);
  }

  await reporter.step(
    'save cache',
    async () => {
      const deps = restored.deps ? false : await saveDependencies(appDir, cache, key, signal);
      const caches = await saveBuildCaches(appDir, cache, plan.cacheDirectories, signal);
      return { deps, caches };
    },
    (r) => [r.deps ? 'dependencies saved' : null, ...r.caches].filter(Boolean).join(', ') || 'unchanged',
  );
  const bytes = folderBytes(plan.kind === 'static' ? path.join(appDir, plan.outputDirectory ?? '.') : appDir);
  reporter.log(`Build output: ${formatBytes(bytes)}`);
  await ctx.db.update(deployments).set({ artifactDir: appDir, artifactBytes: bytes }).where(eq(deployments.id, row.id));
  return { plan, env: userEnv, appDir };
}

async function waitHealthy(
  ctx: AppContext,
  deploymentId: number,
  port: number,
  healthPath: string,
  signal: AbortSignal,
  reporter: Reporter,
) {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  let lastProblem = '';
  while (Date.now() < deadline) {
    signal.throwIfAborted();
    const state = ctx.runtime.status(deploymentId);
    const web = state?.processes.find((p) => p.type === 'web');
    // An app that exits before it ever answered is not worth a crash loop's patience: two restarts tell.
    if (!web || web.state === 'crashed' || web.restarts >= HEALTH_RESTARTS) {
      throw new CrashedError(
        `The app exited at start${web?.restarts ? ` (${web.restarts + 1} times)` : ''} and never answered: see the runtime log`,
      );
    }
    try {
      const response = await fetch(`http://127.0.0.1:${port}${healthPath}`, {
        signal: AbortSignal.timeout(2000),
        redirect: 'manual',
      });
      await response.body?.cancel();
      if (response.status < 500) return response.status;
      lastProblem = `answered ${response.status}`;
    } catch (error) {
      lastProblem = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  reporter.log(`Health check: ${lastProblem}`);
  throw new Error(
    `The app did not answer http://127.0.0.1:${port}${healthPath} within ${HEALTH_TIMEOUT_MS / 1000} s (${lastProblem})`,
  );
}

class CrashedError extends Error {}

class SupersededError extends Error {
  constructor(readonly newerId: number) {
    super(`Superseded: deployment ${newerId}, which is newer, went live first`);
  }
}

/** The previous deployment of the environment stops once the edge serves the new one (after a drain). */
async function drainPrevious(ctx: AppContext, previousId: number | null, reporter: Reporter) {
  if (!previousId) return 'no previous deployment';
  await new Promise((resolve) => setTimeout(resolve, DRAIN_MS));
  await ctx.runtime.stop(previousId, { graceMs: STOP_GRACE_MS });
  await ctx.db.update(deployments).set({ runtime: null, stoppedAt: new Date() }).where(eq(deployments.id, previousId));
  reporter.log(`Deployment ${previousId} stopped after its in-flight requests`);
  return `deployment ${previousId} stopped`;
}

/** Keeps the builds of the last N successful deployments of the environment (and those serving); removes older ones. */
async function pruneBuilds(ctx: AppContext, environment: EnvironmentRow, keep: number) {
  const kept = await ctx.db
    .select({ id: deployments.id, artifactDir: deployments.artifactDir })
    .from(deployments)
    .where(and(eq(deployments.environmentId, environment.id), isNotNull(deployments.readyAt), isNotNull(deployments.artifactDir)))
    .orderBy(desc(deployments.id));
  const keepDirs = new Set(kept.slice(0, keep).map((d) => d.artifactDir));
  const [current] = await ctx.db.select().from(environments).where(eq(environments.id, environment.id));
  for (const old of kept.slice(keep)) {
    if (old.id === current?.currentDeploymentId || keepDirs.has(old.artifactDir)) continue;
    fs.rmSync(deploymentDirs(ctx.config.dataDir, old.id).root, { recursive: true, force: true });
    await ctx.db
      .update(deployments)
      .set({ artifactDir: null })
      .where(eq(deployments.artifactDir, old.artifactDir as string));
  }
  // Failed and cancelled builds are never served: their folders go at once.
  const failed = await ctx.db
    .select({ id: deployments.id })
    .from(deployments)
    .where(
      and(
        eq(deployments.environmentId, environment.id),
        inArray(deployments.status, ['failed', 'cancelled']),
        isNotNull(deployments.artifactDir),
        lt(deployments.id, kept[0]?.id ?? 0),
      ),
    );
  for (const row of failed) {
    fs.rmSync(deploymentDirs(ctx.config.dataDir, row.id).root, { recursive: true, force: true });
    await ctx.db.update(deployments).set({ artifactDir: null }).where(eq(deployments.id, row.id));
  }
}

export async function runDeploymentPipeline(ctx: AppContext, deploymentId: number, job: RunningJob): Promise<void> {
  const [row] = await ctx.db.select().from(deployments).where(eq(deployments.id, deploymentId));
  if (!row || !['queued', 'building', 'deploying'].includes(row.status)) return;
  const project = await getProjectRow(ctx, row.projectId);
  let environment = await getEnvironmentRow(ctx, project.id, row.environmentId);
  const reporter = new Reporter(ctx, deploymentId);
  const writer = deploymentLogWriter(ctx.pool);
  let started = false;
  try {
    let plan: BuildPlan;
    let env: Record<string, string>;
    let appDir: string;
    if (row.sourceDeploymentId) {
      plan = row.plan as unknown as BuildPlan;
      env = deploymentEnv(ctx, row);
      appDir = row.artifactDir ?? '';
      reporter.log(
        `Rollback to deployment ${row.sourceDeploymentId} (${row.commitSha?.slice(0, 7)}): its build and env vars, no rebuild`,
        'system',
      );
      if (!fs.existsSync(appDir)) throw new Error(`The build of deployment ${row.sourceDeploymentId} is gone from disk`);
    } else {
      if (row.status === 'deploying') {
        reporter.log('The platform restarted while this deployment was starting: building it again', 'system');
        // Its processes outlived the restart (adopted, maybe still starting): they go before the rebuild
        // empties their folder, or the new start would find the deployment already running.
        await ctx.runtime.stop(row.id, { graceMs: 2000 });
        await ctx.db.update(deployments).set({ runtime: null }).where(eq(deployments.id, row.id));
        const rebuilding = await transition(ctx, row.id, 'building', {}, ['deploying']);
        if (!rebuilding) return;
        row.status = rebuilding.status;
      }
      const built = await build(ctx, row, project, environment, reporter, job.signal);
      if (!built) return;
      ({ plan, env, appDir } = built);
    }
    if (!(await transition(ctx, deploymentId, 'deploying'))) return;

    if (plan.kind === 'server') {
      const runtime = await reporter.step(
        'start',
        async () => {
          const running = await startProcesses(ctx, { deploymentId, appDir, plan, env, environment });
          started = true;
          return running;
        },
        (r) => r.processes.map((p) => `${p.type}${p.port ? ` on port ${p.port}` : ''}`).join(', '),
      );
      const webPort = plan.port ?? runtime.processes.find((p) => p.type === 'web')?.port;
      if (webPort) {
        await reporter.step(
          'health check',
          () => waitHealthy(ctx, deploymentId, webPort, plan.healthCheckPath, job.signal, reporter),
          (s) => `answered ${s}`,
        );
      } else await reporter.skip('health check', 'no web process');
    } else {
      await reporter.skip('start', 'static site: served by the edge from disk');
      await reporter.skip('health check', 'static site');
    }

    const previousId = await reporter.step('switch', async () => {
      [environment] = (await ctx.db.select().from(environments).where(eq(environments.id, environment.id))) as [EnvironmentRow];
      const previous = environment.currentDeploymentId;
      // A newer deployment that went live first wins: an older build finishing late never takes its traffic.
      if (previous !== null && previous > deploymentId) throw new SupersededError(previous);
      // Traffic moves first, and the deployment is called ready once the edge serves it: a client
      // that sees `ready` and opens the address gets this version.
      const [switched] = await ctx.db
        .update(environments)
        .set({ currentDeploymentId: deploymentId, updatedAt: new Date() })
        .where(eq(environments.id, environment.id))
        .returning();
      if (!switched) throw new Error('The environment is gone');
      const applied = await publishRoutes(ctx);
      reporter.log(
        applied
          ? 'The edge now sends traffic to this deployment'
          : 'The edge did not confirm the new route in time; it will pick it up when it reconnects',
      );
      const ready = await transition(ctx, deploymentId, 'ready', { error: null });
      if (!ready) {
        // Cancelled at the last moment: the previous deployment takes the traffic back.
        await ctx.db.update(environments).set({ currentDeploymentId: previous }).where(eq(environments.id, environment.id));
        await publishRoutes(ctx);
        throw new Error('The deployment was cancelled before it could take traffic');
      }
      return previous !== deploymentId ? previous : null;
    });
    // The live deployment's launchbay.json decides the environment's file-defined cron jobs.
    await syncLaunchbayCrons(ctx, environment.id, plan.crons ?? []).catch((error: Error) =>
      reporter.log(`Could not apply the cron jobs of launchbay.json: ${error.message}`, 'system'),
    );
    if ((plan.crons ?? []).length > 0)
      reporter.log(`Cron jobs from launchbay.json: ${plan.crons.map((c) => `${c.schedule} ${c.path}`).join(', ')}`);
    await reporter.step('drain', () => drainPrevious(ctx, previousId, reporter));
    const keep = (await getSettings(ctx)).kept_builds_per_environment;
    await pruneBuilds(ctx, environment, keep).catch((error: Error) =>
      reporter.log(`Could not prune old builds: ${error.message}`, 'system'),
    );
    reporter.log(`Ready: ${plan.kind === 'static' ? 'static site' : 'app'} deployed`, 'system');
    const readySha = await getDeploymentCommit(ctx, deploymentId);
    if (environment.prNumber !== null && readySha) {
      const url = await environmentUrl(ctx, project.slug, environment);
      await reportCommitStatus(ctx, project, readySha, {
        state: 'success',
        description: `Preview ready at ${url}`,
        targetUrl: url,
      });
    }
  } catch (error) {
    if (job.signal.aborted && !job.cancelled) throw error; // the node is stopping: the job runs again elsewhere
    const cancelled = job.cancelled || error instanceof JobCancelledError || error instanceof SupersededError;
    const crashed = error instanceof CrashedError;
    const message = error instanceof SupersededError ? error.message : cancelled ? 'Cancelled' : (error as Error).message;
    const status: DeploymentStatus = cancelled ? 'cancelled' : crashed ? 'crashed' : 'failed';
    reporter.log(
      status === 'cancelled' ? (message === 'Cancelled' ? 'Cancelled' : `Cancelled: ${message}`) : `Failed: ${message}`,
      'system',
    );
    // The log is stored before the status ends: whoever sees `failed` finds the reason in the log too.
    await writer.flush();
    await transition(ctx, deploymentId, status, { error: message.slice(0, 4000) });
    if (started) await ctx.runtime.stop(deploymentId, { graceMs: 2000 }).catch(() => undefined);
    await ctx.db.update(deployments).set({ runtime: null }).where(eq(deployments.id, deploymentId));
    const sha = (await getDeploymentCommit(ctx, deploymentId)) ?? row.requestedCommit;
    if (environment.prNumber !== null && sha && !cancelled) {
      await reportCommitStatus(ctx, project, sha, {
        state: 'failure',
        description: `The preview failed: ${message}`.slice(0, 140),
      });
    }
    if (!cancelled) {
      await publishAlert(ctx, {
        type: crashed ? 'deployment_failed' : 'build_error',
        severity: 'critical',
        title: `${project.name}: deployment ${deploymentId} ${crashed ? 'crashed at start' : 'failed'}`,
        message: `${message}\n\nThe previous deployment keeps serving ${environment.name}.`,
        group_key: `deployment:${project.id}:${environment.id}`,
        project_id: project.id,
        data: { deployment_id: deploymentId, environment_id: environment.id, commit_sha: row.commitSha },
      }).catch(() => undefined);
    }
    await publishRoutes(ctx, { waitMs: 0 }).catch(() => undefined);
  } finally {
    await writer.flush();
  }
}

/** Deployments whose environment moved on: nothing of theirs runs (used by deletion and pruning). */
export async function otherDeploymentsOf(ctx: AppContext, environmentId: number, exceptId: number) {
  return ctx.db
    .select()
    .from(deployments)
    .where(and(eq(deployments.environmentId, environmentId), ne(deployments.id, exceptId)));
}

async function getDeploymentCommit(ctx: AppContext, deploymentId: number): Promise<string | null> {
  const [row] = await ctx.db.select({ sha: deployments.commitSha }).from(deployments).where(eq(deployments.id, deploymentId));
  return row?.sha ?? null;
}
