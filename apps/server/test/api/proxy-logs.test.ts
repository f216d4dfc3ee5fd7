import fs from 'node:fs';
import type { ProxyLog, ProxyLogList } from '@launchbay/contract';
import { edgePaths, PROXY_LOG_DROPS_INSERT_SQL } from '@launchbay/edge-protocol';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { enqueue } from '../../src/jobs';
import { proxyLogRetention } from '../../src/modules/proxy-logs/jobs';
import { startPlatform } from '../../src/platform';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { getThroughEdge } from '../helpers/edge';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform, testEnv } from '../helpers/platform';
import { waitForDeploymentStatus } from '../helpers/projects';

/**
 * Proxy logs against the real edge: requests through it become rows (written by the edge in
 * batches), the list filters and pages them by keyset, and rows of requests served while the
 * control plane and its database were down arrive once they are back.
 */

let platform: TestPlatform;
let api: Api;
let admin: string;
let git: GitServer;
const TOKEN = 'proxy-log-git-token';
let project: { id: number; slug: string };
let deploymentId: number;

async function waitFor<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // The edge's own log says why rows did not arrive (it cannot log through the control plane).
  const edgeLog = fs.readFileSync(edgePaths(platform.dataDir).log, 'utf8').slice(-3000);
  throw new Error(`timed out waiting for ${what}; the edge's log ends with:\n${edgeLog}`);
}

async function list(query: Record<string, string | number> = {}): Promise<ProxyLogList> {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const response = await api.call<ProxyLogList>('GET', `/proxy-logs?${search}`, { token: admin });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** Waits until the edge's rows for `host` number at least `count`. */
const rowsOf = (host: string, count: number) =>
  waitFor(`${count} rows for ${host}`, async () => {
    const page = await list({ host, limit: 200 });
    return page.logs.length >= count ? page.logs : undefined;
  });

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  const repo = await git.createRepo('acme/logged', { 'index.html': '<h1>logged</h1>' });
  const created = await api.call<{ id: number; slug: string }>('POST', '/projects', {
    token: admin,
    body: { name: 'Logged', git_url: repo.url, git_token: TOKEN, branch: 'main' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  project = created.body;
  const ready = await waitFor(
    'the first deployment',
    async () => {
      const last = await api.call<{ id: number; status: string }>('GET', `/projects/${project.id}/last-deployment`, {
        token: admin,
      });
      return last.body.status === 'ready' ? last.body : undefined;
    },
    90_000,
  );
  deploymentId = ready.id;
}, 120_000);
afterAll(async () => {
  await platform?.close();
  await git?.close();
});

const edge = (host: string, path = '/', headers: Record<string, string> = {}) =>
  getThroughEdge(platform.ctx.edge.port(), host, { path, headers });

describe('proxy logs', { timeout: 120_000 }, () => {
  it('one row per request with every field: route, project, environment, deployment, bytes, client', async () => {
    const host = `${project.slug}.localhost`;
    expect((await edge(host, '/', { 'user-agent': 'probe/1.0', referer: 'https://ref.example/page' })).status).toBe(200);
    expect((await edge(host, '/missing.css?v=2&x=1')).status).toBe(404);
    expect((await edge('nobody.localhost', '/x')).status).toBe(404);

    const [missing, home] = await rowsOf(host, 2);
    expect(home).toMatchObject({
      method: 'GET',
      host,
      path: '/',
      query: null,
      status_code: 200,
      client_ip: '127.0.0.1',
      user_agent: 'probe/1.0',
      referrer: 'https://ref.example/page',
      route: `${host}/`,
      project_id: project.id,
      project_name: 'Logged',
      project_slug: project.slug,
      environment_name: 'production',
      deployment_id: deploymentId,
      upstream: null, // a static site is served by the edge itself
      tls_version: null,
    });
    expect(home?.bytes_in).toBeGreaterThan(40);
    expect(home?.bytes_out).toBeGreaterThan('<h1>logged</h1>'.length);
    expect(home?.duration_ms).toBeGreaterThanOrEqual(0);
    expect(missing).toMatchObject({ path: '/missing.css', query: 'v=2&x=1', status_code: 404 });

    const unrouted = (await rowsOf('nobody.localhost', 1))[0];
    expect(unrouted).toMatchObject({ route: null, project_id: null, deployment_id: null, status_code: 404 });

    const one = await api.call<ProxyLog>('GET', `/proxy-logs/${home?.id}`, { token: admin });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(home);
  });

  it('a request proxied to a Node app gets a row naming the upstream it went to', async () => {
    const repo = await git.createRepo('acme/logged-node', {
      'package.json': JSON.stringify({ name: 'logged-node', version: '1.0.0', scripts: { start: 'node server.js' } }),
      'server.js': `require('node:http')
  .createServer((req, res) => res.end('node says ' + req.url))
  .listen(Number(process.env.PORT), process.env.HOST);`,
    });
    const created = await api.call<{ id: number; slug: string; environments: { id: number; name: string }[] }>(
      'POST',
      '/projects',
      { token: admin, body: { name: 'Logged Node', git_url: repo.url, git_token: TOKEN, branch: 'main' } },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const app = created.body;
    const last = await api.call<{ id: number }>('GET', `/projects/${app.id}/last-deployment`, { token: admin });
    const ready = await waitForDeploymentStatus<{ id: number; status: string; error: string | null }>(
      api,
      admin,
      app.id,
      last.body.id,
      ['ready', 'failed', 'crashed'],
    );
    expect(ready.status, ready.error ?? '').toBe('ready');
    const web = platform.ctx.runtime.status(ready.id)?.processes.find((p) => p.type === 'web');
    if (!web?.port) throw new Error(`no port for the web process of deployment ${ready.id}`);

    const host = `${app.slug}.localhost`;
    const answer = await edge(host, '/from-node?q=1');
    expect(answer).toMatchObject({ status: 200, body: 'node says /from-node?q=1' });
    const row = await waitFor('the row of the Node app', async () => {
      const page = await list({ host, path: '/from-node' });
      return page.logs[0];
    });
    expect(row).toMatchObject({
      method: 'GET',
      host,
      path: '/from-node',
      query: 'q=1',
      status_code: 200,
      route: `${host}/`,
      project_id: app.id,
      project_name: 'Logged Node',
      project_slug: app.slug,
      environment_id: app.environments.find((e) => e.name === 'production')?.id,
      environment_name: 'production',
      deployment_id: ready.id,
      // The app's own address, where the edge sent the request (loopback, the port the runtime gave it).
      upstream: `127.0.0.1:${web.port}`,
      tls_version: null,
    });
    expect(row.bytes_out).toBeGreaterThan('node says /from-node?q=1'.length);
  });

  it('filters by status class, exact status, host, path prefix, client IP, project and time', async () => {
    const host = `${project.slug}.localhost`;
    for (const path of ['/a', '/api/one', '/api/two', '/nope']) await edge(host, path);
    await rowsOf(host, 6);
    const all = await list({ host });
    expect(all.logs.every((row) => row.host === host)).toBe(true);

    const errors = await list({ host, status_class: '4xx' });
    expect(errors.logs.length).toBeGreaterThan(0);
    expect(errors.logs.every((row) => row.status_code >= 400 && row.status_code < 500)).toBe(true);
    const ok = await list({ host, status_code: 200 });
    expect(ok.logs.every((row) => row.status_code === 200)).toBe(true);

    const api_ = await list({ path: '/api/' });
    expect(api_.logs.map((row) => row.path).sort()).toEqual(['/api/one', '/api/two']);
    // A LIKE wildcard in the filter is a character, not a pattern.
    expect((await list({ path: '/%' })).logs).toEqual([]);

    expect((await list({ client_ip: '127.0.0.1', host })).logs.length).toBe(all.logs.length);
    expect((await list({ client_ip: '10.9.9.9' })).logs).toEqual([]);
    expect((await list({ project_id: project.id })).logs.every((row) => row.project_id === project.id)).toBe(true);
    const environmentId = (all.logs[0] as ProxyLog).environment_id;
    if (environmentId === null) throw new Error('the row has no environment');
    expect((await list({ environment_id: environmentId, host })).logs.length).toBe(all.logs.length);
    expect((await list({ environment_id: 999_999 })).logs).toEqual([]);
    // Several filters at once all apply (one index lookup): this host's 4xx in this project and environment.
    const combined = await list({ host, project_id: project.id, environment_id: environmentId, status_class: '4xx' });
    expect(combined.logs.map((row) => row.id)).toEqual(errors.logs.map((row) => row.id));
    expect((await list({ host, status_class: '4xx', status_code: 200 })).logs).toEqual([]);

    const newest = all.logs[0] as ProxyLog;
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await list({ from: future })).logs).toEqual([]);
    const exact = await list({ host, from: newest.created_at, to: newest.created_at });
    expect(exact.logs.map((row) => row.id)).toContain(newest.id);
  });

  it('pages by keyset without repeats or gaps, and tails rows stored after an id', async () => {
    const host = `${project.slug}.localhost`;
    const everything = (await list({ host, limit: 200 })).logs.map((row) => row.id);
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page: ProxyLogList = await list({ host, limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.logs.map((row) => row.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(everything);

    const before = await list({ limit: 1 });
    expect((await list({ after_id: before.latest_id })).logs).toEqual([]);
    await edge(host, '/tail-1');
    await edge(host, '/tail-2');
    const tail = await waitFor('the tail', async () => {
      const page = await list({ after_id: before.latest_id });
      return page.logs.length >= 2 ? page : undefined;
    });
    expect(tail.logs.map((row) => row.path)).toEqual(['/tail-2', '/tail-1']);
    expect(tail.latest_id).toBe(tail.logs[0]?.id);
    expect(tail.next_cursor).toBeNull();
    // A quiet edge holds no row back: nothing is waiting to be logged.
    expect(tail.waiting_rows).toBe(0);
  });

  it('answers 400 with field errors, 401 without a session and 404 for an unknown row', async () => {
    const bad = await api.call<ApiError>('GET', '/proxy-logs?status_class=6xx&client_ip=nope&limit=500&cursor=x', {
      token: admin,
    });
    expect(bad.status).toBe(400);
    const paths = (bad.body.errors ?? []).map((error) => error.path).sort();
    expect(paths).toEqual(['querystring.client_ip', 'querystring.cursor', 'querystring.limit', 'querystring.status_class']);
    expect(bad.body.errors?.find((error) => error.path === 'querystring.client_ip')?.message).toBe(
      'Enter an IPv4 or IPv6 address',
    );

    expect((await api.call('GET', '/proxy-logs')).status).toBe(401);
    expect((await api.call('GET', '/proxy-logs/1')).status).toBe(401);
    const unknown = await api.call<ApiError>('GET', '/proxy-logs/999999', { token: admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBe('Proxy log 999999 not found');
    expect((await api.call('GET', '/proxy-logs/abc', { token: admin })).status).toBe(400);
  });

  it('rows older than the log retention are removed by the hourly task, newer ones kept', async () => {
    const insert = (days: number, path: string) =>
      platform.ctx.pool.query(
        `INSERT INTO proxy_logs (created_at, method, host, path, status, duration_ms, bytes_in, bytes_out, client_ip)
         VALUES (now() - make_interval(days => $1), 'GET', 'retention.test', $2, 200, 1, 10, 10, '10.0.0.1')`,
        [days, path],
      );
    await insert(45, '/too-old'); // log_retention_days is 30 by default
    await insert(10, '/recent');
    const { id } = await enqueue(platform.ctx, proxyLogRetention.queue, {});
    await waitFor('the retention job', async () => {
      const job = await api.call<{ status: string }>('GET', `/jobs/${id}`, { token: admin });
      return job.body.status === 'succeeded' ? true : undefined;
    });
    const left = await list({ host: 'retention.test' });
    expect(left.logs.map((row) => row.path)).toEqual(['/recent']);
  });

  it('counts the rows the edge could not keep, within the time range asked for', async () => {
    // A fresh platform whose edge never had a full buffer has dropped nothing.
    expect((await list({ limit: 1 })).dropped).toEqual({ count: 0, last_at: null });
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    // Two episodes as the edge records them (its own statement): 5 rows 2 h to 1 h ago, 3 rows 10 to 5 min ago.
    const older = { count: 5, first: ago(120), last: ago(60) };
    const newer = { count: 3, first: ago(10), last: ago(5) };
    for (const episode of [older, newer]) {
      await platform.ctx.pool.query(PROXY_LOG_DROPS_INSERT_SQL, [
        episode.count,
        episode.first.toISOString(),
        episode.last.toISOString(),
      ]);
    }
    const everything = await list({ limit: 1 });
    expect(everything.dropped).toEqual({ count: 8, last_at: newer.last.toISOString() });
    // Drops belong to no host: a filter on one keeps the count of the time range.
    expect((await list({ host: `${project.slug}.localhost` })).dropped.count).toBe(8);
    // An episode counts when it overlaps the range.
    expect((await list({ from: ago(30).toISOString() })).dropped).toEqual({
      count: 3,
      last_at: newer.last.toISOString(),
    });
    expect((await list({ to: ago(90).toISOString() })).dropped).toEqual({ count: 5, last_at: older.last.toISOString() });
    expect((await list({ from: ago(100).toISOString(), to: ago(95).toISOString() })).dropped.count).toBe(5);
    expect((await list({ from: ago(50).toISOString(), to: ago(20).toISOString() })).dropped).toEqual({
      count: 0,
      last_at: null,
    });
    expect((await list({ from: new Date(Date.now() + 3_600_000).toISOString() })).dropped.count).toBe(0);
  });

  it('the retention follows the log_retention_days setting: a shorter one removes rows (and drop counts) older than it', async () => {
    const before = (await list({ limit: 1 })).dropped.count;
    const insert = (hours: number, path: string) =>
      platform.ctx.pool.query(
        `INSERT INTO proxy_logs (created_at, method, host, path, status, duration_ms, bytes_in, bytes_out, client_ip)
         VALUES (now() - make_interval(hours => $1), 'GET', 'short-retention.test', $2, 200, 1, 10, 10, '10.0.0.2')`,
        [hours, path],
      );
    await insert(50, '/two-days-old'); // kept by the default 30 days, not by 1 day
    await insert(26, '/a-day-old');
    await insert(12, '/half-a-day-old');
    const dropAt = new Date(Date.now() - 48 * 3_600_000).toISOString();
    await platform.ctx.pool.query(PROXY_LOG_DROPS_INSERT_SQL, [4, dropAt, dropAt]);
    expect((await list({ limit: 1 })).dropped.count).toBe(before + 4);

    const changed = await api.call<{ log_retention_days: number }>('PUT', '/settings', {
      token: admin,
      body: { log_retention_days: 1 },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.log_retention_days).toBe(1);
    try {
      const { id } = await enqueue(platform.ctx, proxyLogRetention.queue, {});
      const status = await waitFor('the retention job', async () => {
        const job = await api.call<{ status: string }>('GET', `/jobs/${id}`, { token: admin });
        return ['succeeded', 'failed'].includes(job.body.status) ? job.body.status : undefined;
      });
      expect(status).toBe('succeeded');
      const left = await list({ host: 'short-retention.test' });
      expect(left.logs.map((row) => row.path)).toEqual(['/half-a-day-old']);
      // The episode of two days ago went too; the recent ones stay.
      expect((await list({ limit: 1 })).dropped.count).toBe(before);
      // Rows of today's requests are untouched.
      expect((await list({ host: `${project.slug}.localhost`, path: '/tail-' })).logs).toHaveLength(2);
    } finally {
      await api.call('PUT', '/settings', { token: admin, body: { log_retention_days: 30 } });
    }
  });

  it('requests served while the control plane and its database are down are logged once they are back', async () => {
    const host = `${project.slug}.localhost`;
    const config = loadConfig(testEnv(platform.dataDir, platform.databaseUrl));
    await platform.stop(); // the edge stays; the embedded database goes with the control plane
    const served: number[] = [];
    for (let i = 0; i < 5; i++) served.push((await edge(host, `/while-down-${i}`)).status);
    expect(served).toEqual([404, 404, 404, 404, 404]); // the static site keeps answering (these files do not exist)

    const restarted = await startPlatform(config);
    platform = {
      ...restarted,
      url: restarted.url.replace('localhost', '127.0.0.1'),
      dataDir: platform.dataDir,
      databaseUrl: platform.databaseUrl,
      close: platform.close,
    };
    // close() of the first platform stops whatever platform.stop names now: point it at the new one.
    platform.close = async () => {
      await restarted.stop({ includeEdge: true });
    };
    api = apiClient(platform.url);
    admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const rows = await waitFor('the rows kept while the database was down', async () => {
      const page = await list({ path: '/while-down-' });
      return page.logs.length === 5 ? page.logs : undefined;
    });
    expect(rows.map((row) => row.path).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `/while-down-${i}`));
  });
});
