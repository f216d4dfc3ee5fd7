import http from 'node:http';
import type { CustomDomain } from '@launchbay/contract';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { getThroughEdge } from '../helpers/edge';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/** A project's own domains through the real edge: served by an environment, or redirecting to another name. */

let platform: TestPlatform;
let api: Api;
let admin: string;
let git: GitServer;
const TOKEN = 'custom-domains-token';
let project: { id: number; slug: string; environments: { id: number; name: string }[] };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}`);
}

function location(host: string, path: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) =>
    http
      .get({ host: '127.0.0.1', port: platform.ctx.edge.port(), path, headers: { host }, agent: false }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, location: res.headers.location });
      })
      .on('error', reject),
  );
}

beforeAll(async () => {
  git = await startGitServer({ token: TOKEN });
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  const repo = await git.createRepo('acme/branded', { 'index.html': '<h1>branded site</h1>' });
  const created = await api.call<typeof project>('POST', '/projects', {
    token: admin,
    body: { name: 'Branded', git_url: repo.url, git_token: TOKEN, branch: 'main' },
  });
  expect(created.status).toBe(201);
  project = created.body;
  await until('the first deployment', async () => {
    const answer = await getThroughEdge(platform.ctx.edge.port(), `${project.slug}.localhost`);
    return answer.body.includes('branded site') ? true : undefined;
  });
}, 120_000);
afterAll(async () => {
  await platform?.close();
  await git?.close();
});

const base = () => `/projects/${project.id}/custom-domains`;

describe('project domains', { timeout: 120_000 }, () => {
  it('serves a domain from its environment, redirects www to it, and lists them per environment', async () => {
    const apex = await api.call<CustomDomain>('POST', base(), { token: admin, body: { domain: 'branded-shop.test' } });
    expect(apex.status, JSON.stringify(apex.body)).toBe(201);
    expect(apex.body).toMatchObject({
      domain: 'branded-shop.test',
      environment_name: 'production',
      redirect_to: null,
      certificate: { status: 'pending', expires_at: null },
    });
    const page = await until('the domain to serve', async () => {
      const answer = await getThroughEdge(platform.ctx.edge.port(), 'branded-shop.test');
      return answer.body.includes('branded site') ? answer : undefined;
    });
    expect(page.status).toBe(200);

    const www = await api.call<CustomDomain>('POST', base(), {
      token: admin,
      body: { domain: 'www.branded-shop.test', redirect_to: 'branded-shop.test' },
    });
    expect(www.status, JSON.stringify(www.body)).toBe(201);
    const redirected = await until('the redirect', async () => {
      const answer = await location('www.branded-shop.test:8080', '/shop?item=3');
      return answer.status === 308 ? answer : undefined;
    });
    expect(redirected.location).toBe('http://branded-shop.test:8080/shop?item=3');

    // And back: the apex redirects to www, which serves.
    const turned = await api.call<CustomDomain>('PUT', `${base()}/${www.body.id}`, { token: admin, body: { redirect_to: null } });
    expect(turned.status).toBe(200);
    const chain = await api.call<ApiError>('PUT', `${base()}/${apex.body.id}`, {
      token: admin,
      body: { redirect_to: 'www.branded-shop.test' },
    });
    expect(chain.status, JSON.stringify(chain.body)).toBe(200);
    await until('the apex to redirect to www', async () => {
      const answer = await location('branded-shop.test', '/');
      return answer.location === 'http://www.branded-shop.test/' ? true : undefined;
    });
    expect((await getThroughEdge(platform.ctx.edge.port(), 'www.branded-shop.test')).body).toContain('branded site');

    const production = project.environments.find((e) => e.name === 'production')?.id as number;
    const listed = await api.call<{ domains: CustomDomain[] }>(
      'GET',
      `/projects/${project.id}/environments/${production}/domains`,
      {
        token: admin,
      },
    );
    expect(listed.body.domains.map((d) => d.domain)).toEqual(['branded-shop.test', 'www.branded-shop.test']);
    const viaEnv = await api.call<CustomDomain>('POST', `/projects/${project.id}/environments/${production}/domains`, {
      token: admin,
      body: { domain: 'extra.branded-shop.test' },
    });
    expect(viaEnv.status).toBe(201);
    expect(
      (await api.call('DELETE', `/projects/${project.id}/environments/${production}/domains/${viaEnv.body.id}`, { token: admin }))
        .status,
    ).toBe(204);
    // The certificate side is in Domains.
    const inDomains = await api.call<{ domains: { domain: string }[] }>('GET', '/domains', { token: admin });
    expect(inDomains.body.domains.map((d) => d.domain)).toEqual(
      expect.arrayContaining(['branded-shop.test', 'www.branded-shop.test']),
    );
  });

  it('refuses what cannot work, with field errors; 401, 403 and 404 as for every route', async () => {
    const wildcard = await api.call<ApiError>('POST', base(), { token: admin, body: { domain: '*.branded.test' } });
    expect(wildcard.status).toBe(400);
    expect(wildcard.body.errors?.[0]).toEqual({
      path: 'domain',
      message: 'A project domain is one name; add a wildcard certificate in Domains',
    });
    const self = await api.call<ApiError>('POST', base(), {
      token: admin,
      body: { domain: 'self.branded.test', redirect_to: 'self.branded.test' },
    });
    expect(self.body.errors).toEqual([{ path: 'redirect_to', message: 'A domain cannot redirect to itself' }]);
    const nowhere = await api.call<ApiError>('POST', base(), {
      token: admin,
      body: { domain: 'a.branded.test', redirect_to: 'unknown.branded.test' },
    });
    expect(nowhere.body.errors).toEqual([{ path: 'redirect_to', message: 'Add that domain to this project first' }]);
    const own = await api.call<ApiError>('POST', base(), { token: admin, body: { domain: `${project.slug}.localhost` } });
    expect(own.status).toBe(409);
    const twice = await api.call<ApiError>('POST', base(), { token: admin, body: { domain: 'www.branded-shop.test' } });
    expect(twice.status).toBe(409);
    expect(twice.body.detail).toBe('www.branded-shop.test is a domain of Branded');
    const lb = await api.call<ApiError>('POST', '/lb/routes', {
      token: admin,
      body: { domain: 'www.branded-shop.test', target: { kind: 'upstreams', upstreams: ['127.0.0.1:9'] } },
    });
    expect(lb.status).toBe(409);
    const badEnvironment = await api.call<ApiError>('POST', base(), {
      token: admin,
      body: { domain: 'b.branded.test', environment_id: 999_999 },
    });
    expect(badEnvironment.body.errors).toEqual([{ path: 'environment_id', message: 'No such environment in this project' }]);
    const list = await api.call<{ domains: CustomDomain[] }>('GET', base(), { token: admin });
    const www = list.body.domains.find((d) => d.domain === 'www.branded-shop.test') as CustomDomain;
    const target = await api.call<ApiError>('DELETE', `${base()}/${www.id}`, { token: admin });
    expect(target.status).toBe(400);
    expect(target.body.errors?.[0]?.message).toBe('branded-shop.test redirects here: change or remove it first');

    expect((await api.call('GET', base())).status).toBe(401);
    const reader = await api.userWithRole(admin, 'reader');
    expect((await api.call('GET', base(), { token: reader.token })).status).toBe(200);
    expect((await api.call('POST', base(), { token: reader.token, body: { domain: 'r.branded.test' } })).status).toBe(403);
    expect((await api.call('GET', '/projects/999999/custom-domains', { token: admin })).status).toBe(404);
    expect((await api.call('DELETE', `${base()}/999999`, { token: admin })).status).toBe(404);
    expect((await api.call('PUT', `${base()}/999999`, { token: admin, body: {} })).status).toBe(404);
  });
});
