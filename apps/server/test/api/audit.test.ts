import type { AuditLog } from '@launchbay/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient, TEST_PASSWORD, uniqueEmail } from '../helpers/api';
import { auditPage, auditRowsAfter, callAudited, createKey, lastAuditId, sleep } from '../helpers/audit';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';
import { totp, wrongTotp } from '../helpers/totp';

let platform: TestPlatform;
let api: Api;
let admin: string;
let adminId: number;

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  adminId = (await api.call<{ id: number }>('GET', '/user/me', { token: admin })).body.id;
});
afterAll(() => platform.close());

const AGENT = { 'user-agent': 'audit-test/1.0', 'x-forwarded-for': '198.51.100.7' };

describe('sign-in events', () => {
  it('records a successful sign-in with the user, IP and user agent, and the password redacted', async () => {
    const { response, rows } = await callAudited(api, admin, 'POST', '/auth/login', {
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      headers: AGENT,
    });
    expect(response.status).toBe(200);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: 'auth.login',
      actor_type: 'user',
      actor_user_id: adminId,
      actor_api_key_id: null,
      actor_label: ADMIN_EMAIL,
      target_type: 'user',
      target_id: String(adminId),
      status_code: 200,
      method: 'POST',
      path: '/api/auth/login',
      ip: '198.51.100.7',
      user_agent: 'audit-test/1.0',
      summary: { body: { email: ADMIN_EMAIL, password: '[redacted]' } },
    });
    const at = new Date(rows[0]?.created_at ?? 0).getTime();
    expect(Math.abs(at - Date.now())).toBeLessThan(10_000);
    expect(JSON.stringify(rows)).not.toContain(ADMIN_PASSWORD);
    // The session token the answer carried is in no row either.
    expect(JSON.stringify(rows)).not.toContain((response.body as { token: string }).token);
  });

  it('records failed sign-ins as auth.login_failed with the attempted email, never the password', async () => {
    const person = await api.userWithRole(admin, 'user');
    const wrong = await callAudited(api, admin, 'POST', '/auth/login', {
      body: { email: person.email, password: 'Wrong-Password-123' },
      headers: AGENT,
    });
    expect(wrong.response.status).toBe(401);
    expect(wrong.rows).toHaveLength(1);
    expect(wrong.rows[0]).toMatchObject({
      action: 'auth.login_failed',
      actor_label: person.email,
      target_type: 'user',
      target_id: String(person.id),
      status_code: 401,
      method: 'POST',
      path: '/api/auth/login',
      ip: '198.51.100.7',
      user_agent: 'audit-test/1.0',
      summary: { body: { email: person.email, password: '[redacted]' }, error: 401 },
    });

    const ghost = await callAudited(api, admin, 'POST', '/auth/login', {
      body: { email: 'nobody-here@example.com', password: 'Ghost-Password-456' },
    });
    expect(ghost.response.status).toBe(401);
    expect(ghost.rows).toHaveLength(1);
    expect(ghost.rows[0]).toMatchObject({
      action: 'auth.login_failed',
      actor_type: 'anonymous',
      actor_user_id: null,
      actor_label: 'nobody-here@example.com',
      target_id: null,
      status_code: 401,
    });

    const invalid = await callAudited(api, admin, 'POST', '/auth/login', {
      body: { email: 'not-an-email', password: 'Bad-Input-789' },
    });
    expect(invalid.response.status).toBe(400);
    expect(invalid.rows).toHaveLength(1);
    expect(invalid.rows[0]).toMatchObject({ action: 'auth.login_failed', status_code: 400, actor_label: 'not-an-email' });

    const all = JSON.stringify([...wrong.rows, ...ghost.rows, ...invalid.rows]);
    for (const password of ['Wrong-Password-123', 'Ghost-Password-456', 'Bad-Input-789']) expect(all).not.toContain(password);
  });

  it("records a sign-in as the user who signed in, even when the request carries someone else's token", async () => {
    const person = await api.userWithRole(admin, 'reader');
    const ok = await callAudited(api, admin, 'POST', '/auth/login', {
      token: admin,
      body: { email: person.email, password: person.password },
    });
    expect(ok.response.status).toBe(200);
    expect(ok.rows).toHaveLength(1);
    expect(ok.rows[0]).toMatchObject({
      action: 'auth.login',
      actor_type: 'user',
      actor_user_id: person.id,
      actor_label: person.email,
      target_id: String(person.id),
    });
    const failed = await callAudited(api, admin, 'POST', '/auth/login', {
      token: admin,
      body: { email: person.email, password: 'not-the-password' },
    });
    expect(failed.rows).toHaveLength(1);
    expect(failed.rows[0]).toMatchObject({
      action: 'auth.login_failed',
      actor_label: person.email,
      target_id: String(person.id),
    });
    expect(failed.rows[0]?.actor_user_id).not.toBe(adminId);
  });

  it('records MFA changes and MFA sign-in steps, failed ones too, with codes redacted', async () => {
    const person = await api.userWithRole(admin, 'user');
    const before = await lastAuditId(api, admin);
    const setup = await api.call<{ secret: string }>('POST', '/users/me/mfa/setup', { token: person.token });
    expect(setup.status).toBe(200);
    const firstCode = await totp(setup.body.secret);
    const verified = await api.call<{ recovery_codes: string[] }>('POST', '/users/me/mfa/verify', {
      token: person.token,
      body: { code: firstCode },
    });
    expect(verified.status).toBe(200);

    const login = await api.call<{ mfa_token: string }>('POST', '/auth/login', {
      body: { email: person.email, password: person.password },
    });
    expect(login.status).toBe(200);
    const badCode = await wrongTotp(setup.body.secret);
    const failed = await api.call('POST', '/auth/verify-mfa', { body: { code: badCode, mfa_token: login.body.mfa_token } });
    expect(failed.status).toBe(401);
    const goodCode = await totp(setup.body.secret, 1);
    const passed = await api.call<{ token: string }>('POST', '/auth/verify-mfa', {
      body: { code: goodCode, mfa_token: login.body.mfa_token },
    });
    expect(passed.status).toBe(200);

    const rows = await auditRowsAfter(api, admin, before);
    expect(rows.map((r) => r.action)).toEqual([
      'users.me.mfa.setup',
      'users.me.mfa.verify',
      'auth.login',
      'auth.verify_mfa_failed',
      'auth.verify_mfa',
    ]);
    for (const row of rows) {
      expect(row, row.action).toMatchObject({ target_type: 'user', target_id: String(person.id), actor_user_id: person.id });
    }
    expect(rows[1]?.summary).toEqual({ body: { code: '[redacted]' } });
    expect(rows[3]).toMatchObject({
      status_code: 401,
      summary: { body: { code: '[redacted]', mfa_token: '[redacted]' }, error: 401 },
    });
    const text = JSON.stringify(rows);
    for (const secret of [setup.body.secret, firstCode, badCode, goodCode, login.body.mfa_token, passed.body.token]) {
      expect(text).not.toContain(secret);
    }
    for (const code of verified.body.recovery_codes) expect(text).not.toContain(code);
  });
});

describe('mutations', () => {
  it('writes one row per successful mutation with the change, secrets redacted', async () => {
    const email = uniqueEmail('audited');
    const created = await callAudited<{ id: number }>(api, admin, 'POST', '/users', {
      token: admin,
      headers: AGENT,
      body: { username: 'Audited Person', email, password: TEST_PASSWORD, roles: ['reader'] },
    });
    expect(created.response.status).toBe(201);
    expect(created.rows).toHaveLength(1);
    expect(created.rows[0]).toMatchObject({
      action: 'users.create',
      actor_type: 'user',
      actor_user_id: adminId,
      actor_label: ADMIN_EMAIL,
      target_type: 'user',
      target_id: String(created.response.body.id),
      status_code: 201,
      method: 'POST',
      path: '/api/users',
      ip: '198.51.100.7',
      user_agent: 'audit-test/1.0',
      summary: { body: { username: 'Audited Person', email, password: '[redacted]', roles: ['reader'] } },
    });
    expect(JSON.stringify(created.rows)).not.toContain(TEST_PASSWORD);

    const person = { token: await api.login(email, TEST_PASSWORD) };
    const changed = await callAudited(api, admin, 'PATCH', '/users/me', {
      token: person.token,
      body: { username: 'Renamed', current_password: TEST_PASSWORD, new_password: 'Another-Password-2' },
    });
    expect(changed.response.status).toBe(200);
    expect(changed.rows).toHaveLength(1);
    expect(changed.rows[0]).toMatchObject({
      action: 'users.me.update',
      summary: { body: { username: 'Renamed', current_password: '[redacted]', new_password: '[redacted]' } },
    });
    expect(JSON.stringify(changed.rows)).not.toContain('Another-Password-2');
  });

  it('writes no row for failed mutations nor for reads, and one "_denied" row for each refused (403) one', async () => {
    const reader = await api.userWithRole(admin, 'reader');
    const before = await lastAuditId(api, admin);
    const attempts = [
      await api.call('POST', '/users', { token: admin, body: { username: '', email: 'bad', password: 'x' } }), // 400
      await api.call('POST', '/users', {
        token: reader.token,
        body: { username: 'x', email: uniqueEmail(), password: TEST_PASSWORD },
      }), // 403
      await api.call('PATCH', '/users/987654', { token: admin, body: { username: 'nobody' } }), // 404
      await api.call('DELETE', `/users/${adminId}`, { token: admin }), // 400: not yourself
      await api.call('PUT', '/settings', { body: { log_retention_days: 5 } }), // 401
      await api.call('POST', '/api-keys', { token: admin, body: { name: 'k', permissions: [] } }), // 400
      await api.call('GET', '/users', { token: admin }),
      await api.call('GET', '/settings', { token: admin }),
      await api.call('GET', '/api-keys', { token: admin }),
      await api.call('GET', '/audit/logs', { token: admin }),
    ];
    expect(attempts.map((a) => a.status)).toEqual([400, 403, 404, 400, 401, 400, 200, 200, 200, 200]);
    const rows = await auditRowsAfter(api, admin, before);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: 'users.create_denied',
      actor_type: 'user',
      actor_user_id: reader.id,
      status_code: 403,
      method: 'POST',
      path: '/api/users',
    });
    // Refused before its body is even read: the row says who tried what, not with which payload.
    expect(rows[0]?.summary).toEqual({ error: 403 });
  });

  it('records writes made with an API key as the key, and not its reads', async () => {
    const key = await createKey(api, admin, ['users:read', 'users:write', 'settings:write'], { name: 'deploy-bot' });
    const before = await lastAuditId(api, admin);
    expect((await api.call('GET', '/users', { token: key.secret })).status).toBe(200);
    const created = await api.call<{ id: number }>('POST', '/users', {
      token: key.secret,
      headers: AGENT,
      body: { username: 'Made by key', email: uniqueEmail('bykey'), password: TEST_PASSWORD },
    });
    expect(created.status).toBe(201);
    expect((await api.call('PUT', '/settings', { token: key.secret, body: { log_retention_days: 9 } })).status).toBe(200);

    const rows = await auditRowsAfter(api, admin, before);
    expect(rows.map((r) => r.action)).toEqual(['users.create', 'settings.update']);
    for (const row of rows) {
      expect(row).toMatchObject({
        actor_type: 'api_key',
        actor_api_key_id: key.id,
        actor_user_id: adminId,
        actor_label: `deploy-bot (${ADMIN_EMAIL})`,
      });
    }
    expect(rows[0]).toMatchObject({ target_id: String(created.body.id), ip: '198.51.100.7', user_agent: 'audit-test/1.0' });
    expect(JSON.stringify(rows)).not.toContain(key.secret.slice(key.key_prefix.length));
    // The actor filter finds them by the key's name.
    const byKey = await auditPage(api, admin, { actor: 'deploy-bot' });
    expect(byKey.logs.map((r) => r.id)).toEqual(rows.map((r) => r.id).reverse());
  });
});

describe('GET /api/audit/logs', () => {
  /** A fresh admin whose every action below is known, so filters can be checked exactly. */
  async function actorWithHistory() {
    const actor = await api.userWithRole(admin, 'admin');
    const target = await api.call<{ id: number }>('POST', '/users', {
      token: actor.token,
      body: { username: 'Target', email: uniqueEmail('target'), password: TEST_PASSWORD, roles: ['user'] },
    });
    await sleep(5);
    await api.call('PATCH', `/users/${target.body.id}`, { token: actor.token, body: { username: 'Target 2' } });
    await sleep(5);
    await api.call('POST', `/users/${target.body.id}/roles`, { token: actor.token, body: { role_type: 'reader' } });
    await sleep(5);
    const key = await api.call<{ id: number }>('POST', '/api-keys', {
      token: actor.token,
      body: { name: 'filter key', permissions: ['projects:read'] },
    });
    await sleep(5);
    await api.call('DELETE', `/users/${target.body.id}`, { token: actor.token });
    return { ...actor, targetId: target.body.id, keyId: key.body.id };
  }

  it('filters by actor: email (any part of it) or user id', async () => {
    const actor = await actorWithHistory();
    const expected = ['users.delete', 'api_keys.create', 'users.roles.create', 'users.update', 'users.create', 'auth.login'];
    const byEmail = await auditPage(api, admin, { actor: actor.email });
    expect(byEmail.logs.map((r) => r.action)).toEqual(expected);
    expect(byEmail.total).toBe(expected.length);
    const byPart = await auditPage(api, admin, { actor: actor.email.split('@')[0]?.toUpperCase() ?? '' });
    expect(byPart.logs.map((r) => r.id)).toEqual(byEmail.logs.map((r) => r.id));
    const byId = await auditPage(api, admin, { actor: String(actor.id) });
    expect(byId.logs.map((r) => r.id)).toEqual(expect.arrayContaining(byEmail.logs.map((r) => r.id)));
    for (const row of byId.logs) expect(row.actor_user_id === actor.id || row.actor_label?.includes(String(actor.id))).toBe(true);
    expect((await auditPage(api, admin, { actor: 'no-such-actor@example.com' })).logs).toEqual([]);
  });

  it('filters by action, exactly or by a prefix ending in a dot', async () => {
    const actor = await actorWithHistory();
    const exact = await auditPage(api, admin, { action: 'users.update', per_page: 200 });
    expect(exact.logs.length).toBeGreaterThan(0);
    for (const row of exact.logs) expect(row.action).toBe('users.update');
    expect(exact.logs.some((r) => r.target_id === String(actor.targetId))).toBe(true);

    const prefix = await auditPage(api, admin, { action: 'users.', per_page: 200 });
    for (const row of prefix.logs) expect(row.action.startsWith('users.')).toBe(true);
    const actions = new Set(prefix.logs.map((r) => r.action));
    for (const action of ['users.create', 'users.update', 'users.roles.create', 'users.delete'])
      expect(actions.has(action)).toBe(true);
    expect(prefix.total).toBeGreaterThan(exact.total);

    // 'users' without the dot is an exact action, which does not exist.
    expect((await auditPage(api, admin, { action: 'users' })).total).toBe(0);
    const keys = await auditPage(api, admin, { action: 'api_keys.', actor: actor.email });
    expect(keys.logs.map((r) => r.action)).toEqual(['api_keys.create']);
  });

  it('filters by target type and id', async () => {
    const actor = await actorWithHistory();
    const user = await auditPage(api, admin, { target_type: 'user', target_id: String(actor.targetId) });
    expect(user.logs.map((r) => r.action)).toEqual(['users.delete', 'users.roles.create', 'users.update', 'users.create']);
    for (const row of user.logs) expect(row).toMatchObject({ target_type: 'user', target_id: String(actor.targetId) });
    const key = await auditPage(api, admin, { target_type: 'api_key', target_id: String(actor.keyId) });
    expect(key.logs.map((r) => r.action)).toEqual(['api_keys.create']);
    const anyKey = await auditPage(api, admin, { target_type: 'api_key', per_page: 200 });
    for (const row of anyKey.logs) expect(row.target_type).toBe('api_key');
    expect((await auditPage(api, admin, { target_type: 'user', target_id: '987654' })).total).toBe(0);
  });

  it('filters by a time range (from and to, inclusive)', async () => {
    const actor = await actorWithHistory();
    const rows = (await auditPage(api, admin, { actor: actor.email })).logs; // newest first
    const update = rows.find((r) => r.action === 'users.update') as AuditLog;
    const grant = rows.find((r) => r.action === 'users.roles.create') as AuditLog;
    expect(new Date(update.created_at).getTime()).toBeLessThan(new Date(grant.created_at).getTime());

    const from = await auditPage(api, admin, { actor: actor.email, from: grant.created_at });
    expect(from.logs.map((r) => r.action)).toEqual(['users.delete', 'api_keys.create', 'users.roles.create']);
    const to = await auditPage(api, admin, { actor: actor.email, to: update.created_at });
    expect(to.logs.map((r) => r.action)).toEqual(['users.update', 'users.create', 'auth.login']);
    const between = await auditPage(api, admin, { actor: actor.email, from: update.created_at, to: grant.created_at });
    expect(between.logs.map((r) => r.action)).toEqual(['users.roles.create', 'users.update']);
    // Any offset is understood: the same instant written in UTC+2.
    const shifted = new Date(new Date(grant.created_at).getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    const fromShifted = await auditPage(api, admin, { actor: actor.email, from: shifted });
    expect(fromShifted.logs.map((r) => r.id)).toEqual(from.logs.map((r) => r.id));
    const future = await auditPage(api, admin, { from: new Date(Date.now() + 3600_000).toISOString() });
    expect(future.total).toBe(0);
  });

  it('paginates newest first with page, per_page and total', async () => {
    const actor = await actorWithHistory();
    const all = await auditPage(api, admin, { actor: actor.email });
    expect(all.total).toBe(6);
    const pages = [];
    for (const page of [1, 2, 3, 4]) pages.push(await auditPage(api, admin, { actor: actor.email, per_page: 2, page }));
    expect(pages.map((p) => p.logs.length)).toEqual([2, 2, 2, 0]);
    for (const [i, p] of pages.entries()) expect(p).toMatchObject({ total: 6, page: i + 1, per_page: 2 });
    expect(pages.flatMap((p) => p.logs.map((r) => r.id))).toEqual(all.logs.map((r) => r.id));
    const ids = all.logs.map((r) => r.id);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);

    const defaults = await auditPage(api, admin);
    expect(defaults).toMatchObject({ page: 1, per_page: 50 });
    expect(defaults.total).toBeGreaterThan(6);
  });

  it('answers 400 for bad query values', async () => {
    for (const query of ['per_page=0', 'per_page=201', 'page=0', 'page=x', 'from=yesterday', 'to=2024-13-45']) {
      const response = await api.call<ApiError & { errors: { path: string }[] }>('GET', `/audit/logs?${query}`, { token: admin });
      expect(response.status, query).toBe(400);
      expect(response.body.errors[0]?.path).toBe(`querystring.${query.split('=')[0]}`);
    }
  });

  it('is for admins only: reader and user get 403, no credentials 401, a key needs audit:read', async () => {
    for (const role of ['reader', 'user'] as const) {
      const person = await api.userWithRole(admin, role);
      const list = await api.call<ApiError>('GET', '/audit/logs', { token: person.token });
      expect(list.status, role).toBe(403);
      expect(list.body.detail).toBe('You need the admin role for this');
      expect((await api.call('GET', '/audit/logs/1', { token: person.token })).status).toBe(403);
    }
    expect((await api.call('GET', '/audit/logs')).status).toBe(401);
    expect((await api.call('GET', '/audit/logs/1')).status).toBe(401);

    const without = await createKey(api, admin, ['users:read']);
    const refused = await api.call<ApiError & { missing_permission: string }>('GET', '/audit/logs', { token: without.secret });
    expect(refused.status).toBe(403);
    expect(refused.body.missing_permission).toBe('audit:read');
    const withIt = await createKey(api, admin, ['audit:read']);
    expect((await api.call('GET', '/audit/logs', { token: withIt.secret })).status).toBe(200);
  });
});

describe('GET /api/audit/logs/:id', () => {
  it('answers one entry, the same as in the list', async () => {
    const newest = (await auditPage(api, admin, { per_page: 1 })).logs[0] as AuditLog;
    const one = await api.call<AuditLog>('GET', `/audit/logs/${newest.id}`, { token: admin });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(newest);
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    const unknown = await api.call<ApiError>('GET', '/audit/logs/987654321', { token: admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBe('Audit entry 987654321 not found');
    expect((await api.call('GET', '/audit/logs/abc', { token: admin })).status).toBe(400);
  });
});
