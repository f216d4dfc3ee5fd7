import { type GitServer, startGitServer } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { getThroughEdge } from '../helpers/edge';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';
import { waitForDeploymentStatus, waitForPipelines } from '../helpers/projects';

/**
 * The deploy core against real pieces: a git server over HTTP with a token, the platform's
 * pipeline (clone, configure, install, build, start, health check, switch), its process runtime
 * and its edge proxy, reached by Host name like a browser would.
 */

type Deployment = {
  id: number;
  status: string;
  commit_sha: string | null;
  error: string | null;
  is_current: boolean;
  url: string;
};
type Project = { id: number; slug: string; url: string; environments: { id: number; name: string }[] };

let platform: TestPlatform;
let api: Api;
let admin: string;
let git: GitServer;
const TOKEN = 'git-token-123';

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(async () => {
  await platform?.close();
  await git?.close();
});

const edgePort = () => platform.ctx.edge.port();

type Step = { name: string; status: string; detail: string | null; started_at: string | null; finished_at: string | null };

/** A deployment's pipeline steps, without their ids. */
async function stepsOf(projectId: number, deploymentId: number): Promise<Step[]> {
  const response = await api.call<{ jobs: (Step & { id: number })[] }>(
    'GET',
    `/projects/${projectId}/deployments/${deploymentId}/jobs`,
    { token: admin },
  );
  expect(response.status).toBe(200);
  return response.body.jobs.map(({ id: _id, ...step }) => step);
}

/** A request through the edge for a host, as a browser resolving `{slug}.localhost` would send it. */
function viaEdge(host: string, path = '/', headers: Record<string, string> = {}) {
  return getThroughEdge(edgePort(), host, { path, headers });
}

/** The deployment once in one of `statuses` (its log in the error otherwise). */
const waitForDeployment = (projectId: number, deploymentId: number, statuses: string[], timeoutMs?: number) =>
  waitForDeploymentStatus<Deployment>(api, admin, projectId, deploymentId, statuses, timeoutMs);

async function createProject(name: string, repoUrl: string, extra: Record<string, unknown> = {}) {
  const created = await api.call<Project>('POST', '/projects', {
    token: admin,
    body: { name, git_url: repoUrl, git_token: TOKEN, branch: 'main', ...extra },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const last = await api.call<Deployment>('GET', `/projects/${created.body.id}/last-deployment`, { token: admin });
  return { project: created.body, deployment: last.body };
}

const SERVER_JS = (text: string) => `
const http = require('node:http');
http.createServer((req, res) => {
  res.setHeader('content-type', 'text/plain');
  res.end(${JSON.stringify(text)} + ' greeting=' + (process.env.GREETING || 'none') + ' xff=' + (req.headers['x-forwarded-for'] || ''));
}).listen(Number(process.env.PORT), process.env.HOST);
`;

describe('a git URL becomes a live app', { timeout: 180_000 }, () => {
  it('a static site is cloned, built and served by the edge from disk', async () => {
    const repo = await git.createRepo('acme/site', { 'index.html': '<h1>Hello from the static site</h1>' });
    const { project, deployment } = await createProject('Static Site', repo.url);
    expect(project.slug).toBe('static-site');
    expect(project.url).toBe(`http://static-site.localhost:${edgePort()}`);
    const ready = await waitForDeployment(project.id, deployment.id, ['ready', 'failed']);
    expect(ready.status, ready.error ?? '').toBe('ready');
    expect(ready.commit_sha).toBe(await repo.head());
    expect(ready.is_current).toBe(true);
    const page = await viaEdge('static-site.localhost');
    expect(page.status).toBe(200);
    expect(page.body).toContain('Hello from the static site');
  });

  it('a Node server runs as a process on its own port behind the edge, with its env vars; a redeploy switches to the new commit', async () => {
    const repo = await git.createRepo('acme/api', {
      'package.json': JSON.stringify({ name: 'api', version: '1.0.0', scripts: { start: 'node server.js' } }),
      'server.js': SERVER_JS('version one'),
    });
    const { project, deployment } = await createProject('Api', repo.url);
    const first = await waitForDeployment(project.id, deployment.id, ['ready', 'failed', 'crashed']);
    expect(first.status, first.error ?? '').toBe('ready');
    const page = await viaEdge('api.localhost', '/');
    expect(page.body).toContain('version one greeting=none');
    // The pipeline ran as a job of the platform's one job runtime, in Postgres.
    const { rows: jobRows } = await platform.ctx.pool.query<{ queue: string; status: string }>(
      'SELECT j.queue, j.status FROM deployments d JOIN jobs j ON j.id = d.job_id WHERE d.id = $1',
      [first.id],
    );
    expect(jobRows).toEqual([{ queue: 'deployments.run', status: 'succeeded' }]);
    const firstPids = (platform.ctx.runtime.status(first.id)?.processes ?? []).flatMap((p) => (p.pid ? [p.pid] : []));
    expect(firstPids.length).toBeGreaterThan(0);

    const envVar = await api.call('POST', `/projects/${project.id}/env-vars`, {
      token: admin,
      body: { key: 'GREETING', value: 'hej' },
    });
    expect(envVar.status).toBe(201);
    const sha = await repo.commit({ 'server.js': SERVER_JS('version two') }, 'Second version');
    const triggered = await api.call<{ deployment_id: number }>('POST', `/projects/${project.id}/trigger-pipeline`, {
      token: admin,
      body: {},
    });
    expect(triggered.status).toBe(202);
    const second = await waitForDeployment(project.id, triggered.body.deployment_id, ['ready', 'failed', 'crashed']);
    expect(second.status, second.error ?? '').toBe('ready');
    expect(second.commit_sha).toBe(sha);
    const after = await viaEdge('api.localhost');
    expect(after.body).toContain('version two greeting=hej');
    // After its drain the first deployment's processes are stopped, not left running beside the second.
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const drainDeadline = Date.now() + 20_000;
    // The runtime forgets the deployment a moment after its last process is gone (its stop polls).
    const stillKnown = () => firstPids.some(alive) || platform.ctx.runtime.status(first.id) !== null;
    while (stillKnown() && Date.now() < drainDeadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(firstPids.filter(alive)).toEqual([]);
    expect(platform.ctx.runtime.status(first.id)?.processes ?? []).toEqual([]);
    // The edge says who the client is; what a client claims is not passed on as if the edge said it.
    const spoofed = await fetch(`http://127.0.0.1:${edgePort()}/`, {
      headers: { host: 'api.localhost', 'x-forwarded-for': '6.6.6.6' },
    });
    expect(await spoofed.text()).not.toContain('6.6.6.6');

    // A build that fails leaves the running version serving.
    await repo.commit(
      { 'package.json': JSON.stringify({ name: 'api', scripts: { build: 'exit 3', start: 'node server.js' } }) },
      'Broken build',
    );
    const broken = await api.call<{ deployment_id: number }>('POST', `/projects/${project.id}/trigger-pipeline`, {
      token: admin,
      body: {},
    });
    const failed = await waitForDeployment(project.id, broken.body.deployment_id, ['ready', 'failed', 'crashed']);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('exit code 3');
    expect((await viaEdge('api.localhost')).body).toContain('version two');
    // Its pipeline: the build failed, and the steps after it were never reached.
    const failedSteps = await stepsOf(project.id, failed.id);
    expect(failedSteps.find((s) => s.name === 'build')).toMatchObject({ status: 'failed' });
    expect(failedSteps.filter((s) => s.status === 'pending')).toEqual([]);
    expect(failedSteps.slice(failedSteps.findIndex((s) => s.name === 'build') + 1)).toEqual(
      ['save cache', 'start', 'health check', 'switch', 'drain'].map((name) => ({
        name,
        status: 'skipped',
        detail: 'not reached: the build step failed',
        started_at: null,
        finished_at: null,
      })),
    );

    // Rollback: the first deployment serves again, its commit and env vars, without a build.
    const rollback = await api.call<{ deployment_id: number }>(
      'POST',
      `/projects/${project.id}/deployments/${first.id}/rollback`,
      { token: admin },
    );
    expect(rollback.status).toBe(202);
    const rolled = await waitForDeployment(project.id, rollback.body.deployment_id, ['ready', 'failed', 'crashed']);
    expect(rolled.status, rolled.error ?? '').toBe('ready');
    expect(rolled.commit_sha).toBe(first.commit_sha);
    expect((await viaEdge('api.localhost')).body).toContain('version one greeting=none');
    const steps = await api.call<{ jobs: { name: string }[] }>(
      'GET',
      `/projects/${project.id}/deployments/${rollback.body.deployment_id}/jobs`,
      { token: admin },
    );
    expect(steps.body.jobs.map((s) => s.name)).not.toContain('build');

    const logs = await api.call<string>('GET', `/projects/${project.id}/deployments/${second.id}/logs`, { token: admin });
    expect(logs.body).toContain('── clone');
    expect(logs.body).not.toContain(TOKEN);
  });

  it('an app that exits at start is marked crashed and never takes traffic', async () => {
    const repo = await git.createRepo('acme/crash', {
      'package.json': JSON.stringify({ name: 'crash', scripts: { start: 'node server.js' } }),
      'server.js': SERVER_JS('stable'),
    });
    const { project, deployment } = await createProject('Crashy', repo.url);
    expect((await waitForDeployment(project.id, deployment.id, ['ready', 'failed', 'crashed'])).status).toBe('ready');
    await repo.commit({ 'server.js': 'process.exit(1)' }, 'Exit at start');
    const triggered = await api.call<{ deployment_id: number }>('POST', `/projects/${project.id}/trigger-pipeline`, {
      token: admin,
      body: {},
    });
    const crashed = await waitForDeployment(project.id, triggered.body.deployment_id, ['ready', 'failed', 'crashed'], 120_000);
    expect(crashed.status).toBe('crashed');
    expect((await viaEdge('crashy.localhost')).body).toContain('stable');
    // The health check failed; the switch and the drain were never reached.
    const steps = await stepsOf(project.id, crashed.id);
    expect(steps.slice(-3).map((s) => [s.name, s.status, s.status === 'skipped' ? s.detail : null])).toEqual([
      ['health check', 'failed', null],
      ['switch', 'skipped', 'not reached: the health check step failed'],
      ['drain', 'skipped', 'not reached: the health check step failed'],
    ]);
  });

  it('a deployment cancelled during its build: the build step ends cancelled, the steps after it skipped', async () => {
    const repo = await git.createRepo('acme/slow-build', {
      'package.json': JSON.stringify({
        name: 'slow',
        scripts: { build: 'node -e "setTimeout(() => {}, 120000)"', start: 'node server.js' },
      }),
      'server.js': SERVER_JS('slow'),
    });
    const { project, deployment } = await createProject('Slow Build', repo.url);
    const deadline = Date.now() + 60_000;
    while ((await stepsOf(project.id, deployment.id)).find((s) => s.name === 'build')?.status !== 'running') {
      if (Date.now() > deadline) throw new Error('the build never started');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const cancelled = await api.call<Deployment>('POST', `/projects/${project.id}/deployments/${deployment.id}/cancel`, {
      token: admin,
    });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const expected = [
      ['clone', 'succeeded'],
      ['configure', 'succeeded'],
      ['restore cache', 'succeeded'],
      ['install', 'skipped'],
      ['build', 'cancelled', 'Cancelled'],
      ...['save cache', 'start', 'health check', 'switch', 'drain'].map((name) => [name, 'skipped', 'not reached: cancelled']),
    ];
    // The steps before the build with their status, the build and those after it with their detail too.
    const summary = (steps: Step[]) => steps.map((s, index) => (index < 4 ? [s.name, s.status] : [s.name, s.status, s.detail]));
    expect(summary(await stepsOf(project.id, deployment.id))).toEqual(expected);
    // Once the job has stopped the build, nothing changed: the killed build is not recorded as failed, no later step ran.
    await waitForPipelines(platform.ctx.pool);
    expect(summary(await stepsOf(project.id, deployment.id))).toEqual(expected);
    expect((await waitForDeployment(project.id, deployment.id, ['cancelled'])).error).toBe('Cancelled');
  });

  it('refuses a repository it cannot reach or a branch that does not exist, before creating anything', async () => {
    const repo = await git.createRepo('acme/branches', { 'index.html': 'x' });
    const before = (await api.call<{ total: number }>('GET', '/projects', { token: admin })).body.total;
    const missingBranch = await api.call<ApiError>('POST', '/projects', {
      token: admin,
      body: { name: 'Nope', git_url: repo.url, git_token: TOKEN, branch: 'does-not-exist' },
    });
    expect(missingBranch.status).toBe(400);
    expect(missingBranch.body.errors?.[0]?.path).toBe('branch');
    expect(missingBranch.body.detail).toContain('does-not-exist');
    const badToken = await api.call<ApiError>('POST', '/projects', {
      token: admin,
      body: { name: 'Nope', git_url: repo.url, git_token: 'wrong', branch: 'main' },
    });
    expect(badToken.status).toBe(400);
    expect(badToken.body.errors?.[0]?.path).toBe('git_token');
    expect(badToken.body.detail).toBe(
      'Authentication failed: 127.0.0.1 refused the access token (check that it is valid and can read this repository)',
    );
    const noRepo = await api.call<ApiError>('POST', '/projects', {
      token: admin,
      body: { name: 'Nope', git_url: git.urlFor('acme/missing'), git_token: TOKEN, branch: 'main' },
    });
    expect(noRepo.status).toBe(400);
    expect(noRepo.body.errors?.[0]?.path).toBe('git_url');
    expect(noRepo.body.detail).toBe(
      `The repository ${git.urlFor('acme/missing')} does not exist, or the credentials given cannot see it`,
    );
    // Nothing listens there (port 9, discard): unreachable, said as such.
    const unreachable = await api.call<ApiError>('POST', '/projects', {
      token: admin,
      body: { name: 'Nope', git_url: 'http://127.0.0.1:9/acme/site.git', branch: 'main' },
    });
    expect(unreachable.status).toBe(400);
    expect(unreachable.body.errors?.[0]?.path).toBe('git_url');
    expect(unreachable.body.detail).toBe('The repository cannot be reached: no connection to 127.0.0.1 port 9');
    const badUrl = await api.call<ApiError>('POST', '/projects', {
      token: admin,
      body: { name: 'Nope', git_url: 'file:///etc', branch: 'main' },
    });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.errors?.[0]?.path).toBe('git_url');
    expect((await api.call<{ total: number }>('GET', '/projects', { token: admin })).body.total).toBe(before);
  });
});
