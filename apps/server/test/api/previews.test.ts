import crypto from 'node:crypto';
import type { Deployment, GitProvider, Preview, ProjectDetail, Repository } from '@launchbay/contract';
import { type GitHostStandIn, startGitHostStandIn, type TestRepo, waitUntil } from '@launchbay/testkit';
import webhookExamples from '@octokit/webhooks-examples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { getThroughEdge } from '../helpers/edge';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/**
 * Pull-request previews from GitHub's published pull_request payloads (@octokit/webhooks-examples,
 * pointed at the stand-in's repository): opened deploys the head commit to `pr-{number}-{project}`
 * with only the env vars marked for previews, synchronize deploys the new head, closed removes the
 * preview; a fork's pull request waits for approval; the preview's state goes back as a commit status.
 */

type PreviewList = { previews: Preview[]; previews_enabled: boolean; platform_previews_enabled: boolean };

let platform: TestPlatform;
let api: Api;
let admin: string;
let reader: { token: string };
let user: { token: string };
let github: GitHostStandIn;
let shop: TestRepo;
let project: ProjectDetail;
let secret = '';

/** The app prints the env vars the preview must and must not see. */
const SERVER_JS = `require('node:http').createServer((q, s) => s.end(JSON.stringify({
  version: process.env.APP_VERSION || 'none', publicApi: process.env.PUBLIC_API || null, secret: process.env.PROD_SECRET || null,
}))).listen(process.env.PORT);`;
const PACKAGE_JSON = JSON.stringify({ name: 'shop', scripts: { start: 'node server.js' } });

const edgePort = () => platform.ctx.edge.port();

function viaEdge(host: string) {
  return getThroughEdge(edgePort(), host);
}

function pullRequest(
  action: string,
  options: { number: number; sha: string; ref: string; headRepo?: string | null; title?: string },
) {
  const definition = (webhookExamples as unknown as { name: string; examples: Record<string, unknown>[] }[]).find(
    (d) => d.name === 'pull_request',
  );
  const example = definition?.examples.find((e) => e.action === action);
  if (!example) throw new Error(`no pull_request ${action} example`);
  const payload = structuredClone(example) as Record<string, unknown> & { pull_request: Record<string, unknown> };
  const pr = payload.pull_request;
  const head = pr.head as Record<string, unknown>;
  const base = pr.base as Record<string, unknown>;
  (base.repo as Record<string, unknown>).full_name = 'octo-user/shop';
  head.ref = options.ref;
  head.sha = options.sha;
  head.repo = options.headRepo === null ? null : { ...(head.repo as object), full_name: options.headRepo ?? 'octo-user/shop' };
  pr.number = options.number;
  pr.title = options.title ?? `Pull request ${options.number}`;
  return { ...payload, number: options.number };
}

async function send(payload: unknown, signWith = secret) {
  const body = JSON.stringify(payload);
  const response = await fetch(`${platform.url}/webhooks/git/${project.id}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'pull_request',
      'x-github-delivery': crypto.randomUUID(),
      'x-hub-signature-256': `sha256=${crypto.createHmac('sha256', signWith).update(body).digest('hex')}`,
    },
    body,
  });
  return {
    status: response.status,
    body: (await response.json()) as { outcome: string; detail: string; deployment_id: number | null },
  };
}

async function previews(): Promise<PreviewList> {
  const list = await api.call<PreviewList>('GET', `/projects/${project.id}/previews`, { token: admin });
  expect(list.status).toBe(200);
  return list.body;
}

async function settledDeployment(id: number): Promise<Deployment> {
  return waitUntil(
    async () => {
      const read = await api.call<Deployment>('GET', `/projects/${project.id}/deployments/${id}`, { token: admin });
      return ['ready', 'failed', 'crashed', 'cancelled'].includes(read.body.status) ? read.body : null;
    },
    `deployment ${id} to settle`,
    90_000,
  );
}

beforeAll(async () => {
  github = await startGitHostStandIn({ kind: 'github', token: 'ghp_previews_1' });
  shop = await github.createRepo('octo-user/shop', { 'package.json': PACKAGE_JSON, 'server.js': SERVER_JS });
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  reader = await api.userWithRole(admin, 'reader');
  user = await api.userWithRole(admin, 'user');
  expect(
    (
      await api.call('PUT', '/settings', {
        token: admin,
        body: { external_url: platform.url, preview_environments_enabled: true },
      })
    ).status,
  ).toBe(200);
  const provider = await api.call<GitProvider>('POST', '/git-providers/github/pat', {
    token: admin,
    body: { name: 'GitHub previews', token: github.token, base_url: github.baseUrl },
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  const repository = await api.call<Repository>('GET', '/repositories/octo-user/shop', { token: admin });
  const created = await api.call<ProjectDetail>('POST', '/projects', {
    token: admin,
    body: {
      name: 'Shop',
      repository_id: repository.body.id,
      branch: 'main',
      env_vars: [{ key: 'APP_VERSION', value: 'production' }],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  project = created.body;
  const production = project.environments[0]?.id ?? 0;
  // A production secret, and a value marked for previews.
  for (const body of [
    { key: 'PROD_SECRET', value: 'do-not-leak', environment_ids: [production] },
    { key: 'PUBLIC_API', value: 'https://api.example.com', environment_ids: [production], include_in_previews: true },
  ]) {
    const added = await api.call('POST', `/projects/${project.id}/env-vars`, { token: admin, body });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
  }
  const hook = github.hooks.find((h) => h.repo === 'octo-user/shop');
  secret = hook?.secret ?? '';
  expect(secret).not.toBe('');
});

afterAll(async () => {
  await platform?.close();
  await github?.close();
});

describe('pull-request previews', () => {
  it('with previews off for the project, a pull request deploys nothing', async () => {
    const sha = await shop.commit({ 'index.txt': 'off' }, 'While off', { branch: 'early' });
    const sent = await send(pullRequest('opened', { number: 3, sha, ref: 'early' }));
    expect(sent.body).toMatchObject({ outcome: 'ignored', detail: 'Pull request previews are off for this project' });
    expect((await previews()).previews).toEqual([]);
    const on = await api.call<ProjectDetail>('PATCH', `/projects/${project.id}/deployment-config`, {
      token: admin,
      body: { previews_enabled: true },
    });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.previews_enabled).toBe(true);
  });

  it('opened deploys the head to its own address with only the marked env vars; synchronize deploys the new head; closed removes it', async () => {
    const first = await shop.commit({ 'server.js': SERVER_JS.replace("'none'", "'feature-1'") }, 'Feature one', {
      branch: 'feature/cart',
    });
    const opened = await send(pullRequest('opened', { number: 42, sha: first, ref: 'feature/cart', title: 'Add a cart' }));
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({
      outcome: 'deployed',
      detail: `Deploying ${first.slice(0, 7)} of pull request #42 to its preview`,
    });
    const deployment = await settledDeployment(opened.body.deployment_id ?? 0);
    expect(deployment, deployment.error ?? '').toMatchObject({
      status: 'ready',
      commit_sha: first,
      trigger: 'preview',
      environment_name: 'PR #42',
    });

    const [preview] = (await previews()).previews;
    expect(preview).toMatchObject({
      pr_number: 42,
      title: 'Add a cart',
      branch: 'feature/cart',
      head_sha: first,
      from_fork: false,
      state: 'active',
      url: `http://pr-42-shop.localhost:${edgePort()}`,
      deployment_status: 'ready',
      deployment_commit_sha: first,
    });
    const served = await viaEdge('pr-42-shop.localhost');
    expect(served.status).toBe(200);
    // Its own code, the variable marked for previews, and no production secret.
    expect(JSON.parse(served.body)).toEqual({ version: 'feature-1', publicApi: 'https://api.example.com', secret: null });
    const production = await viaEdge('shop.localhost');
    expect(JSON.parse(production.body)).toMatchObject({ version: 'production', secret: 'do-not-leak' });
    // The preview's address went back to the pull request's commit.
    await waitUntil(() => github.statuses.find((s) => s.sha === first && s.state === 'success'), 'the success status');
    expect(github.statuses.find((s) => s.sha === first && s.state === 'success')).toMatchObject({
      repo: 'octo-user/shop',
      context: 'launchbay/preview',
      target_url: `http://pr-42-shop.localhost:${edgePort()}`,
    });

    const second = await shop.commit({ 'server.js': SERVER_JS.replace("'none'", "'feature-2'") }, 'Feature two', {
      branch: 'feature/cart',
    });
    const updated = await send(pullRequest('synchronize', { number: 42, sha: second, ref: 'feature/cart', title: 'Add a cart' }));
    expect(updated.body.outcome).toBe('deployed');
    expect((await settledDeployment(updated.body.deployment_id ?? 0)).commit_sha).toBe(second);
    expect((await previews()).previews).toHaveLength(1);

    const closed = await send(pullRequest('closed', { number: 42, sha: second, ref: 'feature/cart' }));
    expect(closed.body).toMatchObject({
      outcome: 'removed',
      detail: 'Pull request #42 was closed: its preview was stopped and removed',
    });
    expect((await previews()).previews).toEqual([]);
    await waitUntil(async () => (await viaEdge('pr-42-shop.localhost')).status === 404, 'the preview address to go');
    const envs = await api.call<ProjectDetail>('GET', `/projects/${project.id}`, { token: admin });
    expect(envs.body.environments.map((e) => e.name)).toEqual(['production']);
  });

  it('a pull request from a fork waits for approval, builds once approved, and asks again after a new commit', async () => {
    const sha = await shop.commit({ 'server.js': SERVER_JS }, 'From a fork', { branch: 'fork-work' });
    const opened = await send(pullRequest('opened', { number: 77, sha, ref: 'fork-work', headRepo: 'stranger/shop' }));
    expect(opened.body).toMatchObject({ outcome: 'awaiting_approval' });
    expect(opened.body.detail).toBe(
      'Pull request #77 comes from the fork stranger/shop: its preview waits for approval in the console',
    );
    const [waiting] = (await previews()).previews;
    expect(waiting).toMatchObject({ pr_number: 77, from_fork: true, state: 'awaiting_approval', deployment_id: null });
    expect(github.statuses.find((s) => s.sha === sha)).toMatchObject({ state: 'pending' });

    const approve = `/projects/${project.id}/previews/${waiting?.environment_id}/approve`;
    expect((await api.call('POST', approve, { token: reader.token })).status).toBe(403);
    expect((await api.call('POST', approve)).status).toBe(401);
    expect((await api.call('POST', `/projects/${project.id}/previews/999999/approve`, { token: user.token })).status).toBe(404);
    const approved = await api.call<Preview>('POST', approve, { token: user.token });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.state).toBe('active');
    const deployment = await settledDeployment(approved.body.deployment_id ?? 0);
    expect(deployment).toMatchObject({ status: 'ready', commit_sha: sha });
    const again = await api.call<ApiError>('POST', approve, { token: user.token });
    expect(again.status).toBe(409);

    const next = await shop.commit({ 'server.js': SERVER_JS.replace("'none'", "'fork-2'") }, 'More from the fork', {
      branch: 'fork-work',
    });
    const synchronized = await send(
      pullRequest('synchronize', { number: 77, sha: next, ref: 'fork-work', headRepo: 'stranger/shop' }),
    );
    expect(synchronized.body.outcome).toBe('awaiting_approval');
    expect((await previews()).previews[0]).toMatchObject({
      state: 'awaiting_approval',
      head_sha: next,
      deployment_commit_sha: sha,
    });
    // The approved commit keeps serving until the new one is approved.
    expect(JSON.parse((await viaEdge('pr-77-shop.localhost')).body).version).toBe('none');

    expect(
      (await send(pullRequest('closed', { number: 77, sha: next, ref: 'fork-work', headRepo: 'stranger/shop' }))).body.outcome,
    ).toBe('removed');
  });

  it('a forged pull request is a 401; the previews list needs credentials and a known project', async () => {
    const forged = await send(pullRequest('opened', { number: 90, sha: 'a'.repeat(40), ref: 'x' }), 'wrong-secret');
    expect(forged.status).toBe(401);
    expect((await previews()).previews).toEqual([]);
    expect((await api.call('GET', `/projects/${project.id}/previews`, { token: reader.token })).status).toBe(200);
    expect((await api.call('GET', `/projects/${project.id}/previews`)).status).toBe(401);
    expect((await api.call('GET', '/projects/999999/previews', { token: admin })).status).toBe(404);
  });
});

describe('GitLab merge requests', () => {
  it('a merge request opened deploys its preview, an update without new commits builds nothing, merged removes it', async () => {
    const gitlab = await startGitHostStandIn({ kind: 'gitlab', token: 'glpat-previews-1', login: 'lab-user' });
    try {
      const notes = await gitlab.createRepo('lab-user/notes', { 'index.html': '<p>main</p>' });
      const added = await api.call<GitProvider>('POST', '/git-providers/gitlab/pat', {
        token: admin,
        body: { name: 'GitLab previews', token: gitlab.token, base_url: gitlab.baseUrl },
      });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
      const repository = await api.call<Repository>('GET', '/repositories/lab-user/notes', { token: admin });
      const created = await api.call<ProjectDetail>('POST', '/projects', {
        token: admin,
        body: { name: 'Notes', repository_id: repository.body.id, branch: 'main' },
      });
      expect(created.status).toBe(201);
      await api.call('PATCH', `/projects/${created.body.id}/deployment-config`, {
        token: admin,
        body: { previews_enabled: true },
      });
      const token = gitlab.hooks.find((h) => h.repo === 'lab-user/notes')?.token ?? '';
      const sha = await notes.commit({ 'index.html': '<p>merge request 5</p>' }, 'MR work', { branch: 'mr-work' });
      // GitLab's documented merge request event, with the fields the platform reads.
      const mergeRequest = (action: string, extra: Record<string, unknown> = {}) => ({
        object_kind: 'merge_request',
        event_type: 'merge_request',
        user: { username: 'lab-user', name: 'Lab User' },
        project: { id: 1, path_with_namespace: 'lab-user/notes' },
        object_attributes: {
          iid: 5,
          title: 'Better notes',
          url: `${gitlab.baseUrl}/lab-user/notes/-/merge_requests/5`,
          action,
          state: action === 'merge' ? 'merged' : 'opened',
          source_branch: 'mr-work',
          target_branch: 'main',
          source_project_id: 1,
          target_project_id: 1,
          source: { path_with_namespace: 'lab-user/notes' },
          last_commit: { id: sha, message: 'MR work' },
          ...extra,
        },
      });
      const deliver = async (payload: unknown) => {
        const response = await fetch(`${platform.url}/webhooks/git/${created.body.id}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-gitlab-event': 'Merge Request Hook',
            'x-gitlab-token': token,
            'x-gitlab-event-uuid': crypto.randomUUID(),
          },
          body: JSON.stringify(payload),
        });
        return (await response.json()) as { outcome: string; deployment_id: number | null };
      };
      const opened = await deliver(mergeRequest('open'));
      expect(opened.outcome).toBe('deployed');
      const deployment = await waitUntil(
        async () => {
          const read = await api.call<Deployment>('GET', `/projects/${created.body.id}/deployments/${opened.deployment_id}`, {
            token: admin,
          });
          return ['ready', 'failed'].includes(read.body.status) ? read.body : null;
        },
        'the merge request preview',
        60_000,
      );
      expect(deployment).toMatchObject({ status: 'ready', commit_sha: sha });
      expect((await viaEdge('pr-5-notes.localhost')).body).toContain('merge request 5');
      expect((await deliver(mergeRequest('update'))).outcome).toBe('ignored');
      expect((await deliver(mergeRequest('merge'))).outcome).toBe('removed');
      const list = await api.call<PreviewList>('GET', `/projects/${created.body.id}/previews`, { token: admin });
      expect(list.body.previews).toEqual([]);
      await api.call('DELETE', `/projects/${created.body.id}`, { token: admin });
    } finally {
      await gitlab.close();
    }
  });
});
