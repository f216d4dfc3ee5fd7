import crypto from 'node:crypto';
import type { Deployment, GitProvider, ProjectDetail, Repository, WebhookDelivery } from '@launchbay/contract';
import { type GitHostStandIn, startGitHostStandIn, type TestRepo, waitUntil } from '@launchbay/testkit';
import webhookExamples from '@octokit/webhooks-examples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollBranches } from '../../src/modules/webhooks/poller';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/**
 * Deploy on push: a project from a connected repository gets its webhook registered on the host
 * (a stand-in for GitHub's and GitLab's APIs), deliveries are verified (GitHub's HMAC-SHA256, GitLab's
 * token) before anything is read, a push to the environment's branch deploys that exact commit,
 * the same delivery twice deploys once, and the project's deliveries list says what came of each.
 * GitHub payloads are the published examples of @octokit/webhooks-examples, pointed at the test's
 * repository and commit.
 */

type Deliveries = {
  deliveries: WebhookDelivery[];
  webhook_url: string | null;
  webhook_registered: boolean;
  automatic_deploy: boolean;
};

let platform: TestPlatform;
let api: Api;
let admin: string;
let reader: { token: string };
let github: GitHostStandIn;
let gitlab: GitHostStandIn;
let site: TestRepo;
let notes: TestRepo;

function example(name: string, pick: (payload: Record<string, unknown>) => boolean): Record<string, unknown> {
  const definition = (webhookExamples as unknown as { name: string; examples: Record<string, unknown>[] }[]).find(
    (d) => d.name === name,
  );
  const found = definition?.examples.find(pick);
  if (!found) throw new Error(`no ${name} example matches`);
  return structuredClone(found);
}

/** GitHub's push example, for a push of `sha` to `branch` of the stand-in's repository. */
function githubPush(repo: TestRepo, branch: string, sha: string) {
  const payload = example('push', (p) => p.ref === 'refs/heads/master');
  const repository = payload.repository as Record<string, unknown>;
  repository.full_name = repo.name;
  repository.name = repo.name.split('/')[1];
  return { ...payload, ref: `refs/heads/${branch}`, after: sha, deleted: false };
}

function signGithub(secret: string, body: string) {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

async function sendGithub(projectId: number, event: string, payload: unknown, options: { secret: string; delivery?: string }) {
  const body = JSON.stringify(payload);
  const response = await fetch(`${platform.url}/webhooks/git/${projectId}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': options.delivery ?? crypto.randomUUID(),
      'x-hub-signature-256': signGithub(options.secret, body),
      'user-agent': 'GitHub-Hookshot/test',
    },
    body,
  });
  return {
    status: response.status,
    body: (await response.json()) as { outcome: string; detail: string; deployment_id: number | null },
  };
}

async function createFromRepository(name: string, fullName: string): Promise<ProjectDetail> {
  const repository = await api.call<Repository>('GET', `/repositories/${fullName}`, { token: admin });
  expect(repository.status, JSON.stringify(repository.body)).toBe(200);
  const created = await api.call<ProjectDetail>('POST', '/projects', {
    token: admin,
    body: { name, repository_id: repository.body.id, branch: 'main' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await settled(created.body.id);
  return created.body;
}

async function settled(projectId: number, sha?: string): Promise<Deployment> {
  return waitUntil(
    async () => {
      const last = await api.call<Deployment>('GET', `/projects/${projectId}/last-deployment`, { token: admin });
      if (last.status !== 200) return null;
      if (sha && last.body.commit_sha !== sha) return null;
      return ['ready', 'failed', 'crashed'].includes(last.body.status) ? last.body : null;
    },
    `a settled deployment of project ${projectId}${sha ? ` at ${sha.slice(0, 7)}` : ''}`,
    60_000,
  );
}

async function deploymentCount(projectId: number): Promise<number> {
  const list = await api.call<{ total: number }>('GET', `/projects/${projectId}/deployments`, { token: admin });
  return list.body.total;
}

async function deliveries(projectId: number): Promise<Deliveries> {
  const list = await api.call<Deliveries>('GET', `/projects/${projectId}/webhook-deliveries`, { token: admin });
  expect(list.status).toBe(200);
  return list.body;
}

beforeAll(async () => {
  github = await startGitHostStandIn({ kind: 'github', token: 'ghp_webhooks_1' });
  gitlab = await startGitHostStandIn({ kind: 'gitlab', token: 'glpat-webhooks-1', login: 'lab-user' });
  site = await github.createRepo('octo-user/hooked', { 'index.html': '<h1>v1</h1>' });
  notes = await gitlab.createRepo('lab-user/notes', { 'index.html': '<p>notes v1</p>' });
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  reader = await api.userWithRole(admin, 'reader');
  // Hosts can reach the platform at its external URL: webhooks are registered (else it polls).
  const settings = await api.call('PUT', '/settings', { token: admin, body: { external_url: platform.url } });
  expect(settings.status, JSON.stringify(settings.body)).toBe(200);
  for (const [type, host] of [
    ['github', github],
    ['gitlab', gitlab],
  ] as const) {
    const added = await api.call<GitProvider>('POST', `/git-providers/${type}/pat`, {
      token: admin,
      body: { name: `${type} hooks`, token: host.token, base_url: host.baseUrl },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
  }
});

afterAll(async () => {
  await platform?.close();
  await github?.close();
  await gitlab?.close();
});

describe('GitHub push webhooks', () => {
  let project: ProjectDetail;
  let secret = '';

  beforeAll(async () => {
    project = await createFromRepository('Hooked', 'octo-user/hooked');
    const hook = github.hooks.find((h) => h.repo === 'octo-user/hooked');
    if (!hook?.secret) throw new Error('no webhook was registered on the host');
    secret = hook.secret;
  });

  it('registers a signed push and pull-request hook on the repository', async () => {
    const hook = github.hooks.find((h) => h.repo === 'octo-user/hooked');
    expect(hook).toMatchObject({ url: `${platform.url}/webhooks/git/${project.id}`, active: true });
    expect(hook?.events).toEqual(expect.arrayContaining(['push', 'pull_request']));
    expect(secret.length).toBeGreaterThanOrEqual(32);
    const detail = await api.call<ProjectDetail>('GET', `/projects/${project.id}`, { token: admin });
    expect(detail.body.repository?.webhook_registered).toBe(true);
    const list = await deliveries(project.id);
    expect(list).toMatchObject({
      webhook_url: `${platform.url}/webhooks/git/${project.id}`,
      webhook_registered: true,
      automatic_deploy: true,
    });
  });

  it('a push to the branch deploys exactly the pushed commit; the same delivery again deploys nothing more', async () => {
    const sha = await site.commit({ 'index.html': '<h1>v2</h1>' }, 'Second version');
    const delivery = crypto.randomUUID();
    const before = await deploymentCount(project.id);
    const sent = await sendGithub(project.id, 'push', githubPush(site, 'main', sha), { secret, delivery });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ outcome: 'deployed', detail: `Deploying ${sha.slice(0, 7)} of main to production` });
    const deployment = await settled(project.id, sha);
    expect(deployment).toMatchObject({ status: 'ready', commit_sha: sha, trigger: 'webhook', commit_message: 'Second version' });
    expect(sent.body.deployment_id).toBe(deployment.id);

    const again = await sendGithub(project.id, 'push', githubPush(site, 'main', sha), { secret, delivery });
    expect(again.status).toBe(200);
    expect(again.body.outcome).toBe('duplicate');
    expect(await deploymentCount(project.id)).toBe(before + 1);
    const list = await deliveries(project.id);
    expect(list.deliveries.filter((d) => d.delivery_id === delivery)).toHaveLength(1);
    expect(list.deliveries[0]).toMatchObject({
      delivery_id: delivery,
      event: 'push',
      outcome: 'deployed',
      commit_sha: sha,
      ref: 'refs/heads/main',
    });
  });

  it('a bad signature is a 401 that deploys nothing, and the deliveries list shows it', async () => {
    const sha = await site.commit({ 'index.html': '<h1>forged</h1>' }, 'Forged');
    const before = await deploymentCount(project.id);
    const forged = await sendGithub(project.id, 'push', githubPush(site, 'main', sha), { secret: 'not-the-secret' });
    expect(forged.status).toBe(401);
    const unsigned = await fetch(`${platform.url}/webhooks/git/${project.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
      body: JSON.stringify(githubPush(site, 'main', sha)),
    });
    expect(unsigned.status).toBe(401);
    expect(await deploymentCount(project.id)).toBe(before);
    const [last] = (await deliveries(project.id)).deliveries;
    expect(last).toMatchObject({ outcome: 'rejected', event: 'push' });
    expect(last?.detail).toMatch(/signature .* does not match/);
  });

  it('a push to another branch, a deleted branch or a tag does nothing; with automatic deploys off neither does the branch', async () => {
    const before = await deploymentCount(project.id);
    const other = await site.commit({ 'index.html': 'feature' }, 'Feature', { branch: 'feature/x' });
    const sent = await sendGithub(project.id, 'push', githubPush(site, 'feature/x', other), { secret });
    expect(sent.body).toMatchObject({ outcome: 'ignored', detail: 'No environment deploys the branch feature/x' });
    const deleted = await sendGithub(
      project.id,
      'push',
      { ...githubPush(site, 'main', '0'.repeat(40)), deleted: true },
      { secret },
    );
    expect(deleted.body).toMatchObject({ outcome: 'ignored', detail: 'The branch main was deleted' });
    const tag = example('push', (p) => p.ref === 'refs/tags/simple-tag' && typeof p.after === 'string' && !/^0+$/.test(p.after));
    const tagged = await sendGithub(project.id, 'push', tag, { secret });
    expect(tagged.body).toMatchObject({ outcome: 'ignored', detail: 'refs/tags/simple-tag is not a branch' });

    const off = await api.call<ProjectDetail>('POST', `/projects/${project.id}/automatic-deploy`, {
      token: admin,
      body: { enabled: false },
    });
    expect(off.status).toBe(200);
    expect(off.body.automatic_deploy).toBe(false);
    const sha = await site.commit({ 'index.html': '<h1>v3</h1>' }, 'Third');
    const quiet = await sendGithub(project.id, 'push', githubPush(site, 'main', sha), { secret });
    expect(quiet.body).toMatchObject({ outcome: 'ignored', detail: 'Automatic deploys are off for this project' });
    expect(await deploymentCount(project.id)).toBe(before);
    const on = await api.call<ProjectDetail>('POST', `/projects/${project.id}/automatic-deploy`, {
      token: admin,
      body: { enabled: true },
    });
    expect(on.body.automatic_deploy).toBe(true);
  });

  it('GitHub\u2019s ping and a pull request are recorded without deploying', async () => {
    const ping = await sendGithub(project.id, 'ping', { zen: 'Keep it logically awesome.', hook_id: 1 }, { secret });
    expect(ping.body.outcome).toBe('ignored');
    const opened = example('pull_request', (p) => p.action === 'opened');
    const pr = await sendGithub(project.id, 'pull_request', opened, { secret });
    expect(pr.status).toBe(200);
    expect(pr.body.outcome).toBe('ignored');
    expect((await deliveries(project.id)).deliveries[0]).toMatchObject({ event: 'pull_request', action: 'opened' });
  });

  it('the routes: deliveries for a reader, 401 without credentials, 404 for an unknown project; automatic-deploy checks its body and role', async () => {
    expect((await api.call('GET', `/projects/${project.id}/webhook-deliveries`, { token: reader.token })).status).toBe(200);
    expect((await api.call('GET', `/projects/${project.id}/webhook-deliveries`)).status).toBe(401);
    expect((await api.call('GET', '/projects/999999/webhook-deliveries', { token: admin })).status).toBe(404);
    const bad = await api.call<ApiError>('POST', `/projects/${project.id}/automatic-deploy`, {
      token: admin,
      body: { enabled: 'yes' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.map((e) => e.path)).toEqual(['enabled']);
    expect(
      (await api.call('POST', `/projects/${project.id}/automatic-deploy`, { token: reader.token, body: { enabled: false } }))
        .status,
    ).toBe(403);
    expect((await api.call('POST', `/projects/${project.id}/automatic-deploy`, { body: { enabled: false } })).status).toBe(401);
    expect((await api.call('POST', '/projects/999999/automatic-deploy', { token: admin, body: { enabled: false } })).status).toBe(
      404,
    );
    const unknown = await fetch(`${platform.url}/webhooks/git/999999`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'push' },
      body: '{}',
    });
    expect(unknown.status).toBe(404);
  });

  it('deleting the project removes its webhook from the host', async () => {
    expect(github.hooks.some((h) => h.repo === 'octo-user/hooked')).toBe(true);
    expect((await api.call('DELETE', `/projects/${project.id}`, { token: admin })).status).toBe(204);
    expect(github.hooks.some((h) => h.repo === 'octo-user/hooked')).toBe(false);
  });
});

describe('GitLab push webhooks', () => {
  it('a push hook with the right token deploys the pushed commit; a wrong token is a 401', async () => {
    const project = await createFromRepository('Notes', 'lab-user/notes');
    const hook = gitlab.hooks.find((h) => h.repo === 'lab-user/notes');
    expect(hook?.url).toBe(`${platform.url}/webhooks/git/${project.id}`);
    expect(hook?.events).toEqual(expect.arrayContaining(['push_events', 'merge_requests_events']));
    const token = hook?.token ?? '';
    const sha = await notes.commit({ 'index.html': '<p>notes v2</p>' }, 'Notes v2');
    // GitLab's documented push event (the fields the platform reads, and the usual others).
    const payload = {
      object_kind: 'push',
      event_name: 'push',
      before: await notes.head(),
      after: sha,
      ref: 'refs/heads/main',
      ref_protected: true,
      checkout_sha: sha,
      user_username: 'lab-user',
      project_id: 1,
      project: { path_with_namespace: 'lab-user/notes', default_branch: 'main' },
      commits: [{ id: sha, message: 'Notes v2\n', title: 'Notes v2' }],
      total_commits_count: 1,
    };
    const send = (secret: string) =>
      fetch(`${platform.url}/webhooks/git/${project.id}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-gitlab-event': 'Push Hook',
          'x-gitlab-token': secret,
          'x-gitlab-event-uuid': crypto.randomUUID(),
        },
        body: JSON.stringify(payload),
      });
    const refused = await send('wrong-token');
    expect(refused.status).toBe(401);
    const accepted = await send(token);
    expect(accepted.status).toBe(200);
    expect(((await accepted.json()) as { outcome: string }).outcome).toBe('deployed');
    const deployment = await settled(project.id, sha);
    expect(deployment).toMatchObject({ status: 'ready', commit_sha: sha, trigger: 'webhook' });
    const outcomes = (await deliveries(project.id)).deliveries.map((d) => d.outcome);
    expect(outcomes).toEqual(['deployed', 'rejected']);
  });
});

describe('without an external URL', () => {
  it('no webhook is registered (nothing could reach it)', async () => {
    expect((await api.call('PUT', '/settings', { token: admin, body: { external_url: null } })).status).toBe(200);
    localSite = await github.createRepo('octo-user/local', { 'index.html': 'local' });
    await api.call('POST', `/git-connections/${(await firstGithubConnection()).id}/sync`, { token: admin });
    const project = await createFromRepository('Local only', 'octo-user/local');
    expect(github.hooks.some((h) => h.repo === 'octo-user/local')).toBe(false);
    const list = await deliveries(project.id);
    expect(list).toMatchObject({ webhook_url: null, webhook_registered: false });
  });

  it('the branch is polled instead: a new head deploys once, within the interval nothing is read again', async () => {
    const project = (
      await api.call<{ projects: { id: number; name: string }[] }>('GET', '/projects', { token: admin })
    ).body.projects.find((p) => p.name === 'Local only');
    if (!project) throw new Error('the project of the previous test is missing');
    const local = await localRepo();
    const sha = await local.commit({ 'index.html': '<h1>polled</h1>' }, 'Found by polling');
    const first = await pollBranches(platform.ctx, { force: true });
    expect(first.failures).toEqual([]);
    expect(first.deployed).toBe(1);
    const deployment = await settled(project.id, sha);
    expect(deployment).toMatchObject({ status: 'ready', trigger: 'poll', commit_sha: sha });
    const [delivery] = (await deliveries(project.id)).deliveries;
    expect(delivery).toMatchObject({ provider_type: 'poll', outcome: 'deployed', commit_sha: sha, deployment_id: deployment.id });
    // The same head again: nothing new to deploy.
    expect((await pollBranches(platform.ctx, { force: true })).deployed).toBe(0);
    // Within the interval (60 s by default) the project is not read at all.
    const before = github.requests.length + local.requests().length;
    expect((await pollBranches(platform.ctx)).projects).toBe(0);
    expect(github.requests.length + local.requests().length).toBe(before);
  });
});

describe('registering the webhook again', () => {
  it('once an external URL is set, POST git registers the webhook and the branch is no longer polled', async () => {
    const project = (
      await api.call<{ projects: { id: number; name: string }[] }>('GET', '/projects', { token: admin })
    ).body.projects.find((p) => p.name === 'Local only');
    if (!project) throw new Error('the polled project is missing');
    const withoutUrl = await api.call<{ webhook_registered: boolean; detail: string | null }>(
      'POST',
      `/projects/${project.id}/git`,
      {
        token: admin,
      },
    );
    expect(withoutUrl.status).toBe(200);
    expect(withoutUrl.body).toMatchObject({
      webhook_registered: false,
      detail: 'No external URL is set (Settings): the branch is polled instead',
    });
    expect((await api.call('PUT', '/settings', { token: admin, body: { external_url: platform.url } })).status).toBe(200);
    const registered = await api.call<{ webhook_registered: boolean; webhook_url: string; detail: string | null }>(
      'POST',
      `/projects/${project.id}/git`,
      { token: admin },
    );
    expect(registered.body).toEqual({
      webhook_registered: true,
      webhook_url: `${platform.url}/webhooks/git/${project.id}`,
      detail: null,
    });
    expect(github.hooks.filter((h) => h.repo === 'octo-user/local')).toHaveLength(1);
    // Again: the old hook goes, one new hook stays.
    await api.call('POST', `/projects/${project.id}/git`, { token: admin });
    expect(github.hooks.filter((h) => h.repo === 'octo-user/local')).toHaveLength(1);
    expect((await deliveries(project.id)).webhook_registered).toBe(true);
    expect((await pollBranches(platform.ctx, { force: true })).projects).toBe(0);

    expect((await api.call('POST', `/projects/${project.id}/git`, { token: reader.token })).status).toBe(403);
    expect((await api.call('POST', `/projects/${project.id}/git`)).status).toBe(401);
    expect((await api.call('POST', '/projects/999999/git', { token: admin })).status).toBe(404);
    const remote = await api.call<{ id: number }>('POST', '/projects', {
      token: admin,
      body: { name: 'Pushed here', branch: 'main' },
    });
    const refused = await api.call<ApiError>('POST', `/projects/${remote.body.id}/git`, { token: admin });
    expect(refused.status).toBe(409);
  });
});

let localSite: TestRepo | null = null;
async function localRepo(): Promise<TestRepo> {
  if (!localSite) throw new Error('the local-only repository was not created');
  return localSite;
}

async function firstGithubConnection() {
  const list = await api.call<{ connections: { id: number; provider_type: string }[] }>('GET', '/git-connections', {
    token: admin,
  });
  const found = list.body.connections.find((c) => c.provider_type === 'github');
  if (!found) throw new Error('no GitHub connection');
  return found;
}
