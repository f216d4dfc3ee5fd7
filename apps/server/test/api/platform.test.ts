import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { createPool, POOL_KEEP_IDLE_MS, POOL_QUIET_IDLE_MS } from '../../src/db/client';
import { type Api, apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

const externalMode = inject('externalPostgresUrl') !== null;

let platform: TestPlatform;
let api: Api;
let admin: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(() => platform.close());

describe('GET /api/platform/access-info', () => {
  it('is public and reports the local mode by default', async () => {
    const response = await api.call('GET', '/platform/access-info');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ access_mode: 'local', public_url: null });
  });
});

describe('GET /api/platform/public-ip', () => {
  it('needs a session (401), and answers any role', async () => {
    const anonymous = await api.call('GET', '/platform/public-ip');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: 'Authentication Required' });
    const reader = await api.userWithRole(admin, 'reader');
    const response = await api.call<{ ip: string | null; source: string }>('GET', '/platform/public-ip', { token: reader.token });
    expect(response.status).toBe(200);
    // Without PUBLIC_IP the address comes from a public network interface, or there is none.
    if (response.body.ip === null) expect(response.body.source).toMatch(/^none: /);
    else expect(response.body.source).toBe('network interface');
  });
});

describe('GET /api/health', () => {
  it(`answers ok with database '${externalMode ? 'external' : 'embedded'}'`, async () => {
    const response = await api.call('GET', '/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'ok',
      version: '1.0.0',
      database: externalMode ? 'external' : 'embedded',
      database_ok: true,
      uptime_seconds: expect.any(Number),
    });
    const head = await fetch(`${platform.url}/api/health`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('the database really is the one the mode says', async () => {
    const { rows } = await platform.ctx.pool.query<{ db: string; version: string }>(
      'SELECT current_database() AS db, current_setting($1) AS version',
      ['server_version_num'],
    );
    if (externalMode) {
      expect(platform.databaseUrl).toMatch(/^postgres:\/\/.*\/lb_test_[0-9a-f]+$/);
      expect(rows[0]?.db).toBe(platform.databaseUrl?.split('/').pop());
      expect(Number(rows[0]?.version)).toBeGreaterThanOrEqual(150000);
      expect(Number(rows[0]?.version)).toBeLessThan(160000);
      expect(platform.embedded).toBeUndefined();
      expect(fs.existsSync(path.join(platform.dataDir, 'postgres'))).toBe(false);
    } else {
      expect(rows[0]?.db).toBe('launchbay');
      expect(Number(rows[0]?.version)).toBeGreaterThanOrEqual(180000);
      expect(platform.embedded?.pid).toBeGreaterThan(0);
      expect(fs.existsSync(path.join(platform.dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    }
  });

  async function healthUntil(status: number) {
    let response = await api.call('GET', '/health');
    for (let i = 0; i < 50 && response.status !== status; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      response = await api.call('GET', '/health');
    }
    return response;
  }

  it('answers 503 degraded while the database refuses connections, and ok again once it is back', async () => {
    const database = (await platform.ctx.pool.query<{ db: string }>('SELECT current_database() AS db')).rows[0]?.db ?? '';
    const base = inject('externalPostgresUrl');
    const adminClient = new pg.Client(
      base ? { connectionString: base } : { ...platform.embedded?.connection, database: 'template1' },
    );
    await adminClient.connect();
    try {
      await adminClient.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
      await adminClient.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database]);
      // Terminating the connections takes effect within moments: poll for it.
      const down = await healthUntil(503);
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ status: 'degraded', database_ok: false });
      // The platform itself stays up: a public route that needs no database still answers.
      expect((await api.call('GET', '/platform/access-info')).status).toBe(200);
    } finally {
      await adminClient.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
      await adminClient.end();
    }
    const up = await healthUntil(200);
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ status: 'ok', database_ok: true });
    expect((await api.call('GET', '/user/me', { token: admin })).status).toBe(200);
  });
});

describe('database connections', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('an idle look closes its connection right after; a pool in use keeps its connections a second', async () => {
    const connection = platform.databaseUrl ? { connectionString: platform.databaseUrl } : platform.embedded?.connection;
    const pool = createPool({ ...connection, max: 4 });
    try {
      // A new pool counts as in use (a platform's start): its first connection stays a second.
      await pool.query('SELECT 1');
      await sleep(POOL_QUIET_IDLE_MS + 250);
      expect(pool.totalCount).toBe(1);
      await sleep(POOL_KEEP_IDLE_MS);
      expect(pool.totalCount).toBe(0);
      // One background look: a query, then nothing.
      await pool.query('SELECT 1');
      expect(pool.totalCount).toBe(1);
      await sleep(POOL_QUIET_IDLE_MS + 250);
      expect(pool.totalCount).toBe(0);
      // Two queries in a row (a job poll) share the one connection.
      const a = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const b = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(b.rows[0]?.pid).toBe(a.rows[0]?.pid);
      // In use: connections stay open between queries, and close a second after the last one.
      for (let i = 0; i < 30; i++) await pool.query('SELECT 1');
      await sleep(POOL_QUIET_IDLE_MS + 250);
      expect(pool.totalCount).toBe(1);
      await sleep(POOL_KEEP_IDLE_MS);
      expect(pool.totalCount).toBe(0);
    } finally {
      await pool.end();
    }
  });
});

describe('configuration from the environment', () => {
  let configured: TestPlatform;
  let configuredApi: Api;

  beforeAll(async () => {
    configured = await startTestPlatform({
      ACCESS_MODE: 'direct',
      PUBLIC_URL: 'https://launchbay.example.com',
      PUBLIC_IP: '203.0.113.7',
    });
    configuredApi = apiClient(configured.url);
  });
  afterAll(() => configured.close());

  it('access-info reports the configured mode and URL', async () => {
    const response = await configuredApi.call('GET', '/platform/access-info');
    expect(response.body).toEqual({ access_mode: 'direct', public_url: 'https://launchbay.example.com' });
  });

  it('public-ip reports PUBLIC_IP', async () => {
    const token = await configuredApi.login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const response = await configuredApi.call('GET', '/platform/public-ip', { token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ip: '203.0.113.7', source: 'configuration (PUBLIC_IP)' });
    expect((await configuredApi.call('GET', '/platform/public-ip')).status).toBe(401);
  });

  it('behind a local proxy (default) X-Forwarded-For from loopback is trusted; in direct mode it is not', async () => {
    const loginFrom = async (client: Api) => {
      const login = await client.call('POST', '/auth/login', {
        body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
        headers: { 'x-forwarded-for': '192.0.2.44' },
      });
      expect(login.status).toBe(200);
    };
    const lastSessionIp = 'SELECT ip FROM sessions ORDER BY id DESC LIMIT 1';
    await loginFrom(api);
    expect((await platform.ctx.pool.query(lastSessionIp)).rows[0]?.ip).toBe('192.0.2.44');
    await loginFrom(configuredApi);
    expect((await configured.ctx.pool.query(lastSessionIp)).rows[0]?.ip).toBe('127.0.0.1');
  });

  it('proxy trust follows the access mode setting at once, without a restart', async () => {
    const admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const lastSessionIp = 'SELECT ip FROM sessions ORDER BY id DESC LIMIT 1';
    const loginFromForwarded = async () => {
      const login = await api.call('POST', '/auth/login', {
        body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
        headers: { 'x-forwarded-for': '192.0.2.45' },
      });
      expect(login.status).toBe(200);
      return (await platform.ctx.pool.query(lastSessionIp)).rows[0]?.ip;
    };
    expect((await api.call('PUT', '/settings', { token: admin, body: { access_mode: 'direct' } })).status).toBe(200);
    expect(await loginFromForwarded()).toBe('127.0.0.1');
    expect((await api.call('PUT', '/settings', { token: admin, body: { access_mode: 'local' } })).status).toBe(200);
    expect(await loginFromForwarded()).toBe('192.0.2.45');
  });

  it('defaults: the API on 3000, the edge on 8080 (HTTPS 8443), builds limited to 15 minutes, apps as processes', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.proxyPort).toBe(8080);
    expect(config.proxyTlsPort).toBe(8443);
    expect(config.buildTimeoutSeconds).toBe(900);
    expect(config.runtimeDriver).toBe('process');
    expect(loadConfig({ PROXY_PORT: '9090', BUILD_TIMEOUT_SECONDS: '60' })).toMatchObject({
      proxyPort: 9090,
      buildTimeoutSeconds: 60,
    });
    expect(() => loadConfig({ BUILD_TIMEOUT_SECONDS: '0' })).toThrow(/BUILD_TIMEOUT_SECONDS/);
  });

  it('refuses a bad configuration with a message naming each bad variable', () => {
    expect(() => loadConfig({ ACCESS_MODE: 'everywhere', PUBLIC_IP: '999.1.1.1', DATABASE_URL: 'mysql://x' })).toThrow(
      /Invalid configuration:\n(?=[\s\S]*ACCESS_MODE)(?=[\s\S]*PUBLIC_IP)(?=[\s\S]*DATABASE_URL must start with postgres:\/\/)/,
    );
    expect(() => loadConfig({ ADMIN_PASSWORD: 'short' })).toThrow(/ADMIN_PASSWORD must be at least 8 characters/);
  });
});
