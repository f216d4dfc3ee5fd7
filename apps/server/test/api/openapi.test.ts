import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_ROUTES } from '../../src/http/openapi';
import { type Api, apiClient } from '../helpers/api';
import { startTestPlatform, type TestPlatform } from '../helpers/platform';

type Operation = { security?: unknown[]; parameters?: { name: string; in: string }[]; requestBody?: unknown };
type OpenApi = { openapi: string; security: unknown[]; paths: Record<string, Record<string, Operation>> };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

let platform: TestPlatform;
let api: Api;
let doc: OpenApi;
let operations: { method: string; path: string; key: string; op: Operation }[];

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  const response = await api.call<OpenApi>('GET', '/docs/json');
  expect(response.status).toBe(200);
  doc = response.body;
  operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, key: `${method.toUpperCase()} ${path}`, op })),
  );
});
afterAll(() => platform.close());

/** The concrete URL for a documented path: every path parameter becomes 1. */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, '1');

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 and documents every route of the API', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.security).toEqual([{ bearer: [] }, { cookie: [] }]);
    const keys = operations.map((o) => o.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual(
      expect.arrayContaining([
        'POST /api/auth/login',
        'POST /api/auth/verify-mfa',
        'POST /api/logout',
        'GET /api/user/me',
        'PATCH /api/users/me',
        'POST /api/users/me/mfa/setup',
        'POST /api/users/me/mfa/verify',
        'DELETE /api/users/me/mfa',
        'GET /api/users',
        'POST /api/users',
        'GET /api/users/{user_id}',
        'PATCH /api/users/{user_id}',
        'DELETE /api/users/{user_id}',
        'POST /api/users/{user_id}/roles',
        'DELETE /api/users/{user_id}/roles/{role_type}',
        'GET /api/platform/access-info',
        'GET /api/platform/public-ip',
        'GET /api/health',
        'GET /api/projects',
        'GET /api/projects/{id}/favicon',
      ]),
    );
    const projects = operations.find((o) => o.key === 'GET /api/projects');
    expect(projects?.op.parameters?.map((p) => `${p.in}:${p.name}`).sort()).toEqual([
      'query:page',
      'query:per_page',
      'query:sort',
    ]);
  });

  it('marks exactly the PUBLIC_ROUTES public (security: [])', () => {
    const open = operations.filter((o) => Array.isArray(o.op.security) && o.op.security.length === 0).map((o) => o.key);
    expect(open.sort()).toEqual([...PUBLIC_ROUTES].sort());
    expect([...PUBLIC_ROUTES].sort()).toEqual(
      ['GET /api/health', 'GET /api/platform/access-info', 'POST /api/auth/login', 'POST /api/auth/verify-mfa'].sort(),
    );
  });

  it('every route outside the public list answers 401 without credentials', async () => {
    const guarded = operations.filter((o) => !PUBLIC_ROUTES.includes(`${o.method} ${o.path}`));
    expect(guarded.length).toBe(operations.length - PUBLIC_ROUTES.length);
    for (const { method, path, key } of guarded) {
      const url = concrete(path).replace(/^\/api/, '');
      const body = method === 'GET' ? undefined : {};
      const anonymous = await api.call(method, url, { body });
      expect(anonymous.status, key).toBe(401);
      expect(anonymous.body, key).toEqual({ detail: 'Authentication Required' });
      // A forged bearer token and a forged cookie are no better.
      const forged = await api.call(method, url, { body, token: 'lbs_forged-token' });
      expect(forged.status, `${key} (forged bearer)`).toBe(401);
      const cookie = await api.call(method, url, { body, cookie: 'lb_session=lbs_forged-cookie' });
      expect(cookie.status, `${key} (forged cookie)`).toBe(401);
    }
  });

  it('the public routes answer without credentials (never 401 for want of a session)', async () => {
    expect((await api.call('GET', '/health')).status).toBe(200);
    expect((await api.call('GET', '/platform/access-info')).status).toBe(200);
    // The sign-in routes validate their input: a 400, not a demand for a session.
    expect((await api.call('POST', '/auth/login', { body: {} })).status).toBe(400);
    expect((await api.call('POST', '/auth/verify-mfa', { body: {} })).status).toBe(400);
  });

  it('the docs UI answers HTML at /api/docs', async () => {
    const response = await fetch(`${platform.url}/api/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toMatch(/swagger/i);
    const yaml = await fetch(`${platform.url}/api/docs/yaml`);
    expect(yaml.status).toBe(200);
    expect(await yaml.text()).toMatch(/^openapi: 3\.1\.0/m);
  });
});
