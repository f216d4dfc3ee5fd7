import type { Permission } from '@launchbay/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { type CreatedKey, createKey } from '../helpers/audit';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';
import { insertProject } from '../helpers/projects';

/**
 * The refusals of the edge's routes (spec section 7: domains, load balancer, a project's custom
 * domains and an environment's domains), route by route: bad input (400 naming the field), a role
 * or an API key that may not (403) and an unknown id (404). Nothing here talks to a CA: every call
 * is refused before it would. The fixtures (a domain, a route, a project with a custom domain) are
 * checked unchanged at the end.
 */

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Refusal = ApiError & { missing_permission?: string };
type Person = { id: number; token: string };

let platform: TestPlatform;
let api: Api;
let admin: string;
let reader: Person;
let user: Person;
/** Reads every area under test, changes none. */
let readOnlyKey: CreatedKey;
/** Changes projects, not domains. */
let projectsKey: CreatedKey;

const ADMIN_ONLY = 'You need the admin role for this';
const READ_ONLY = 'Your role (reader) is read-only: you need the user role for this';
const DOMAIN = 'access.example.test';
const LB_DOMAIN = 'lb-access.example.test';
const CUSTOM_DOMAIN = 'shop-access.example.test';
const UPSTREAMS = { kind: 'upstreams', upstreams: ['127.0.0.1:9'] };

/** The fixtures' ids, for the {name} placeholders of the tables' paths. */
const ids: Record<string, number> = {};

/** A path of a table with its placeholders filled in: {domain}, {project}, {other}, {env}, {staging}, {otherEnv}, {custom}. */
function fill(template: string): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const id = ids[name];
    if (id === undefined) throw new Error(`no fixture named ${name} for ${template}`);
    return String(id);
  });
}

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  reader = await api.userWithRole(admin, 'reader');
  user = await api.userWithRole(admin, 'user');
  readOnlyKey = await createKey(api, admin, ['domains:read', 'load_balancer:read', 'projects:read'], { name: 'read-only' });
  projectsKey = await createKey(api, admin, ['projects:read', 'projects:write', 'domains:read'], { name: 'projects only' });

  const domain = await api.call<{ id: number }>('POST', '/domains', { token: admin, body: { domain: DOMAIN } });
  expect(domain.status, JSON.stringify(domain.body)).toBe(201);
  const route = await api.call('POST', '/lb/routes', { token: admin, body: { domain: LB_DOMAIN, target: UPSTREAMS } });
  expect(route.status, JSON.stringify(route.body)).toBe(201);

  const pool = platform.ctx.pool;
  const project = await insertProject(pool, {
    name: 'Access',
    slug: `access-${Date.now().toString(36)}`,
    environments: ['staging'],
  });
  const other = await insertProject(pool, { name: 'Elsewhere', slug: `elsewhere-${Date.now().toString(36)}` });
  const custom = await api.call<{ id: number }>('POST', `/projects/${project.id}/custom-domains`, {
    token: admin,
    body: { domain: CUSTOM_DOMAIN },
  });
  expect(custom.status, JSON.stringify(custom.body)).toBe(201);
  Object.assign(ids, {
    domain: domain.body.id,
    project: project.id,
    other: other.id,
    env: project.environments.production,
    staging: project.environments.staging,
    otherEnv: other.environments.production,
    custom: custom.body.id,
  });
});

afterAll(async () => {
  await platform?.close();
});

/**
 * The routes that change something, each with a path to a fixture that exists and a body it would
 * accept; `access` is the role the route needs, `permission` what an API key needs.
 */
const CHANGES: {
  method: Method;
  path: string;
  access: 'admin' | 'user';
  permission: Permission;
  /** A function: a body may need the fixtures' ids, known only once beforeAll has run. */
  body?: () => unknown;
}[] = [
  { method: 'DELETE', path: '/domains/{domain}', access: 'admin', permission: 'domains:write' },
  { method: 'DELETE', path: `/domains/${DOMAIN}`, access: 'admin', permission: 'domains:write' },
  { method: 'POST', path: '/domains/{domain}/provision', access: 'admin', permission: 'domains:write' },
  { method: 'POST', path: '/domains/{domain}/renew', access: 'admin', permission: 'domains:write' },
  { method: 'POST', path: '/domains/{domain}/order', access: 'admin', permission: 'domains:write' },
  { method: 'DELETE', path: '/domains/{domain}/order', access: 'admin', permission: 'domains:write' },
  { method: 'POST', path: '/domains/{domain}/order/finalize', access: 'admin', permission: 'domains:write' },
  {
    method: 'PUT',
    path: `/lb/routes/${LB_DOMAIN}`,
    access: 'admin',
    permission: 'load_balancer:write',
    body: () => ({ target: { kind: 'upstreams', upstreams: ['127.0.0.1:10'] } }),
  },
  { method: 'DELETE', path: `/lb/routes/${LB_DOMAIN}`, access: 'admin', permission: 'load_balancer:write' },
  {
    method: 'PUT',
    path: '/projects/{project}/custom-domains/{custom}',
    access: 'user',
    permission: 'domains:write',
    body: () => ({ environment_id: ids.staging }),
  },
  { method: 'DELETE', path: '/projects/{project}/custom-domains/{custom}', access: 'user', permission: 'domains:write' },
  {
    method: 'POST',
    path: '/projects/{project}/environments/{env}/domains',
    access: 'user',
    permission: 'domains:write',
    body: () => ({ domain: 'new-access.example.test' }),
  },
  {
    method: 'DELETE',
    path: '/projects/{project}/environments/{env}/domains/{custom}',
    access: 'user',
    permission: 'domains:write',
  },
];
const changeBody = (row: (typeof CHANGES)[number]) => row.body?.();

/** The routes that read, for the API key checks (their 403 for a key without the area's read permission). */
const READS: { path: string; permission: Permission }[] = [
  { path: '/domains/{domain}/order', permission: 'domains:read' },
  { path: '/domains/{domain}/http-challenge-debug', permission: 'domains:read' },
  { path: '/projects/{project}/environments/{env}/domains', permission: 'domains:read' },
];

/** One row per route and bad input: the request, and the field errors of the 400 (exactly). */
const BAD_INPUT: { method: Method; path: string; body?: unknown; errors: { path: string; message: string }[] }[] = [
  {
    method: 'DELETE',
    path: `/domains/${'a'.repeat(250)}.test`,
    errors: [{ path: 'params.domain', message: 'Too big: expected string to have <=253 characters' }],
  },
  {
    method: 'PUT',
    path: `/lb/routes/${LB_DOMAIN}`,
    body: { target: { kind: 'upstreams', upstreams: ['nope', '10.0.0.1:70000'] } },
    errors: [
      { path: 'target.upstreams.0', message: 'Enter an address such as 10.0.0.5:3000' },
      { path: 'target.upstreams.1', message: 'The port must be at most 65535' },
    ],
  },
  {
    method: 'PUT',
    path: `/lb/routes/${LB_DOMAIN}`,
    body: { target: { kind: 'upstreams', upstreams: [] } },
    errors: [{ path: 'target.upstreams', message: 'Add at least one upstream' }],
  },
  {
    method: 'PUT',
    path: `/lb/routes/${LB_DOMAIN}`,
    body: { target: UPSTREAMS, health_check: { enabled: true, path: 'health', interval_seconds: 0, timeout_seconds: 61 } },
    errors: [
      { path: 'health_check.path', message: 'The path must start with /' },
      { path: 'health_check.interval_seconds', message: 'At least 1 second' },
      { path: 'health_check.timeout_seconds', message: 'At most 60 seconds' },
    ],
  },
  {
    method: 'PUT',
    path: `/lb/routes/${LB_DOMAIN}`,
    body: { target: { kind: 'environment', project_id: 999_999, environment_id: 999_999 } },
    errors: [{ path: 'target.environment_id', message: 'No such environment in this project' }],
  },
  {
    method: 'PUT',
    path: '/lb/routes/not_a_domain',
    body: { target: UPSTREAMS },
    errors: [{ path: 'params.domain', message: 'Enter a domain such as api.example.com' }],
  },
  {
    method: 'PUT',
    path: '/projects/{project}/custom-domains/{custom}',
    body: { redirect_to: 'not a domain' },
    errors: [{ path: 'redirect_to', message: 'Enter a domain such as shop.example.com or *.example.com' }],
  },
  {
    method: 'PUT',
    path: '/projects/{project}/custom-domains/{custom}',
    body: { redirect_to: CUSTOM_DOMAIN },
    errors: [{ path: 'redirect_to', message: 'A domain cannot redirect to itself' }],
  },
  {
    method: 'PUT',
    path: '/projects/{project}/custom-domains/{custom}',
    body: { redirect_to: 'unknown.access.example.test' },
    errors: [{ path: 'redirect_to', message: 'Add that domain to this project first' }],
  },
  {
    method: 'PUT',
    path: '/projects/{project}/custom-domains/{custom}',
    body: { environment_id: 999_999 },
    errors: [{ path: 'environment_id', message: 'No such environment in this project' }],
  },
  {
    method: 'PUT',
    path: '/projects/{project}/custom-domains/{custom}',
    body: { environment_id: 'abc' },
    errors: [{ path: 'environment_id', message: 'Invalid input: expected number, received string' }],
  },
  {
    method: 'PUT',
    path: '/projects/{project}/custom-domains/abc',
    body: { redirect_to: null },
    errors: [{ path: 'params.domain_id', message: 'Must be a positive whole number' }],
  },
  {
    method: 'GET',
    path: '/projects/{project}/environments/abc/domains',
    errors: [{ path: 'params.env_id', message: 'Must be a positive whole number' }],
  },
  {
    method: 'POST',
    path: '/projects/{project}/environments/-1/domains',
    body: { domain: 'ok.access.example.test' },
    errors: [{ path: 'params.env_id', message: 'Must be a positive whole number' }],
  },
  {
    method: 'POST',
    path: '/projects/{project}/environments/{env}/domains',
    body: { domain: 'not a domain' },
    errors: [{ path: 'domain', message: 'Enter a domain such as shop.example.com or *.example.com' }],
  },
  {
    method: 'POST',
    path: '/projects/{project}/environments/{env}/domains',
    body: { domain: '*.wild-access.example.test' },
    errors: [{ path: 'domain', message: 'A project domain is one name; add a wildcard certificate in Domains' }],
  },
  {
    method: 'POST',
    path: '/projects/{project}/environments/{env}/domains',
    body: {},
    errors: [{ path: 'domain', message: 'Invalid input: expected string, received undefined' }],
  },
  {
    method: 'DELETE',
    path: '/projects/{project}/environments/abc/domains/{custom}',
    errors: [{ path: 'params.env_id', message: 'Must be a positive whole number' }],
  },
  {
    method: 'DELETE',
    path: '/projects/{project}/environments/{env}/domains/0',
    errors: [{ path: 'params.domain_id', message: 'Must be a positive whole number' }],
  },
];

const UNKNOWN_DOMAIN = 'Domain nowhere.example.test not found';
const NO_ORDER = `${DOMAIN} has no order in progress`;
const UNKNOWN_PROJECT = 'Project 999999 not found';
const UNKNOWN_ENVIRONMENT = 'Environment 999999 not found in this project';

/** One row per route and unknown id (or an id of another project): the 404's detail. */
const NOT_FOUND: { method: Method; path: string; body?: unknown; detail: string | (() => string) }[] = [
  { method: 'DELETE', path: '/domains/nowhere.example.test', detail: UNKNOWN_DOMAIN },
  { method: 'DELETE', path: '/domains/999999', detail: 'Domain 999999 not found' },
  { method: 'GET', path: '/domains/99999999999', detail: 'Domain 99999999999 not found' },
  { method: 'POST', path: '/domains/nowhere.example.test/provision', detail: UNKNOWN_DOMAIN },
  { method: 'POST', path: '/domains/nowhere.example.test/renew', detail: UNKNOWN_DOMAIN },
  { method: 'GET', path: '/domains/nowhere.example.test/order', detail: UNKNOWN_DOMAIN },
  { method: 'POST', path: '/domains/nowhere.example.test/order', detail: UNKNOWN_DOMAIN },
  { method: 'DELETE', path: '/domains/nowhere.example.test/order', detail: UNKNOWN_DOMAIN },
  { method: 'DELETE', path: '/domains/999999/order', detail: 'Domain 999999 not found' },
  { method: 'POST', path: '/domains/nowhere.example.test/order/finalize', detail: UNKNOWN_DOMAIN },
  { method: 'POST', path: '/domains/999999/order/finalize', detail: 'Domain 999999 not found' },
  { method: 'GET', path: '/domains/nowhere.example.test/http-challenge-debug', detail: UNKNOWN_DOMAIN },
  { method: 'GET', path: '/domains/999999/http-challenge-debug', detail: 'Domain 999999 not found' },
  // A domain that exists but has no order: the order calls have nothing to act on.
  { method: 'GET', path: '/domains/{domain}/order', detail: NO_ORDER },
  { method: 'DELETE', path: '/domains/{domain}/order', detail: NO_ORDER },
  { method: 'POST', path: '/domains/{domain}/order/finalize', detail: NO_ORDER },
  {
    method: 'PUT',
    path: '/lb/routes/nowhere.example.test',
    body: { target: UPSTREAMS },
    detail: 'No load-balancer route for nowhere.example.test',
  },
  { method: 'PUT', path: '/projects/999999/custom-domains/{custom}', body: { redirect_to: null }, detail: UNKNOWN_PROJECT },
  { method: 'DELETE', path: '/projects/999999/custom-domains/{custom}', detail: UNKNOWN_PROJECT },
  {
    method: 'PUT',
    path: '/projects/{other}/custom-domains/{custom}',
    body: { redirect_to: null },
    detail: () => `Domain ${ids.custom} not found in this project`,
  },
  {
    method: 'DELETE',
    path: '/projects/{other}/custom-domains/{custom}',
    detail: () => `Domain ${ids.custom} not found in this project`,
  },
  { method: 'GET', path: '/projects/999999/environments/{env}/domains', detail: UNKNOWN_PROJECT },
  { method: 'GET', path: '/projects/{project}/environments/999999/domains', detail: UNKNOWN_ENVIRONMENT },
  {
    method: 'GET',
    path: '/projects/{project}/environments/{otherEnv}/domains',
    detail: () => `Environment ${ids.otherEnv} not found in this project`,
  },
  {
    method: 'POST',
    path: '/projects/{project}/environments/999999/domains',
    body: { domain: 'new-access.example.test' },
    detail: UNKNOWN_ENVIRONMENT,
  },
  {
    method: 'POST',
    path: '/projects/{project}/environments/{otherEnv}/domains',
    body: { domain: 'new-access.example.test' },
    detail: () => `Environment ${ids.otherEnv} not found in this project`,
  },
  { method: 'DELETE', path: '/projects/{project}/environments/999999/domains/{custom}', detail: UNKNOWN_ENVIRONMENT },
  {
    method: 'DELETE',
    path: '/projects/{project}/environments/{env}/domains/999999',
    detail: 'Domain 999999 not found in this project',
  },
  // Served by production: not a domain of the staging environment.
  {
    method: 'DELETE',
    path: '/projects/{project}/environments/{staging}/domains/{custom}',
    detail: () => `Domain ${ids.custom} not found in this environment`,
  },
];

const label = (row: { method: Method; path: string }) => `${row.method} ${row.path}`;

describe('edge routes: 400 bad input, 403 and 404, and nothing changes', () => {
  it.each(BAD_INPUT.map((row) => [label(row), row] as const))('400 %s', async (_, row) => {
    const response = await api.call<ApiError>(row.method, fill(row.path), { token: admin, body: row.body });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.errors).toEqual(row.errors);
    expect(response.body.detail).toContain(row.errors[0]?.message);
  });

  it.each(CHANGES.map((row) => [label(row), row] as const))('403 %s as a reader', async (_, row) => {
    const response = await api.call<ApiError>(row.method, fill(row.path), { token: reader.token, body: changeBody(row) });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ detail: row.access === 'admin' ? ADMIN_ONLY : READ_ONLY });
  });

  it.each(CHANGES.filter((row) => row.access === 'admin').map((row) => [label(row), row] as const))(
    '403 %s as a user (not an admin)',
    async (_, row) => {
      const response = await api.call<ApiError>(row.method, fill(row.path), { token: user.token, body: changeBody(row) });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ detail: ADMIN_ONLY });
    },
  );

  it.each(CHANGES.map((row) => [`${label(row)} (needs ${row.permission})`, row] as const))(
    '403 %s with a read-only API key',
    async (_, row) => {
      const response = await api.call<Refusal>(row.method, fill(row.path), { token: readOnlyKey.secret, body: changeBody(row) });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({
        detail: `This API key lacks the ${row.permission} permission`,
        missing_permission: row.permission,
      });
    },
  );

  it.each(READS.map((row) => [label({ method: 'GET', ...row }), row] as const))(
    '403 %s with a key without its read permission',
    async (_, row) => {
      const key = await createKey(api, admin, ['settings:read']);
      const response = await api.call<Refusal>('GET', fill(row.path), { token: key.secret });
      expect(response.status).toBe(403);
      expect(response.body.missing_permission).toBe(row.permission);
    },
  );

  it("an environment's domains need domains:write, as the project's custom domains do: projects:write is not enough", async () => {
    for (const [method, path, body] of [
      ['POST', '/projects/{project}/environments/{env}/domains', { domain: 'by-key.access.example.test' }],
      ['DELETE', '/projects/{project}/environments/{env}/domains/{custom}', undefined],
      ['POST', '/projects/{project}/custom-domains', { domain: 'by-key.access.example.test' }],
    ] as const) {
      const response = await api.call<Refusal>(method, fill(path), { token: projectsKey.secret, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.missing_permission).toBe('domains:write');
    }
    // Reading them takes domains:read, which this key holds.
    const listed = await api.call('GET', fill('/projects/{project}/environments/{env}/domains'), { token: projectsKey.secret });
    expect(listed.status).toBe(200);
  });

  it.each(NOT_FOUND.map((row) => [label(row), row] as const))('404 %s', async (_, row) => {
    const response = await api.call<ApiError>(row.method, fill(row.path), { token: admin, body: row.body });
    expect(response.status, JSON.stringify(response.body)).toBe(404);
    expect(response.body).toEqual({ detail: typeof row.detail === 'string' ? row.detail : row.detail() });
  });

  it('left every fixture as it was', async () => {
    const domain = await api.call<{ id: number; domain: string; status: string }>('GET', fill('/domains/{domain}'), {
      token: admin,
    });
    expect(domain.body).toMatchObject({ id: ids.domain, domain: DOMAIN, status: 'pending' });
    const route = await api.call<{ target: unknown; health_check: { path: string } }>('GET', `/lb/routes/${LB_DOMAIN}`, {
      token: admin,
    });
    expect(route.status).toBe(200);
    expect(route.body.target).toEqual(UPSTREAMS);
    const custom = await api.call<{
      domains: { id: number; domain: string; environment_id: number; redirect_to: string | null }[];
    }>('GET', fill('/projects/{project}/custom-domains'), { token: admin });
    expect(custom.body.domains.map((d) => [d.id, d.domain, d.environment_id, d.redirect_to])).toEqual([
      [ids.custom, CUSTOM_DOMAIN, ids.env, null],
    ]);
    const inEnvironment = await api.call<{ domains: { id: number }[] }>(
      'GET',
      fill('/projects/{project}/environments/{env}/domains'),
      {
        token: admin,
      },
    );
    expect(inEnvironment.body.domains.map((d) => d.id)).toEqual([ids.custom]);
  });
});
