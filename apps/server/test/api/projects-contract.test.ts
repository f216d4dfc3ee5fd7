import type { Deployment, Environment, Permission, ProjectListResponse } from '@launchbay/contract';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { type CreatedKey, createKey } from '../helpers/audit';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';
import { insertDeployment, insertProject, insertSteps, waitForPipelines } from '../helpers/projects';

/**
 * The contract of the project routes the review found short of checks, route by route and case by
 * case: success, bad input (400 naming the field: 'x' for the body, 'querystring.x', 'params.x'),
 * no credentials (401), a role or an API key that may not (403) and an unknown id (404); then who
 * may read an environment variable's value in clear. One project with two deployments, a variable
 * and two environments is written straight into the database: nothing here builds.
 */

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Refusal = ApiError & { missing_permission?: string };
type Person = { id: number; token: string };
type EnvVar = { id: number; key: string; value: string; environment_ids: number[] };

let platform: TestPlatform;
let api: Api;
let admin: string;
let reader: Person;
let user: Person;
let git: GitServer;
/** The "limited" key: it reads projects and variables, nothing else. */
let limitedKey: CreatedKey;
/** A key for the routes whose permission the limited key holds: deployments only. */
let deploymentsKey: CreatedKey;

const GIT_TOKEN = 'projects-contract-git-token-7';
const SECRET = 'sk_contract_s3cr3t-value';
const MASK = '••••••••';
const READ_ONLY = 'Your role (reader) is read-only: you need the user role for this';
const FAVICON = 'https://cdn.example.com/contract-icon.png';

/** The fixtures' ids, for the {name} placeholders of the tables' paths. */
const ids: Record<string, number> = {};

/** A path of a table with its placeholders filled in: {project}, {other}, {deployment}, {earlier}, {envVar}, {env}, {staging}, {repository}. */
function fill(template: string): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const id = ids[name];
    if (id === undefined) throw new Error(`no fixture named ${name} for ${template}`);
    return String(id);
  });
}

let slugCounter = 0;
const uniqueSlug = (prefix: string) => `${prefix}-${++slugCounter}-${Date.now().toString(36)}`;

async function insertEnvVar(projectId: number, key: string, value: string, environmentIds: number[]): Promise<number> {
  const { rows } = await platform.ctx.pool.query<{ id: number }>(
    'INSERT INTO env_vars (project_id, key, value_sealed) VALUES ($1, $2, $3) RETURNING id',
    [projectId, key, platform.ctx.box.seal(value)],
  );
  const id = rows[0]?.id ?? 0;
  for (const environmentId of environmentIds) {
    await platform.ctx.pool.query('INSERT INTO env_var_environments (env_var_id, environment_id) VALUES ($1, $2)', [
      id,
      environmentId,
    ]);
  }
  return id;
}

/** A GitHub provider (saved by an admin, so its loopback host is allowed), its connection and one repository, as rows. */
async function insertRepository(cloneUrl: string): Promise<number> {
  const pool = platform.ctx.pool;
  const provider = await pool.query<{ id: number }>(
    `INSERT INTO git_providers (name, provider_type, auth_method, base_url, api_url, token_sealed, account_login, saved_by_admin)
     VALUES ('Contract host', 'github', 'pat', $1, $1, $2, 'contract-user', true) RETURNING id`,
    [git.baseUrl, platform.ctx.box.seal(GIT_TOKEN)],
  );
  const connection = await pool.query<{ id: number }>(
    `INSERT INTO git_connections (provider_id, account_login, external_account_id) VALUES ($1, 'contract-user', '1') RETURNING id`,
    [provider.rows[0]?.id],
  );
  const repository = await pool.query<{ id: number }>(
    `INSERT INTO repositories (connection_id, external_id, owner, name, full_name, default_branch, private, clone_url, html_url)
     VALUES ($1, '42', 'acme', 'site', 'acme/site', 'main', true, $2, $2) RETURNING id`,
    [connection.rows[0]?.id, cloneUrl],
  );
  return repository.rows[0]?.id ?? 0;
}

beforeAll(async () => {
  git = await startGitServer({ token: GIT_TOKEN });
  const repo = await git.createRepo('acme/site', { 'index.html': '<h1>contract</h1>' });
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  reader = await api.userWithRole(admin, 'reader');
  user = await api.userWithRole(admin, 'user');
  limitedKey = await createKey(api, admin, ['projects:read', 'env_vars:read'], { name: 'limited' });
  deploymentsKey = await createKey(api, admin, ['deployments:read', 'deployments:write'], { name: 'deployments only' });

  const pool = platform.ctx.pool;
  const project = await insertProject(pool, { name: 'Contract', slug: uniqueSlug('contract'), environments: ['staging'] });
  const other = await insertProject(pool, { name: 'Other', slug: uniqueSlug('other') });
  const production = project.environments.production ?? 0;
  const staging = project.environments.staging ?? 0;
  const base = { projectId: project.id, environmentId: production, artifact: { dataDir: platform.dataDir } };
  const earlier = await insertDeployment(pool, { ...base, status: 'ready' });
  const live = await insertDeployment(pool, { ...base, status: 'ready', current: true });
  await insertSteps(pool, live.id, [
    { name: 'clone', status: 'succeeded', detail: 'abc1234 A commit', done: true },
    { name: 'switch', status: 'succeeded', done: true },
  ]);
  await pool.query('UPDATE projects SET favicon_url = $2 WHERE id = $1', [project.id, FAVICON]);
  Object.assign(ids, {
    project: project.id,
    other: other.id,
    deployment: live.id,
    earlier: earlier.id,
    env: production,
    staging,
    envVar: await insertEnvVar(project.id, 'API_TOKEN', SECRET, [production, staging]),
    repository: await insertRepository(repo.url),
  });
});

afterAll(async () => {
  if (platform) await waitForPipelines(platform.ctx.pool);
  await platform?.close();
  await git?.close();
});

/** The routes under test, each with a path to a fixture that exists and a body it would accept. */
const ROUTES: { method: Method; path: string; permission: Permission; body?: unknown }[] = [
  { method: 'GET', path: '/projects', permission: 'projects:read' },
  { method: 'DELETE', path: '/projects/{project}', permission: 'projects:write' },
  { method: 'GET', path: '/projects/{project}/last-deployment', permission: 'deployments:read' },
  { method: 'POST', path: '/projects/{project}/deployments/{deployment}/cancel', permission: 'deployments:write' },
  { method: 'POST', path: '/projects/{project}/deployments/{deployment}/pause', permission: 'deployments:write' },
  { method: 'POST', path: '/projects/{project}/deployments/{deployment}/resume', permission: 'deployments:write' },
  { method: 'GET', path: '/projects/{project}/deployments/{deployment}/jobs', permission: 'deployments:read' },
  { method: 'POST', path: '/projects/{project}/deployments/{earlier}/rollback', permission: 'deployments:write' },
  { method: 'GET', path: '/projects/{project}/env-vars', permission: 'env_vars:read' },
  { method: 'POST', path: '/projects/{project}/env-vars', permission: 'env_vars:write', body: { key: 'NEW_KEY', value: 'v' } },
  { method: 'GET', path: '/projects/{project}/env-vars/API_TOKEN/value', permission: 'env_vars:read' },
  { method: 'PUT', path: '/projects/{project}/env-vars/{envVar}', permission: 'env_vars:write', body: { value: 'changed' } },
  { method: 'DELETE', path: '/projects/{project}/env-vars/{envVar}', permission: 'env_vars:write' },
  { method: 'GET', path: '/projects/{project}/environments', permission: 'projects:read' },
  { method: 'GET', path: '/projects/{project}/environments/{env}', permission: 'projects:read' },
  { method: 'GET', path: '/projects/{project}/environments/{env}/containers', permission: 'projects:read' },
  { method: 'GET', path: '/projects/{project}/favicon', permission: 'projects:read' },
  { method: 'GET', path: '/repositories/{repository}/preset/live', permission: 'git:read' },
];

/** A key that lacks `permission`: the limited one, or the deployments one for what the limited one holds. */
function keyLacking(permission: Permission): CreatedKey {
  const key = limitedKey.permissions.includes(permission) ? deploymentsKey : limitedKey;
  if (key.permissions.includes(permission)) throw new Error(`no fixture key lacks ${permission}`);
  return key;
}

/** One row per route and bad input: the request, and the one field the 400 must name. */
const BAD_INPUT: { method: Method; path: string; body?: unknown; field: string }[] = [
  { method: 'GET', path: '/projects?per_page=0', field: 'querystring.per_page' },
  { method: 'GET', path: '/projects?per_page=101', field: 'querystring.per_page' },
  { method: 'GET', path: '/projects?page=abc', field: 'querystring.page' },
  { method: 'DELETE', path: '/projects/abc', field: 'params.id' },
  { method: 'DELETE', path: '/projects/-1', field: 'params.id' },
  { method: 'GET', path: '/projects/abc/last-deployment', field: 'params.id' },
  { method: 'GET', path: '/projects/0/last-deployment', field: 'params.id' },
  { method: 'POST', path: '/projects/abc/deployments/{deployment}/cancel', field: 'params.id' },
  { method: 'POST', path: '/projects/{project}/deployments/abc/cancel', field: 'params.deployment_id' },
  { method: 'POST', path: '/projects/-1/deployments/{deployment}/pause', field: 'params.id' },
  { method: 'POST', path: '/projects/{project}/deployments/-1/pause', field: 'params.deployment_id' },
  { method: 'POST', path: '/projects/1.5/deployments/{deployment}/resume', field: 'params.id' },
  { method: 'POST', path: '/projects/{project}/deployments/0x1/resume', field: 'params.deployment_id' },
  { method: 'GET', path: '/projects/abc/deployments/{deployment}/jobs', field: 'params.id' },
  { method: 'GET', path: '/projects/{project}/deployments/abc/jobs', field: 'params.deployment_id' },
  { method: 'POST', path: '/projects/abc/deployments/{earlier}/rollback', field: 'params.id' },
  { method: 'POST', path: '/projects/{project}/deployments/2147483648/rollback', field: 'params.deployment_id' },
  { method: 'GET', path: '/projects/abc/env-vars', field: 'params.id' },
  { method: 'GET', path: '/projects/-1/env-vars', field: 'params.id' },
  { method: 'POST', path: '/projects/abc/env-vars', body: { key: 'OK_KEY', value: 'v' }, field: 'params.id' },
  { method: 'POST', path: '/projects/{project}/env-vars', body: { key: '1-BAD KEY', value: 'v' }, field: 'key' },
  { method: 'POST', path: '/projects/{project}/env-vars', body: { key: 'OK_KEY' }, field: 'value' },
  {
    method: 'POST',
    path: '/projects/{project}/env-vars',
    body: { key: 'OK_KEY', value: 'v', environment_ids: ['x'] },
    field: 'environment_ids.0',
  },
  { method: 'GET', path: '/projects/abc/env-vars/API_TOKEN/value', field: 'params.id' },
  { method: 'GET', path: '/projects/{project}/env-vars/1BAD/value', field: 'params.key' },
  { method: 'GET', path: '/projects/{project}/env-vars/API_TOKEN/value?environment_id=abc', field: 'querystring.environment_id' },
  { method: 'GET', path: '/projects/{project}/env-vars/API_TOKEN/value?environment_id=0', field: 'querystring.environment_id' },
  { method: 'PUT', path: '/projects/abc/env-vars/{envVar}', body: { value: 'x' }, field: 'params.id' },
  { method: 'PUT', path: '/projects/{project}/env-vars/abc', body: { value: 'x' }, field: 'params.var_id' },
  { method: 'PUT', path: '/projects/{project}/env-vars/{envVar}', body: { key: 'bad key' }, field: 'key' },
  { method: 'PUT', path: '/projects/{project}/env-vars/{envVar}', body: { value: 42 }, field: 'value' },
  { method: 'PUT', path: '/projects/{project}/env-vars/{envVar}', body: { environment_ids: [] }, field: 'environment_ids' },
  { method: 'DELETE', path: '/projects/abc/env-vars/{envVar}', field: 'params.id' },
  { method: 'DELETE', path: '/projects/{project}/env-vars/-1', field: 'params.var_id' },
  { method: 'GET', path: '/projects/abc/environments', field: 'params.id' },
  { method: 'GET', path: '/projects/-1/environments', field: 'params.id' },
  { method: 'GET', path: '/projects/abc/environments/{env}', field: 'params.id' },
  { method: 'GET', path: '/projects/{project}/environments/abc', field: 'params.env_id' },
  { method: 'GET', path: '/projects/{project}/environments/abc/containers', field: 'params.env_id' },
  { method: 'GET', path: '/projects/{project}/environments/-1/containers', field: 'params.env_id' },
  { method: 'GET', path: '/projects/abc/favicon', field: 'params.id' },
  { method: 'GET', path: '/repositories/abc/preset/live', field: 'params.repository_id' },
  { method: 'GET', path: '/repositories/-1/preset/live', field: 'params.repository_id' },
  { method: 'GET', path: '/repositories/{repository}/preset/live?branch=', field: 'querystring.branch' },
  {
    method: 'GET',
    path: `/repositories/{repository}/preset/live?root_directory=${'a'.repeat(501)}`,
    field: 'querystring.root_directory',
  },
];

const UNKNOWN_PROJECT = 'Project 999999 not found';
const UNKNOWN_DEPLOYMENT = 'Deployment 999999 not found in this project';
/** The project's own rows asked for under the other project: 404, as if they did not exist. */
const FOREIGN_DEPLOYMENT = () => `Deployment ${ids.deployment} not found in this project`;
const FOREIGN_ENV_VAR = () => `Environment variable ${ids.envVar} not found in this project`;
const FOREIGN_ENVIRONMENT = () => `Environment ${ids.env} not found in this project`;

/** One row per route and unknown id (or an id of another project): the 404's detail. */
const NOT_FOUND: { method: Method; path: string; body?: unknown; detail: string | (() => string) }[] = [
  { method: 'DELETE', path: '/projects/999999', detail: UNKNOWN_PROJECT },
  { method: 'GET', path: '/projects/999999/last-deployment', detail: UNKNOWN_PROJECT },
  ...(['cancel', 'pause', 'resume', 'rollback'] as const).flatMap((action) => [
    { method: 'POST' as const, path: `/projects/999999/deployments/{deployment}/${action}`, detail: UNKNOWN_PROJECT },
    { method: 'POST' as const, path: `/projects/{project}/deployments/999999/${action}`, detail: UNKNOWN_DEPLOYMENT },
  ]),
  { method: 'POST', path: '/projects/{other}/deployments/{deployment}/cancel', detail: FOREIGN_DEPLOYMENT },
  { method: 'GET', path: '/projects/999999/deployments/{deployment}/jobs', detail: UNKNOWN_PROJECT },
  { method: 'GET', path: '/projects/{project}/deployments/999999/jobs', detail: UNKNOWN_DEPLOYMENT },
  { method: 'GET', path: '/projects/{other}/deployments/{deployment}/jobs', detail: FOREIGN_DEPLOYMENT },
  { method: 'GET', path: '/projects/999999/env-vars', detail: UNKNOWN_PROJECT },
  { method: 'POST', path: '/projects/999999/env-vars', body: { key: 'NEW_KEY', value: 'v' }, detail: UNKNOWN_PROJECT },
  { method: 'GET', path: '/projects/999999/env-vars/API_TOKEN/value', detail: UNKNOWN_PROJECT },
  { method: 'GET', path: '/projects/{project}/env-vars/NO_SUCH_KEY/value', detail: 'No environment variable NO_SUCH_KEY' },
  {
    method: 'GET',
    path: '/projects/{project}/env-vars/API_TOKEN/value?environment_id=999999',
    detail: 'No environment variable API_TOKEN in environment 999999',
  },
  { method: 'GET', path: '/projects/{other}/env-vars/API_TOKEN/value', detail: 'No environment variable API_TOKEN' },
  { method: 'PUT', path: '/projects/999999/env-vars/{envVar}', body: { value: 'x' }, detail: UNKNOWN_PROJECT },
  {
    method: 'PUT',
    path: '/projects/{project}/env-vars/999999',
    body: { value: 'x' },
    detail: 'Environment variable 999999 not found in this project',
  },
  { method: 'PUT', path: '/projects/{other}/env-vars/{envVar}', body: { value: 'x' }, detail: FOREIGN_ENV_VAR },
  { method: 'DELETE', path: '/projects/999999/env-vars/{envVar}', detail: UNKNOWN_PROJECT },
  {
    method: 'DELETE',
    path: '/projects/{project}/env-vars/999999',
    detail: 'Environment variable 999999 not found in this project',
  },
  { method: 'DELETE', path: '/projects/{other}/env-vars/{envVar}', detail: FOREIGN_ENV_VAR },
  { method: 'GET', path: '/projects/999999/environments', detail: UNKNOWN_PROJECT },
  { method: 'GET', path: '/projects/999999/environments/{env}', detail: UNKNOWN_PROJECT },
  { method: 'GET', path: '/projects/{project}/environments/999999', detail: 'Environment 999999 not found in this project' },
  { method: 'GET', path: '/projects/{other}/environments/{env}', detail: FOREIGN_ENVIRONMENT },
  { method: 'GET', path: '/projects/999999/environments/{env}/containers', detail: UNKNOWN_PROJECT },
  {
    method: 'GET',
    path: '/projects/{project}/environments/999999/containers',
    detail: 'Environment 999999 not found in this project',
  },
  { method: 'GET', path: '/projects/999999/favicon', detail: UNKNOWN_PROJECT },
  { method: 'GET', path: '/repositories/999999/preset/live', detail: 'Repository 999999 not found' },
];

const label = (row: { method: Method; path: string }) => `${row.method} ${row.path}`;

describe('refusals: 400 bad input, 401, 403 and 404 (nothing changes)', () => {
  it.each(BAD_INPUT.map((row) => [label(row), row] as const))('400 %s', async (_, row) => {
    const response = await api.call<ApiError>(row.method, fill(row.path), { token: admin, body: row.body });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.errors?.map((e) => e.path)).toEqual([row.field]);
    const message = response.body.errors?.[0]?.message ?? '';
    expect(message).not.toBe('');
    expect(response.body.detail).toContain(message);
  });

  it.each(ROUTES.map((route) => [label(route), route] as const))('401 %s without credentials', async (_, route) => {
    const response = await api.call<ApiError>(route.method, fill(route.path), { body: route.body });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Authentication Required' });
  });

  it.each(ROUTES.filter((route) => route.method !== 'GET').map((route) => [label(route), route] as const))(
    '403 %s as a reader',
    async (_, route) => {
      const response = await api.call<ApiError>(route.method, fill(route.path), { token: reader.token, body: route.body });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ detail: READ_ONLY });
    },
  );

  it.each(ROUTES.map((route) => [`${label(route)} (needs ${route.permission})`, route] as const))(
    '403 %s with a key lacking the permission',
    async (_, route) => {
      const response = await api.call<Refusal>(route.method, fill(route.path), {
        token: keyLacking(route.permission).secret,
        body: route.body,
      });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({
        detail: `This API key lacks the ${route.permission} permission`,
        missing_permission: route.permission,
      });
    },
  );

  it.each(NOT_FOUND.map((row) => [label(row), row] as const))('404 %s', async (_, row) => {
    const response = await api.call<ApiError>(row.method, fill(row.path), { token: admin, body: row.body });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: typeof row.detail === 'string' ? row.detail : row.detail() });
  });

  it('left every fixture as it was', async () => {
    const pool = platform.ctx.pool;
    const projects = await pool.query<{ id: number }>('SELECT id FROM projects WHERE id = ANY($1) ORDER BY id', [
      [ids.project, ids.other],
    ]);
    expect(projects.rows.map((r) => r.id)).toEqual([ids.project, ids.other]);
    const deployments = await pool.query<{ id: number; status: string }>(
      'SELECT id, status FROM deployments WHERE project_id = $1 ORDER BY id',
      [ids.project],
    );
    expect(deployments.rows).toEqual([
      { id: ids.earlier, status: 'ready' },
      { id: ids.deployment, status: 'ready' },
    ]);
    const list = await api.call<{ env_vars: EnvVar[] }>('GET', fill('/projects/{project}/env-vars'), { token: admin });
    expect(list.body.env_vars.map((v) => [v.id, v.key])).toEqual([[ids.envVar, 'API_TOKEN']]);
    const value = await api.call<{ value: string }>('GET', fill('/projects/{project}/env-vars/API_TOKEN/value'), {
      token: admin,
    });
    expect(value.body.value).toBe(SECRET);
  });
});

describe('the live preset: errors of the handler name the querystring field too', () => {
  // A branch the repository does not have: branch is a query parameter here, so the field is 'querystring.branch'.
  it('400 GET /repositories/{repository}/preset/live?branch=nope names querystring.branch', async () => {
    const response = await api.call<ApiError>('GET', fill('/repositories/{repository}/preset/live?branch=nope'), {
      token: admin,
    });
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((e) => e.path)).toEqual(['querystring.branch']);
  });

  // A root_directory the branch does not have names its field too, not only the detail.
  it('400 GET /repositories/{repository}/preset/live?root_directory=nope names querystring.root_directory', async () => {
    const response = await api.call<ApiError>('GET', fill('/repositories/{repository}/preset/live?root_directory=nope'), {
      token: admin,
    });
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((e) => e.path)).toEqual(['querystring.root_directory']);
  });
});

describe('success', () => {
  /**
   * Reads: the admin, a reader and a key holding exactly the route's permission all get 200 (`keyOnly`:
   * just the key, for a route that fetches from a git host on every call).
   */
  const READS: { path: string; permission: Permission; keyOnly?: boolean; check: (body: unknown) => void }[] = [
    {
      path: '/projects?per_page=100',
      permission: 'projects:read',
      check: (body) => expect((body as ProjectListResponse).projects.map((p) => p.id)).toContain(ids.project),
    },
    {
      path: '/projects/{project}/last-deployment',
      permission: 'deployments:read',
      check: (body) => expect(body).toMatchObject({ id: ids.deployment, status: 'ready', is_current: true }),
    },
    {
      path: '/projects/{project}/deployments/{deployment}/jobs',
      permission: 'deployments:read',
      check: (body) =>
        expect((body as { jobs: { name: string; status: string }[] }).jobs.map((j) => [j.name, j.status])).toEqual([
          ['clone', 'succeeded'],
          ['switch', 'succeeded'],
        ]),
    },
    {
      path: '/projects/{project}/env-vars',
      permission: 'env_vars:read',
      check: (body) =>
        expect((body as { env_vars: EnvVar[] }).env_vars).toEqual([
          expect.objectContaining({ id: ids.envVar, key: 'API_TOKEN', value: MASK, environment_ids: [ids.env, ids.staging] }),
        ]),
    },
    {
      path: '/projects/{project}/environments',
      permission: 'projects:read',
      check: (body) =>
        expect((body as { environments: Environment[] }).environments.map((e) => [e.id, e.name, e.is_production])).toEqual([
          [ids.env, 'production', true],
          [ids.staging, 'staging', false],
        ]),
    },
    {
      path: '/projects/{project}/environments/{staging}',
      permission: 'projects:read',
      check: (body) => expect(body).toMatchObject({ id: ids.staging, name: 'staging', project_id: ids.project }),
    },
    {
      path: '/projects/{project}/environments/{env}/containers',
      permission: 'projects:read',
      // A static site runs no process.
      check: (body) => expect(body).toEqual({ deployment_id: ids.deployment, containers: [] }),
    },
    {
      path: '/repositories/{repository}/preset/live',
      permission: 'git:read',
      keyOnly: true,
      check: (body) =>
        expect(body).toMatchObject({
          repository_id: ids.repository,
          branch: 'main',
          commit_sha: expect.stringMatching(/^[0-9a-f]{40}$/),
          has_launchbay_json: false,
          errors: [],
        }),
    },
  ];

  const keys = new Map<Permission, CreatedKey>();
  const keyHolding = async (permission: Permission) => {
    let key = keys.get(permission);
    if (!key) {
      key = await createKey(api, admin, [permission]);
      keys.set(permission, key);
    }
    return key;
  };

  it.each(READS.map((read) => [read.path, read] as const))('200 GET %s', async (_, read) => {
    const key = { [`key with ${read.permission}`]: (await keyHolding(read.permission)).secret };
    const principals = read.keyOnly ? key : { admin, reader: reader.token, ...key };
    for (const [who, token] of Object.entries(principals)) {
      const response = await api.call('GET', fill(read.path), { token });
      expect(response.status, `${who}: ${JSON.stringify(response.body)}`).toBe(200);
      read.check(response.body);
    }
  });

  it('302 GET /projects/{project}/favicon redirects to the icon', async () => {
    for (const token of [admin, reader.token, (await keyHolding('projects:read')).secret]) {
      const response = await api.call('GET', fill('/projects/{project}/favicon'), { token });
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe(FAVICON);
    }
  });

  /** A fresh project with a production environment, for the routes that change or remove things. */
  async function scratchProject() {
    const created = await insertProject(platform.ctx.pool, { name: 'Scratch', slug: uniqueSlug('scratch') });
    return { id: created.id, production: created.environments.production ?? 0 };
  }

  it('201 POST /projects/{id}/env-vars, by a user; the value reads back', async () => {
    const p = await scratchProject();
    const created = await api.call<EnvVar>('POST', `/projects/${p.id}/env-vars`, {
      token: user.token,
      body: { key: 'FRESH', value: 'fresh-value' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ key: 'FRESH', value: MASK, environment_ids: [p.production] });
    const value = await api.call<{ value: string }>('GET', `/projects/${p.id}/env-vars/FRESH/value`, { token: user.token });
    expect(value.body).toEqual({ key: 'FRESH', value: 'fresh-value', environment_ids: [p.production] });
  });

  it('200 PUT /projects/{id}/env-vars/{var_id}, by a key with env_vars:write', async () => {
    const p = await scratchProject();
    const id = await insertEnvVar(p.id, 'TO_CHANGE', 'before', [p.production]);
    const response = await api.call<EnvVar>('PUT', `/projects/${p.id}/env-vars/${id}`, {
      token: (await keyHolding('env_vars:write')).secret,
      body: { key: 'CHANGED', value: 'after' },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ id, key: 'CHANGED', value: MASK, environment_ids: [p.production] });
    const value = await api.call<{ value: string }>('GET', `/projects/${p.id}/env-vars/CHANGED/value`, { token: admin });
    expect(value.body.value).toBe('after');
  });

  it('204 DELETE /projects/{id}/env-vars/{var_id}, by a user; the variable is gone', async () => {
    const p = await scratchProject();
    const id = await insertEnvVar(p.id, 'TO_REMOVE', 'x', [p.production]);
    const response = await api.call('DELETE', `/projects/${p.id}/env-vars/${id}`, { token: user.token });
    expect(response.status).toBe(204);
    expect((await api.call('GET', `/projects/${p.id}/env-vars/TO_REMOVE/value`, { token: admin })).status).toBe(404);
  });

  it('204 DELETE /projects/{id}, by a user; the project is gone', async () => {
    const p = await scratchProject();
    await insertDeployment(platform.ctx.pool, { projectId: p.id, environmentId: p.production, status: 'failed' });
    await insertEnvVar(p.id, 'GOES_TOO', 'x', [p.production]);
    const response = await api.call('DELETE', `/projects/${p.id}`, { token: user.token });
    expect(response.status).toBe(204);
    expect((await api.call('GET', `/projects/${p.id}`, { token: admin })).status).toBe(404);
    const { rows } = await platform.ctx.pool.query('SELECT id FROM env_vars WHERE project_id = $1', [p.id]);
    expect(rows).toEqual([]);
  });

  it('200 POST .../cancel stops a queued deployment', async () => {
    const p = await scratchProject();
    const queued = await insertDeployment(platform.ctx.pool, { projectId: p.id, environmentId: p.production, status: 'queued' });
    const response = await api.call<Deployment>('POST', `/projects/${p.id}/deployments/${queued.id}/cancel`, {
      token: user.token,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ id: queued.id, status: 'cancelled' });
  });

  it('200 POST .../pause, then 200 POST .../resume, of the serving deployment', async () => {
    const p = await scratchProject();
    const serving = await insertDeployment(platform.ctx.pool, {
      projectId: p.id,
      environmentId: p.production,
      status: 'ready',
      artifact: { dataDir: platform.dataDir },
      current: true,
    });
    const paused = await api.call<Deployment>('POST', `/projects/${p.id}/deployments/${serving.id}/pause`, {
      token: deploymentsKey.secret,
    });
    expect(paused.status, JSON.stringify(paused.body)).toBe(200);
    expect(paused.body).toMatchObject({ id: serving.id, status: 'paused', is_current: true });
    const resumed = await api.call<Deployment>('POST', `/projects/${p.id}/deployments/${serving.id}/resume`, {
      token: user.token,
    });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body).toMatchObject({ id: serving.id, status: 'ready', is_current: true });
  });

  it('202 POST .../rollback starts a deployment serving the earlier build', async () => {
    const p = await scratchProject();
    const base = { projectId: p.id, environmentId: p.production, artifact: { dataDir: platform.dataDir } };
    const earlier = await insertDeployment(platform.ctx.pool, { ...base, status: 'ready' });
    await insertDeployment(platform.ctx.pool, { ...base, status: 'ready', current: true });
    const response = await api.call<{ deployment_id: number }>('POST', `/projects/${p.id}/deployments/${earlier.id}/rollback`, {
      token: user.token,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(202);
    const started = await api.call<Deployment>('GET', `/projects/${p.id}/deployments/${response.body.deployment_id}`, {
      token: admin,
    });
    expect(started.body).toMatchObject({ trigger: 'rollback', source_deployment_id: earlier.id });
    await waitForPipelines(platform.ctx.pool);
  });
});

describe('who may read a variable in clear: GET /projects/{id}/env-vars/{key}/value', () => {
  /**
   * The rule: the route takes the default access of a read (apps/server/src/http/auth.ts,
   * defaultAccess: 'reader') and an API key needs env_vars:read (api-keys/permissions.ts). But
   * SECURITY.md says a reader reads "everything but secrets", and names env vars among the secrets
   * sealed at rest; a key acts "within its owner's role". So: admin and user yes, reader no, a key
   * as its permission and its owner's role allow.
   */
  const valuePath = () => fill('/projects/{project}/env-vars/API_TOKEN/value');
  const read = (token?: string) => api.call<Refusal & { value?: string }>('GET', valuePath(), { token });
  const expectClear = (response: { status: number; body: unknown }) => {
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({ key: 'API_TOKEN', value: SECRET, environment_ids: [ids.env, ids.staging] });
  };

  it('an admin reads it', async () => {
    expectClear(await read(admin));
  });

  it('a user reads it', async () => {
    expectClear(await read(user.token));
  });

  it("an admin's key with env_vars:read reads it", async () => {
    expectClear(await read(limitedKey.secret));
  });

  it("a user's key with env_vars:read reads it", async () => {
    expectClear(await read((await createKey(api, user.token, ['env_vars:read'])).secret));
  });

  it('no credentials: 401', async () => {
    const response = await read();
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Authentication Required' });
  });

  it('a key without env_vars:read (projects and deployments, or env_vars:write alone): 403', async () => {
    for (const key of [
      deploymentsKey,
      await createKey(api, admin, ['projects:read', 'projects:write']),
      await createKey(api, admin, ['env_vars:write']),
    ]) {
      const response = await read(key.secret);
      expect(response.status, key.permissions.join(',')).toBe(403);
      expect(response.body).toEqual({
        detail: 'This API key lacks the env_vars:read permission',
        missing_permission: 'env_vars:read',
      });
    }
  });

  // SECURITY.md: a reader reads everything but secrets, and a value in clear is one.
  it('a reader: 403, no value', async () => {
    const response = await read(reader.token);
    expect(response.status).toBe(403);
    expect(response.body.value).toBeUndefined();
  });

  // A key acts within its owner's role: a reader's key with env_vars:read is refused like its owner.
  it("a reader's key with env_vars:read: 403, no value", async () => {
    const response = await read((await createKey(api, reader.token, ['env_vars:read'])).secret);
    expect(response.status).toBe(403);
    expect(response.body.value).toBeUndefined();
  });
});
