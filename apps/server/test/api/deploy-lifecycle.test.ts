import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_NOTIFICATION_PREFERENCES } from '@launchbay/contract';
import { type GitServer, startGitServer, startWebhookReceiver, type WebhookReceiver, waitUntil } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue } from '../../src/jobs';
import { deploymentLogRetention } from '../../src/modules/deployments/jobs';
import { buildCacheDir } from '../../src/modules/deployments/pipeline';
import { type Api, apiClient } from '../helpers/api';
import { getThroughEdge } from '../helpers/edge';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';
import { insertDeployment, insertLogLines, insertProject, waitForDeploymentStatus } from '../helpers/projects';

/**
 * What happens to deployments after they went live, against the real pieces (a git server over
 * HTTP, the platform's pipeline, its process runtime and its edge): a crash loop of a serving app
 * and its alert, log retention and the logs of drained deployments, the processes an environment
 * lists, stage timestamps, other environments and branches, deleting a project, the build cache.
 */

type Deployment = {
  id: number;
  environment_id: number;
  status: string;
  branch: string;
  commit_sha: string | null;
  error: string | null;
  is_current: boolean;
  url: string;
  queued_at: string;
  building_at: string | null;
  deploying_at: string | null;
  ready_at: string | null;
  finished_at: string | null;
  stopped_at: string | null;
};
type Project = { id: number; name: string; slug: string; url: string; environments: { id: number; name: string }[] };
type Environment = { id: number; name: string; slug: string; branch: string; url: string; current_deployment_id: number | null };
type Step = { name: string; status: string; detail: string | null; started_at: string | null; finished_at: string | null };
type Container = {
  name: string;
  type: string;
  index: number;
  pid: number | null;
  port: number | null;
  state: string;
  restarts: number;
};
type Containers = { deployment_id: number | null; containers: Container[] };

let platform: TestPlatform;
let api: Api;
let admin: string;
let git: GitServer;
let receiver: WebhookReceiver | undefined;
const TOKEN = 'git-token-lifecycle';
const execFileAsync = promisify(execFile);
const tempDirs: string[] = [];

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(async () => {
  await platform?.close();
  await git?.close();
  await receiver?.close();
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

const edgePort = () => platform.ctx.edge.port();
const ms = (iso: string | null | undefined) => (iso ? new Date(iso).getTime() : Number.NaN);

/** A request through the edge for a host, as a browser resolving `{slug}.localhost` would send it. */
function viaEdge(host: string, pathname = '/', headers: Record<string, string> = {}) {
  return getThroughEdge(edgePort(), host, { path: pathname, headers });
}

/** The deployment once in one of `statuses` (its log in the error otherwise). */
const waitForDeployment = (projectId: number, deploymentId: number, statuses: string[], timeoutMs?: number) =>
  waitForDeploymentStatus<Deployment>(api, admin, projectId, deploymentId, statuses, timeoutMs);

/** Waits until the deployment went live, and answers it. */
async function live(projectId: number, deploymentId: number): Promise<Deployment> {
  const done = await waitForDeployment(projectId, deploymentId, ['ready', 'failed', 'crashed', 'cancelled']);
  expect(done.status, done.error ?? '').toBe('ready');
  return done;
}

async function createProject(name: string, repoUrl: string) {
  const created = await api.call<Project>('POST', '/projects', {
    token: admin,
    body: { name, git_url: repoUrl, git_token: TOKEN, branch: 'main' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const last = await api.call<Deployment>('GET', `/projects/${created.body.id}/last-deployment`, { token: admin });
  return { project: created.body, deployment: last.body };
}

async function trigger(projectId: number, body: Record<string, unknown> = {}): Promise<number> {
  const triggered = await api.call<{ deployment_id: number }>('POST', `/projects/${projectId}/trigger-pipeline`, {
    token: admin,
    body,
  });
  expect(triggered.status, JSON.stringify(triggered.body)).toBe(202);
  return triggered.body.deployment_id;
}

async function logOf(projectId: number, deploymentId: number, source?: 'build' | 'runtime'): Promise<string> {
  const query = source ? `?source=${source}` : '';
  const response = await api.call<string>('GET', `/projects/${projectId}/deployments/${deploymentId}/logs${query}`, {
    token: admin,
  });
  expect(response.status).toBe(200);
  return response.body ?? '';
}

async function stepsOf(projectId: number, deploymentId: number): Promise<Step[]> {
  const response = await api.call<{ jobs: (Step & { id: number })[] }>(
    'GET',
    `/projects/${projectId}/deployments/${deploymentId}/jobs`,
    { token: admin },
  );
  expect(response.status).toBe(200);
  return response.body.jobs.map(({ id: _id, ...step }) => step);
}

const step = (steps: Step[], name: string) => steps.find((s) => s.name === name);

async function containersOf(projectId: number, environmentId: number): Promise<Containers> {
  const response = await api.call<Containers>('GET', `/projects/${projectId}/environments/${environmentId}/containers`, {
    token: admin,
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** Processes whose command line holds `marker` (ps, not pgrep -f, which would find this lookup's own shell). */
function processesWith(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker));
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const PACKAGE_JSON = (name: string, start = 'node server.js') => JSON.stringify({ name, version: '1.0.0', scripts: { start } });

/** A tiny app answering `text` on every path, and saying in its runtime log when it starts, serves and stops. */
const SERVER_JS = (text: string) => `
const http = require('node:http');
const server = http.createServer((req, res) => {
  console.log(${JSON.stringify(text)} + ' served ' + req.url);
  res.setHeader('content-type', 'text/plain');
  res.end(${JSON.stringify(text)});
});
process.on('SIGTERM', () => {
  console.log(${JSON.stringify(text)} + ' draining');
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 500).unref();
});
server.listen(Number(process.env.PORT), process.env.HOST, () => console.log(${JSON.stringify(text)} + ' up'));
`;

/*
 * A crash loop takes about 35 s of the runtime's own backoff (restarts after 1, 2, 4, 8 and 16 s), spent
 * waiting: that test runs beside the others, which run one after another. Every test has its own project.
 */
describe('deployments after they went live', { timeout: 180_000 }, () => {
  it.concurrent('a serving app that starts crash-looping becomes crashed, its alert reaches the webhook once, and the edge answers the down page', async () => {
    // Alerts go out at once (no batching window) to a Slack-style webhook an admin saved.
    const preferences = await api.call('PUT', '/notification-preferences', {
      token: admin,
      body: { preferences: { ...DEFAULT_NOTIFICATION_PREFERENCES, batch_similar_notifications: false } },
    });
    expect(preferences.status, JSON.stringify(preferences.body)).toBe(200);
    receiver = await startWebhookReceiver();
    const provider = await api.call('POST', '/notification-providers/slack', {
      token: admin,
      body: { name: 'Ops webhook', enabled: true, config: { webhook_url: receiver.url(), channel: '#ops' } },
    });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);

    // Healthy at first; a request to /crash leaves a flag in the app folder and exits, and every start after it dies too.
    const repo = await git.createRepo('acme/crash-loop', {
      'package.json': PACKAGE_JSON('crash-loop'),
      'server.js': `
const fs = require('node:fs');
const http = require('node:http');
if (fs.existsSync('crash.flag')) {
  console.error('crash.flag found: exiting at start');
  process.exit(1);
}
http.createServer((req, res) => {
  if (req.url === '/crash') {
    fs.writeFileSync('crash.flag', 'x');
    res.end('crashing');
    setTimeout(() => process.exit(1), 20);
    return;
  }
  res.end('steady');
}).listen(Number(process.env.PORT), process.env.HOST);
`,
    });
    const { project, deployment } = await createProject('Crash Loop', repo.url);
    await live(project.id, deployment.id);
    const host = `${project.slug}.localhost`;
    expect((await viaEdge(host)).body).toBe('steady');
    expect((await viaEdge(host, '/crash')).body).toBe('crashing');

    // Restarts after 1, 2, 4, 8 and 16 s; the sixth exit is a crash loop.
    const crashed = await waitForDeployment(project.id, deployment.id, ['crashed'], 120_000);
    expect(crashed.error).toBe('The web process kept crashing (5 restarts within 300 s)');
    expect(crashed.ready_at).not.toBeNull();
    expect(crashed.finished_at).not.toBeNull();
    expect(crashed.is_current).toBe(true);
    // The runtime's lines are stored in batches, a moment after the status changed.
    const runtimeLog = await waitUntil(
      async () => {
        const text = await logOf(project.id, deployment.id);
        return text.includes('web.0 crashed 5 times within 300 s: the platform stopped restarting it') ? text : undefined;
      },
      'the crash loop in the runtime log',
      15_000,
      200,
    );
    expect(runtimeLog).toContain('crash.flag found: exiting at start');

    // The alert, delivered through the dispatcher to the webhook, names the project and the deployment.
    const title = `Crash Loop: deployment ${deployment.id} crashed`;
    const delivered = await receiver.waitForRequest((r) => r.body.includes(title), 30_000);
    expect(delivered.path).toBe(new URL(receiver.url()).pathname);
    const payload = delivered.json as { text: string; channel: string; blocks: { elements?: { text: string }[] }[] };
    expect(payload.channel).toBe('#ops');
    expect(payload.text).toContain(`[CRITICAL] ${title}`);
    expect(payload.text).toContain('The web process exited 5 times within 300 seconds and is no longer restarted');
    const context = payload.blocks.flatMap((block) => block.elements ?? []).map((element) => element.text);
    expect(context.join(' ')).toContain(`Type: deployment_failed`);
    expect(context.join(' ')).toContain(`Project: ${project.id}`);
    expect(context.join(' ')).toContain(`deployment_id: ${deployment.id}`);
    const notifications = await api.call<{ notifications: { title: string; type: string; status: string }[] }>(
      'GET',
      '/notifications?per_page=100',
      { token: admin },
    );
    // One alert for the crash loop, not one per restart.
    expect(notifications.body.notifications.filter((n) => n.title === title)).toEqual([
      expect.objectContaining({ type: 'deployment_failed', status: 'sent' }),
    ]);
    expect(receiver.requests.filter((r) => r.body.includes(title))).toHaveLength(1);

    // The edge says the app is down (503), for a browser and for an API client.
    const page = await waitUntil(
      async () => {
        const answer = await viaEdge(host, '/', { accept: 'application/json' });
        return answer.status === 503 ? answer : undefined;
      },
      'the down page',
      10_000,
      200,
    );
    expect(JSON.parse(page.body)).toEqual({ detail: `The app at ${host} is down`, host, state: 'down' });
    const html = await viaEdge(host);
    expect(html.status).toBe(503);
    expect(html.type).toContain('text/html');
    expect(html.body).toContain(`The app at ${host} is down`);
    const containers = await containersOf(project.id, crashed.environment_id);
    expect(containers.containers.map((c) => [c.name, c.state])).toEqual([['web.0', 'crashed']]);
  });

  // `concurrent` lets this block run beside the crash loop above; inside it, the tests run one at a time.
  describe('one after another, beside the crash loop', { concurrent: true }, () => {
    it.sequential('the log retention job removes deployment log lines older than log_retention_days and keeps newer ones', async () => {
      const { id: projectId, environments } = await insertProject(platform.ctx.pool, { name: 'Old Logs', slug: 'old-logs' });
      const envId = environments.production as number;
      const first = await insertDeployment(platform.ctx.pool, { projectId, environmentId: envId, status: 'ready' });
      const second = await insertDeployment(platform.ctx.pool, { projectId, environmentId: envId, status: 'failed' });
      const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);
      await insertLogLines(platform.ctx.pool, first.id, [
        { line: 'build line from 40 days ago', at: daysAgo(40) },
        { line: 'runtime line from 10 days ago', stream: 'stdout', process: 'web', at: daysAgo(10) },
        { line: 'runtime line from 6 days ago', stream: 'stdout', process: 'web', at: daysAgo(6) },
        { line: 'runtime line from now', stream: 'stdout', process: 'web' },
      ]);
      await insertLogLines(platform.ctx.pool, second.id, [
        { line: 'failed build from 8 days ago', at: daysAgo(8) },
        { line: 'failed build from 1 day ago', at: daysAgo(1) },
      ]);
      // 7 days: the 10- and 8-day-old lines go too, which the default (30 days) would keep.
      const settings = await api.call<{ log_retention_days: number }>('PUT', '/settings', {
        token: admin,
        body: { log_retention_days: 7 },
      });
      expect(settings.status, JSON.stringify(settings.body)).toBe(200);
      expect(settings.body.log_retention_days).toBe(7);
      try {
        // Run now what the hourly schedule runs.
        const { id } = await enqueue(platform.ctx, deploymentLogRetention.queue, {});
        await waitUntil(
          async () => {
            const job = await api.call<{ status: string }>('GET', `/jobs/${id}`, { token: admin });
            return ['succeeded', 'failed'].includes(job.body.status) ? job.body.status : undefined;
          },
          'the retention job',
          30_000,
          100,
        ).then((status) => expect(status).toBe('succeeded'));
        const firstLog = await logOf(projectId, first.id);
        expect(
          firstLog
            .trimEnd()
            .split('\n')
            .map((line) => line.slice(line.indexOf(' ') + 1)),
        ).toEqual(['web runtime line from 6 days ago', 'web runtime line from now']);
        const secondLog = await logOf(projectId, second.id);
        expect(secondLog).not.toContain('failed build from 8 days ago');
        expect(secondLog).toContain('failed build from 1 day ago');
      } finally {
        await api.call('PUT', '/settings', { token: admin, body: { log_retention_days: 30 } });
      }
    });

    it.sequential("an earlier deployment's runtime log stays readable after a redeploy replaced and drained it", async () => {
      const repo = await git.createRepo('acme/drained', {
        'package.json': PACKAGE_JSON('drained'),
        'server.js': SERVER_JS('first version'),
      });
      const { project, deployment } = await createProject('Drained', repo.url);
      await live(project.id, deployment.id);
      const host = `${project.slug}.localhost`;
      expect((await viaEdge(host, '/hello-first')).body).toBe('first version');

      await repo.commit({ 'server.js': SERVER_JS('second version') }, 'Second version');
      const secondId = await trigger(project.id);
      await live(project.id, secondId);
      expect((await viaEdge(host)).body).toBe('second version');
      // The drain step stops the first deployment once its in-flight requests had their time.
      await waitUntil(
        async () => step(await stepsOf(project.id, secondId), 'drain')?.status === 'succeeded',
        'the drain of the first deployment',
        30_000,
        200,
      );
      const first = await waitForDeployment(project.id, deployment.id, ['ready']);
      expect(first.is_current).toBe(false);
      expect(first.stopped_at).not.toBeNull();
      expect(platform.ctx.runtime.status(deployment.id)).toBeNull();

      // Its app's own lines, to its stop, through the API.
      const runtime = await waitUntil(
        async () => {
          const text = await logOf(project.id, deployment.id, 'runtime');
          return text.includes('first version draining') ? text : undefined;
        },
        'the first version to log its stop',
        10_000,
        200,
      );
      const lines = runtime.trimEnd().split('\n');
      expect(lines.every((line) => / web first version /.test(line))).toBe(true);
      expect(runtime).toContain(' web first version up\n');
      expect(runtime).toContain(' web first version served /hello-first\n');
      expect(runtime).not.toContain('second version');
      // The whole log still holds the build, and says the second deployment has it stopped.
      expect(await logOf(project.id, deployment.id)).toContain('── clone');
      expect(await logOf(project.id, secondId)).toContain(`Deployment ${deployment.id} stopped after its in-flight requests`);
    });

    it.sequential('a static site has no process in its environment; a Node app lists its running process', async () => {
      const siteRepo = await git.createRepo('acme/static-box', { 'index.html': '<h1>static box</h1>' });
      const appRepo = await git.createRepo('acme/process-box', {
        'package.json': PACKAGE_JSON('process-box'),
        'server.js': SERVER_JS('process box'),
      });
      // Both deploy at once (the pipeline runs two deployments side by side).
      const site = await createProject('Static Box', siteRepo.url);
      const app = await createProject('Process Box', appRepo.url);
      const [siteReady, appReady] = await Promise.all([
        live(site.project.id, site.deployment.id),
        live(app.project.id, app.deployment.id),
      ]);
      expect((await viaEdge(`${site.project.slug}.localhost`)).body).toContain('static box');
      expect(await containersOf(site.project.id, siteReady.environment_id)).toEqual({
        deployment_id: siteReady.id,
        containers: [],
      });
      expect(step(await stepsOf(site.project.id, siteReady.id), 'start')).toMatchObject({
        status: 'skipped',
        detail: 'static site: served by the edge from disk',
      });

      const listed = await containersOf(app.project.id, appReady.environment_id);
      expect(listed).toEqual({
        deployment_id: appReady.id,
        containers: [
          {
            name: 'web.0',
            type: 'web',
            index: 0,
            pid: expect.any(Number),
            port: expect.any(Number),
            state: 'running',
            restarts: 0,
          },
        ],
      });
      // The process listed is the one serving: alive, and answering on its port.
      const [web] = listed.containers;
      expect(pidAlive(web?.pid ?? 0)).toBe(true);
      const direct = await fetch(`http://127.0.0.1:${web?.port}/direct`);
      expect(await direct.text()).toBe('process box');
    });

    it.sequential('a real run stamps its stages in order: queued <= building <= deploying <= ready, each within its steps', async () => {
      const repo = await git.createRepo('acme/stamped', {
        'package.json': PACKAGE_JSON('stamped'),
        'server.js': SERVER_JS('stamped'),
      });
      const before = Date.now();
      const { project, deployment } = await createProject('Stamped', repo.url);
      const ready = await live(project.id, deployment.id);
      const after = Date.now();
      const [queued, building, deploying, readyAt] = [ready.queued_at, ready.building_at, ready.deploying_at, ready.ready_at].map(
        ms,
      ) as [number, number, number, number];
      for (const at of [queued, building, deploying, readyAt]) {
        expect(Number.isFinite(at)).toBe(true);
        // The database's clock and this process's are the same machine's; a few ms for rounding.
        expect(at).toBeGreaterThanOrEqual(before - 1000);
        expect(at).toBeLessThanOrEqual(after + 5);
      }
      expect(queued).toBeLessThanOrEqual(building);
      expect(building).toBeLessThan(deploying);
      expect(deploying).toBeLessThan(readyAt);
      // A deployment that went live has not finished nor stopped.
      expect(ready.finished_at).toBeNull();
      expect(ready.stopped_at).toBeNull();
      // Each stage stamp matches its steps: building before the clone, deploying before the start,
      // ready during the switch (after the health check answered).
      const steps = await stepsOf(project.id, deployment.id);
      const SKEW = 5;
      expect(building).toBeLessThanOrEqual(ms(step(steps, 'clone')?.started_at) + SKEW);
      expect(ms(step(steps, 'save cache')?.finished_at)).toBeLessThanOrEqual(deploying + SKEW);
      expect(deploying).toBeLessThanOrEqual(ms(step(steps, 'start')?.started_at) + SKEW);
      expect(ms(step(steps, 'health check')?.finished_at)).toBeLessThanOrEqual(readyAt + SKEW);
      expect(ms(step(steps, 'switch')?.started_at)).toBeLessThanOrEqual(readyAt + SKEW);
      expect(readyAt).toBeLessThanOrEqual(ms(step(steps, 'switch')?.finished_at) + SKEW);
    });

    it.sequential('an environment for another branch is served at {slug}-{environment}.localhost with that branch, production still with main', async () => {
      const repo = await git.createRepo('acme/branchy', {
        'package.json': PACKAGE_JSON('branchy'),
        'server.js': SERVER_JS('main branch'),
      });
      const featureSha = await repo.commit({ 'server.js': SERVER_JS('feature branch') }, 'Feature work', { branch: 'feature' });
      const { project, deployment } = await createProject('Branchy', repo.url);
      // Created and deployed while production's first deployment runs.
      const created = await api.call<Environment>('POST', `/projects/${project.id}/environments`, {
        token: admin,
        body: { name: 'staging', branch: 'feature' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({
        name: 'staging',
        slug: 'staging',
        branch: 'feature',
        url: `http://branchy-staging.localhost:${edgePort()}`,
        current_deployment_id: null,
      });
      const stagingId = await trigger(project.id, { environment_id: created.body.id });
      const [staging] = await Promise.all([live(project.id, stagingId), live(project.id, deployment.id)]);
      expect(staging).toMatchObject({ environment_id: created.body.id, branch: 'feature', commit_sha: featureSha });
      expect(staging.url).toBe(`http://branchy-staging.localhost:${edgePort()}`);

      const stagingPage = await viaEdge('branchy-staging.localhost');
      expect(stagingPage.status).toBe(200);
      expect(stagingPage.body).toBe('feature branch');
      const production = await viaEdge('branchy.localhost');
      expect(production.status).toBe(200);
      expect(production.body).toBe('main branch');
      // Each environment serves its own deployment.
      const productionEnv = project.environments.find((env) => env.name === 'production');
      expect((await containersOf(project.id, created.body.id)).deployment_id).toBe(stagingId);
      expect((await containersOf(project.id, productionEnv?.id ?? 0)).deployment_id).toBe(deployment.id);
    });

    it.sequential("trigger-pipeline with another branch deploys that branch's head to production, leaving the environment's branch as it was", async () => {
      const repo = await git.createRepo('acme/hotfixed', {
        'package.json': PACKAGE_JSON('hotfixed'),
        'server.js': SERVER_JS('main code'),
      });
      const hotfixSha = await repo.commit({ 'server.js': SERVER_JS('hotfix code') }, 'Hotfix', { branch: 'hotfix' });
      const { project, deployment } = await createProject('Hotfixed', repo.url);
      const first = await live(project.id, deployment.id);
      expect((await viaEdge('hotfixed.localhost')).body).toBe('main code');

      const hotfixId = await trigger(project.id, { branch: 'hotfix' });
      const hotfix = await live(project.id, hotfixId);
      // The production environment (no environment_id given) now serves the hotfix branch's head.
      expect(hotfix).toMatchObject({
        environment_id: first.environment_id,
        branch: 'hotfix',
        commit_sha: hotfixSha,
        is_current: true,
      });
      expect((await viaEdge('hotfixed.localhost')).body).toBe('hotfix code');
      // The environment keeps its own branch (what a plain trigger deploys).
      const envs = await api.call<{ environments: Environment[] }>('GET', `/projects/${project.id}/environments`, {
        token: admin,
      });
      expect(envs.body.environments.map((env) => [env.name, env.branch])).toEqual([['production', 'main']]);

      // A branch that does not exist is accepted, and the deployment fails at the clone saying so; production keeps serving.
      const missingId = await trigger(project.id, { branch: 'no-such-branch' });
      const missing = await waitForDeployment(project.id, missingId, ['ready', 'failed', 'crashed', 'cancelled']);
      expect(missing.status).toBe('failed');
      expect(missing.branch).toBe('no-such-branch');
      expect(missing.error).toContain('no-such-branch');
      expect(step(await stepsOf(project.id, missingId), 'clone')?.status).toBe('failed');
      expect((await viaEdge('hotfixed.localhost')).body).toBe('hotfix code');
    });

    it.sequential("DELETE /projects/{id} stops the app's processes and the edge answers 404 for its host", async () => {
      const marker = `lb-delete-marker-${process.pid}-${Date.now()}`;
      const repo = await git.createRepo('acme/doomed', {
        'package.json': PACKAGE_JSON('doomed', `node server.js ${marker}`),
        'server.js': SERVER_JS('doomed app'),
      });
      const { project, deployment } = await createProject('Doomed', repo.url);
      const ready = await live(project.id, deployment.id);
      const host = `${project.slug}.localhost`;
      expect((await viaEdge(host)).body).toBe('doomed app');
      const [web] = (await containersOf(project.id, ready.environment_id)).containers;
      const pid = web?.pid ?? 0;
      const port = web?.port ?? 0;
      expect(pidAlive(pid)).toBe(true);
      expect(processesWith(marker).length).toBeGreaterThan(0);

      const deleted = await api.call('DELETE', `/projects/${project.id}`, { token: admin });
      expect(deleted.status).toBe(204);
      // The processes are gone when the answer comes (the stop is awaited), all of them.
      expect(pidAlive(pid)).toBe(false);
      expect(processesWith(marker)).toEqual([]);
      await expect(fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
      const answer = await viaEdge(host, '/', { accept: 'application/json' });
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body)).toEqual({ detail: `No app is deployed at ${host}`, host });
      expect((await api.call('GET', `/projects/${project.id}`, { token: admin })).status).toBe(404);
    });

    it.sequential('the build cache: the same lockfile restores the dependencies and skips the install, a changed lockfile installs again', async () => {
      // Real lockfiles of a tiny package from the npm registry.
      const lockfileFor = async (version: string) => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-lock-'));
        tempDirs.push(dir);
        const pkg = JSON.stringify({
          name: 'cached',
          version: '1.0.0',
          dependencies: { ms: version },
          scripts: { start: 'node server.js' },
        });
        fs.writeFileSync(path.join(dir, 'package.json'), pkg);
        await execFileAsync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], {
          cwd: dir,
          timeout: 60_000,
        });
        return { 'package.json': pkg, 'package-lock.json': fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8') };
      };
      const [current, older] = await Promise.all([lockfileFor('2.1.3'), lockfileFor('2.1.2')]);
      expect(JSON.parse(current['package-lock.json']).packages['node_modules/ms'].version).toBe('2.1.3');
      const server = (label: string) => `
const http = require('node:http');
const ms = require('ms');
const version = require('ms/package.json').version;
http.createServer((req, res) => res.end(${JSON.stringify(label)} + ' ms@' + version + ' ' + ms('2 days')))
  .listen(Number(process.env.PORT), process.env.HOST);
`;
      const repo = await git.createRepo('acme/cached', { ...current, 'server.js': server('one') });
      const { project, deployment } = await createProject('Cached', repo.url);
      const host = `${project.slug}.localhost`;

      // First: nothing cached, npm ci installs, the dependencies are saved.
      await live(project.id, deployment.id);
      expect((await viaEdge(host)).body).toBe('one ms@2.1.3 172800000');
      const firstSteps = await stepsOf(project.id, deployment.id);
      expect(step(firstSteps, 'restore cache')).toMatchObject({ status: 'succeeded', detail: 'nothing cached' });
      expect(step(firstSteps, 'install')).toMatchObject({ status: 'succeeded' });
      expect(step(firstSteps, 'save cache')).toMatchObject({ status: 'succeeded', detail: 'dependencies saved' });
      const firstLog = await logOf(project.id, deployment.id, 'build');
      expect(firstLog).toContain('No cached dependencies for this lockfile');
      expect(firstLog).toContain('$ npm ci');

      // Second: a change of code only, the same lockfile: restored from the cache, no install.
      await repo.commit({ 'server.js': server('two') }, 'Code only');
      const secondId = await trigger(project.id);
      await live(project.id, secondId);
      expect((await viaEdge(host)).body).toBe('two ms@2.1.3 172800000');
      const secondSteps = await stepsOf(project.id, secondId);
      expect(step(secondSteps, 'restore cache')).toMatchObject({ status: 'succeeded', detail: 'dependencies restored' });
      expect(step(secondSteps, 'install')).toMatchObject({ status: 'skipped', detail: 'dependencies restored from the cache' });
      expect(step(secondSteps, 'save cache')).toMatchObject({ status: 'succeeded', detail: 'unchanged' });
      const secondLog = await logOf(project.id, secondId, 'build');
      expect(secondLog).toMatch(/Dependencies restored from the cache \([0-9a-f]{12}\)/);
      expect(secondLog).not.toContain('$ npm ci');

      // Third: another version in the lockfile misses the cache and installs again.
      await repo.commit({ ...older, 'server.js': server('three') }, 'Older ms');
      const thirdId = await trigger(project.id);
      const third = await live(project.id, thirdId);
      expect((await viaEdge(host)).body).toBe('three ms@2.1.2 172800000');
      const thirdSteps = await stepsOf(project.id, thirdId);
      expect(step(thirdSteps, 'restore cache')).toMatchObject({ status: 'succeeded', detail: 'nothing cached' });
      expect(step(thirdSteps, 'install')).toMatchObject({ status: 'succeeded' });
      expect(step(thirdSteps, 'save cache')).toMatchObject({ status: 'succeeded', detail: 'dependencies saved' });
      const thirdLog = await logOf(project.id, thirdId, 'build');
      expect(thirdLog).toContain('No cached dependencies for this lockfile');
      expect(thirdLog).toContain('$ npm ci');
      // The cache keeps the new lockfile's dependencies only: the older key's copy is pruned.
      const firstKey = /Dependencies restored from the cache \(([0-9a-f]{12})\)/.exec(secondLog)?.[1] ?? '';
      const depsDir = path.join(buildCacheDir(platform.dataDir, project.id, third.environment_id), 'deps');
      const kept = fs.readdirSync(depsDir);
      expect(kept).toHaveLength(1);
      expect(kept[0]?.startsWith(firstKey)).toBe(false);
    });
  });
});
