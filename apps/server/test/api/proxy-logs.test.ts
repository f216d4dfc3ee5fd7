import fs from 'node:fs';
import type { ProxyLog, ProxyLogList } from '@launchbay/contract';
import { edgePaths } from '@launchbay/edge-protocol';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { enqueue } from '../../src/jobs';
import { proxyLogRetention } from '../../src/modules/proxy-logs/jobs';
import { startPlatform } from '../../src/platform';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { getThroughEdge } from '../helpers/edge';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform, testEnv } from '../helpers/platform';

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
