/**
 * Deploy benchmarks (`npm run bench`, or `node bench/build-and-run.mjs --only deploy`). Figures, all on
 * this machine, each benchmark on its own platform (`node apps/server/dist/main.js`, a new data folder)
 * deploying from a real git server over HTTP (the testkit's, with a token):
 *  - push to live: `repo.commit()` + POST trigger-pipeline to the first response through the edge
 *    that carries the new content, for a static site and a dependency-free Node server (median);
 *  - builds: the create-vite react-ts template, cold (npm install from the registry with an empty npm
 *    cache, then vite build) and warm (a source-only change: dependencies restored from the build
 *    cache), queued to ready; an Express app's first deployment and a push of it;
 *  - an app's log line to an SSE client of GET .../logs (median of 20);
 *  - rollback to the edge serving the earlier content (median), Node server and static site;
 *  - the memory of each running Node app's processes: the runtime's own (bubblewrap), the start
 *    command's wrappers (npm, sh) and the app's own process, RSS and PSS.
 * The platform's own idle memory (its Node process, embedded PostgreSQL, the edge) is measured by
 * bench/run.ts: this table repeats that figure from bench/results/latest.json when it is there.
 * Results: bench/results/deploy-latest.json (key `deploy`; bench/edge.ts adds `edge`).
 * Options: --quick (fewer repetitions, for a smoke check).
 *
 * The helpers below (a platform on a temp folder, projects from git, requests through the edge) are
 * exported for bench/edge.ts.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Deployment, ProjectDetail } from '@launchbay/contract';
import {
  freePort,
  type GitServer,
  type PlatformProcess,
  spawnPlatformProcess,
  startGitServer,
  type TestRepo,
  waitForPlatform,
  waitUntil,
} from '@launchbay/testkit';
import { measureRuntimeOverhead } from '../apps/server/src/engine/runtime/process/overhead';
import { commandLineOf, parentOf } from '../apps/server/src/engine/runtime/process/proc';
import { listDeploymentIds, readDeploymentRecord, stateFile } from '../apps/server/src/engine/runtime/process/state';
import { edgePaths, isSameProcessAlive, readEdgeState } from '../packages/edge-protocol/src/index';

export const quick = process.argv.includes('--quick');
const MAIN = path.resolve('apps/server/dist/main.js');

/**
 * The environment `npm run serve` (and `npm start`) gives the platform process, read from the root
 * package.json's script (`NAME=${NAME:-value}` before `node`): the benchmarks start it as users do.
 */
export const PLATFORM_START_ENV: Record<string, string> = Object.fromEntries(
  [...String(JSON.parse(fs.readFileSync('package.json', 'utf8')).scripts.serve).matchAll(/(\w+)=\$\{\1:-([^}]*)\}/g)].map(
    (match) => [match[1] as string, process.env[match[1] as string] ?? (match[2] as string)],
  ),
);
export const ADMIN = { email: 'bench@example.com', password: 'bench-password-123' };
const GIT_TOKEN = 'bench-git-token';
export const RESULTS_FILE = 'bench/results/deploy-latest.json';

/* ------------------------------------------------------------------------------------------------ */
/* helpers shared with bench/edge.ts                                                                  */
/* ------------------------------------------------------------------------------------------------ */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

/** The median (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export type Step = {
  id: number;
  name: string;
  status: string;
  detail: string | null;
  started_at: string | null;
  finished_at: string | null;
};

export type Api = <T>(method: string, pathname: string, body?: unknown) => Promise<{ status: number; body: T }>;

export type BenchPlatform = {
  process: PlatformProcess;
  url: string;
  dataDir: string;
  token: string;
  api: Api;
  edgePort: number;
  git: GitServer;
  /** A project from a new repository of `files` (or of a folder copied into it); answers with its first deployment. */
  createProject(
    name: string,
    files: Record<string, string> | { copyFrom: string; rename?: Record<string, string> },
  ): Promise<{ project: ProjectDetail; repo: TestRepo; host: string; deploymentId: number }>;
  /** Deletes every project (their apps stop), stops the platform and its edge, removes the folder. */
  close(): Promise<void>;
};

/** The built platform as `npm run serve` starts it, on `dataDir` with the bench's admin; `port` undefined: a free one. */
export function spawnBenchPlatform(dataDir: string, env: Record<string, string> = {}, port?: number) {
  return spawnPlatformProcess({
    ...(port === undefined ? {} : { port }),
    mainJs: MAIN,
    inheritEnv: true,
    echoStderr: true,
    outputLimit: 64_000,
    env: {
      ...PLATFORM_START_ENV,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      ...env,
    },
  });
}

/** The admin's bearer token, or null while the platform cannot sign in yet. */
export async function login(url: string): Promise<string | null> {
  try {
    const response = await fetch(`${url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    if (response.status !== 200) return null;
    return ((await response.json()) as { token: string }).token;
  } catch {
    return null;
  }
}

/** The platform on a new data folder, its admin signed in, its edge listening, a git server beside it. */
export async function startBenchPlatform(label: string, env: Record<string, string> = {}): Promise<BenchPlatform> {
  const dataDir = tempDir(`lb-bench-${label}-`);
  const platform = await spawnBenchPlatform(dataDir, env);
  await waitForPlatform(platform, { ready: async () => (await login(platform.url)) !== null, everyMs: 20 });
  const token = (await login(platform.url)) as string;
  const edge = await waitUntil(
    () => {
      const state = readEdgeState(edgePaths(dataDir).state);
      return state?.status === 'ready' && state.port ? state : null;
    },
    'the edge to listen',
    30_000,
  );
  const git = await startGitServer({ token: GIT_TOKEN });
  const api: Api = async <T>(method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${platform.url}/api${pathname}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // text/plain (logs)
    }
    return { status: response.status, body: parsed as T };
  };
  const projectIds: number[] = [];
  let repoCount = 0;

  return {
    process: platform,
    url: platform.url,
    dataDir,
    token,
    api,
    edgePort: edge.port as number,
    git,
    async createProject(name, files) {
      const repoName = `bench/r${++repoCount}`;
      let repo: TestRepo;
      if ('copyFrom' in files) {
        repo = await git.createRepo(repoName, {}, { empty: true });
        fs.cpSync(files.copyFrom, repo.workDir, { recursive: true });
        for (const [from, to] of Object.entries(files.rename ?? {})) {
          if (fs.existsSync(path.join(repo.workDir, from)))
            fs.renameSync(path.join(repo.workDir, from), path.join(repo.workDir, to));
        }
        await repo.commit({}, 'Initial commit');
      } else repo = await git.createRepo(repoName, files);
      const created = await api<ProjectDetail>('POST', '/projects', {
        name,
        git_url: repo.url,
        git_token: GIT_TOKEN,
        branch: 'main',
      });
      if (created.status !== 201) throw new Error(`creating ${name}: ${created.status} ${JSON.stringify(created.body)}`);
      projectIds.push(created.body.id);
      const last = await api<Deployment>('GET', `/projects/${created.body.id}/last-deployment`);
      return { project: created.body, repo, host: `${created.body.slug}.localhost`, deploymentId: last.body.id };
    },
    async close() {
      const runtimeDir = path.join(dataDir, 'runtime');
      const recorded = listDeploymentIds(runtimeDir).flatMap(
        (id) =>
          readDeploymentRecord(stateFile(runtimeDir, id))?.processes.flatMap((p) => [
            { pid: p.pid, start: p.processStart },
            { pid: p.sandboxPid, start: p.sandboxStart },
          ]) ?? [],
      );
      // A platform stopped with SIGTERM leaves its apps and its edge serving, by design: deleting the projects stops the apps.
      for (const id of projectIds) {
        const deleted = await api('DELETE', `/projects/${id}`).catch((error: Error) => ({ status: error.message }));
        if (deleted.status !== 204) console.warn(`  (could not delete project ${id}: ${deleted.status})`);
      }
      await platform.stop({ killAfterMs: 30_000 });
      await platform.stopEdge();
      await git.close();
      const leftovers = recorded.filter((p) => p.pid !== null && isSameProcessAlive(p.pid, p.start));
      for (const p of leftovers) {
        console.warn(`  (an app process outlived its deleted project: pid ${p.pid}; stopping it)`);
        process.kill(p.pid as number, 'SIGKILL');
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A GET through the edge for a host, as a browser resolving `{slug}.localhost` would send it (node:http: fetch cannot set Host). */
export function viaEdge(port: number, host: string, pathname = '/', timeoutMs = 5000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port, path: pathname, headers: { host }, agent: false, timeout: timeoutMs },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
  });
}

/** Polls the edge until a 200 answer carries `marker`; answers the performance.now() and Date.now() of that answer. */
export async function untilServed(
  port: number,
  host: string,
  marker: string,
  timeoutMs = 120_000,
  everyMs = 10,
): Promise<{ at: number; wall: number }> {
  const deadline = performance.now() + timeoutMs;
  let last = '';
  while (performance.now() < deadline) {
    try {
      const page = await viaEdge(port, host, '/');
      if (page.status === 200 && page.body.includes(marker)) return { at: performance.now(), wall: Date.now() };
      last = `${page.status} ${page.body.slice(0, 120)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(everyMs);
  }
  throw new Error(`${host} did not serve ${marker} within ${timeoutMs} ms (last: ${last})`);
}

const FINAL = ['ready', 'failed', 'crashed', 'cancelled'];

export async function waitForDeployment(
  p: BenchPlatform,
  projectId: number,
  deploymentId: number,
  timeoutMs = 120_000,
): Promise<Deployment> {
  const deadline = Date.now() + timeoutMs;
  let last: Deployment | undefined;
  while (Date.now() < deadline) {
    last = (await p.api<Deployment>('GET', `/projects/${projectId}/deployments/${deploymentId}`)).body;
    if (FINAL.includes(last.status)) {
      if (last.status !== 'ready') {
        const log = await p.api<string>('GET', `/projects/${projectId}/deployments/${deploymentId}/logs`);
        throw new Error(`deployment ${deploymentId} is ${last.status}: ${last.error}\n${String(log.body).slice(-4000)}`);
      }
      return last;
    }
    await sleep(100);
  }
  throw new Error(`deployment ${deploymentId} is still ${last?.status} after ${timeoutMs} ms`);
}

/** Waits until every pipeline step of a deployment is over (the drain of the previous one included). */
export async function waitSettled(p: BenchPlatform, projectId: number, deploymentId: number): Promise<Step[]> {
  return waitUntil(
    async () => {
      const { body } = await p.api<{ jobs: Step[] }>('GET', `/projects/${projectId}/deployments/${deploymentId}/jobs`);
      return body.jobs.length > 0 && body.jobs.every((s) => s.status !== 'pending' && s.status !== 'running') ? body.jobs : null;
    },
    `the steps of deployment ${deploymentId} to finish`,
    120_000,
    100,
  );
}

export async function trigger(p: BenchPlatform, projectId: number): Promise<number> {
  const triggered = await p.api<{ deployment_id: number }>('POST', `/projects/${projectId}/trigger-pipeline`, {});
  if (triggered.status !== 202) throw new Error(`trigger-pipeline: ${triggered.status} ${JSON.stringify(triggered.body)}`);
  return triggered.body.deployment_id;
}

/** The port the `web` process of a deployment listens on (the runtime's state file). */
export function webPortOf(p: BenchPlatform, deploymentId: number): number {
  const record = readDeploymentRecord(stateFile(path.join(p.dataDir, 'runtime'), deploymentId));
  const port = record?.processes.find((x) => x.type === 'web')?.port;
  if (!port) throw new Error(`deployment ${deploymentId} has no web port in its runtime state`);
  return port;
}

export const nodeServerJs = (body: string, logRequests = false) => `const http = require('node:http');
http.createServer((req, res) => {
  ${logRequests ? "console.log('request ' + req.url);" : ''}
  res.setHeader('content-type', 'text/plain');
  res.end(${JSON.stringify(body)});
}).listen(Number(process.env.PORT), process.env.HOST);
`;

export const NODE_PACKAGE_JSON = JSON.stringify({ name: 'app', version: '1.0.0', scripts: { start: 'node server.js' } });

export function writeResults(key: string, value: unknown): void {
  fs.mkdirSync(path.dirname(RESULTS_FILE), { recursive: true });
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(fs.readFileSync(RESULTS_FILE, 'utf8')) as Record<string, unknown>;
  } catch {
    // first run
  }
  all[key] = value;
  fs.writeFileSync(RESULTS_FILE, `${JSON.stringify(all, null, 2)}\n`);
}

/** A `kB` field of a /proc file (`VmRSS` of /proc/{pid}/status, `Pss` of smaps_rollup); 0 once the process is gone. */
export function procKb(file: string, field: string): number {
  try {
    const match = fs.readFileSync(file, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** The clock ticks per second in which /proc/{pid}/stat counts CPU time: 100 on every Linux this runs on (CONFIG_HZ does not change USER_HZ). */
export const TICKS_PER_SECOND = 100;

/**
 * CPU time the processes spent so far (user + system, all threads), in clock ticks, with that of their
 * children that ended and were reaped: a process that ends between two reads (a database backend
 * closed for idleness, reaped by the postmaster) moves its time into its parent's, where it is still
 * counted, rather than taking it away (an edge's writer connection closing during a run made the
 * platform's share of one read -0.26 CPU). A process gone with its parent counts 0.
 */
export function cpuTicks(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime + stime, all threads; cutime + cstime, its reaped children's
      total += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // gone
    }
  }
  return total;
}

export type ChildLoad = {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  sent: number;
  answered: number;
  errors: number;
  non2xx: number;
};

/** autocannon's entry: each load of a pair runs in a process of its own (one generator would be shared by both). */
const AUTOCANNON_MAIN = createRequire(import.meta.url).resolve('autocannon');

/**
 * A child that loads autocannon, says `ready`, and starts its load when a line arrives on its input:
 * the loads of a pair start at the same moment. Started on their own, the one spawned second still
 * loaded its modules while the first one ran, and ran on alone at the end: of two identical edges (both
 * without logging) one served 0.94 of the other's throughput when its load was spawned first, 1.04 when second.
 */
const AUTOCANNON_CHILD = `
const autocannon = require(process.argv[1]);
const options = JSON.parse(process.argv[2]);
process.stdin.once('data', () => {
  process.stdin.destroy();
  autocannon(options, (error, result) => {
    if (error) throw error;
    process.stdout.write(JSON.stringify(result) + '\\n');
  });
});
process.stdout.write('ready\\n');
`;

export type LoadSpec = { url: string; connections: number; seconds: number; headers: Record<string, string> };

/**
 * Where a together round of two copies of one server runs (the proxy-log bench's edges; null on one
 * CPU; run.ts says why its two different servers are not pinned): the two share the last CPU, and
 * everything else (the load generators, the apps, PostgreSQL) runs on the others. Left to the
 * scheduler, each side tended to settle on a CPU of its own, and this machine's two CPUs are not
 * equally fast from one moment to the next: of two servers one spent 73 µs of CPU per request and
 * the other 43 in one round, 37 and 77 in the next. On one CPU both meet the same speed at every
 * moment, its time is shared evenly, and the throughput ratio is what a request costs each server.
 */
export const TOGETHER_CPUS =
  os.cpus().length > 1 ? { servers: String(os.cpus().length - 1), rest: `0-${os.cpus().length - 2}` } : null;

/** Every CPU, to undo TOGETHER_CPUS. */
export const ALL_CPUS = `0-${os.cpus().length - 1}`;

/** Binds these processes (all their threads) to `cpus` (taskset's list form). */
export function pinToCpus(pids: number[], cpus: string): void {
  for (const pid of pids) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    } catch {
      // the process ended meanwhile
    }
  }
}

/**
 * Loads run at the same time, each from an autocannon process of its own, all started at once when
 * every process is ready. `atStart` runs at that moment (to read the CPU counters the loads are measured by);
 * `cpus` binds the load generators to those CPUs (TOGETHER_CPUS).
 */
export async function autocannonTogether(
  loads: LoadSpec[],
  options: { atStart?: () => void; cpus?: string } = {},
): Promise<ChildLoad[]> {
  const children = loads.map(({ url, connections, seconds, headers }) => {
    const args = ['-e', AUTOCANNON_CHILD, AUTOCANNON_MAIN, JSON.stringify({ url, connections, duration: seconds, headers })];
    const child = options.cpus
      ? spawn('taskset', ['-c', options.cpus, process.execPath, ...args], { stdio: ['pipe', 'pipe', 'inherit'] })
      : spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    // The first line says `ready`, the last one is the result.
    let output = '';
    child.stdout.setEncoding('utf8');
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        output += chunk;
        if (output.startsWith('ready\n')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`autocannon exited with ${code} before it was ready`)));
    });
    const done = new Promise<ChildLoad>((resolve, reject) => {
      // 'close', not 'exit': the output may still be arriving when the process has exited.
      child.once('close', (code) => {
        if (code !== 0) return reject(new Error(`autocannon exited with ${code}`));
        const result = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as {
          requests: { average: number; total: number; sent: number };
          latency: { p50: number; p99: number };
          errors: number;
          timeouts: number;
          non2xx: number;
        };
        resolve({
          requestsPerSecond: Math.round(result.requests.average),
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          sent: result.requests.sent,
          answered: result.requests.total,
          errors: result.errors + result.timeouts,
          non2xx: result.non2xx,
        });
      });
    });
    done.catch(() => undefined); // awaited below, once all are ready
    return { child, ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  options.atStart?.();
  for (const { child } of children) child.stdin.end('go\n');
  return Promise.all(children.map((c) => c.done));
}

/** The 1-minute load average, for the table's title: a busy machine explains slow figures. */
export const loadAverage = (value: unknown) => (Array.isArray(value) ? Number(value[0]).toFixed(1) : '?');

export type Row = { name: string; value: string; target: string; pass: boolean | null };

export function printTable(title: string, rows: Row[]): void {
  const w0 = Math.max(...rows.map((r) => r.name.length));
  const w1 = Math.max(...rows.map((r) => r.value.length));
  const w2 = Math.max(...rows.map((r) => r.target.length));
  console.log(`\n${title}`);
  for (const r of rows) {
    const verdict = r.pass === null ? '' : r.pass ? 'pass' : 'FAIL';
    console.log(`  ${r.name.padEnd(w0)}  ${r.value.padEnd(w1)}  ${r.target.padEnd(w2)}  ${verdict}`);
  }
}

/* ------------------------------------------------------------------------------------------------ */
/* where a deployment's time goes                                                                    */
/* ------------------------------------------------------------------------------------------------ */

const ms = (iso: string | null) => (iso ? Date.parse(iso) : Number.NaN);

/**
 * Phases of one push, in ms, from the bench's clock and the platform's timestamps (same machine):
 * push (commit + git push), trigger (the POST), queue (queued to the first step: the job's pickup),
 * each pipeline step before the switch, the gaps between steps, and `switch to served`: from the
 * switch step's start (route table published, the edge confirming it) to the first answer with the
 * new content (the edge may serve it before the step's end is written).
 */
function phasesOf(
  times: { start: number; pushed: number; triggered: number; live: number },
  deployment: Deployment,
  steps: Step[],
): Record<string, number> {
  const phases: Record<string, number> = {
    push: times.pushed - times.start,
    trigger: times.triggered - times.pushed,
  };
  const queued = ms(deployment.queued_at);
  const firstStepStart = Math.min(...steps.map((s) => ms(s.started_at)).filter(Number.isFinite));
  phases.queue = (Number.isFinite(firstStepStart) ? firstStepStart : ms(deployment.ready_at)) - queued;
  let cursor = firstStepStart;
  let between = 0;
  let switchStart = ms(deployment.ready_at);
  const ran = steps.filter((s) => s.started_at && s.finished_at).sort((a, b) => ms(a.started_at) - ms(b.started_at));
  for (const step of ran) {
    if (step.name === 'drain') continue; // after the switch: not on the way to live
    between += Math.max(0, ms(step.started_at) - cursor);
    if (step.name === 'switch') {
      switchStart = ms(step.started_at);
      break;
    }
    phases[step.name] = ms(step.finished_at) - ms(step.started_at);
    cursor = ms(step.finished_at);
  }
  phases['between steps'] = between;
  phases['switch to served'] = times.live - switchStart;
  return phases;
}

function medianPhases(all: Record<string, number>[]): Record<string, number> {
  const names = [...new Set(all.flatMap((p) => Object.keys(p)))];
  return Object.fromEntries(names.map((n) => [n, Math.round(median(all.map((p) => p[n] ?? 0)))]));
}

const phaseLine = (phases: Record<string, number>) =>
  Object.entries(phases)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

/**
 * One push measured: commit, trigger, poll the edge until the marker is served, then wait for the
 * pipeline to finish (its drain) so the next push starts from a quiet platform.
 */
async function pushToLive(
  p: BenchPlatform,
  app: { projectId: number; host: string; repo: TestRepo },
  files: Record<string, string>,
  marker: string,
) {
  const start = Date.now();
  const t0 = performance.now();
  await app.repo.commit(files, `Bench ${marker}`);
  const pushed = Date.now();
  const deploymentId = await trigger(p, app.projectId);
  const triggered = Date.now();
  const live = await untilServed(p.edgePort, app.host, marker);
  const totalMs = live.at - t0;
  const deployment = await waitForDeployment(p, app.projectId, deploymentId);
  const steps = await waitSettled(p, app.projectId, deploymentId);
  const phases = phasesOf({ start, pushed, triggered, live: live.wall }, deployment, steps);
  return { deploymentId, totalMs, queuedToReadyMs: ms(deployment.ready_at) - ms(deployment.queued_at), phases };
}

/* ------------------------------------------------------------------------------------------------ */
/* the benchmarks                                                                                    */
/* ------------------------------------------------------------------------------------------------ */

const PUSHES = quick ? 3 : 5;

async function benchPushToLive() {
  const p = await startBenchPlatform('push');
  try {
    const out: Record<string, unknown> = {};
    const kinds = [
      {
        key: 'static',
        name: 'Static Site',
        files: (m: string) => ({ 'index.html': `<!doctype html><h1>${m}</h1>` }),
      },
      {
        key: 'node',
        name: 'Node Server',
        files: (m: string) => ({ 'package.json': NODE_PACKAGE_JSON, 'server.js': nodeServerJs(m) }),
      },
    ] as const;
    for (const kind of kinds) {
      console.log(`Push to live, ${kind.key}: ${PUSHES} pushes...`);
      const first = await p.createProject(kind.name, kind.files('first'));
      await waitForDeployment(p, first.project.id, first.deploymentId);
      await untilServed(p.edgePort, first.host, 'first');
      await waitSettled(p, first.project.id, first.deploymentId);
      const app = { projectId: first.project.id, host: first.host, repo: first.repo };
      const runs = [];
      for (let i = 1; i <= PUSHES; i++) {
        const marker = `${kind.key}-push-${i}-${Math.random().toString(36).slice(2, 8)}`;
        runs.push(await pushToLive(p, app, kind.files(marker), marker));
      }
      out[kind.key] = {
        medianMs: median(runs.map((r) => r.totalMs)),
        medianQueuedToReadyMs: median(runs.map((r) => r.queuedToReadyMs)),
        medianPhasesMs: medianPhases(runs.map((r) => r.phases)),
        runs,
      };
    }
    return out as Record<'static' | 'node', { medianMs: number; medianPhasesMs: Record<string, number>; runs: unknown[] }>;
  } finally {
    await p.close();
  }
}

async function benchBuilds() {
  // An empty npm cache: HOME is where npm keeps it, and the platform's builds get the platform's HOME.
  // The machine's ~/.npmrc (registry settings) comes along.
  const home = tempDir('lb-bench-home-');
  const npmrc = path.join(os.homedir(), '.npmrc');
  if (fs.existsSync(npmrc)) fs.copyFileSync(npmrc, path.join(home, '.npmrc'));
  const p = await startBenchPlatform('builds', { HOME: home });
  try {
    const template = path.resolve('node_modules/create-vite/template-react-ts');
    if (!fs.existsSync(template))
      throw new Error(`${template} is missing: npm install (create-vite is a devDependency of apps/server)`);
    console.log('Vite react-ts, cold: npm install from the registry (empty npm cache) + vite build...');
    const vite = await p.createProject('Vite App', {
      copyFrom: template,
      rename: { _gitignore: '.gitignore', '_oxlintrc.json': '.oxlintrc.json' },
    });
    const cold = await waitForDeployment(p, vite.project.id, vite.deploymentId, 15 * 60_000);
    const coldSteps = await waitSettled(p, vite.project.id, vite.deploymentId);
    await untilServed(p.edgePort, vite.host, '<div id="root">');
    const coldMs = ms(cold.ready_at) - ms(cold.queued_at);

    console.log('Vite react-ts, warm: a source-only change (dependencies from the build cache)...');
    const appTsx = fs.readFileSync(path.join(vite.repo.workDir, 'src/App.tsx'), 'utf8');
    const marker = `warm-${Math.random().toString(36).slice(2, 8)}`;
    const changed = appTsx.replace('</h1>', ` ${marker}</h1>`);
    if (changed === appTsx) throw new Error('src/App.tsx of the template has no </h1> to change');
    const start = performance.now();
    await vite.repo.commit({ 'src/App.tsx': changed }, 'Source-only change');
    const warmId = await trigger(p, vite.project.id);
    const warm = await waitForDeployment(p, vite.project.id, warmId, 15 * 60_000);
    const warmSteps = await waitSettled(p, vite.project.id, warmId);
    const warmMs = ms(warm.ready_at) - ms(warm.queued_at);
    const index = await viaEdge(p.edgePort, vite.host, '/');
    const bundle = /src="(\/assets\/[^"]+\.js)"/.exec(index.body)?.[1];
    const served = bundle ? (await viaEdge(p.edgePort, vite.host, bundle)).body.includes(marker) : false;
    const warmPushToReadyMs = performance.now() - start;
    const stepTimes = (steps: Step[]) =>
      Object.fromEntries(
        steps.map((s) => [s.name, s.finished_at && s.started_at ? ms(s.finished_at) - ms(s.started_at) : s.status]),
      );

    console.log('Express app: first deployment (npm install express) and a source-only push...');
    const expressFiles = (m: string) => ({
      'package.json': JSON.stringify({
        name: 'express-app',
        version: '1.0.0',
        scripts: { start: 'node server.js' },
        dependencies: { express: '^5.1.0' },
      }),
      'server.js': `const express = require('express');
const app = express();
app.get('/', (req, res) => res.type('text').send(${JSON.stringify(m)}));
app.listen(Number(process.env.PORT), process.env.HOST);
`,
    });
    const t0 = performance.now();
    const express = await p.createProject('Express App', expressFiles('express-first'));
    const expressLive = await untilServed(p.edgePort, express.host, 'express-first', 10 * 60_000);
    const expressFirst = await waitForDeployment(p, express.project.id, express.deploymentId);
    const expressFirstSteps = await waitSettled(p, express.project.id, express.deploymentId);
    const expressPushes = [];
    for (let i = 1; i <= (quick ? 1 : 3); i++) {
      const m = `express-push-${i}-${Math.random().toString(36).slice(2, 8)}`;
      expressPushes.push(
        await pushToLive(p, { projectId: express.project.id, host: express.host, repo: express.repo }, expressFiles(m), m),
      );
    }
    const expressMemory = await runtimeMemory(p, express.project.id, express.host);
    return {
      npmCache: 'empty (a new HOME for the platform)',
      vite: {
        coldMs,
        warmMs,
        ratio: warmMs / coldMs,
        warmServedNewBundle: served,
        warmPushToReadyMs,
        coldSteps: stepTimes(coldSteps),
        warmSteps: stepTimes(warmSteps),
      },
      express: {
        firstDeployQueuedToReadyMs: ms(expressFirst.ready_at) - ms(expressFirst.queued_at),
        createToLiveMs: expressLive.at - t0,
        firstSteps: stepTimes(expressFirstSteps),
        pushToLiveMedianMs: median(expressPushes.map((r) => r.totalMs)),
        pushPhasesMs: medianPhases(expressPushes.map((r) => r.phases)),
        pushes: expressPushes,
      },
      expressMemory,
    };
  } finally {
    await p.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

type SseEvent = { id: number; at: string; line: string; process: string | null; stream: string };

/** A Server-Sent Events client of a deployment's log: calls `onEvent` with every `log` event as it arrives. */
function openLogStream(p: BenchPlatform, projectId: number, deploymentId: number, onEvent: (e: SseEvent) => void) {
  let buffer = '';
  let opened: () => void = () => undefined;
  let failed: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    opened = resolve;
    failed = reject;
  });
  const request = http.get(
    {
      host: '127.0.0.1',
      port: p.process.port,
      path: `/api/projects/${projectId}/deployments/${deploymentId}/logs`,
      headers: { accept: 'text/event-stream', authorization: `Bearer ${p.token}` },
      agent: false,
    },
    (response) => {
      if (response.statusCode !== 200) {
        failed(new Error(`the log stream answered ${response.statusCode}`));
        response.resume();
        return;
      }
      opened();
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n');
          if (!lines.includes('event: log')) continue;
          const data = lines.find((l) => l.startsWith('data: '));
          if (data) onEvent(JSON.parse(data.slice(6)) as SseEvent);
        }
      });
    },
  );
  request.on('error', failed); // after the end: a no-op (closed by us)
  return { ready, close: () => request.destroy() };
}

const SSE_SAMPLES = quick ? 10 : 20;

async function benchLogsAndRollback() {
  const p = await startBenchPlatform('logs');
  try {
    console.log(`App log line to an SSE client: ${SSE_SAMPLES} requests...`);
    const logged = await p.createProject('Logger', {
      'package.json': NODE_PACKAGE_JSON,
      'server.js': nodeServerJs('logger v1', true),
    });
    await waitForDeployment(p, logged.project.id, logged.deploymentId);
    await waitSettled(p, logged.project.id, logged.deploymentId);
    type Seen = { at: number; wall: number; readAt: number };
    const waiting = new Map<string, (seen: Seen) => void>();
    const stream = openLogStream(p, logged.project.id, logged.deploymentId, (event) => {
      const match = /^request \/(\S+)/.exec(event.line);
      const resolve = match ? waiting.get(match[1] as string) : undefined;
      if (resolve) resolve({ at: performance.now(), wall: Date.now(), readAt: Date.parse(event.at) });
    });
    /**
     * One request, timed to its SSE event; split at the line's `at` (when the runtime's log tail read
     * it from the app's log file): before, the request, the app's write and the tail; after, the
     * batched INSERT and the stream's next poll of the table.
     */
    const sample = async (tag: string) => {
      const seen = new Promise<Seen>((resolve, reject) => {
        waiting.set(tag, resolve);
        setTimeout(() => reject(new Error(`no SSE event for ${tag} within 10 s`)), 10_000).unref();
      });
      const wall0 = Date.now();
      const t0 = performance.now();
      const answer = await viaEdge(p.edgePort, logged.host, `/${tag}`);
      if (answer.status !== 200) throw new Error(`the logging app answered ${answer.status}`);
      const event = await seen;
      waiting.delete(tag);
      return { totalMs: event.at - t0, toTailMs: event.readAt - wall0, tailToClientMs: event.wall - event.readAt };
    };
    await stream.ready;
    await sample('warmup-1'); // the stream has sent the backlog (the build log) once this arrives
    await sample('warmup-2');
    const samples: Awaited<ReturnType<typeof sample>>[] = [];
    for (let i = 0; i < SSE_SAMPLES; i++) {
      // A random pause: the requests must not fall into step with the stream's polling.
      await sleep(100 + Math.random() * 400);
      samples.push(await sample(`sample-${i}-${Math.random().toString(36).slice(2, 8)}`));
    }
    stream.close();
    const latencies = samples.map((x) => x.totalMs);
    const logs = {
      medianMs: median(latencies),
      p90Ms: percentile(latencies, 90),
      maxMs: Math.max(...latencies),
      medianRequestToTailMs: median(samples.map((x) => x.toTailMs)),
      medianTailToClientMs: median(samples.map((x) => x.tailToClientMs)),
      samples: samples.map((x) => ({
        totalMs: Math.round(x.totalMs),
        toTailMs: x.toTailMs,
        tailToClientMs: x.tailToClientMs,
      })),
    };

    const nodeMemory = await runtimeMemory(p, logged.project.id, logged.host);

    const rollbacks: Record<string, unknown> = {};
    for (const kind of ['node', 'static'] as const) {
      const count = PUSHES;
      console.log(`Rollback, ${kind}: ${count} rollbacks...`);
      const files = (m: string): Record<string, string> =>
        kind === 'node'
          ? { 'package.json': NODE_PACKAGE_JSON, 'server.js': nodeServerJs(m) }
          : { 'index.html': `<!doctype html><h1>${m}</h1>` };
      const a = await p.createProject(kind === 'node' ? 'Rollback Node' : 'Rollback Static', files('version-one'));
      const d1 = await waitForDeployment(p, a.project.id, a.deploymentId);
      await waitSettled(p, a.project.id, d1.id);
      await a.repo.commit(files('version-two'), 'Version two');
      const d2Id = await trigger(p, a.project.id);
      await waitForDeployment(p, a.project.id, d2Id);
      await waitSettled(p, a.project.id, d2Id);
      await untilServed(p.edgePort, a.host, 'version-two');
      const runs = [];
      for (let i = 0; i < count; i++) {
        // Back and forth: to the first deployment, then to the second, each a rollback from its kept build.
        const [target, marker] = i % 2 === 0 ? [d1.id, 'version-one'] : [d2Id, 'version-two'];
        const start = Date.now();
        const t0 = performance.now();
        const response = await p.api<{ deployment_id: number }>(
          'POST',
          `/projects/${a.project.id}/deployments/${target}/rollback`,
        );
        if (response.status !== 202) throw new Error(`rollback: ${response.status} ${JSON.stringify(response.body)}`);
        const triggered = Date.now();
        const live = await untilServed(p.edgePort, a.host, marker);
        const deployment = await waitForDeployment(p, a.project.id, response.body.deployment_id);
        const steps = await waitSettled(p, a.project.id, response.body.deployment_id);
        runs.push({
          totalMs: live.at - t0,
          phases: phasesOf({ start, pushed: start, triggered, live: live.wall }, deployment, steps),
        });
      }
      rollbacks[kind] = {
        medianMs: median(runs.map((r) => r.totalMs)),
        medianPhasesMs: medianPhases(runs.map((r) => r.phases)),
        runs,
      };
    }
    return {
      logs,
      nodeMemory,
      rollback: rollbacks as Record<'node' | 'static', { medianMs: number; medianPhasesMs: Record<string, number> }>,
    };
  } finally {
    await p.close();
  }
}

type MemorySide = { rssKb: number; pssKb: number; processes: { pid: number; command: string; rssKb: number; pssKb: number }[] };

/**
 * The memory of a running app's processes, in three parts: the runtime's own (bubblewrap's monitor
 * and init, a waiting shell: what measureRuntimeOverhead() counts as runtime), the start command's
 * wrappers (a package manager running the start script, the shell it runs it with), and the app's own
 * process (the leaves of the tree). After a few requests and 5 s of quiet.
 */
async function runtimeMemory(p: BenchPlatform, projectId: number, host: string) {
  for (let i = 0; i < 20; i++) await viaEdge(p.edgePort, host, '/');
  await sleep(5000);
  const { body } = await p.api<Deployment>('GET', `/projects/${projectId}/last-deployment`);
  const overhead = measureRuntimeOverhead(path.join(p.dataDir, 'runtime'), body.id);
  if (!overhead || overhead.processes.length === 0) throw new Error(`no runtime record for deployment ${body.id}`);
  const side = (): MemorySide => ({ rssKb: 0, pssKb: 0, processes: [] });
  const split = { runtime: side(), wrapper: side(), app: side() };
  const add = (to: MemorySide, q: { pid: number; rssKb: number; pssKb: number }) => {
    to.rssKb += q.rssKb;
    to.pssKb += q.pssKb;
    to.processes.push({ ...q, command: commandLineOf(q.pid).join(' ').slice(0, 200) });
  };
  for (const entry of overhead.processes) {
    for (const q of entry.runtime.processes) add(split.runtime, q);
    const pids = new Set(entry.app.processes.map((q) => q.pid));
    const parents = new Set(entry.app.processes.map((q) => parentOf(q.pid)).filter((pid) => pid !== null && pids.has(pid)));
    for (const q of entry.app.processes) add(parents.has(q.pid) ? split.wrapper : split.app, q);
  }
  return { deploymentId: body.id, ...split, overhead };
}

/* ------------------------------------------------------------------------------------------------ */

const fmtS = (v: number) => `${(v / 1000).toFixed(2)} s`;
const fmtMs = (v: number) => `${Math.round(v)} ms`;
const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`;

function memoryRow(name: string, m: Awaited<ReturnType<typeof runtimeMemory>>): Row {
  const part = (label: string, x: MemorySide) =>
    `${label} ${mb(x.rssKb)} / ${mb(x.pssKb)} (${x.processes.map((q) => q.command.split(' ')[0]?.split('/').pop()).join('+') || 'none'})`;
  return {
    name,
    value: `RSS / PSS: ${part('runtime', m.runtime)}; ${part('start wrapper', m.wrapper)}; ${part('app', m.app)}`,
    target: '-',
    pass: null,
  };
}

/**
 * What a new user waits for: `npm start` (its build of the console, server and edge included) on a new
 * data folder, the first sign-in answering, a project created from a git URL, and its Node app
 * answering through the edge. The README promises under a minute, without Docker.
 */
async function benchFirstApp() {
  console.log('From npm start to a first app live...');
  const dataDir = tempDir('lb-bench-first-');
  const [port, proxyPort] = [await freePort(), await freePort()];
  const git = await startGitServer({ token: GIT_TOKEN });
  const repo = await git.createRepo('bench/first', { 'package.json': NODE_PACKAGE_JSON, 'server.js': nodeServerJs('first-app') });
  const t0 = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: process.cwd(),
    detached: true, // its own process group: npm, the build and the platform are stopped together
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      PROXY_PORT: String(proxyPort),
      PROXY_TLS_PORT: '0',
      LOG_LEVEL: 'warn',
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    },
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    const token = await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}): ${stderr}`);
        return login(url);
      },
      'npm start to sign in',
      300_000,
      50,
    );
    const signedInMs = performance.now() - t0;
    const created = await fetch(`${url}/api/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'First App', git_url: repo.url, git_token: GIT_TOKEN, branch: 'main' }),
    });
    if (created.status !== 201) throw new Error(`creating the first app: ${created.status} ${await created.text()}`);
    const project = (await created.json()) as ProjectDetail;
    const live = await untilServed(proxyPort, `${project.slug}.localhost`, 'first-app');
    const totalMs = live.at - t0;
    console.log(
      `  the first app answered ${(totalMs / 1000).toFixed(1)} s after npm start (signed in after ${(signedInMs / 1000).toFixed(1)} s)`,
    );
    await fetch(`${url}/api/projects/${project.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    return { totalMs, signedInMs, firstDeployMs: totalMs - signedInMs };
  } finally {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    // The edge outlives the control plane by design: it goes with the data folder here.
    const edge = readEdgeState(edgePaths(dataDir).state);
    if (edge && isSameProcessAlive(edge.pid, edge.processStart)) process.kill(edge.pid, 'SIGTERM');
    await git.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  if (!fs.existsSync(MAIN)) throw new Error('Build first: npm run build');
  const began = performance.now();
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    cpus: os.cpus().length,
    node: process.version,
    quick,
    loadAverageAtStart: os.loadavg(),
  };

  const firstApp = await benchFirstApp();
  results.firstApp = firstApp;
  const push = await benchPushToLive();
  results.pushToLive = push;
  const builds = await benchBuilds();
  results.builds = builds;
  const logsAndRollback = await benchLogsAndRollback();
  results.logs = logsAndRollback.logs;
  results.rollback = logsAndRollback.rollback;
  results.runtimeMemory = { node: logsAndRollback.nodeMemory, express: builds.expressMemory };
  results.totalSeconds = Math.round((performance.now() - began) / 1000);
  results.loadAverageAtEnd = os.loadavg();
  writeResults('deploy', results);

  let idle: { totalRssMb: number; totalPssMb: number; afterSeconds: number; date: string } | null = null;
  try {
    const latest = JSON.parse(fs.readFileSync('bench/results/latest.json', 'utf8')) as {
      date: string;
      idleMemory?: { totalRssMb: number; totalPssMb: number; afterSeconds: number };
    };
    if (latest.idleMemory) idle = { ...latest.idleMemory, date: latest.date };
  } catch {
    // bench/run.ts has not run here
  }

  const v = builds.vite;
  const rows: Row[] = [
    {
      name: 'npm start (build included) to a first app live',
      value: `${fmtS(firstApp.totalMs)} (signed in after ${fmtS(firstApp.signedInMs)}, app live ${fmtS(firstApp.firstDeployMs)} after its creation)`,
      target: '< 60 s',
      pass: firstApp.totalMs < 60_000,
    },
    {
      name: `push to live, static site (median of ${PUSHES})`,
      value: fmtS(push.static.medianMs),
      target: '< 3 s',
      pass: push.static.medianMs < 3000,
    },
    {
      name: `push to live, Node server (median of ${PUSHES})`,
      value: fmtS(push.node.medianMs),
      target: '< 6 s',
      pass: push.node.medianMs < 6000,
    },
    { name: 'Vite react-ts cold build, queued to ready', value: fmtS(v.coldMs), target: '-', pass: null },
    { name: 'Vite react-ts warm build, queued to ready', value: fmtS(v.warmMs), target: '-', pass: null },
    {
      name: 'Vite warm / cold',
      value: `${v.ratio.toFixed(2)}${v.warmServedNewBundle ? '' : ' (new bundle NOT served!)'}`,
      target: '<= 0.33',
      pass: v.ratio <= 1 / 3 && v.warmServedNewBundle,
    },
    {
      name: 'Express app, first deployment (npm install)',
      value: `${fmtS(builds.express.firstDeployQueuedToReadyMs)} queued to ready, ${fmtS(builds.express.createToLiveMs)} create to live`,
      target: '-',
      pass: null,
    },
    {
      name: 'Express app, push to live (deps cached)',
      value: fmtS(builds.express.pushToLiveMedianMs),
      target: '< 6 s',
      pass: builds.express.pushToLiveMedianMs < 6000,
    },
    {
      name: `app log line to SSE client (median of ${SSE_SAMPLES})`,
      value: `${fmtMs(logsAndRollback.logs.medianMs)} (p90 ${fmtMs(logsAndRollback.logs.p90Ms)}, max ${fmtMs(logsAndRollback.logs.maxMs)})`,
      target: '< 500 ms',
      pass: logsAndRollback.logs.medianMs < 500,
    },
    {
      name: `rollback, Node server (median of ${PUSHES})`,
      value: fmtS(logsAndRollback.rollback.node.medianMs),
      target: '< 5 s',
      pass: logsAndRollback.rollback.node.medianMs < 5000,
    },
    {
      name: `rollback, static site (median of ${PUSHES})`,
      value: fmtS(logsAndRollback.rollback.static.medianMs),
      target: '< 5 s',
      pass: logsAndRollback.rollback.static.medianMs < 5000,
    },
    idle
      ? {
          name: 'platform idle memory (bench/run.ts)',
          value: `RSS ${idle.totalRssMb.toFixed(1)} MB, PSS ${idle.totalPssMb.toFixed(1)} MB (${idle.date})`,
          target: '< 200 MB',
          pass: idle.totalRssMb < 200,
        }
      : { name: 'platform idle memory', value: 'see bench/run.ts (npm run bench)', target: '< 200 MB', pass: null },
    memoryRow('runtime overhead, Node server', logsAndRollback.nodeMemory),
    memoryRow('runtime overhead, Express app', builds.expressMemory),
  ];
  printTable(
    `Launchbay deploy benchmark (${os.cpus().length} CPUs; load average ${loadAverage(results.loadAverageAtStart)} at start, ${loadAverage(results.loadAverageAtEnd)} at the end)`,
    rows,
  );
  console.log('\n  where the time goes (median ms per phase)');
  console.log(`    push static:   ${phaseLine(push.static.medianPhasesMs)}`);
  console.log(`    push Node:     ${phaseLine(push.node.medianPhasesMs)}`);
  console.log(`    push Express:  ${phaseLine(builds.express.pushPhasesMs)}`);
  console.log(`    rollback Node: ${phaseLine(logsAndRollback.rollback.node.medianPhasesMs)}`);
  console.log(`    rollback static: ${phaseLine(logsAndRollback.rollback.static.medianPhasesMs)}`);
  console.log(`    Vite cold steps: ${JSON.stringify(v.coldSteps)}`);
  console.log(`    Vite warm steps: ${JSON.stringify(v.warmSteps)}`);
  console.log(`\n  full figures: ${RESULTS_FILE} (${results.totalSeconds} s)`);
}

// Run when this file is the entry (bench/.out/deploy.mjs), not when bench/edge.ts bundles its helpers.
if (path.basename(process.argv[1] ?? '').startsWith('deploy.')) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
