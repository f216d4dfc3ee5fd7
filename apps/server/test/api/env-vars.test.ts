import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { auditRowsAfter, createKey, lastAuditId } from '../helpers/audit';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';
import { insertProject } from '../helpers/projects';

type EnvVar = { id: number; key: string; value: string; environment_ids: number[] };

let platform: TestPlatform;
let api: Api;
let admin: string;
let project: Awaited<ReturnType<typeof insertProject>>;

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  project = await insertProject(platform.ctx.pool, { name: 'Shop', slug: 'shop', environments: ['staging'] });
});
afterAll(() => platform.close());

const path = (suffix = '') => `/projects/${project.id}/env-vars${suffix}`;

describe('environment variables', () => {
  it('are added for every environment by default, listed masked, and one value is readable on request', async () => {
    const created = await api.call<EnvVar>('POST', path(), {
      token: admin,
      body: { key: 'DATABASE_URL', value: 'postgres://u:p@db/shop' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      key: 'DATABASE_URL',
      value: '••••••••',
      environment_ids: [project.environments.production, project.environments.staging].sort((a, b) => (a ?? 0) - (b ?? 0)),
    });

    const list = await api.call<{ env_vars: EnvVar[] }>('GET', path(), { token: admin });
    expect(list.status).toBe(200);
    expect(list.body.env_vars.map((v) => [v.key, v.value])).toEqual([['DATABASE_URL', '••••••••']]);
    expect(JSON.stringify(list.body)).not.toContain('postgres://');

    const value = await api.call<{ value: string }>('GET', path('/DATABASE_URL/value'), { token: admin });
    expect(value.status).toBe(200);
    expect(value.body.value).toBe('postgres://u:p@db/shop');
  });

  it('are sealed at rest: the database never holds the value in clear', async () => {
    await api.call('POST', path(), { token: admin, body: { key: 'STRIPE_KEY', value: 'sk_live_verysecret123' } });
    const { rows } = await platform.ctx.pool.query<{ value_sealed: string }>(
      "SELECT value_sealed FROM env_vars WHERE key = 'STRIPE_KEY'",
    );
    expect(rows[0]?.value_sealed).toBeTruthy();
    expect(rows[0]?.value_sealed).not.toContain('sk_live_verysecret123');
  });

  it('keep one value per environment: the same key for another environment is its own variable', async () => {
    const staging = project.environments.staging ?? 0;
    const production = project.environments.production ?? 0;
    const first = await api.call<EnvVar>('POST', path(), {
      token: admin,
      body: { key: 'API_URL', value: 'https://api', environment_ids: [production] },
    });
    expect(first.status).toBe(201);
    const second = await api.call<EnvVar>('POST', path(), {
      token: admin,
      body: { key: 'API_URL', value: 'https://staging-api', environment_ids: [staging] },
    });
    expect(second.status).toBe(201);
    const overlap = await api.call<ApiError>('POST', path(), {
      token: admin,
      body: { key: 'API_URL', value: 'x', environment_ids: [staging] },
    });
    expect(overlap.status).toBe(409);
    expect(overlap.body.detail).toContain('API_URL is already set');

    const forStaging = await api.call<{ value: string }>('GET', path(`/API_URL/value?environment_id=${staging}`), {
      token: admin,
    });
    expect(forStaging.body.value).toBe('https://staging-api');
    const forProduction = await api.call<{ value: string }>('GET', path(`/API_URL/value?environment_id=${production}`), {
      token: admin,
    });
    expect(forProduction.body.value).toBe('https://api');
  });

  it('are updated (value, key, environments) and deleted', async () => {
    const created = await api.call<EnvVar>('POST', path(), { token: admin, body: { key: 'FEATURE', value: 'off' } });
    const updated = await api.call<EnvVar>('PUT', path(`/${created.body.id}`), {
      token: admin,
      body: { key: 'FEATURE_FLAG', value: 'on', environment_ids: [project.environments.staging] },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      key: 'FEATURE_FLAG',
      value: '••••••••',
      environment_ids: [project.environments.staging],
    });
    const value = await api.call<{ value: string }>('GET', path('/FEATURE_FLAG/value'), { token: admin });
    expect(value.body.value).toBe('on');

    const removed = await api.call('DELETE', path(`/${created.body.id}`), { token: admin });
    expect(removed.status).toBe(204);
    const again = await api.call<ApiError>('GET', path('/FEATURE_FLAG/value'), { token: admin });
    expect(again.status).toBe(404);
  });

  it('answer 400 with field errors for a bad key, an empty scope or an environment of another project', async () => {
    const other = await insertProject(platform.ctx.pool, { name: 'Other', slug: 'other' });
    const badKey = await api.call<ApiError>('POST', path(), { token: admin, body: { key: '1-BAD KEY', value: 'x' } });
    expect(badKey.status).toBe(400);
    expect(badKey.body.errors).toEqual([{ path: 'key', message: 'Letters, digits and underscores, not starting with a digit' }]);
    const missing = await api.call<ApiError>('POST', path(), { token: admin, body: { value: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors?.[0]?.path).toBe('key');
    const foreign = await api.call<ApiError>('POST', path(), {
      token: admin,
      body: { key: 'X', value: 'x', environment_ids: [other.environments.production] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors?.[0]?.path).toBe('environment_ids');
    const empty = await api.call<ApiError>('POST', path(), { token: admin, body: { key: 'X', value: 'x', environment_ids: [] } });
    expect(empty.status).toBe(400);
    // A change that changes nothing is refused, and the variable is as it was.
    const kept = await api.call<EnvVar>('POST', path(), { token: admin, body: { key: 'KEPT', value: 'as-is' } });
    const nothing = await api.call<ApiError>('PUT', path(`/${kept.body.id}`), { token: admin, body: {} });
    expect(nothing.status).toBe(400);
    expect(nothing.body).toEqual({ detail: 'Nothing to update', errors: [{ path: '(root)', message: 'Nothing to update' }] });
    expect((await api.call<{ value: string }>('GET', path('/KEPT/value'), { token: admin })).body.value).toBe('as-is');
  });

  it('answer 401 without a session, 403 to a reader changing them, 404 for an unknown project or variable', async () => {
    expect((await api.call('GET', path())).status).toBe(401);
    const reader = await api.userWithRole(admin, 'reader');
    expect((await api.call('GET', path(), { token: reader.token })).status).toBe(200);
    const refused = await api.call<ApiError>('POST', path(), { token: reader.token, body: { key: 'A', value: 'b' } });
    expect(refused.status).toBe(403);
    expect((await api.call('GET', '/projects/999999/env-vars', { token: admin })).status).toBe(404);
    expect((await api.call('PUT', path('/999999'), { token: admin, body: { value: 'x' } })).status).toBe(404);
    expect((await api.call('DELETE', path('/999999'), { token: admin })).status).toBe(404);
  });

  it('need the env_vars permission on an API key, and never put a value in the audit log', async () => {
    const readOnly = await createKey(api, admin, ['env_vars:read']);
    expect((await api.call('GET', path(), { token: readOnly.secret })).status).toBe(200);
    expect((await api.call('POST', path(), { token: readOnly.secret, body: { key: 'A', value: 'b' } })).status).toBe(403);

    const before = await lastAuditId(api, admin);
    await api.call('POST', path(), { token: admin, body: { key: 'AUDITED', value: 'do-not-log-me-42' } });
    const rows = await auditRowsAfter(api, admin, before);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: 'projects.env_vars.create', target_type: 'project', target_id: String(project.id) });
    expect(JSON.stringify(rows)).not.toContain('do-not-log-me-42');
  });
});
