import { createHash } from 'node:crypto';
import { type ApiKey, PERMISSION_AREAS, PERMISSIONS, type Permission } from '@launchbay/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { allAuditRows, type CreatedKey, createKey, eventually, sleep } from '../helpers/audit';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

type Catalogue = {
  permissions: { name: Permission; area: string; access: 'read' | 'write'; description: string }[];
  presets: { role: 'admin' | 'user' | 'reader'; label: string; permissions: Permission[] }[];
};
type FieldErrors = ApiError & { errors: { path: string; message: string }[] };
type Refusal = ApiError & { missing_permission?: string };

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

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

describe('GET /api/api-keys/permissions', () => {
  it('lists read and write for every area, and the admin, user and reader presets', async () => {
    const reader = await api.userWithRole(admin, 'reader');
    const response = await api.call<Catalogue>('GET', '/api-keys/permissions', { token: reader.token });
    expect(response.status).toBe(200);
    const { permissions, presets } = response.body;
    expect(permissions).toHaveLength(PERMISSION_AREAS.length * 2);
    for (const area of PERMISSION_AREAS) {
      for (const access of ['read', 'write'] as const) {
        const entry = permissions.find((p) => p.name === `${area}:${access}`);
        expect(entry, `${area}:${access}`).toMatchObject({ area, access, description: expect.stringMatching(/\S/) });
      }
    }
    expect(new Set(permissions.map((p) => p.name)).size).toBe(permissions.length);
    expect(permissions.find((p) => p.name === 'users:read')?.description).toMatch(/^Read /);
    expect(permissions.find((p) => p.name === 'users:write')?.description).toMatch(/^Create, change and delete /);

    expect(presets.map((p) => p.role)).toEqual(['admin', 'user', 'reader']);
    const preset = (role: string) => new Set(presets.find((p) => p.role === role)?.permissions);
    expect(preset('admin')).toEqual(new Set(PERMISSIONS));
    expect(preset('reader')).toEqual(new Set(PERMISSIONS.filter((p) => p.endsWith(':read'))));
    const user = preset('user');
    for (const p of PERMISSIONS.filter((p) => p.endsWith(':read'))) expect(user.has(p), p).toBe(true);
    expect(user.has('projects:write')).toBe(true);
    expect(user.has('deployments:write')).toBe(true);
    expect(user.has('api_keys:write')).toBe(true);
    expect(user.has('users:write')).toBe(false);
    expect(user.has('settings:write')).toBe(false);
    for (const p of presets) expect(p.label).toMatch(/\S/);
  });

  it('answers 401 without credentials', async () => {
    expect((await api.call('GET', '/api-keys/permissions')).status).toBe(401);
  });
});

describe('POST /api/api-keys', () => {
  it('answers 201 with the secret once, prefixed lb_, and key_prefix is the start of the secret', async () => {
    const before = Date.now();
    const response = await api.call<CreatedKey>('POST', '/api-keys', {
      token: admin,
      body: { name: '  CI deploys  ', permissions: ['projects:write', 'projects:read', 'projects:read'] },
    });
    expect(response.status).toBe(201);
    const key = response.body;
    expect(key.secret).toMatch(/^lb_[A-Za-z0-9_-]{32,}$/);
    expect(key.key_prefix.startsWith('lb_')).toBe(true);
    expect(key.key_prefix.length).toBeGreaterThan(3);
    expect(key.secret.startsWith(key.key_prefix)).toBe(true);
    // The prefix only tells keys apart: most of the secret stays unknown.
    expect(key.secret.length - key.key_prefix.length).toBeGreaterThanOrEqual(32);
    expect(key).toMatchObject({
      name: 'CI deploys',
      permissions: ['projects:read', 'projects:write'],
      is_active: true,
      expires_at: null,
      last_used_at: null,
      last_used_ip: null,
      user_id: adminId,
    });
    expect(new Date(key.created_at).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(new Date(key.created_at).getTime()).toBeLessThanOrEqual(Date.now() + 1000);

    // Two keys never share a secret or a prefix.
    const other = await createKey(api, admin, ['projects:read']);
    expect(other.secret).not.toBe(key.secret);
    expect(other.key_prefix).not.toBe(key.key_prefix);
  });

  it('stores only a hash of the secret', async () => {
    const key = await createKey(api, admin, ['projects:read']);
    const { rows } = await platform.ctx.pool.query('SELECT * FROM api_keys WHERE id = $1', [key.id]);
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows[0]);
    expect(stored).not.toContain(key.secret);
    expect(stored).not.toContain(key.secret.slice(key.key_prefix.length));
    expect(rows[0].secret_hash).toBe(createHash('sha256').update(key.secret).digest('hex'));
  });

  it('keeps the expiry, normalised to UTC', async () => {
    const key = await createKey(api, admin, ['projects:read'], { expires_at: '2099-01-01T01:30:00+02:00' });
    expect(key.expires_at).toBe('2098-12-31T23:30:00.000Z');
    const one = await api.call<ApiKey>('GET', `/api-keys/${key.id}`, { token: admin });
    expect(one.body.expires_at).toBe('2098-12-31T23:30:00.000Z');
  });

  it('never shows the secret again: not in the list, one key, edit, activate, deactivate, nor the audit log', async () => {
    const key = await createKey(api, admin, ['projects:read', 'api_keys:read', 'api_keys:write'], { name: 'secret-keeper' });
    const hidden = key.secret.slice(key.key_prefix.length);
    const answers = [
      await api.call('GET', '/api-keys', { token: admin }),
      await api.call('GET', `/api-keys/${key.id}`, { token: admin }),
      await api.call('PUT', `/api-keys/${key.id}`, { token: admin, body: { name: 'secret-keeper 2' } }),
      await api.call('POST', `/api-keys/${key.id}/deactivate`, { token: admin }),
      await api.call('POST', `/api-keys/${key.id}/activate`, { token: admin }),
      // And when the key itself is used.
      await api.call('GET', '/api-keys', { token: key.secret }),
      await api.call('GET', `/api-keys/${key.id}`, { token: key.secret }),
      await api.call('PUT', `/api-keys/${key.id}`, { token: key.secret, body: { name: 'secret-keeper 3' } }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const text = JSON.stringify(answer.body);
      expect(text).toContain(key.key_prefix);
      expect(text).not.toContain(hidden);
      expect(text).not.toContain('secret_hash');
      expect(text).not.toMatch(/"secret"/);
    }
    // The writes (one made with the key itself) are audited, and the secret is in no row.
    const rows = await allAuditRows(api, admin);
    const aboutKey = rows.filter((r) => r.target_type === 'api_key' && r.target_id === String(key.id)).map((r) => r.action);
    expect(aboutKey).toEqual([
      'api_keys.update',
      'api_keys.activate',
      'api_keys.deactivate',
      'api_keys.update',
      'api_keys.create',
    ]);
    expect(rows.find((r) => r.actor_api_key_id === key.id)).toMatchObject({ action: 'api_keys.update', actor_type: 'api_key' });
    expect(JSON.stringify(rows)).not.toContain(hidden);
  });

  it('answers 400 with field errors for bad input', async () => {
    const bad = async (body: unknown) => {
      const response = await api.call<FieldErrors>('POST', '/api-keys', { token: admin, body });
      expect(response.status).toBe(400);
      return response.body;
    };
    expect((await bad({ name: '   ', permissions: ['projects:read'] })).errors).toEqual([
      { path: 'name', message: 'Name is required' },
    ]);
    expect((await bad({ name: 'x'.repeat(101), permissions: ['projects:read'] })).errors).toEqual([
      { path: 'name', message: 'Name must be at most 100 characters' },
    ]);
    const unknown = await bad({ name: 'k', permissions: ['projects:read', 'projects:delete'] });
    expect(unknown.errors).toEqual([{ path: 'permissions.1', message: expect.stringMatching(/./) }]);
    expect(unknown.detail).toContain('permissions.1');
    expect((await bad({ name: 'k', permissions: [] })).errors).toEqual([
      { path: 'permissions', message: 'Choose at least one permission' },
    ]);
    expect((await bad({ name: 'k' })).errors).toEqual([{ path: 'permissions', message: expect.stringMatching(/./) }]);
    const past = await bad({
      name: 'k',
      permissions: ['projects:read'],
      expires_at: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(past.errors).toEqual([{ path: 'expires_at', message: 'Expiry must be in the future' }]);
    // (The contract also adds 'Expiry must be in the future' for a value that is not a date at all.)
    expect((await bad({ name: 'k', permissions: ['projects:read'], expires_at: 'next tuesday' })).errors).toContainEqual({
      path: 'expires_at',
      message: 'Expiry must be a date and time',
    });
    const several = await bad({ name: '', permissions: [] });
    expect(several.errors.map((e) => e.path).sort()).toEqual(['name', 'permissions']);
    // Nothing was created by any of them.
    const list = await api.call<{ api_keys: ApiKey[] }>('GET', '/api-keys', { token: admin });
    expect(list.body.api_keys.filter((k) => k.name === 'k' || k.name === '')).toEqual([]);
  });

  it('answers 401 without credentials, and for a made-up key', async () => {
    expect((await api.call('POST', '/api-keys', { body: { name: 'k', permissions: ['projects:read'] } })).status).toBe(401);
    expect((await api.call('GET', '/api-keys')).status).toBe(401);
    const madeUp = await api.call<ApiError>('GET', '/api-keys', { token: `lb_${'x'.repeat(40)}` });
    expect(madeUp.status).toBe(401);
    expect(madeUp.body.detail).toBe('Invalid API key');
  });
});

describe('listing, viewing and editing keys', () => {
  it('lists keys newest first with prefix, permissions, created, last used and expiry', async () => {
    const first = await createKey(api, admin, ['projects:read'], { name: 'older' });
    const second = await createKey(api, admin, ['users:read'], { name: 'newer', expires_at: inAnHour() });
    const list = await api.call<{ api_keys: ApiKey[] }>('GET', '/api-keys', { token: admin });
    expect(list.status).toBe(200);
    const ids = list.body.api_keys.map((k) => k.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    expect(ids.indexOf(first.id)).toBeGreaterThanOrEqual(0);
    const { secret: _secret, ...withoutSecret } = second;
    expect(list.body.api_keys.find((k) => k.id === second.id)).toEqual(withoutSecret);
    const one = await api.call<ApiKey>('GET', `/api-keys/${first.id}`, { token: admin });
    expect(one.status).toBe(200);
    expect(Object.keys(one.body).sort()).toEqual(
      [
        'created_at',
        'expires_at',
        'id',
        'is_active',
        'key_prefix',
        'last_used_at',
        'last_used_ip',
        'name',
        'permissions',
        'user_id',
      ].sort(),
    );
  });

  it('edits the name, permissions and expiry, and the new permissions apply at once', async () => {
    const key = await createKey(api, admin, ['projects:read', 'users:read']);
    expect((await api.call('GET', '/users', { token: key.secret })).status).toBe(200);

    const renamed = await api.call<ApiKey>('PUT', `/api-keys/${key.id}`, { token: admin, body: { name: 'renamed' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: key.id, name: 'renamed', permissions: ['projects:read', 'users:read'] });

    const expiry = inAnHour();
    const narrowed = await api.call<ApiKey>('PUT', `/api-keys/${key.id}`, {
      token: admin,
      body: { permissions: ['projects:read'], expires_at: expiry },
    });
    expect(narrowed.body).toMatchObject({ name: 'renamed', permissions: ['projects:read'], expires_at: expiry });
    const refused = await api.call<Refusal>('GET', '/users', { token: key.secret });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('users:read');

    const noExpiry = await api.call<ApiKey>('PUT', `/api-keys/${key.id}`, { token: admin, body: { expires_at: null } });
    expect(noExpiry.body.expires_at).toBeNull();
    expect((await api.call<ApiKey>('GET', `/api-keys/${key.id}`, { token: admin })).body).toMatchObject({
      name: 'renamed',
      permissions: ['projects:read'],
      expires_at: null,
    });
  });

  it('answers 400 for a bad edit', async () => {
    const key = await createKey(api, admin, ['projects:read']);
    const edit = (body: unknown) => api.call<FieldErrors>('PUT', `/api-keys/${key.id}`, { token: admin, body });
    const empty = await edit({});
    expect(empty.status).toBe(400);
    expect(empty.body.detail).toBe('Nothing to update');
    expect((await edit({ name: '' })).body.errors).toEqual([{ path: 'name', message: 'Name is required' }]);
    expect((await edit({ permissions: [] })).body.errors).toEqual([
      { path: 'permissions', message: 'Choose at least one permission' },
    ]);
    expect((await edit({ permissions: ['everything'] })).status).toBe(400);
    expect((await edit({ expires_at: '2001-01-01T00:00:00Z' })).body.errors).toEqual([
      { path: 'expires_at', message: 'Expiry must be in the future' },
    ]);
    const bad = await api.call<FieldErrors>('GET', '/api-keys/abc', { token: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]?.path).toBe('params.id');
  });

  it('answers 404 for an unknown key on every route', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', '/api-keys/987654'],
      ['PUT', '/api-keys/987654', { name: 'x' }],
      ['DELETE', '/api-keys/987654'],
      ['POST', '/api-keys/987654/activate'],
      ['POST', '/api-keys/987654/deactivate'],
    ];
    for (const [method, path, body] of calls) {
      const response = await api.call<ApiError>(method, path, { token: admin, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.detail).toBe('API key 987654 not found');
    }
  });

  it("keeps a non-admin away from another user's key (404), while an admin sees every key", async () => {
    const alice = await api.userWithRole(admin, 'user');
    const bob = await api.userWithRole(admin, 'user');
    const aliceKey = await createKey(api, alice.token, ['projects:read'], { name: 'alice key' });
    const bobKey = await createKey(api, bob.token, ['projects:read'], { name: 'bob key' });

    const bobList = await api.call<{ api_keys: ApiKey[] }>('GET', '/api-keys', { token: bob.token });
    expect(bobList.body.api_keys.map((k) => k.id)).toEqual([bobKey.id]);
    const calls: [string, string, unknown?][] = [
      ['GET', `/api-keys/${aliceKey.id}`],
      ['PUT', `/api-keys/${aliceKey.id}`, { name: 'stolen' }],
      ['POST', `/api-keys/${aliceKey.id}/deactivate`],
      ['POST', `/api-keys/${aliceKey.id}/activate`],
      ['DELETE', `/api-keys/${aliceKey.id}`],
    ];
    for (const [method, path, body] of calls) {
      expect((await api.call(method, path, { token: bob.token, body })).status, `${method} ${path}`).toBe(404);
    }
    // Bob's key cannot reach it either.
    const bobManager = await createKey(api, bob.token, ['api_keys:read', 'api_keys:write']);
    expect((await api.call('GET', `/api-keys/${aliceKey.id}`, { token: bobManager.secret })).status).toBe(404);
    expect((await api.call('DELETE', `/api-keys/${aliceKey.id}`, { token: bobManager.secret })).status).toBe(404);

    const untouched = await api.call<ApiKey>('GET', `/api-keys/${aliceKey.id}`, { token: alice.token });
    expect(untouched.body).toMatchObject({ name: 'alice key', is_active: true, user_id: alice.id });
    expect((await api.call('GET', '/projects', { token: aliceKey.secret })).status).toBe(200);

    const adminList = await api.call<{ api_keys: ApiKey[] }>('GET', '/api-keys', { token: admin });
    const ids = adminList.body.api_keys.map((k) => k.id);
    expect(ids).toEqual(expect.arrayContaining([aliceKey.id, bobKey.id]));
    expect((await api.call<ApiKey>('GET', `/api-keys/${aliceKey.id}`, { token: admin })).body.user_id).toBe(alice.id);
  });

  it('lets a reader manage keys of their own', async () => {
    const reader = await api.userWithRole(admin, 'reader');
    const key = await createKey(api, reader.token, ['projects:read']);
    expect(key.user_id).toBe(reader.id);
    expect((await api.call('PUT', `/api-keys/${key.id}`, { token: reader.token, body: { name: 'mine' } })).status).toBe(200);
    expect((await api.call('POST', `/api-keys/${key.id}/deactivate`, { token: reader.token })).status).toBe(200);
    expect((await api.call('DELETE', `/api-keys/${key.id}`, { token: reader.token })).status).toBe(204);
  });
});

describe('using a key as a bearer token', () => {
  it('works within its permissions and answers 403 naming the missing one', async () => {
    const key = await createKey(api, admin, ['projects:read']);
    const projects = await api.call<{ projects: unknown[]; total: number }>('GET', '/projects', { token: key.secret });
    expect(projects.status).toBe(200);
    expect(projects.body).toMatchObject({ projects: [], total: 0 });

    const users = await api.call<Refusal>('GET', '/users', { token: key.secret });
    expect(users.status).toBe(403);
    expect(users.body.detail).toContain('users:read');
    expect(users.body.missing_permission).toBe('users:read');

    const write = await api.call<Refusal>('POST', '/users', {
      token: key.secret,
      body: { username: 'x', email: 'never-made@example.com', password: 'long-enough-1' },
    });
    expect(write.status).toBe(403);
    expect(write.body.detail).toContain('users:write');

    for (const [path, permission] of [
      ['/settings', 'settings:read'],
      ['/audit/logs', 'audit:read'],
      ['/api-keys', 'api_keys:read'],
      ['/platform/public-ip', 'platform:read'],
    ]) {
      const response = await api.call<Refusal>('GET', path as string, { token: key.secret });
      expect(response.status, path).toBe(403);
      expect(response.body.detail).toContain(permission);
    }
    // Who the key belongs to is always readable.
    const me = await api.call('GET', '/user/me', { token: key.secret });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: adminId, email: ADMIN_EMAIL });
    // Nothing was created by the refused write.
    const list = await api.call<{ users: { email: string }[] }>('GET', '/users', { token: admin });
    expect(list.body.users.map((u) => u.email)).not.toContain('never-made@example.com');
  });

  it('stops working when deactivated (401) and works again when activated', async () => {
    const key = await createKey(api, admin, ['projects:read']);
    expect((await api.call('GET', '/projects', { token: key.secret })).status).toBe(200);
    const off = await api.call<ApiKey>('POST', `/api-keys/${key.id}/deactivate`, { token: admin });
    expect(off.status).toBe(200);
    expect(off.body.is_active).toBe(false);
    const refused = await api.call<ApiError>('GET', '/projects', { token: key.secret });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('This API key is deactivated');
    expect((await api.call<ApiKey>('GET', `/api-keys/${key.id}`, { token: admin })).body.is_active).toBe(false);

    const on = await api.call<ApiKey>('POST', `/api-keys/${key.id}/activate`, { token: admin });
    expect(on.body.is_active).toBe(true);
    expect((await api.call('GET', '/projects', { token: key.secret })).status).toBe(200);
  });

  it('stops working once expired (401)', async () => {
    const expiresAt = Date.now() + 1500;
    const key = await createKey(api, admin, ['projects:read'], { expires_at: new Date(expiresAt).toISOString() });
    expect((await api.call('GET', '/projects', { token: key.secret })).status).toBe(200);
    await sleep(expiresAt - Date.now() + 250);
    const refused = await api.call<ApiError>('GET', '/projects', { token: key.secret });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('This API key has expired');
    // Moving the expiry out brings it back.
    expect((await api.call('PUT', `/api-keys/${key.id}`, { token: admin, body: { expires_at: inAnHour() } })).status).toBe(200);
    expect((await api.call('GET', '/projects', { token: key.secret })).status).toBe(200);
  });

  it("is limited by its owner's role: a reader's key with write permissions still cannot write", async () => {
    const reader = await api.userWithRole(admin, 'reader');
    const key = await createKey(api, reader.token, [
      'projects:read',
      'projects:write',
      'users:read',
      'users:write',
      'settings:read',
      'settings:write',
    ]);
    expect((await api.call('GET', '/projects', { token: key.secret })).status).toBe(200);
    const writes: [string, string, unknown][] = [
      ['POST', '/users', { username: 'x', email: 'by-reader-key@example.com', password: 'long-enough-1' }],
      ['PATCH', `/users/${adminId}`, { username: 'hijacked' }],
      ['PUT', '/settings', { preview_environments_enabled: true }],
    ];
    for (const [method, path, body] of writes) {
      const response = await api.call<ApiError>(method, path, { token: key.secret, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.detail).toMatch(/role/);
    }
    // Admin-only reads are refused too, whatever the key holds.
    expect((await api.call('GET', '/users', { token: key.secret })).status).toBe(403);
    const me = await api.call<{ username: string }>('GET', '/user/me', { token: admin });
    expect(me.body.username).not.toBe('hijacked');
    const settings = await api.call<{ preview_environments_enabled: boolean }>('GET', '/settings', { token: admin });
    expect(settings.body.preview_environments_enabled).toBe(false);

    // A user-role owner is refused admin-only writes the same way.
    const user = await api.userWithRole(admin, 'user');
    const userKey = await createKey(api, user.token, ['users:write']);
    const create = await api.call<ApiError>('POST', '/users', {
      token: userKey.secret,
      body: { username: 'x', email: 'by-user-key@example.com', password: 'long-enough-1' },
    });
    expect(create.status).toBe(403);
    expect(create.body.detail).toBe('You need the admin role for this');
  });

  it('follows its owner: demoted means refused, disabled means 401, deleted means 401', async () => {
    const owner = await api.userWithRole(admin, 'admin');
    const key = await createKey(api, owner.token, ['users:read']);
    expect((await api.call('GET', '/users', { token: key.secret })).status).toBe(200);

    expect((await api.call('POST', `/users/${owner.id}/roles`, { token: admin, body: { role_type: 'reader' } })).status).toBe(
      200,
    );
    expect((await api.call('DELETE', `/users/${owner.id}/roles/admin`, { token: admin })).status).toBe(200);
    const demoted = await api.call<ApiError>('GET', '/users', { token: key.secret });
    expect(demoted.status).toBe(403);
    expect(demoted.body.detail).toBe('You need the admin role for this');

    const readable = await createKey(api, owner.token, ['projects:read']);
    expect((await api.call('GET', '/projects', { token: readable.secret })).status).toBe(200);
    expect((await api.call('PATCH', `/users/${owner.id}`, { token: admin, body: { disabled: true } })).status).toBe(200);
    expect((await api.call('GET', '/projects', { token: readable.secret })).status).toBe(401);
    expect((await api.call('PATCH', `/users/${owner.id}`, { token: admin, body: { disabled: false } })).status).toBe(200);
    expect((await api.call('GET', '/projects', { token: readable.secret })).status).toBe(200);

    expect((await api.call('DELETE', `/users/${owner.id}`, { token: admin })).status).toBe(204);
    expect((await api.call('GET', '/projects', { token: readable.secret })).status).toBe(401);
    expect((await api.call('GET', `/api-keys/${readable.id}`, { token: admin })).status).toBe(404);
  });

  it('cannot create or widen a key beyond its own permissions', async () => {
    const manager = await createKey(api, admin, ['api_keys:read', 'api_keys:write', 'projects:read']);
    const narrower = await api.call<CreatedKey>('POST', '/api-keys', {
      token: manager.secret,
      body: { name: 'child', permissions: ['projects:read'] },
    });
    expect(narrower.status).toBe(201);
    expect(narrower.body.user_id).toBe(adminId);
    expect((await api.call('GET', '/projects', { token: narrower.body.secret })).status).toBe(200);

    const wider = await api.call<ApiError>('POST', '/api-keys', {
      token: manager.secret,
      body: { name: 'escalation', permissions: ['projects:read', 'users:read', 'settings:write'] },
    });
    expect(wider.status).toBe(403);
    expect(wider.body.detail).toContain('users:read');
    expect(wider.body.detail).toContain('settings:write');
    expect(wider.body.detail).not.toContain('projects:read');

    const widenSelf = await api.call<ApiError>('PUT', `/api-keys/${manager.id}`, {
      token: manager.secret,
      body: { permissions: ['api_keys:read', 'api_keys:write', 'users:write'] },
    });
    expect(widenSelf.status).toBe(403);
    expect(widenSelf.body.detail).toContain('users:write');
    const widenChild = await api.call('PUT', `/api-keys/${narrower.body.id}`, {
      token: manager.secret,
      body: { permissions: ['audit:read'] },
    });
    expect(widenChild.status).toBe(403);
    expect((await api.call<ApiKey>('GET', `/api-keys/${manager.id}`, { token: admin })).body.permissions).toEqual([
      'api_keys:read',
      'api_keys:write',
      'projects:read',
    ]);
    const list = await api.call<{ api_keys: ApiKey[] }>('GET', '/api-keys', { token: admin });
    expect(list.body.api_keys.map((k) => k.name)).not.toContain('escalation');

    // Without api_keys:write a key cannot make keys at all.
    const reader = await createKey(api, admin, ['api_keys:read', 'projects:read']);
    const refused = await api.call<Refusal>('POST', '/api-keys', {
      token: reader.secret,
      body: { name: 'nope', permissions: ['projects:read'] },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.missing_permission).toBe('api_keys:write');
  });

  it('is refused by account-security routes and sign-out, whatever it holds', async () => {
    const key = await createKey(api, admin, [...PERMISSIONS]);
    const calls: [string, string, unknown?][] = [
      ['PATCH', '/users/me', { username: 'renamed by key' }],
      ['POST', '/users/me/mfa/setup'],
      ['POST', '/users/me/mfa/verify', { code: '123456' }],
      ['DELETE', '/users/me/mfa', { code: '123456' }],
      ['POST', '/logout'],
    ];
    for (const [method, path, body] of calls) {
      const response = await api.call<ApiError>(method, path, { token: key.secret, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.detail).toBe('API keys cannot change account security or sign out: use a signed-in session');
    }
    expect((await api.call<{ username: string }>('GET', '/user/me', { token: key.secret })).body.username).not.toBe(
      'renamed by key',
    );
    // The key still works afterwards: sign-out did not revoke anything.
    expect((await api.call('GET', '/projects', { token: key.secret })).status).toBe(200);
  });

  it('records when and from where it was last used', async () => {
    const key = await createKey(api, admin, ['projects:read']);
    const before = Date.now();
    const used = await api.call('GET', '/projects', { token: key.secret, headers: { 'x-forwarded-for': '203.0.113.42' } });
    expect(used.status).toBe(200);
    const seen = await eventually(
      async () => (await api.call<ApiKey>('GET', `/api-keys/${key.id}`, { token: admin })).body,
      (k) => k.last_used_at !== null,
    );
    expect(seen.last_used_at).not.toBeNull();
    const at = new Date(seen.last_used_at ?? 0).getTime();
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(Date.now() + 1000);
    // ACCESS_MODE=local trusts the forwarding header from the loopback proxy, so the client address is kept.
    expect(seen.last_used_ip).toBe('203.0.113.42');
    const listed = await api.call<{ api_keys: ApiKey[] }>('GET', '/api-keys', { token: admin });
    expect(listed.body.api_keys.find((k) => k.id === key.id)).toMatchObject({
      last_used_at: seen.last_used_at,
      last_used_ip: '203.0.113.42',
    });
  });

  it('stops working once deleted (401), and the key is gone', async () => {
    const key = await createKey(api, admin, ['projects:read']);
    expect((await api.call('GET', '/projects', { token: key.secret })).status).toBe(200);
    const deleted = await api.call('DELETE', `/api-keys/${key.id}`, { token: admin });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    const refused = await api.call<ApiError>('GET', '/projects', { token: key.secret });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('Invalid API key');
    expect((await api.call('GET', `/api-keys/${key.id}`, { token: admin })).status).toBe(404);
    expect((await api.call('DELETE', `/api-keys/${key.id}`, { token: admin })).status).toBe(404);
  });

  it('is held to its permissions however it is sent: in the session cookie, or to an encoded path', async () => {
    const key = await createKey(api, admin, ['projects:read']);
    const viaCookie = await api.call<Refusal>('GET', '/users', { cookie: `lb_session=${key.secret}` });
    expect(viaCookie.status).toBe(403);
    expect(viaCookie.body.missing_permission).toBe('users:read');
    const encoded = await fetch(`${platform.url}/%61pi/users`, { headers: { authorization: `Bearer ${key.secret}` } });
    expect(encoded.status).toBe(403);
  });
});

describe('a key managing other keys', () => {
  const MANAGER: Permission[] = ['api_keys:read', 'api_keys:write', 'projects:read'];
  const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
  const keyById = async (id: number) => (await api.call<ApiKey>('GET', `/api-keys/${id}`, { token: admin })).body;

  it('may update, activate, deactivate or delete only keys holding no more than it does', async () => {
    const manager = await createKey(api, admin, MANAGER);
    const stronger = await createKey(api, admin, ['api_keys:write', 'projects:read', 'users:write']);
    const strongerOff = await createKey(api, admin, ['projects:read', 'settings:write']);
    expect((await api.call('POST', `/api-keys/${strongerOff.id}/deactivate`, { token: admin })).status).toBe(200);

    const refusals: [string, string, number, unknown?][] = [
      ['POST', `/api-keys/${strongerOff.id}/activate`, strongerOff.id],
      ['POST', `/api-keys/${stronger.id}/deactivate`, stronger.id],
      ['PUT', `/api-keys/${stronger.id}`, stronger.id, { name: 'renamed by a weaker key' }],
      ['PUT', `/api-keys/${stronger.id}`, stronger.id, { permissions: ['projects:read'] }],
      ['DELETE', `/api-keys/${stronger.id}`, stronger.id],
    ];
    for (const [method, path, id, body] of refusals) {
      const response = await api.call<ApiError>(method, path, { token: manager.secret, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.detail).toContain(`cannot manage API key ${id}`);
    }
    expect(await keyById(strongerOff.id)).toMatchObject({ is_active: false });
    expect(await keyById(stronger.id)).toMatchObject({
      is_active: true,
      name: stronger.name,
      permissions: ['api_keys:write', 'projects:read', 'users:write'],
    });
    expect((await api.call('GET', '/projects', { token: strongerOff.secret })).status).toBe(401);

    // Keys within its own permissions (and itself) it still manages.
    const weaker = await createKey(api, admin, ['projects:read']);
    expect((await api.call('POST', `/api-keys/${weaker.id}/deactivate`, { token: manager.secret })).status).toBe(200);
    expect((await api.call('POST', `/api-keys/${weaker.id}/activate`, { token: manager.secret })).status).toBe(200);
    const renamed = await api.call<ApiKey>('PUT', `/api-keys/${weaker.id}`, { token: manager.secret, body: { name: 'Weaker' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Weaker');
    expect((await api.call('PUT', `/api-keys/${manager.id}`, { token: manager.secret, body: { name: 'Manager' } })).status).toBe(
      200,
    );
    expect((await api.call('DELETE', `/api-keys/${weaker.id}`, { token: manager.secret })).status).toBe(204);

    // A person is not limited this way.
    expect((await api.call('POST', `/api-keys/${strongerOff.id}/activate`, { token: admin })).status).toBe(200);
    expect((await api.call('DELETE', `/api-keys/${stronger.id}`, { token: admin })).status).toBe(204);
  });

  it('an expiring key cannot extend its own expiry', async () => {
    const ownExpiry = inMinutes(60);
    const manager = await createKey(api, admin, MANAGER, { expires_at: ownExpiry });
    for (const expires_at of [null, inMinutes(120)]) {
      const extended = await api.call<ApiError>('PUT', `/api-keys/${manager.id}`, {
        token: manager.secret,
        body: { expires_at },
      });
      expect(extended.status, String(expires_at)).toBe(403);
      expect(extended.body.detail).toBe(`An API key cannot extend its own expiry (it expires at ${ownExpiry})`);
    }
    expect((await keyById(manager.id)).expires_at).toBe(ownExpiry);
    // Shortening its own life is fine.
    const shorter = inMinutes(30);
    const shortened = await api.call<ApiKey>('PUT', `/api-keys/${manager.id}`, {
      token: manager.secret,
      body: { expires_at: shorter },
    });
    expect(shortened.status).toBe(200);
    expect(shortened.body.expires_at).toBe(shorter);
  });

  it('an expiring key cannot create, set or bring back a key that outlives it', async () => {
    const ownExpiry = inMinutes(60);
    const manager = await createKey(api, admin, MANAGER, { expires_at: ownExpiry });

    const forever = await api.call<ApiError>('POST', '/api-keys', {
      token: manager.secret,
      body: { name: 'forever', permissions: ['projects:read'] },
    });
    expect(forever.status).toBe(403);
    expect(forever.body.detail).toBe(
      `This API key expires at ${ownExpiry}: a key it creates or changes must expire too, no later than that`,
    );
    const later = await api.call<ApiError>('POST', '/api-keys', {
      token: manager.secret,
      body: { name: 'later', permissions: ['projects:read'], expires_at: inMinutes(90) },
    });
    expect(later.status).toBe(403);
    expect(later.body.detail).toBe(`This API key expires at ${ownExpiry}: it cannot set an expiry later than its own`);
    const names = (await api.call<{ api_keys: ApiKey[] }>('GET', '/api-keys', { token: admin })).body.api_keys.map((k) => k.name);
    expect(names).not.toContain('forever');
    expect(names).not.toContain('later');

    const within = await api.call<CreatedKey>('POST', '/api-keys', {
      token: manager.secret,
      body: { name: 'within', permissions: ['projects:read'], expires_at: inMinutes(30) },
    });
    expect(within.status).toBe(201);
    const sameTime = await api.call<CreatedKey>('POST', '/api-keys', {
      token: manager.secret,
      body: { name: 'same time', permissions: ['projects:read'], expires_at: ownExpiry },
    });
    expect(sameTime.status).toBe(201);

    // Another key's expiry: no later than its own, and never removed.
    const child = await createKey(api, admin, ['projects:read']);
    for (const expires_at of [null, inMinutes(90)]) {
      const response = await api.call<ApiError>('PUT', `/api-keys/${child.id}`, { token: manager.secret, body: { expires_at } });
      expect(response.status, String(expires_at)).toBe(403);
    }
    const bounded = await api.call<ApiKey>('PUT', `/api-keys/${child.id}`, {
      token: manager.secret,
      body: { expires_at: inMinutes(45) },
    });
    expect(bounded.status).toBe(200);

    // A deactivated key without expiry would outlive it once active again.
    const dormant = await createKey(api, admin, ['projects:read']);
    expect((await api.call('POST', `/api-keys/${dormant.id}/deactivate`, { token: manager.secret })).status).toBe(200);
    const revived = await api.call<ApiError>('POST', `/api-keys/${dormant.id}/activate`, { token: manager.secret });
    expect(revived.status).toBe(403);
    expect(revived.body.detail).toBe(
      `This API key expires at ${ownExpiry}: it cannot activate API key ${dormant.id}, which outlives it`,
    );
    expect((await keyById(dormant.id)).is_active).toBe(false);
    expect((await api.call('PUT', `/api-keys/${dormant.id}`, { token: admin, body: { expires_at: inMinutes(20) } })).status).toBe(
      200,
    );
    expect((await api.call('POST', `/api-keys/${dormant.id}/activate`, { token: manager.secret })).status).toBe(200);

    // A key without expiry, and a person, still make keys without expiry.
    const unbounded = await createKey(api, admin, MANAGER);
    const free = await api.call<CreatedKey>('POST', '/api-keys', {
      token: unbounded.secret,
      body: { name: 'no expiry', permissions: ['projects:read'] },
    });
    expect(free.status).toBe(201);
    expect(free.body.expires_at).toBeNull();
  });
});
