import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueue } from '../../src/jobs';
import { auditRetention } from '../../src/modules/audit/jobs';
import { type Api, type ApiError, apiClient, setCookie, TEST_PASSWORD, uniqueEmail } from '../helpers/api';
import { auditRowsAfter, createKey, lastAuditId } from '../helpers/audit';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/**
 * Findings of the outside probe that concern the platform as a whole: text the database cannot
 * hold, changes without their audit row, security headers, cross-site requests, forwarded
 * addresses and the error format. Each test replays the attack against the real server.
 */

const THEME_SCRIPT = "document.documentElement.classList.add('light');";
let consoleDir: string;
let platform: TestPlatform;
let api: Api;
let admin: string;
const serverLog: Record<string, unknown>[] = [];

beforeAll(async () => {
  // A console build of our own, so the CSP's hash of its inline script can be checked exactly.
  consoleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-console-'));
  fs.writeFileSync(
    path.join(consoleDir, 'index.html'),
    `<!doctype html><html><head><script>${THEME_SCRIPT}</script></head><body><div id="root"></div></body></html>`,
  );
  // The server's own log, as an operator reads it: the 500 below must say there what failed.
  const logger = pino({ level: 'error' }, { write: (line: string) => serverLog.push(JSON.parse(line)) });
  platform = await startTestPlatform({ CONSOLE_DIR: consoleDir }, { logger });
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(async () => {
  await platform.close();
  fs.rmSync(consoleDir, { recursive: true, force: true });
});

const LONE_SURROGATE = 'name \ud800 here';

describe('text the database cannot hold', () => {
  it('a lone surrogate or NUL is a 400 with a field error on every kind of route, and nothing changes', async () => {
    const before = await lastAuditId(api, admin);
    const attempts: [string, string, unknown, string][] = [
      ['POST', '/users', { username: LONE_SURROGATE, email: uniqueEmail(), password: TEST_PASSWORD }, 'username'],
      [
        'POST',
        '/api-keys',
        { name: 'key', permissions: ['users:read'], expires_at: null, note: { deep: ['x\u0000'] } },
        'note.deep.0',
      ],
      [
        'POST',
        '/notification-providers/slack',
        { name: LONE_SURROGATE, enabled: true, config: { webhook_url: 'https://hooks.example.com/x', channel: null } },
        'name',
      ],
      ['PATCH', '/users/me', { username: 'ok', avatar_url: null, extra: { 'k\u0000': 1 } }, 'extra.k?'],
      ['PUT', '/settings', { base_domain: 'a\udc00.example.com' }, 'base_domain'],
    ];
    for (const [method, route, body, field] of attempts) {
      const response = await api.call<ApiError>(method, route, { token: admin, body });
      expect(response.status, `${method} ${route}`).toBe(400);
      expect(response.body.errors, `${method} ${route}`).toEqual([
        { path: field, message: expect.stringMatching(/unpaired surrogates/) },
      ]);
    }
    const inQuery = await api.call<ApiError>('GET', '/audit/logs?actor=%00', { token: admin });
    expect(inQuery.status).toBe(400);
    expect(inQuery.body.errors?.[0]?.path).toBe('query.actor');
    // Nothing was created, and no audit row was needed.
    expect(await auditRowsAfter(api, admin, before)).toEqual([]);
    const users = await api.call<{ users: { username: string }[] }>('GET', '/users', { token: admin });
    expect(users.body.users.map((u) => u.username)).not.toContain(LONE_SURROGATE);
  });
});

describe('a change and its audit row commit together', () => {
  it('when the audit row cannot be written the change is rolled back and the caller gets a 500', async () => {
    // Make every audit insert for user creation fail, as a full disk or a broken table would.
    await platform.ctx.pool.query(
      `ALTER TABLE audit_logs ADD CONSTRAINT test_refuse_user_audit CHECK (action <> 'users.create') NOT VALID`,
    );
    const email = uniqueEmail('rolled-back');
    try {
      const response = await api.call<ApiError>('POST', '/users', {
        token: admin,
        body: { username: 'Rolled back', email, password: TEST_PASSWORD },
      });
      expect(response.status).toBe(500);
      expect(response.body.detail).toBe('Internal server error: the failure was logged on the server');
      // It was: with the request's id, what was asked and the cause.
      expect(serverLog).toContainEqual(
        expect.objectContaining({
          level: 50,
          msg: 'request failed',
          reqId: expect.stringMatching(/^req-/),
          method: 'POST',
          url: '/api/users',
          err: expect.objectContaining({ message: expect.stringContaining('test_refuse_user_audit') }),
        }),
      );
    } finally {
      await platform.ctx.pool.query('ALTER TABLE audit_logs DROP CONSTRAINT test_refuse_user_audit');
    }
    const { rows } = await platform.ctx.pool.query('SELECT count(*)::int AS n FROM users WHERE email = $1', [email]);
    expect(rows[0].n).toBe(0);
    // The same request now succeeds, with its row: nothing was left half-done.
    const again = await api.call<{ id: number }>('POST', '/users', {
      token: admin,
      body: { username: 'Rolled back', email, password: TEST_PASSWORD },
    });
    expect(again.status).toBe(201);
  });

  it('a change inside a service transaction rolls back with the audit row too (savepoints, not a second commit)', async () => {
    const user = await api.userWithRole(admin, 'user');
    await platform.ctx.pool.query(
      `ALTER TABLE audit_logs ADD CONSTRAINT test_refuse_role_audit CHECK (action <> 'users.roles.create') NOT VALID`,
    );
    try {
      const response = await api.call('POST', `/users/${user.id}/roles`, { token: admin, body: { role_type: 'admin' } });
      expect(response.status).toBe(500);
    } finally {
      await platform.ctx.pool.query('ALTER TABLE audit_logs DROP CONSTRAINT test_refuse_role_audit');
    }
    const after = await api.call<{ roles: string[] }>('GET', `/users/${user.id}`, { token: admin });
    expect(after.body.roles).toEqual(['user']);
  });

  it('a refused attempt with an API key lacking the permission is recorded as denied', async () => {
    const key = await createKey(api, admin, ['users:read'], { name: 'read-only-bot' });
    const before = await lastAuditId(api, admin);
    const refused = await api.call('PUT', '/settings', { token: key.secret, body: { log_retention_days: 3 } });
    expect(refused.status).toBe(403);
    const rows = await auditRowsAfter(api, admin, before);
    expect(rows).toMatchObject([{ action: 'settings.update_denied', actor_type: 'api_key', actor_api_key_id: key.id }]);
  });
});

describe('security headers', () => {
  it('the console, a console route and the API send CSP, nosniff, Referrer-Policy and Permissions-Policy', async () => {
    const themeHash = `'sha256-${createHash('sha256').update(THEME_SCRIPT).digest('base64')}'`;
    for (const route of ['/', '/settings/audit-logs', '/api/health', '/api/docs']) {
      const response = await fetch(`${platform.url}${route}`);
      expect(response.status, route).toBe(200);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp, route).toContain("frame-ancestors 'none'");
      if (route === '/api/health') {
        // A JSON answer is never rendered as a page: its policy allows nothing, and page-only headers stay off it.
        expect(csp, route).toBe("default-src 'none'; frame-ancestors 'none'");
        expect(response.headers.get('cross-origin-opener-policy'), route).toBeNull();
        expect(response.headers.get('cache-control'), route).toBe('no-store');
      } else {
        expect(csp, route).toContain("default-src 'self'");
        expect(csp, route).toContain(`script-src 'self' ${themeHash}`);
        expect(response.headers.get('cross-origin-opener-policy'), route).toBe('same-origin');
      }
      expect(csp, route).not.toContain('unsafe-eval');
      expect(response.headers.get('x-content-type-options'), route).toBe('nosniff');
      expect(response.headers.get('referrer-policy'), route).toBe('same-origin');
      expect(response.headers.get('x-frame-options'), route).toBe('DENY');
      expect(response.headers.get('permissions-policy'), route).toContain('camera=()');
      // Plain HTTP: no HSTS (a browser ignores it there, and it would pin a LAN address to TLS).
      expect(response.headers.get('strict-transport-security'), route).toBeNull();
    }
  });

  it('every answer carries each security header once; a route with its own cache policy replaces no-store', async () => {
    /** An answer's header lines as sent (fetch joins repeated ones into one value). */
    const head = (route: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; values: (name: string) => string[] }>((resolve, reject) => {
        const request = http.get(`${platform.url}${route}`, { headers }, (response) => {
          const raw = response.rawHeaders;
          const values = (name: string) =>
            raw.flatMap((v, i) => (i % 2 === 0 && v.toLowerCase() === name ? [raw[i + 1] ?? ''] : []));
          resolve({ status: response.statusCode ?? 0, values });
          response.destroy();
        });
        request.on('error', reject);
      });
    const once = [
      'content-security-policy',
      'x-content-type-options',
      'referrer-policy',
      'permissions-policy',
      'x-frame-options',
    ];
    const apiPolicy = "default-src 'none'; frame-ancestors 'none'";

    const me = await head('/api/user/me', { authorization: `Bearer ${admin}` });
    expect(me.status).toBe(200);
    for (const name of once) expect(me.values(name), name).toHaveLength(1);
    expect(me.values('content-security-policy')).toEqual([apiPolicy]);
    expect(me.values('cache-control')).toEqual(['no-store']);

    // Refused before any route matched (a malformed percent-encoding): the same headers.
    const malformed = await head('/api/users/%E0%A4%A');
    expect(malformed.status).toBe(400);
    expect(malformed.values('content-security-policy')).toEqual([apiPolicy]);
    expect(malformed.values('cache-control')).toEqual(['no-store']);

    // A job's log stream sets its own cache policy: it replaces no-store rather than joining it.
    const { id } = await enqueue(platform.ctx, auditRetention.queue, {});
    const stream = await head(`/api/jobs/${id}/logs`, { authorization: `Bearer ${admin}`, accept: 'text/event-stream' });
    expect(stream.status).toBe(200);
    expect(stream.values('cache-control')).toEqual(['no-cache, no-transform']);
    for (const name of once) expect(stream.values(name), name).toHaveLength(1);

    // A console route: the page policy, once, and the console's own cache policy.
    const page = await head('/settings/audit-logs');
    expect(page.status).toBe(200);
    for (const name of once) expect(page.values(name), name).toHaveLength(1);
    expect(page.values('content-security-policy')[0]).toContain("default-src 'self'");
    expect(page.values('cache-control')).toEqual(['no-cache']);
  });

  it('HSTS is sent when the platform is reached over TLS (through its trusted local proxy)', async () => {
    const response = await fetch(`${platform.url}/api/health`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(response.headers.get('strict-transport-security')).toMatch(/max-age=31536000/);
  });

  it('answers carrying a token or a secret are never stored', async () => {
    const login = await api.call('POST', '/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    expect(login.headers.get('cache-control')).toBe('no-store');
    const key = await api.call('POST', '/api-keys', { token: admin, body: { name: 'k', permissions: ['users:read'] } });
    expect(key.status).toBe(201);
    expect(key.headers.get('cache-control')).toBe('no-store');
    const setup = await api.call('POST', '/users/me/mfa/setup', { token: admin });
    expect(setup.headers.get('cache-control')).toBe('no-store');
  });
});

describe('cross-site requests', () => {
  let cookie: string;
  beforeAll(async () => {
    const login = await api.call('POST', '/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    cookie = `lb_session=${setCookie(login.headers, 'lb_session')?.value}`;
  });

  it('a cookie POST with a foreign Origin is a 403 and changes nothing', async () => {
    const email = uniqueEmail('csrf');
    const response = await api.call<ApiError>('POST', '/users', {
      cookie,
      headers: { origin: 'https://evil.example.com' },
      body: { username: 'Planted', email, password: TEST_PASSWORD },
    });
    expect(response.status).toBe(403);
    expect(response.body.detail).toMatch(/Cross-site request refused/);
    const users = await api.call<{ users: { email: string }[] }>('GET', '/users', { token: admin });
    expect(users.body.users.map((u) => u.email)).not.toContain(email);
  });

  it('an app on a sibling subdomain (Sec-Fetch-Site: same-site) is refused too; the own origin is accepted', async () => {
    const sibling = await api.call('PUT', '/settings', {
      cookie,
      headers: { 'sec-fetch-site': 'same-site' },
      body: { log_retention_days: 12 },
    });
    expect(sibling.status).toBe(403);
    const own = await api.call('PUT', '/settings', {
      cookie,
      headers: { origin: platform.url, 'sec-fetch-site': 'same-origin' },
      body: { log_retention_days: 12 },
    });
    expect(own.status).toBe(200);
  });

  it('a foreign page cannot sign a visitor in (login CSRF); a bearer token is not affected by Origin', async () => {
    const login = await api.call('POST', '/auth/login', {
      headers: { origin: 'https://evil.example.com' },
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    });
    expect(login.status).toBe(403);
    const withToken = await api.call('PUT', '/settings', {
      token: admin,
      headers: { origin: 'https://a-script.example.com' },
      body: { log_retention_days: 13 },
    });
    expect(withToken.status).toBe(200);
  });
});

describe('forwarded client addresses', () => {
  it('only a forwarded value that parses as an IP becomes the client address', async () => {
    const before = await lastAuditId(api, admin);
    for (const forwarded of ['<script>alert(1)</script>', '1'.repeat(5000), '203.0.113.9, <b>x</b>', '<b>x</b>, 203.0.113.10']) {
      const response = await api.call('PUT', '/settings', {
        token: admin,
        headers: { 'x-forwarded-for': forwarded },
        body: { log_retention_days: 14 },
      });
      expect(response.status).toBe(200);
    }
    const rows = await auditRowsAfter(api, admin, before);
    // Cut at the first entry (from the right) that is not an IP: the loopback proxy itself, or the IP behind it.
    expect(rows.map((r) => r.ip)).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1', '203.0.113.10']);
  });
});

/** Sends raw bytes and returns what the server answers (the whole connection). */
function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request, 'latin1'));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy());
  });
}

describe('one error format', () => {
  const noFrameworkWording = (text: string) => {
    expect(text).not.toMatch(/FST_|fastify|statusCode|"error":|postgres|violates|syntax|relation|Unexpected token/i);
  };

  it('a too-long path parameter is a 414 in the platform format', async () => {
    const response = await api.call<ApiError>('GET', `/users/${'9'.repeat(600)}`, { token: admin });
    expect(response.status).toBe(414);
    expect(response.body).toEqual({ detail: 'A path segment is too long' });
  });

  it('a malformed percent-encoding is a 400 in the platform format', async () => {
    const response = await fetch(`${platform.url}/api/users/%E0%A4%A`, { headers: { authorization: `Bearer ${admin}` } });
    expect(response.status).toBe(400);
    const body = await response.text();
    noFrameworkWording(body);
    expect(JSON.parse(body)).toEqual({ detail: expect.stringMatching(/^Malformed URL/) });
  });

  it('bad header bytes get a 400 JSON answer in the platform format', async () => {
    const port = Number(new URL(platform.url).port);
    const answer = await rawRequest(port, 'GET /api/health HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
    noFrameworkWording(body);
    expect(JSON.parse(body)).toEqual({ detail: 'Malformed HTTP request' });
  });

  it('malformed JSON and database refusals say what is wrong in our words', async () => {
    const json = await api.call<ApiError>('POST', '/users', { token: admin, rawBody: '{"username": ' });
    expect(json.status).toBe(400);
    noFrameworkWording(JSON.stringify(json.body));
    expect(json.body.detail).toMatch(/^Malformed JSON body/);
  });

  it('the OpenAPI document lists the error answers of each operation with the error body', async () => {
    const document = (
      await api.call<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>('GET', '/docs/json', {
        token: admin,
      })
    ).body;
    const operations = Object.entries(document.paths).flatMap(([route, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${route}`, operation })),
    );
    expect(operations.length).toBeGreaterThan(30);
    for (const { key, operation } of operations) {
      expect(Object.keys(operation.responses), key).toEqual(expect.arrayContaining(['400', '500']));
      const schema = JSON.stringify(operation.responses['400']);
      expect(schema, key).toContain('"detail"');
      if (
        key !== 'POST /api/auth/login' &&
        key !== 'POST /api/auth/verify-mfa' &&
        !key.startsWith('GET /api/platform/access-info') &&
        key !== 'GET /api/health'
      ) {
        expect(Object.keys(operation.responses), key).toContain('401');
      }
      if (key.includes('{')) expect(Object.keys(operation.responses), key).toContain('404');
    }
  });
});
