import type { Deployment, GitConnection, GitProvider, LivePreset, ProjectDetail, Repository } from '@launchbay/contract';
import { type GitHostStandIn, startGitHostStandIn, waitUntil } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { createKey } from '../helpers/audit';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/**
 * Git providers against local stand-ins for GitHub's and GitLab's REST APIs (their real response
 * shapes, pagination and auth answers) that also serve the repositories over git smart-HTTP: a
 * token is checked at once, repositories are synced across pages, branches and the live preset
 * are read from the host, a project created from a repository deploys with the provider's token,
 * and a provider in use cannot be deleted.
 */

const GH_TOKEN = 'ghp_standin_token_1234567890';
const GL_TOKEN = 'glpat-standin-token-0987';

let platform: TestPlatform;
let api: Api;
let admin: string;
let user: { token: string };
let github: GitHostStandIn;
let gitlab: GitHostStandIn;

type ProviderList = { providers: GitProvider[] };
type RepositoryList = { repositories: Repository[]; total: number; page: number; per_page: number };

beforeAll(async () => {
  github = await startGitHostStandIn({ kind: 'github', token: GH_TOKEN, login: 'octo-user', maxPerPage: 2 });
  gitlab = await startGitHostStandIn({ kind: 'gitlab', token: GL_TOKEN, login: 'lab-user', maxPerPage: 2 });
  await github.createRepo('octo-user/site', { 'index.html': '<h1>octo site</h1>' }, { description: 'The marketing site' });
  await github.createRepo('octo-user/api', {
    'package.json': JSON.stringify({ name: 'api', scripts: { start: 'node server.js' }, dependencies: { express: '^4.0.0' } }),
    'server.js': 'require("http").createServer((q, s) => s.end("api")).listen(process.env.PORT)',
  });
  await github.createRepo('acme/tools', { 'README.md': '# tools' }, { private: true });
  await github.createRepo('acme/docs', { 'index.html': 'docs' });
  await github.createRepo('acme/web', {
    'package.json': JSON.stringify({
      name: 'web',
      scripts: { dev: 'vite', build: 'vite build' },
      devDependencies: { vite: '^5.0.0' },
    }),
  });
  await gitlab.createRepo('lab-user/notes', { 'index.html': '<p>notes</p>' });
  await gitlab.createRepo('team/platform/svc', { 'index.html': 'svc' });
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  user = await api.userWithRole(admin, 'user');
});

afterAll(async () => {
  await platform?.close();
  await github?.close();
  await gitlab?.close();
});

async function addGithub(name = 'GitHub stand-in', token = GH_TOKEN) {
  return api.call<GitProvider>('POST', '/git-providers/github/pat', {
    token: admin,
    body: { name, token, base_url: github.baseUrl },
  });
}

async function connectionOf(providerId: number): Promise<GitConnection> {
  const list = await api.call<{ connections: GitConnection[] }>('GET', `/git-connections?provider_id=${providerId}`, {
    token: admin,
  });
  expect(list.status).toBe(200);
  const [connection] = list.body.connections;
  if (!connection) throw new Error(`provider ${providerId} has no connection`);
  return connection;
}

describe('git providers: adding one checks the token against the host', () => {
  it('adds GitHub by token: the account, scopes and every repository across the pages; the token is never returned', async () => {
    const created = await addGithub();
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      name: 'GitHub stand-in',
      provider_type: 'github',
      auth_method: 'pat',
      base_url: github.baseUrl,
      api_url: `${github.baseUrl}/api/v3`,
      is_active: true,
      account_login: 'octo-user',
      connection_count: 1,
    });
    expect(created.body.scopes).toEqual(expect.arrayContaining(['repo', 'admin:repo_hook']));
    expect(JSON.stringify(created.body)).not.toContain(GH_TOKEN);
    // Five repositories at two per page: three pages were read.
    const repoPages = github.requests.filter((r) => r.path === '/api/v3/user/repos');
    expect(repoPages.length).toBe(3);

    const connection = await connectionOf(created.body.id);
    expect(connection).toMatchObject({
      account_login: 'octo-user',
      provider_type: 'github',
      repository_count: 5,
      sync_error: null,
    });
    const listed = await api.call<RepositoryList>('GET', `/git-connections/${connection.id}/repositories?per_page=2&page=1`, {
      token: admin,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(5);
    expect(listed.body.repositories).toHaveLength(2);
    const searched = await api.call<RepositoryList>('GET', `/git-connections/${connection.id}/repositories?search=marketing`, {
      token: admin,
    });
    expect(searched.body.repositories.map((r) => r.full_name)).toEqual(['octo-user/site']);
    const all = await api.call<RepositoryList>('GET', `/git-connections/${connection.id}/repositories?per_page=100`, {
      token: admin,
    });
    expect(all.body.repositories.map((r) => r.full_name).sort()).toEqual([
      'acme/docs',
      'acme/tools',
      'acme/web',
      'octo-user/api',
      'octo-user/site',
    ]);
    expect(all.body.repositories.find((r) => r.full_name === 'acme/tools')?.private).toBe(true);

    const listedProviders = await api.call<ProviderList>('GET', '/git-providers', { token: user.token });
    expect(listedProviders.status).toBe(200);
    expect(listedProviders.body.providers.map((p) => p.id)).toContain(created.body.id);
    const one = await api.call<GitProvider>('GET', `/git-providers/${created.body.id}`, { token: admin });
    expect(one.body.account_login).toBe('octo-user');
    // A token provider has nothing to authorise: it takes a new token instead.
    expect((await api.call('POST', `/git-providers/${created.body.id}/authorize`, { token: admin })).status).toBe(409);
  });

  it('a wrong token is a 400 on the token field and stores nothing', async () => {
    const before = (await api.call<ProviderList>('GET', '/git-providers', { token: admin })).body.providers.length;
    const refused = await addGithub('Wrong', 'ghp_not_the_token');
    expect(refused.status).toBe(400);
    const body = refused.body as unknown as ApiError;
    expect(body.detail).toMatch(/refused the token \(HTTP 401\)/);
    expect(body.errors?.[0]?.path).toBe('token');
    expect((await api.call<ProviderList>('GET', '/git-providers', { token: admin })).body.providers.length).toBe(before);
  });

  it('a token without the scopes the platform needs is a 400 that names them', async () => {
    const narrow = await startGitHostStandIn({ kind: 'github', token: 'ghp_narrow', scopes: ['read:user'] });
    try {
      const refused = await api.call<ApiError>('POST', '/git-providers/github/pat', {
        token: admin,
        body: { name: 'Narrow', token: 'ghp_narrow', base_url: narrow.baseUrl },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.detail).toBe('The token lacks the repo and admin:repo_hook scopes (it has: read:user)');
    } finally {
      await narrow.close();
    }
  });

  it('a host that cannot be reached is a 400 on the base URL within seconds, and stores nothing', async () => {
    const started = Date.now();
    const refused = await api.call<ApiError>('POST', '/git-providers/github/pat', {
      token: admin,
      body: { name: 'Nowhere', token: GH_TOKEN, base_url: 'http://127.0.0.1:9' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe('Cannot connect to 127.0.0.1:9: check the base URL');
    expect(refused.body.errors).toEqual([{ path: 'base_url', message: 'Cannot connect to 127.0.0.1:9: check the base URL' }]);
    expect(Date.now() - started).toBeLessThan(5_000);
    const names = (await api.call<ProviderList>('GET', '/git-providers', { token: admin })).body.providers.map((p) => p.name);
    expect(names).not.toContain('Nowhere');
  });

  it('bad input is a 400 with the fields; no credentials a 401; a user or a reader a 403; an unknown id a 404', async () => {
    const bad = await api.call<ApiError>('POST', '/git-providers/github/pat', {
      token: admin,
      body: { name: '', token: '', base_url: 'ftp://example.com' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.map((e) => e.path).sort()).toEqual(['base_url', 'name', 'token']);
    expect((await api.call('GET', '/git-providers')).status).toBe(401);
    expect((await api.call('POST', '/git-providers/gitlab/pat', { body: { name: 'x', token: 'y' } })).status).toBe(401);
    const asUser = await api.call<ApiError>('POST', '/git-providers/gitlab/pat', {
      token: user.token,
      body: { name: 'x', token: GL_TOKEN, base_url: gitlab.baseUrl },
    });
    expect(asUser.status).toBe(403);
    expect((await api.call('GET', '/git-providers/999999', { token: admin })).status).toBe(404);
    expect((await api.call('GET', '/git-providers/999999/deletion-check', { token: admin })).status).toBe(404);
    expect((await api.call('DELETE', '/git-providers/999999', { token: admin })).status).toBe(404);
    expect((await api.call('GET', '/git-connections/999999/repositories', { token: admin })).status).toBe(404);
    expect((await api.call('POST', '/git-connections/999999/sync', { token: admin })).status).toBe(404);
    expect((await api.call('GET', '/repositories/nobody/nothing', { token: admin })).status).toBe(404);
    expect((await api.call('GET', '/repositories/999999/preset/live', { token: admin })).status).toBe(404);
  });

  it('an API key needs git:read to list and git:write to add', async () => {
    const reading = await createKey(api, admin, ['git:read'], { name: 'git reader' });
    expect((await api.call('GET', '/git-providers', { token: reading.secret })).status).toBe(200);
    const refused = await api.call<ApiError & { missing_permission?: string }>('POST', '/git-providers/github/pat', {
      token: reading.secret,
      body: { name: 'Via key', token: GH_TOKEN, base_url: github.baseUrl },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.missing_permission).toBe('git:write');
  });
});

describe('GitLab by token, with subgroups', () => {
  it('adds GitLab by token and syncs its projects, subgroup paths included', async () => {
    const created = await api.call<GitProvider>('POST', '/git-providers/gitlab/pat', {
      token: admin,
      body: { name: 'GitLab stand-in', token: GL_TOKEN, base_url: gitlab.baseUrl },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      provider_type: 'gitlab',
      account_login: 'lab-user',
      api_url: `${gitlab.baseUrl}/api/v4`,
    });
    expect(created.body.scopes).toContain('api');
    const connection = await connectionOf(created.body.id);
    expect(connection.repository_count).toBe(2);
    const repo = await api.call<Repository>(
      'GET',
      `/repositories/${encodeURIComponent('team/platform')}/svc?connection_id=${connection.id}`,
      {
        token: admin,
      },
    );
    expect(repo.status, JSON.stringify(repo.body)).toBe(200);
    expect(repo.body).toMatchObject({
      full_name: 'team/platform/svc',
      owner: 'team/platform',
      name: 'svc',
      default_branch: 'main',
    });
    const branches = await api.call<{ branches: { name: string; commit_sha: string }[] }>(
      'GET',
      `/repositories/${encodeURIComponent('team/platform')}/svc/branches?connection_id=${connection.id}`,
      { token: admin },
    );
    expect(branches.status).toBe(200);
    expect(branches.body.branches.map((b) => b.name)).toEqual(['main']);
  });

  it('a GitLab token without the api scope is refused', async () => {
    const narrow = await startGitHostStandIn({ kind: 'gitlab', token: 'glpat-narrow', scopes: ['read_api'] });
    try {
      const refused = await api.call<ApiError>('POST', '/git-providers/gitlab/pat', {
        token: admin,
        body: { name: 'Narrow lab', token: 'glpat-narrow', base_url: narrow.baseUrl },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.detail).toBe('The token lacks the api scope (it has: read_api)');
    } finally {
      await narrow.close();
    }
  });
});

describe('GitLab by OAuth', () => {
  it('the authorisation goes to GitLab and back: the code becomes the token, the account is connected', async () => {
    const app = { clientId: 'launchbay-app', clientSecret: 'app-secret-1' };
    const host = await startGitHostStandIn({ kind: 'gitlab', token: 'glpat-unused', login: 'oauth-user', oauthApp: app });
    try {
      await host.createRepo('oauth-user/app', { 'index.html': 'app' });
      const started = await api.call<{ provider: GitProvider; authorize_url: string; oauth_callback_url: string }>(
        'POST',
        '/git-providers/gitlab/oauth',
        {
          token: admin,
          body: { name: 'GitLab OAuth', base_url: host.baseUrl, client_id: app.clientId, client_secret: app.clientSecret },
        },
      );
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      expect(started.body.provider).toMatchObject({ auth_method: 'oauth', is_active: false, account_login: null });
      expect(started.body.oauth_callback_url).toBe(`${platform.url}/api/git-providers/gitlab/oauth/callback`);
      const authorize = new URL(started.body.authorize_url);
      expect(authorize.origin + authorize.pathname).toBe(`${host.baseUrl}/oauth/authorize`);
      expect(authorize.searchParams.get('client_id')).toBe(app.clientId);
      expect(authorize.searchParams.get('scope')).toBe('api');

      // The browser at GitLab: it approves and is sent back to the callback with a code.
      const atHost = await fetch(started.body.authorize_url, { redirect: 'manual' });
      expect(atHost.status).toBe(302);
      const back = new URL(atHost.headers.get('location') ?? '');
      expect(back.origin + back.pathname).toBe(started.body.oauth_callback_url);
      const callback = await fetch(back, { redirect: 'manual', headers: { authorization: `Bearer ${admin}` } });
      expect(callback.status).toBe(302);
      expect(callback.headers.get('location')).toBe(`/git-providers/${started.body.provider.id}`);

      const provider = await api.call<GitProvider>('GET', `/git-providers/${started.body.provider.id}`, { token: admin });
      expect(provider.body).toMatchObject({ is_active: true, account_login: 'oauth-user', connection_count: 1 });
      expect((await connectionOf(provider.body.id)).repository_count).toBe(1);
      // The state was for one use: replaying the callback opens nothing.
      const replay = await fetch(back, { redirect: 'manual', headers: { authorization: `Bearer ${admin}` } });
      expect(replay.headers.get('location')).toMatch(/^\/git-sources\/add\?error=/);

      // Authorised again (a revoked token, say): a new state, the same provider and account.
      const again = await api.call<{ authorize_url: string }>('POST', `/git-providers/${provider.body.id}/authorize`, {
        token: admin,
      });
      expect(again.status).toBe(200);
      const newState = new URL(again.body.authorize_url).searchParams.get('state');
      expect(newState).not.toBe(authorize.searchParams.get('state'));
      const backAgain = new URL((await fetch(again.body.authorize_url, { redirect: 'manual' })).headers.get('location') ?? '');
      const completed = await fetch(backAgain, { redirect: 'manual', headers: { authorization: `Bearer ${admin}` } });
      expect(completed.headers.get('location')).toBe(`/git-providers/${provider.body.id}`);
      expect((await connectionOf(provider.body.id)).account_login).toBe('oauth-user');
      expect((await api.call('POST', `/git-providers/${provider.body.id}/authorize`, { token: user.token })).status).toBe(403);
      expect((await api.call('POST', '/git-providers/999999/authorize', { token: admin })).status).toBe(404);
    } finally {
      await host.close();
    }
  });
});

describe('repositories, the live preset and projects from a provider', () => {
  let connectionId = 0;
  let providerId = 0;

  beforeAll(async () => {
    const provider = (await api.call<ProviderList>('GET', '/git-providers', { token: admin })).body.providers.find(
      (p) => p.name === 'GitHub stand-in',
    );
    if (!provider) throw new Error('the GitHub provider of the first test is missing');
    providerId = provider.id;
    connectionId = (await connectionOf(provider.id)).id;
  });

  it('reads a repository, its branches from the host now, and what its branch would build as', async () => {
    const site = await api.call<Repository>('GET', '/repositories/octo-user/site', { token: admin });
    expect(site.status).toBe(200);
    expect(site.body).toMatchObject({ connection_id: connectionId, description: 'The marketing site', default_branch: 'main' });
    // Read from the host now; while the host is down, the last synced copy.
    expect(github.requests.some((r) => r.method === 'GET' && r.path === '/api/v3/repos/octo-user/site')).toBe(true);
    github.failApiWith(503);
    try {
      const cached = await api.call<Repository>('GET', '/repositories/octo-user/site', { token: admin });
      expect(cached.status).toBe(200);
      expect(cached.body.full_name).toBe('octo-user/site');
    } finally {
      github.failApiWith(null);
    }
    const hosted = (await github.createRepo('octo-user/branchy', { 'index.html': 'one' })) ?? null;
    await hosted.addBranch('feature/login');
    await api.call('POST', `/git-connections/${connectionId}/sync`, { token: user.token });
    const branches = await api.call<{ branches: { name: string; commit_sha: string }[]; default_branch: string }>(
      'GET',
      '/repositories/octo-user/branchy/branches',
      { token: admin },
    );
    expect(branches.status).toBe(200);
    expect(branches.body.default_branch).toBe('main');
    expect(branches.body.branches.map((b) => b.name)).toEqual(['main', 'feature/login']);
    expect(branches.body.branches[0]?.commit_sha).toBe(await hosted.head());

    const web = (await api.call<Repository>('GET', '/repositories/acme/web', { token: admin })).body;
    const preset = await api.call<LivePreset>('GET', `/repositories/${web.id}/preset/live`, { token: admin });
    expect(preset.status, JSON.stringify(preset.body)).toBe(200);
    expect(preset.body).toMatchObject({ preset: 'vite', branch: 'main', has_launchbay_json: false, errors: [] });
    expect(preset.body.build_command).toMatch(/vite build|npm run build/);
    const missing = await api.call<ApiError>('GET', `/repositories/${web.id}/preset/live?branch=nope`, { token: admin });
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toMatch(/branch "nope" does not exist/);
  });

  it('a project from a repository deploys with the provider token; the provider in use cannot be deleted', async () => {
    const site = (await api.call<Repository>('GET', '/repositories/octo-user/site', { token: admin })).body;
    const created = await api.call<ProjectDetail>('POST', '/projects', {
      token: admin,
      body: { name: 'Octo Site', repository_id: site.id, branch: 'main' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const deployment = await waitUntil(
      async () => {
        const last = await api.call<Deployment>('GET', `/projects/${created.body.id}/last-deployment`, { token: admin });
        return ['ready', 'failed'].includes(last.body.status) ? last.body : null;
      },
      'the first deployment of Octo Site to settle',
      60_000,
    );
    expect(deployment.status, deployment.error ?? '').toBe('ready');
    const detail = await api.call<ProjectDetail>('GET', `/projects/${created.body.id}`, { token: admin });
    expect(detail.body.repository).toMatchObject({
      id: site.id,
      full_name: 'octo-user/site',
      connection_id: connectionId,
      provider_type: 'github',
    });
    expect(detail.body.has_git_token).toBe(false);

    const check = await api.call<{ can_delete: boolean; projects: { name: string }[] }>(
      'GET',
      `/git-providers/${providerId}/deletion-check`,
      { token: admin },
    );
    expect(check.body).toMatchObject({ can_delete: false, projects: [{ name: 'Octo Site' }] });
    for (const path of [`/git-providers/${providerId}`, `/git-providers/${providerId}/safe-delete`]) {
      const refused = await api.call<ApiError>('DELETE', path, { token: admin });
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toBe('The git provider GitHub stand-in is used by the project Octo Site: delete it first');
    }
    const connectionRefused = await api.call<ApiError>('DELETE', `/git-connections/${connectionId}`, { token: admin });
    expect(connectionRefused.status).toBe(409);

    // Both the repository id and a URL: refused before anything is created.
    const both = await api.call<ApiError>('POST', '/projects', {
      token: admin,
      body: { name: 'Both', repository_id: site.id, git_url: 'https://example.com/a.git', branch: 'main' },
    });
    expect(both.status).toBe(400);
    const wrongBranch = await api.call<ApiError>('POST', '/projects', {
      token: admin,
      body: { name: 'Wrong branch', repository_id: site.id, branch: 'nope' },
    });
    expect(wrongBranch.status).toBe(400);
    expect(wrongBranch.body.errors?.[0]?.path).toBe('branch');

    // Once the project is gone, so can the provider be.
    expect((await api.call('DELETE', `/projects/${created.body.id}`, { token: admin })).status).toBe(204);
    const deleted = await api.call('DELETE', `/git-providers/${providerId}/safe-delete`, { token: admin });
    expect(deleted.status).toBe(200);
    expect((await api.call('GET', `/git-providers/${providerId}`, { token: admin })).status).toBe(404);
    expect((await api.call('GET', `/git-connections/${connectionId}/repositories`, { token: admin })).status).toBe(404);
  });
});

describe('update-token and sync failures', () => {
  it('a revoked token shows on the connection at the next sync; a wrong token is refused, the right one mends it', async () => {
    const token = 'ghp_rotating_1';
    const host = await startGitHostStandIn({ kind: 'github', token, login: 'rotator' });
    try {
      await host.createRepo('rotator/one', { 'index.html': '1' });
      const created = await api.call<GitProvider>('POST', '/git-providers/github/pat', {
        token: admin,
        body: { name: 'Rotating', token, base_url: host.baseUrl },
      });
      expect(created.status).toBe(201);
      const connection = await connectionOf(created.body.id);
      host.failApiWith(401);
      const failed = await api.call<ApiError>('POST', `/git-connections/${connection.id}/sync`, { token: admin });
      expect(failed.status).toBe(400);
      expect((await connectionOf(created.body.id)).sync_error).toMatch(/refused the token/);
      host.failApiWith(null);

      const wrongToken = await api.call<ApiError>('POST', `/git-connections/${connection.id}/update-token`, {
        token: admin,
        body: { token: 'ghp_wrong' },
      });
      expect(wrongToken.status).toBe(400);
      const mended = await api.call<GitConnection>('POST', `/git-connections/${connection.id}/update-token`, {
        token: admin,
        body: { token },
      });
      expect(mended.status, JSON.stringify(mended.body)).toBe(200);
      expect(mended.body).toMatchObject({ sync_error: null, repository_count: 1 });
      expect(
        (await api.call('POST', `/git-connections/${connection.id}/update-token`, { token: user.token, body: { token } })).status,
      ).toBe(403);
      expect(
        (await api.call<ApiError>('POST', `/git-connections/${connection.id}/update-token`, { token: admin, body: {} })).status,
      ).toBe(400);
      expect((await api.call('DELETE', `/git-connections/${connection.id}`, { token: admin })).status).toBe(200);
    } finally {
      await host.close();
    }
  });
});
