import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type GitHostStandIn, startGitHostStandIn, type TestRepo } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The GitHub/GitLab stand-in of the testkit: the hosts' REST shapes, auth errors and pagination
 * headers, hooks and statuses recorded, real branch heads, GitLab OAuth, and git clones through
 * the same host with and without the token.
 */

const TOKEN = 'pat-0123456789';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-git-host-'));

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

type Json = Record<string, unknown>;
type Answer = { status: number; headers: Headers; body: unknown };

async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    redirect: 'manual',
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

const asList = (answer: Answer) => answer.body as Json[];
const asObject = (answer: Answer) => answer.body as Json;

/** `git clone` with the real client and no global config; resolves with the exit code instead of throwing. */
function clone(url: string, into: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['clone', '--quiet', url, into],
      {
        cwd: work,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: work,
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_TERMINAL_PROMPT: '0',
        },
      },
      (error, _stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

const withCredentials = (url: string, user: string, password: string) => {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = password;
  return parsed.toString();
};

describe('GitHub stand-in', () => {
  let host: GitHostStandIn;
  let site: TestRepo;
  const auth = { authorization: `token ${TOKEN}` };

  beforeAll(async () => {
    host = await startGitHostStandIn({ kind: 'github', token: TOKEN, login: 'octo' });
    site = await host.createRepo('octo/site', { 'index.html': '<h1>hi</h1>' }, { private: true, description: 'The site' });
    // Created out of order: the listing sorts by full_name.
    for (const name of ['acme/zeta', 'acme/alpha', 'octo/beta', 'acme/gamma']) await host.createRepo(name, { 'README.md': name });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('answers the token owner with its scopes, and 401 with GitHub bodies otherwise', async () => {
    expect(host.apiUrl).toBe(`${host.baseUrl}/api/v3`);
    const me = await call(`${host.apiUrl}/user`, { headers: auth });
    expect(me.status).toBe(200);
    expect(me.headers.get('x-oauth-scopes')).toBe('repo, admin:repo_hook');
    expect(asObject(me)).toMatchObject({ login: 'octo', type: 'User' });
    expect((await call(`${host.apiUrl}/user`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);

    const bad = await call(`${host.apiUrl}/user`, { headers: { authorization: 'token nope' } });
    expect(bad.status).toBe(401);
    expect(asObject(bad)).toMatchObject({ message: 'Bad credentials', documentation_url: expect.any(String) });
    const missing = await call(`${host.apiUrl}/user/repos`);
    expect(missing.status).toBe(401);
    expect(asObject(missing).message).toBe('Requires authentication');
    expect(host.requests).toContainEqual({ method: 'GET', path: '/api/v3/user', query: '', status: 401 });
  });

  it('pages /user/repos by full_name with a Link header like GitHub', async () => {
    const first = await call(`${host.apiUrl}/user/repos?per_page=2`, { headers: auth });
    expect(first.headers.get('link')).toBe(
      `<${host.apiUrl}/user/repos?per_page=2&page=2>; rel="next", <${host.apiUrl}/user/repos?per_page=2&page=3>; rel="last"`,
    );
    const names = asList(first).map((r) => r.full_name);
    let next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    let pages = 1;
    let last: Answer = first;
    while (next) {
      last = await call(next, { headers: auth });
      names.push(...asList(last).map((r) => r.full_name));
      next = /<([^>]+)>; rel="next"/.exec(last.headers.get('link') ?? '')?.[1];
      pages++;
    }
    expect(pages).toBe(3);
    expect(names).toEqual(['acme/alpha', 'acme/gamma', 'acme/zeta', 'octo/beta', 'octo/site']);
    expect(last.headers.get('link')).toBe(
      `<${host.apiUrl}/user/repos?per_page=2&page=2>; rel="prev", <${host.apiUrl}/user/repos?per_page=2&page=1>; rel="first"`,
    );
    expect((await call(`${host.apiUrl}/user/repos`, { headers: auth })).headers.get('link')).toBeNull();
  });

  it('describes a repository with GitHub fields and 404s an unknown one', async () => {
    const repo = asObject(await call(`${host.apiUrl}/repos/octo/site`, { headers: auth }));
    expect(repo).toMatchObject({
      name: 'site',
      full_name: 'octo/site',
      private: true,
      visibility: 'private',
      description: 'The site',
      default_branch: 'main',
      clone_url: site.url,
      html_url: `${host.baseUrl}/octo/site`,
      owner: { login: 'octo', type: 'User' },
    });
    expect(site.url).toBe(`${host.baseUrl}/octo/site.git`);
    expect(typeof repo.id).toBe('number');
    expect(repo.pushed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const missing = await call(`${host.apiUrl}/repos/octo/nothing`, { headers: auth });
    expect(missing.status).toBe(404);
    expect(asObject(missing).message).toBe('Not Found');
  });

  it('lists the real branch heads and reads commits', async () => {
    const sha = await site.commit({ 'feature.txt': 'x' }, 'Add the feature\n\nWith a body.', { branch: 'feature' });
    const branches = asList(await call(`${host.apiUrl}/repos/octo/site/branches`, { headers: auth }));
    expect(branches).toEqual([
      { name: 'feature', commit: { sha, url: `${host.apiUrl}/repos/octo/site/commits/${sha}` }, protected: false },
      { name: 'main', commit: { sha: await site.head(), url: expect.any(String) }, protected: false },
    ]);
    const commit = await call(`${host.apiUrl}/repos/octo/site/commits/feature`, { headers: auth });
    expect(asObject(commit)).toMatchObject({
      sha,
      commit: { message: 'Add the feature\n\nWith a body.', author: { name: 'Launchbay Test', date: expect.any(String) } },
    });
    expect((await call(`${host.apiUrl}/repos/octo/site/commits/nope`, { headers: auth })).status).toBe(422);
  });

  it('creates, lists and deletes hooks', async () => {
    const created = await call(`${host.apiUrl}/repos/octo/site/hooks`, {
      method: 'POST',
      headers: auth,
      body: {
        name: 'web',
        active: true,
        events: ['push'],
        config: { url: 'http://hook.test/gh', content_type: 'json', secret: 's3' },
      },
    });
    expect(created.status).toBe(201);
    const hook = asObject(created);
    expect(hook).toMatchObject({ type: 'Repository', name: 'web', active: true, events: ['push'] });
    expect(hook.config).toEqual({ url: 'http://hook.test/gh', content_type: 'json', insecure_ssl: '0', secret: '********' });
    expect(host.hooks).toEqual([
      { id: hook.id, repo: 'octo/site', url: 'http://hook.test/gh', secret: 's3', events: ['push'], active: true },
    ]);
    const listed = asList(await call(`${host.apiUrl}/repos/octo/site/hooks`, { headers: auth }));
    expect(listed.map((h) => h.id)).toEqual([hook.id]);

    expect((await call(`${host.apiUrl}/repos/octo/site/hooks/${hook.id}`, { method: 'DELETE', headers: auth })).status).toBe(204);
    expect(host.hooks).toEqual([]);
    expect((await call(`${host.apiUrl}/repos/octo/site/hooks/${hook.id}`, { method: 'DELETE', headers: auth })).status).toBe(404);
  });

  it('records commit statuses', async () => {
    const sha = await site.head();
    const answer = await call(`${host.apiUrl}/repos/octo/site/statuses/${sha}`, {
      method: 'POST',
      headers: auth,
      body: { state: 'success', target_url: 'http://lb.test/d/1', description: 'Deployed', context: 'launchbay' },
    });
    expect(answer.status).toBe(201);
    expect(asObject(answer)).toMatchObject({ state: 'success', context: 'launchbay', target_url: 'http://lb.test/d/1' });
    expect(host.statuses).toEqual([
      {
        repo: 'octo/site',
        sha,
        state: 'success',
        target_url: 'http://lb.test/d/1',
        description: 'Deployed',
        context: 'launchbay',
      },
    ]);
    const invalid = await call(`${host.apiUrl}/repos/octo/site/statuses/${sha}`, {
      method: 'POST',
      headers: auth,
      body: { state: 'done' },
    });
    expect(invalid.status).toBe(422);
  });

  it('serves git clones on the same host with the token only, while API failures are scripted', async () => {
    const ok = await clone(withCredentials(site.url, 'x-access-token', TOKEN), 'gh-ok');
    expect(ok).toMatchObject({ code: 0 });
    expect(fs.readFileSync(path.join(work, 'gh-ok', 'index.html'), 'utf8')).toBe('<h1>hi</h1>');
    expect(site.fetchCount()).toBeGreaterThanOrEqual(1);

    expect((await clone(site.url, 'gh-none')).code).not.toBe(0);
    expect((await clone(withCredentials(site.url, 'x-access-token', 'wrong'), 'gh-wrong')).code).not.toBe(0);

    host.failApiWith(503);
    const failing = await call(`${host.apiUrl}/user`, { headers: auth });
    expect(failing.status).toBe(503);
    // Only the API fails: git still works.
    expect((await clone(withCredentials(site.url, 'x-access-token', TOKEN), 'gh-during-outage')).code).toBe(0);
    host.failApiWith(null);
    expect((await call(`${host.apiUrl}/user`, { headers: auth })).status).toBe(200);
  });
});

describe('GitLab stand-in', () => {
  let host: GitHostStandIn;
  let app: TestRepo;
  const auth = { 'private-token': TOKEN };
  const oauthApp = { clientId: 'lb-client', clientSecret: 'lb-secret' };

  beforeAll(async () => {
    host = await startGitHostStandIn({ kind: 'gitlab', token: TOKEN, login: 'tanuki', maxPerPage: 2, oauthApp });
    app = await host.createRepo('tanuki/app', { 'main.js': 'console.log(1)' }, { branch: 'master' });
    for (const name of ['team/one', 'team/two', 'team/sub/three', 'tanuki/four'])
      await host.createRepo(name, { 'README.md': name });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('answers the token owner and its scopes, and 401 with GitLab bodies otherwise', async () => {
    expect(host.apiUrl).toBe(`${host.baseUrl}/api/v4`);
    expect(asObject(await call(`${host.apiUrl}/user`, { headers: auth }))).toMatchObject({ id: 1, username: 'tanuki' });
    const self = await call(`${host.apiUrl}/personal_access_tokens/self`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(asObject(self)).toMatchObject({ revoked: false, active: true, scopes: ['api'], expires_at: null });

    const attempts: Record<string, string>[] = [{}, { 'private-token': 'nope' }, { authorization: 'Bearer nope' }];
    for (const headers of attempts) {
      const denied = await call(`${host.apiUrl}/user`, { headers });
      expect(denied.status).toBe(401);
      expect(denied.body).toEqual({ message: '401 Unauthorized' });
    }
  });

  it('pages projects with X-* and Link headers, capped at maxPerPage', async () => {
    const url = (page: number) => `${host.apiUrl}/projects?membership=true&order_by=id&sort=asc&per_page=50&page=${page}`;
    const link = (page: number) => `${host.apiUrl}/projects?membership=true&order_by=id&sort=asc&per_page=2&page=${page}`;
    const paths: unknown[] = [];
    const pages: Answer[] = [];
    for (let page = 1; page <= 3; page++) {
      const answer = await call(url(page), { headers: auth });
      expect(answer.status).toBe(200);
      pages.push(answer);
      paths.push(...asList(answer).map((p) => p.path_with_namespace));
    }
    expect(paths).toEqual(['tanuki/app', 'team/one', 'team/two', 'team/sub/three', 'tanuki/four']);
    const [first, second, third] = pages.map((p) => p.headers);
    expect(first?.get('x-total')).toBe('5');
    expect(first?.get('x-total-pages')).toBe('3');
    expect(first?.get('x-per-page')).toBe('2');
    expect(first?.get('x-page')).toBe('1');
    expect(first?.get('x-next-page')).toBe('2');
    expect(first?.get('link')).toBe(`<${link(2)}>; rel="next", <${link(1)}>; rel="first", <${link(3)}>; rel="last"`);
    expect(second?.get('x-next-page')).toBe('3');
    expect(second?.get('x-prev-page')).toBe('1');
    expect(third?.get('x-next-page')).toBe('');
    expect(third?.get('link')).toBe(`<${link(2)}>; rel="prev", <${link(1)}>; rel="first", <${link(3)}>; rel="last"`);
  });

  it('finds a project by id or encoded path with GitLab fields', async () => {
    const byPath = asObject(await call(`${host.apiUrl}/projects/${encodeURIComponent('tanuki/app')}`, { headers: auth }));
    expect(byPath).toMatchObject({
      name: 'app',
      path_with_namespace: 'tanuki/app',
      default_branch: 'master',
      visibility: 'public',
      http_url_to_repo: app.url,
      web_url: `${host.baseUrl}/tanuki/app`,
      namespace: { kind: 'user', full_path: 'tanuki' },
      empty_repo: false,
    });
    const byId = asObject(await call(`${host.apiUrl}/projects/${byPath.id}`, { headers: auth }));
    expect(byId.path_with_namespace).toBe('tanuki/app');
    const nested = asObject(await call(`${host.apiUrl}/projects/${encodeURIComponent('team/sub/three')}`, { headers: auth }));
    expect(nested.namespace).toMatchObject({ kind: 'group', full_path: 'team/sub' });
    const missing = await call(`${host.apiUrl}/projects/${encodeURIComponent('tanuki/none')}`, { headers: auth });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Project Not Found' });
  });

  it('lists the real branch heads after a commit and reads commits', async () => {
    const sha = await app.commit({ 'next.js': '2' }, 'Next step', { branch: 'develop' });
    const answer = await call(`${host.apiUrl}/projects/${encodeURIComponent('tanuki/app')}/repository/branches`, {
      headers: auth,
    });
    expect(answer.headers.get('x-total')).toBe('2');
    const branches = asList(answer);
    expect(branches.map((b) => [b.name, (b.commit as Json).id, b.default])).toEqual([
      ['develop', sha, false],
      ['master', await app.head(), true],
    ]);
    expect(branches[0]?.commit).toMatchObject({ short_id: sha.slice(0, 8), title: 'Next step', message: 'Next step\n' });
    const commit = await call(`${host.apiUrl}/projects/${encodeURIComponent('tanuki/app')}/repository/commits/develop`, {
      headers: auth,
    });
    expect(asObject(commit)).toMatchObject({ id: sha, title: 'Next step' });
    const missing = await call(`${host.apiUrl}/projects/${encodeURIComponent('tanuki/app')}/repository/commits/nope`, {
      headers: auth,
    });
    expect(missing.body).toEqual({ message: '404 Commit Not Found' });
  });

  it('creates, lists and deletes hooks and records statuses', async () => {
    const project = `${host.apiUrl}/projects/${encodeURIComponent('tanuki/app')}`;
    const created = await call(`${project}/hooks`, {
      method: 'POST',
      headers: auth,
      body: { url: 'http://hook.test/gl', token: 'tok', push_events: true, merge_requests_events: true },
    });
    expect(created.status).toBe(201);
    const hook = asObject(created);
    expect(hook).toMatchObject({
      url: 'http://hook.test/gl',
      push_events: true,
      merge_requests_events: true,
      tag_push_events: false,
    });
    expect(hook).not.toHaveProperty('token');
    expect(host.hooks).toEqual([
      {
        id: hook.id,
        repo: 'tanuki/app',
        url: 'http://hook.test/gl',
        token: 'tok',
        events: ['push_events', 'merge_requests_events'],
        active: true,
      },
    ]);
    expect(asList(await call(`${project}/hooks`, { headers: auth })).map((h) => h.id)).toEqual([hook.id]);
    expect((await call(`${project}/hooks/${hook.id}`, { method: 'DELETE', headers: auth })).status).toBe(204);
    expect(host.hooks).toEqual([]);
    expect((await call(`${project}/hooks/${hook.id}`, { method: 'DELETE', headers: auth })).status).toBe(404);

    const sha = await app.head();
    const status = await call(`${project}/statuses/${sha}`, {
      method: 'POST',
      headers: auth,
      body: { state: 'running', name: 'launchbay', target_url: 'http://lb.test/d/2' },
    });
    expect(status.status).toBe(201);
    expect(asObject(status)).toMatchObject({ sha, status: 'running', name: 'launchbay', ref: 'master' });
    expect(host.statuses).toEqual([
      { repo: 'tanuki/app', sha, state: 'running', target_url: 'http://lb.test/d/2', context: 'launchbay' },
    ]);
  });

  it('runs the OAuth code flow: authorize, token, API and git with the access token, refresh', async () => {
    const redirectUri = 'http://platform.test/oauth/gitlab/callback';
    const authorize = (clientId: string) =>
      call(
        `${host.baseUrl}/oauth/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', state: 'st8', scope: 'api read_user' })}`,
      );
    expect((await authorize('unknown')).status).toBe(400);
    const approved = await authorize(oauthApp.clientId);
    expect(approved.status).toBe(302);
    const location = new URL(approved.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('state')).toBe('st8');
    const code = location.searchParams.get('code') ?? '';

    const form = (fields: Record<string, string>) =>
      fetch(`${host.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      });
    const exchange = {
      grant_type: 'authorization_code',
      code,
      client_id: oauthApp.clientId,
      client_secret: oauthApp.clientSecret,
      redirect_uri: redirectUri,
    };
    const granted = await form(exchange);
    expect(granted.status).toBe(200);
    const tokens = (await granted.json()) as Json;
    expect(tokens).toMatchObject({
      token_type: 'Bearer',
      expires_in: 7200,
      scope: 'api read_user',
      created_at: expect.any(Number),
    });
    const access = String(tokens.access_token);

    const me = await call(`${host.apiUrl}/user`, { headers: { authorization: `Bearer ${access}` } });
    expect(asObject(me).username).toBe('tanuki');
    expect((await clone(withCredentials(app.url, 'oauth2', access), 'gl-oauth')).code).toBe(0);

    // A code works once.
    const reused = await form(exchange);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await form({ ...exchange, client_secret: 'wrong' })).status).toBe(401);

    // JSON works as well as a form; the refresh retires the old access token.
    const refresh = await call(`${host.baseUrl}/oauth/token`, {
      method: 'POST',
      body: {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: oauthApp.clientId,
        client_secret: oauthApp.clientSecret,
      },
    });
    expect(refresh.status).toBe(200);
    const refreshed = asObject(refresh);
    expect(refreshed.access_token).not.toBe(access);
    expect((await call(`${host.apiUrl}/user`, { headers: { authorization: `Bearer ${refreshed.access_token}` } })).status).toBe(
      200,
    );
    expect((await call(`${host.apiUrl}/user`, { headers: { authorization: `Bearer ${access}` } })).status).toBe(401);
  });

  it('serves git clones with the PAT and refuses them without it', async () => {
    expect((await clone(withCredentials(app.url, 'oauth2', TOKEN), 'gl-ok')).code).toBe(0);
    expect(fs.readFileSync(path.join(work, 'gl-ok', 'main.js'), 'utf8')).toBe('console.log(1)');
    expect((await clone(app.url, 'gl-none')).code).not.toBe(0);
  });
});
