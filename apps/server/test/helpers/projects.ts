import fs from 'node:fs';
import path from 'node:path';
import { DEPLOYMENT_STATUSES, type DeploymentStatus } from '@launchbay/contract';
import type pg from 'pg';
import { ACTIVE_STATUSES } from '../../src/modules/deployments/state';
import type { Api } from './api';

/**
 * A project with its environments, written straight into the database: for tests of the areas
 * under a project that need no deployment (env vars, environments). `git` points it at a real
 * repository (the testkit's git server) with the token already sealed, for tests that deploy.
 */
export async function insertProject(
  pool: pg.Pool,
  options: {
    name: string;
    slug: string;
    environments?: string[];
    git?: { url: string; tokenSealed?: string | null; branch?: string };
  },
): Promise<{ id: number; environments: Record<string, number> }> {
  const branch = options.git?.branch ?? 'main';
  const { rows } = await pool.query<{ id: number }>(
    `INSERT INTO projects (name, slug, git_url, git_token_sealed, git_saved_by_admin, branch)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [
      options.name,
      options.slug,
      options.git?.url ?? 'https://git.example.com/o/r.git',
      options.git?.tokenSealed ?? null,
      options.git !== undefined,
      branch,
    ],
  );
  const id = rows[0]?.id ?? 0;
  const environments: Record<string, number> = {};
  for (const name of ['production', ...(options.environments ?? [])]) {
    const env = await pool.query<{ id: number }>(
      'INSERT INTO environments (project_id, name, slug, branch, is_production) VALUES ($1, $2, $2, $3, $4) RETURNING id',
      [id, name, name === 'production' ? branch : name, name === 'production'],
    );
    environments[name] = env.rows[0]?.id ?? 0;
  }
  return { id, environments };
}

/** The build plan of a static site served from the build folder itself: no process is ever started for it. */
export const STATIC_PLAN = {
  preset: 'static',
  presetName: 'Static',
  packageManager: null,
  installCommand: null,
  buildCommand: null,
  kind: 'static',
  outputDirectory: '.',
  processes: [],
  port: null,
  healthCheckPath: '/',
  requiredEnv: [],
  cacheDirectories: [],
  spaFallback: false,
  crons: [],
  warnings: [],
  sources: {},
} as const;

export type { DeploymentStatus };

let shaCounter = 0;
/** A 40-character hexadecimal sha no other call answers. */
export const fakeSha = () => (++shaCounter).toString(16).padStart(8, '0').repeat(5);

/**
 * A deployment row written straight into the database, with no job behind it (nothing moves it
 * along). A deployment that went live gets `readyAt`, a commit and the static plan; `artifact`
 * also writes its build folder (DATA_DIR/deployments/<id>/app with an index.html) and records it;
 * `current` makes it the one its environment serves.
 */
export async function insertDeployment(
  pool: pg.Pool,
  options: {
    projectId: number;
    environmentId: number;
    status: DeploymentStatus;
    /** Whether it went live once (ready_at and commit_sha set). Default: for ready, paused and crashed. */
    wentLive?: boolean;
    /** The data folder to write its build in; no build folder without it. */
    artifact?: { dataDir: string };
    current?: boolean;
    branch?: string;
  },
): Promise<{ id: number; commitSha: string | null; artifactDir: string | null }> {
  const wentLive = options.wentLive ?? ['ready', 'paused', 'crashed'].includes(options.status);
  const commitSha = wentLive ? fakeSha() : null;
  const { rows } = await pool.query<{ id: number }>(
    `INSERT INTO deployments (project_id, environment_id, status, trigger, branch, commit_sha, commit_message, plan, ready_at)
     VALUES ($1, $2, $3, 'manual', $4, $5, $6, $7, $8) RETURNING id`,
    [
      options.projectId,
      options.environmentId,
      options.status,
      options.branch ?? 'main',
      commitSha,
      commitSha ? 'A commit' : null,
      wentLive ? JSON.stringify(STATIC_PLAN) : null,
      wentLive ? new Date(Date.now() - 60_000) : null,
    ],
  );
  const id = rows[0]?.id ?? 0;
  let artifactDir: string | null = null;
  if (options.artifact) {
    artifactDir = path.join(options.artifact.dataDir, 'deployments', String(id), 'app');
    fs.mkdirSync(artifactDir, { recursive: true });
    fs.writeFileSync(path.join(artifactDir, 'index.html'), `<h1>deployment ${id}</h1>`);
    await pool.query('UPDATE deployments SET artifact_dir = $2, artifact_bytes = 20 WHERE id = $1', [id, artifactDir]);
  }
  if (options.current) await makeCurrent(pool, options.environmentId, id);
  return { id, commitSha, artifactDir };
}

/** Makes a deployment the one its environment serves. */
export async function makeCurrent(pool: pg.Pool, environmentId: number, deploymentId: number): Promise<void> {
  await pool.query('UPDATE environments SET current_deployment_id = $2 WHERE id = $1', [environmentId, deploymentId]);
}

/** Log lines of a deployment, oldest first; answers their ids. */
export async function insertLogLines(
  pool: pg.Pool,
  deploymentId: number,
  lines: { line: string; stream?: 'build' | 'stdout' | 'stderr' | 'system'; process?: string | null; at?: Date }[],
): Promise<number[]> {
  const ids: number[] = [];
  for (const entry of lines) {
    const { rows } = await pool.query<{ id: string }>(
      'INSERT INTO deployment_logs (deployment_id, stream, process, line, at) VALUES ($1, $2, $3, $4, $5) RETURNING id',
      [deploymentId, entry.stream ?? 'build', entry.process ?? null, entry.line, entry.at ?? new Date()],
    );
    ids.push(Number(rows[0]?.id));
  }
  return ids;
}

/**
 * Waits until no deployment job is pending or running: the pipelines a test started have finished,
 * drain and pruning of old builds included, so no folder changes under a test's feet and the
 * platform is not stopped in the middle of a clone.
 */
export async function waitForPipelines(pool: pg.Pool, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs WHERE queue = 'deployments.run' AND status IN ('pending', 'running')",
    );
    if ((rows[0]?.n ?? 0) === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Pipeline steps of a deployment, in order: `done` ones have finished, running and done ones have started. */
export async function insertSteps(
  pool: pg.Pool,
  deploymentId: number,
  steps: {
    name: string;
    status: 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';
    detail?: string;
    done?: boolean;
  }[],
): Promise<void> {
  for (const step of steps) {
    const started = step.status !== 'pending' ? new Date() : null;
    await pool.query(
      'INSERT INTO deployment_steps (deployment_id, name, status, detail, started_at, finished_at) VALUES ($1, $2, $3, $4, $5, $6)',
      [deploymentId, step.name, step.status, step.detail ?? null, started, step.done ? new Date() : null],
    );
  }
}

/**
 * Waits until a deployment is in one of `statuses`; on a timeout the error holds its last status,
 * its error and its whole log, which is what tells why.
 */
export async function waitForDeploymentStatus<T extends { status: string; error?: string | null }>(
  api: Api,
  token: string,
  projectId: number,
  deploymentId: number,
  statuses: readonly string[],
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = (await api.call<T>('GET', `/projects/${projectId}/deployments/${deploymentId}`, { token })).body;
    if (statuses.includes(last.status)) return last;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const log = await api.call<string>('GET', `/projects/${projectId}/deployments/${deploymentId}/logs`, { token });
  throw new Error(`deployment ${deploymentId} is ${last?.status}, not ${statuses.join('/')}: ${last?.error}\n${log.body}`);
}

/** Every status but those of a deployment on its way (the contract's list less the pipeline's active ones). */
const SETTLED_STATUSES = DEPLOYMENT_STATUSES.filter((status) => !ACTIVE_STATUSES.includes(status));

/** Waits until a deployment is no longer on its way (queued, building, deploying). */
export function settledDeployment<T extends { status: string }>(
  api: Api,
  token: string,
  projectId: number,
  deploymentId: number,
  timeoutMs = 120_000,
): Promise<T> {
  return waitForDeploymentStatus<T>(api, token, projectId, deploymentId, SETTLED_STATUSES, timeoutMs);
}
