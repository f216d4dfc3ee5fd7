import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LbRoute } from '@launchbay/contract';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { getThroughEdge } from '../helpers/edge';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/**
 * Load-balancer routes against the real edge: a domain to two upstream servers taking turns, one
 * that stops answering its health check gets no requests until it is back, changes apply without a
 * restart, and a domain can point at a project environment's live deployment.
 */

let platform: TestPlatform;
let api: Api;
let admin: string;
let git: GitServer;
const TOKEN = 'lb-git-token';

type Upstream = { name: string; port: number; server: http.Server; healthy: boolean; close(): Promise<void> };

/** An upstream that answers its own name, and 200 (or 503 when unhealthy) on /health. */
async function startUpstream(name: string, port = 0): Promise<Upstream> {
  const upstream: Upstream = {
    name,
    port,
    healthy: true,
    server: http.createServer((req, res) => {
      if (req.url === '/health') {
        res.statusCode = upstream.healthy ? 200 : 503;
        return res.end(upstream.healthy ? 'ok' : 'sick');
      }
      res.end(name);
    }),
    close: () =>
      new Promise<void>((resolve) => {
        upstream.server.close(() => resolve());
        upstream.server.closeAllConnections();
      }),
  };
  await new Promise<void>((resolve) => upstream.server.listen(port, '127.0.0.1', resolve));
  upstream.port = (upstream.server.address() as AddressInfo).port;
  return upstream;
}

const edge = (host: string, path = '/') => getThroughEdge(platform.ctx.edge.port(), host, { path });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function bodies(host: string, count: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < count; i++) seen.push((await edge(host)).body);
  return seen;
}

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await sleep(150);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const route = async (domain: string) => (await api.call<LbRoute>('GET', `/lb/routes/${domain}`, { token: admin })).body;

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

describe('load-balancer routes', { timeout: 120_000 }, () => {
  it('takes turns between upstreams, leaves out one that fails its health check, and takes it back', async () => {
    const a = await startUpstream('A');
    let b = await startUpstream('B');
    const domain = 'shop.lb.example.test';
    const created = await api.call<LbRoute>('POST', '/lb/routes', {
      token: admin,
      body: {
        domain,
        target: { kind: 'upstreams', upstreams: [`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`] },
        health_check: { enabled: true, path: '/health', interval_seconds: 1, timeout_seconds: 1 },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ domain, target_label: `127.0.0.1:${a.port}, 127.0.0.1:${b.port}` });

    // Applied without a restart: the first requests alternate.
    await until('the route to serve', async () => ((await edge(domain)).status === 200 ? true : undefined));
    const turns = await bodies(domain, 6);
    expect(new Set(turns)).toEqual(new Set(['A', 'B']));
    for (let i = 1; i < turns.length; i++) expect(turns[i]).not.toBe(turns[i - 1]);

    const healthy = await until('both upstreams checked', async () => {
      const seen = await route(domain);
      return seen.upstream_health.every((u) => u.healthy === true) ? seen : undefined;
    });
    expect(healthy.upstream_health.map((u) => u.upstream)).toEqual([`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`]);

    // B stops: after its failed checks every request goes to A, and the console sees why.
    const portB = b.port;
    await b.close();
    const down = await until('B to be marked unhealthy', async () => {
      const seen = await route(domain);
      return seen.upstream_health.find((u) => u.upstream.endsWith(`:${portB}`))?.healthy === false ? seen : undefined;
    });
    expect(down.upstream_health.find((u) => u.upstream.endsWith(`:${portB}`))?.error).toBe('connection refused');
    expect(await bodies(domain, 6)).toEqual(['A', 'A', 'A', 'A', 'A', 'A']);

    // B comes back on its port: it takes turns again.
    b = await startUpstream('B', portB);
    await until('B to be healthy again', async () => {
      const seen = await route(domain);
      return seen.upstream_health.every((u) => u.healthy === true) ? seen : undefined;
    });
    expect(new Set(await bodies(domain, 4))).toEqual(new Set(['A', 'B']));

    // A answers its health check with 503: it is left out although it still serves.
    a.healthy = false;
    await until('A to be left out', async () => ((await bodies(domain, 4)).every((body) => body === 'B') ? true : undefined));

    // Edited: only A, without a health check.
    const edited = await api.call<LbRoute>('PUT', `/lb/routes/${domain}`, {
      token: admin,
      body: {
        target: { kind: 'upstreams', upstreams: [`127.0.0.1:${a.port}`] },
        health_check: { enabled: false, path: '/', interval_seconds: 5, timeout_seconds: 2 },
      },
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    await until('the edit to apply', async () => ((await bodies(domain, 3)).every((body) => body === 'A') ? true : undefined));

    const list = await api.call<{ routes: LbRoute[] }>('GET', '/lb/routes', { token: admin });
    expect(list.body.routes.map((r) => r.domain)).toContain(domain);

    expect((await api.call('DELETE', `/lb/routes/${domain}`, { token: admin })).status).toBe(204);
    await until('the route to go', async () => ((await edge(domain)).status === 404 ? true : undefined));
    await a.close();
    await b.close();
  });

  it("sends a domain to a project environment's live deployment", async () => {
    const repo = await git.createRepo('acme/balanced', { 'index.html': '<h1>balanced site</h1>' });
    const project = await api.call<{ id: number; slug: string; environments: { id: number }[] }>('POST', '/projects', {
      token: admin,
      body: { name: 'Balanced', git_url: repo.url, git_token: TOKEN, branch: 'main' },
    });
    expect(project.status).toBe(201);
    const environmentId = project.body.environments[0]?.id as number;
    const created = await api.call<LbRoute>('POST', '/lb/routes', {
      token: admin,
      body: {
        domain: 'www.balanced.test',
        target: { kind: 'environment', project_id: project.body.id, environment_id: environmentId },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.target_label).toBe('Balanced / production');
    const page = await until(
      'the deployment to serve through the route',
      async () => {
        const answer = await edge('www.balanced.test');
        return answer.body.includes('balanced site') ? answer : undefined;
      },
      90_000,
    );
    expect(page.status).toBe(200);

    // The environment's own address is not a domain another route can take.
    const taken = await api.call<ApiError>('POST', '/lb/routes', {
      token: admin,
      body: { domain: `${project.body.slug}.localhost`, target: { kind: 'upstreams', upstreams: ['127.0.0.1:9'] } },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.errors?.[0]?.path).toBe('domain');
    const twice = await api.call<ApiError>('POST', '/lb/routes', {
      token: admin,
      body: { domain: 'www.balanced.test', target: { kind: 'upstreams', upstreams: ['127.0.0.1:9'] } },
    });
    expect(twice.status).toBe(409);
    expect(twice.body.detail).toBe('A route for www.balanced.test already exists');
  });

  it('answers 400 with field errors, 401 without a session, 403 for a reader and 404 for an unknown domain', async () => {
    const bad = await api.call<ApiError>('POST', '/lb/routes', {
      token: admin,
      body: { domain: 'not a domain', target: { kind: 'upstreams', upstreams: ['nope', '10.0.0.1:70000'] } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'domain', message: 'Enter a domain such as api.example.com' },
        { path: 'target.upstreams.0', message: 'Enter an address such as 10.0.0.5:3000' },
      ]),
    );
    const none = await api.call<ApiError>('POST', '/lb/routes', {
      token: admin,
      body: { domain: 'empty.lb.example.test', target: { kind: 'upstreams', upstreams: [] } },
    });
    expect(none.body.errors).toEqual([{ path: 'target.upstreams', message: 'Add at least one upstream' }]);
    const wrongEnvironment = await api.call<ApiError>('POST', '/lb/routes', {
      token: admin,
      body: { domain: 'env.lb.example.test', target: { kind: 'environment', project_id: 999, environment_id: 999 } },
    });
    expect(wrongEnvironment.status).toBe(400);
    expect(wrongEnvironment.body.errors).toEqual([
      { path: 'target.environment_id', message: 'No such environment in this project' },
    ]);

    expect((await api.call('GET', '/lb/routes')).status).toBe(401);
    expect((await api.call('POST', '/lb/routes', { body: {} })).status).toBe(401);
    const reader = await api.userWithRole(admin, 'reader');
    expect((await api.call('GET', '/lb/routes', { token: reader.token })).status).toBe(200);
    const body = { domain: 'reader.lb.example.test', target: { kind: 'upstreams', upstreams: ['127.0.0.1:9'] } };
    expect((await api.call('POST', '/lb/routes', { token: reader.token, body })).status).toBe(403);

    const unknown = await api.call<ApiError>('PUT', '/lb/routes/nowhere.example.test', {
      token: admin,
      body: { target: body.target },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBe('No load-balancer route for nowhere.example.test');
    expect((await api.call('DELETE', '/lb/routes/nowhere.example.test', { token: admin })).status).toBe(404);
    expect((await api.call('GET', '/lb/routes/nowhere.example.test', { token: admin })).status).toBe(404);
  });
});
