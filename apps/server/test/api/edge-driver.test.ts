import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { EdgeStatus, PlatformSettings, ProxyLogList } from '@launchbay/contract';
import { edgePaths, readEdgeState } from '@launchbay/edge-protocol';
import { waitUntil } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, connectionUrl, startTestPlatform, type TestPlatform } from '../helpers/platform';

/**
 * The edge driver chosen in Settings: nginx takes over the edge's port without a restart of the
 * platform, serves the same routes (and their changes, through a checked reload), its access log
 * fills the proxy logs, it keeps serving while the edge process behind it is killed and replaced
 * (the new edge adopts it), and the embedded edge takes the port back when chosen again.
 */
let platform: TestPlatform;
let api: Api;
let admin: string;
const apps: http.Server[] = [];

async function startApp(name: string): Promise<number> {
  const server = http.createServer((req, res) => res.end(`${name} ${req.url}`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  apps.push(server);
  return (server.address() as AddressInfo).port;
}

type Answer = { status: number; body: string; server: string | undefined };

function get(host: string, pathname = '/'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port: platform.ctx.edge.port(), path: pathname, headers: { host }, agent: false, timeout: 3000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        const server = res.headers.server;
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, server: typeof server === 'string' ? server : undefined }),
        );
      },
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
  });
}

/** Waits for `look` to answer something, counting a thrown error (the edge restarting) as not yet. */
const until = <T>(what: string, look: () => Promise<T | undefined>) =>
  waitUntil(() => look().catch(() => undefined), what, 15_000);

const nginxPid = () => {
  try {
    return Number(fs.readFileSync(path.join(platform.dataDir, 'edge', 'nginx', 'nginx.pid'), 'utf8'));
  } catch {
    return null;
  }
};
const alive = (pid: number | null) => {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
}, 120_000);

afterAll(async () => {
  await platform?.close();
  for (const app of apps) app.close();
});

describe('the edge driver setting', { timeout: 120_000 }, () => {
  it('switches to nginx and back without a restart; routes, their changes and the proxy logs carry on', async () => {
    const one = await startApp('one');
    const two = await startApp('two');
    const created = await api.call('POST', '/lb/routes', {
      token: admin,
      body: { domain: 'driver.example.test', target: { kind: 'upstreams', upstreams: [`127.0.0.1:${one}`] } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const port = platform.ctx.edge.port();
    const embedded = await until('the route at the edge', async () => {
      const answer = await get('driver.example.test', '/a');
      return answer.status === 200 ? answer : undefined;
    });
    expect(embedded).toMatchObject({ status: 200, body: 'one /a', server: undefined });

    const switched = await api.call<PlatformSettings>('PUT', '/settings', { token: admin, body: { edge_driver: 'nginx' } });
    expect(switched.status, JSON.stringify(switched.body)).toBe(200);
    expect(switched.body.edge_driver).toBe('nginx');
    expect(platform.ctx.edge.current()?.driver).toBe('nginx');
    const status = await api.call<EdgeStatus>('GET', '/platform/edge', { token: admin });
    expect(status.body).toMatchObject({ driver: 'nginx', port, error: null, nginx: { installed: true } });
    expect(status.body.nginx.version).toMatch(/^nginx\/\d/);
    expect((await api.call('GET', '/platform/edge')).status).toBe(401);
    // The same address, now answered by nginx.
    expect(platform.ctx.edge.port()).toBe(port);
    expect(await get('driver.example.test', '/b?x=1')).toMatchObject({ status: 200, body: 'one /b?x=1', server: 'nginx' });
    const unknown = await get('nobody.example.test');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toContain('No app is deployed at nobody.example.test');

    // A route change reaches nginx through a checked reload.
    const changed = await api.call('PUT', '/lb/routes/driver.example.test', {
      token: admin,
      body: { target: { kind: 'upstreams', upstreams: [`127.0.0.1:${two}`] } },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    await until('nginx to serve the changed route', async () =>
      (await get('driver.example.test', '/c')).body === 'two /c' ? true : undefined,
    );

    // nginx's access log becomes proxy-log rows, with the upstream and the route.
    const row = await until('the nginx request in the proxy logs', async () => {
      const list = await api.call<ProxyLogList>('GET', '/proxy-logs?host=driver.example.test', { token: admin });
      return list.body.logs.find((log) => log.path === '/b');
    });
    expect(row).toMatchObject({
      method: 'GET',
      status_code: 200,
      query: 'x=1',
      route: 'driver.example.test/',
      upstream: `127.0.0.1:${one}`,
      client_ip: '127.0.0.1',
    });

    // The edge process behind nginx dies: nginx keeps serving, and the new edge adopts it.
    const master = nginxPid();
    const edge = readEdgeState(edgePaths(platform.dataDir).state);
    if (!edge) throw new Error('no edge state');
    process.kill(edge.pid, 'SIGKILL');
    const during = await get('driver.example.test', '/during');
    expect(during).toMatchObject({ status: 200, body: 'two /during', server: 'nginx' });
    await until('a new edge', async () => {
      const state = readEdgeState(edgePaths(platform.dataDir).state);
      return state && state.pid !== edge.pid && state.status === 'ready' ? state : undefined;
    });
    expect(nginxPid()).toBe(master);
    expect(alive(master)).toBe(true);
    const fallback = await until('the new edge behind nginx', async () => {
      const answer = await get('nobody.example.test');
      return answer.status === 404 ? answer : undefined;
    });
    expect(fallback.body).toContain('No app is deployed at nobody.example.test');

    const back = await api.call<PlatformSettings>('PUT', '/settings', { token: admin, body: { edge_driver: 'embedded' } });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(platform.ctx.edge.current()?.driver).toBe('embedded');
    expect(platform.ctx.edge.port()).toBe(port);
    expect(await get('driver.example.test', '/d')).toMatchObject({ status: 200, body: 'two /d', server: undefined });
    expect(alive(master)).toBe(false);
  });

  it('another node on the same database follows the setting changed on the first', async () => {
    const connection = platform.embedded?.connection;
    const databaseUrl = platform.databaseUrl ?? (connection ? connectionUrl(connection) : undefined);
    expect(databaseUrl).toBeDefined();
    const other = await startTestPlatform({ DATABASE_URL: databaseUrl as string });
    try {
      expect(other.ctx.edge.current()?.driver).toBe('embedded');
      const switched = await api.call('PUT', '/settings', { token: admin, body: { edge_driver: 'nginx' } });
      expect(switched.status, JSON.stringify(switched.body)).toBe(200);
      await waitUntil(() => other.ctx.edge.current()?.driver === 'nginx', 'the other node to switch to nginx', 30_000, 200);
      const back = await api.call('PUT', '/settings', { token: admin, body: { edge_driver: 'embedded' } });
      expect(back.status).toBe(200);
      await waitUntil(() => other.ctx.edge.current()?.driver === 'embedded', 'the other node to switch back', 30_000, 200);
    } finally {
      await other.close();
    }
  });

  it('refuses a driver it does not know, and nginx where nginx is not installed, changing nothing', async () => {
    const unknown = await api.call<ApiError>('PUT', '/settings', { token: admin, body: { edge_driver: 'caddy' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toContainEqual({ path: 'edge_driver', message: 'Choose embedded or nginx' });

    const without = await startTestPlatform({ NGINX_BINARY: '/nonexistent/nginx' });
    try {
      const client = apiClient(without.url);
      const token = await client.login(ADMIN_EMAIL, ADMIN_PASSWORD);
      const refused = await client.call<ApiError>('PUT', '/settings', { token, body: { edge_driver: 'nginx' } });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toContainEqual({
        path: 'edge_driver',
        message: 'nginx is not installed on this machine (/nonexistent/nginx was not found)',
      });
      const settings = await client.call<PlatformSettings>('GET', '/settings', { token });
      expect(settings.body.edge_driver).toBe('embedded');
      expect(without.ctx.edge.current()?.driver).toBe('embedded');
      const status = await client.call<EdgeStatus>('GET', '/platform/edge', { token });
      expect(status.body).toMatchObject({ driver: 'embedded', nginx: { installed: false, version: null } });
    } finally {
      await without.close();
    }
  });
});
