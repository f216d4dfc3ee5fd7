import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { type GitHostStandIn, startGitHostStandIn, type TestRepo } from '@launchbay/testkit';
import type { APIRequestContext, Page } from '@playwright/test';
import { test as base, expect, signIn, toast, unique } from '../fixtures';
import { waitForDeployment } from '../support/deployments';

/*
 * Deploy on push and pull-request previews end to end, against a GitHub stand-in on loopback (the
 * testkit's: GitHub's REST API, the registered hook with its secret, commit statuses, and the
 * repositories over git). The admin adds the provider and creates the project through the API with
 * the external URL set (so the hook is registered); the console turns previews on, shows each
 * signed delivery (GitHub's published payloads from @octokit/webhooks-examples) and what came of
 * it, the deployment a push starts, the previews of pull requests (opened, synchronized, closed)
 * served through the edge, and the approval of a fork's one.
 */

const TOKEN = 'e2e-previews-token';
const LOGIN = 'octo-previews';

type WebhookExample = { name: string; examples: Record<string, unknown>[] };
// The examples are one JSON file: required, not imported (ESM would need an import attribute).
const webhookExamples = createRequire(import.meta.url)('@octokit/webhooks-examples') as WebhookExample[];

const test = base.extend<object, { host: GitHostStandIn }>({
  host: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies by destructuring
    async ({}, use) => {
      const host = await startGitHostStandIn({ kind: 'github', token: TOKEN, login: LOGIN });
      try {
        await use(host);
      } finally {
        await host.close();
      }
    },
    { scope: 'worker' },
  ],
});

const html = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><h1>${body}</h1></body></html>`;

interface ApiDeployment {
  id: number;
  status: string;
  commit_sha: string | null;
  error: string | null;
}

interface ApiProject {
  id: number;
  slug: string;
  url: string;
  last_deployment: ApiDeployment | null;
}

interface ApiPreview {
  environment_id: number;
  pr_number: number;
  pr_url: string | null;
  state: string;
  url: string;
  deployment_id: number | null;
}

interface DeliveryAnswer {
  outcome: string;
  detail: string;
  deployment_id: number | null;
}

function example(name: string, pick: (payload: Record<string, unknown>) => boolean): Record<string, unknown> {
  const found = webhookExamples.find((definition) => definition.name === name)?.examples.find(pick);
  if (!found) throw new Error(`no ${name} example matches`);
  return structuredClone(found);
}

/** GitHub's push example, for a push of `sha` to `branch` of the repository. */
function pushPayload(fullName: string, branch: string, sha: string) {
  const payload = example('push', (p) => p.ref === 'refs/heads/master');
  const repository = payload.repository as Record<string, unknown>;
  repository.full_name = fullName;
  repository.name = fullName.split('/')[1];
  return { ...payload, ref: `refs/heads/${branch}`, after: sha, deleted: false };
}

/** GitHub's pull_request example for `action`, pointed at the repository; `headRepo` another name makes it a fork's. */
function pullRequestPayload(
  fullName: string,
  action: string,
  options: { number: number; sha: string; ref: string; title: string; headRepo?: string },
) {
  const payload = example('pull_request', (p) => p.action === action) as Record<string, unknown> & {
    pull_request: Record<string, unknown>;
  };
  const pr = payload.pull_request;
  const head = pr.head as Record<string, unknown>;
  const baseRef = pr.base as Record<string, unknown>;
  (baseRef.repo as Record<string, unknown>).full_name = fullName;
  head.ref = options.ref;
  head.sha = options.sha;
  head.repo = { ...(head.repo as object), full_name: options.headRepo ?? fullName };
  pr.number = options.number;
  pr.title = options.title;
  return { ...payload, number: options.number };
}

/** Posts a delivery to the project's webhook the way GitHub does: signed with the hook's secret (HMAC-SHA256). */
async function deliver(
  platformUrl: string,
  projectId: number,
  secret: string,
  event: 'push' | 'pull_request',
  payload: unknown,
): Promise<DeliveryAnswer> {
  const body = JSON.stringify(payload);
  const response = await fetch(`${platformUrl}/webhooks/git/${projectId}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': crypto.randomUUID(),
      'x-hub-signature-256': `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`,
      'user-agent': 'GitHub-Hookshot/e2e',
    },
    body,
  });
  const answer = (await response.json()) as DeliveryAnswer;
  expect(response.status, JSON.stringify(answer)).toBe(200);
  return answer;
}

async function previewsOf(api: APIRequestContext, projectId: number): Promise<ApiPreview[]> {
  const response = await api.get(`/api/projects/${projectId}/previews`);
  expect(response.status()).toBe(200);
  return ((await response.json()) as { previews: ApiPreview[] }).previews;
}

/** What the preview's address serves, read through the edge as a visitor's browser does (*.localhost is loopback). */
async function expectServed(visitor: Page, url: string, heading: string) {
  await expect(async () => {
    await visitor.goto(url);
    await expect(visitor.getByRole('heading', { level: 1 })).toHaveText(heading, { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
}

test('pushes deploy through the signed webhook, pull requests get previews at their own address, and a fork waits for approval', async ({
  page,
  context,
  platform,
  host,
}) => {
  test.setTimeout(360_000);
  const api = platform.adminApi;
  const repoName = unique('shop');
  const fullName = `${LOGIN}/${repoName}`;
  const repo: TestRepo = await host.createRepo(fullName, { 'index.html': html('Shop', 'Shop v1') });
  const projectName = `Previews ${unique('e2e')}`;

  // The platform as an admin sets it up: reachable at its external URL (so the hook is registered), previews on.
  const before = (await (await api.get('/api/settings')).json()) as Record<string, unknown>;
  const settings = await api.put('/api/settings', {
    data: { external_url: platform.url, preview_environments_enabled: true },
  });
  expect(settings.status(), await settings.text()).toBe(200);
  let providerId: number | null = null;
  let projectId: number | null = null;

  try {
    const provider = await api.post('/api/git-providers/github/pat', {
      data: { name: `GitHub ${unique('previews')}`, token: TOKEN, base_url: host.baseUrl },
    });
    expect(provider.status(), await provider.text()).toBe(201);
    providerId = ((await provider.json()) as { id: number }).id;
    const repository = await api.get(`/api/repositories/${fullName}`);
    expect(repository.status(), await repository.text()).toBe(200);
    const created = await api.post('/api/projects', {
      data: { name: projectName, repository_id: ((await repository.json()) as { id: number }).id, branch: 'main' },
    });
    expect(created.status(), await created.text()).toBe(201);
    const project = (await created.json()) as ApiProject;
    projectId = project.id;
    const first = project.last_deployment;
    expect(first).not.toBeNull();
    expect((await waitForDeployment(api, project.id, first?.id ?? 0)).status).toBe('ready');
    const hook = host.hooks.find((item) => item.repo === fullName);
    expect(hook?.events).toEqual(expect.arrayContaining(['push', 'pull_request']));
    const secret = hook?.secret ?? '';
    expect(secret).not.toBe('');
    const base = `/projects/${project.slug}`;

    // Git settings: the repository, the registered webhook, automatic deploys on; previews turned on here.
    await signIn(page, platform.admin, `${base}/settings/git`);
    await expect(page).toHaveTitle(`${projectName} - Git - Launchbay`);
    const repositoryCard = page.getByRole('region', { name: 'Repository' });
    await expect(repositoryCard.getByRole('link', { name: fullName })).toHaveAttribute('href', `${host.baseUrl}/${fullName}`);
    await expect(repositoryCard).toContainText('GitHub');
    const deployCard = page.getByRole('region', { name: 'Deploy on push' });
    await expect(deployCard).toContainText('Webhook registered on GitHub');
    await expect(deployCard).toContainText(`${platform.url}/webhooks/git/${project.id}`);
    await expect(deployCard.getByRole('switch', { name: 'Automatic deploys' })).toBeChecked();
    const previewsSwitch = page.getByRole('switch', { name: 'Pull request previews' });
    await expect(previewsSwitch).not.toBeChecked();
    await expect(page.getByText('Preview environments are off for the platform.')).toHaveCount(0);
    await previewsSwitch.click();
    await expect(toast(page, 'Pull request previews on')).toBeVisible();
    await expect(previewsSwitch).toBeChecked();
    const detail = (await (await api.get(`/api/projects/${project.id}`)).json()) as { previews_enabled: boolean };
    expect(detail.previews_enabled).toBe(true);

    // A signed push to main deploys that commit: the delivery shows with its deployment, which the deployments page lists.
    const v2 = await repo.commit({ 'index.html': html('Shop', 'Shop v2') }, 'Second version');
    const pushed = await deliver(platform.url, project.id, secret, 'push', pushPayload(fullName, 'main', v2));
    expect(pushed).toMatchObject({ outcome: 'deployed', detail: `Deploying ${v2.slice(0, 7)} of main to production` });
    const pushDeployment = pushed.deployment_id ?? 0;
    const deliveries = page.getByRole('region', { name: 'Recent deliveries' });
    const pushRow = deliveries.getByRole('row').filter({ hasText: v2.slice(0, 7) });
    await expect(pushRow).toContainText('Push', { timeout: 20_000 });
    await expect(pushRow).toContainText('main');
    await expect(pushRow).toContainText('Deployed');
    await expect(pushRow).toContainText(`Deploying ${v2.slice(0, 7)} of main to production`);
    await pushRow.getByRole('link', { name: `Deployment #${pushDeployment}` }).click();
    await expect(page).toHaveURL(new RegExp(`${base}/deployments/${pushDeployment}$`));
    expect((await waitForDeployment(api, project.id, pushDeployment)).commit_sha).toBe(v2);
    await page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name: 'Deployments' }).click();
    await expect(page).toHaveURL(new RegExp(`${base}/deployments$`));
    const listed = page.getByTestId(`deployment-row-${pushDeployment}`);
    await expect(listed).toContainText(v2.slice(0, 7));
    await expect(listed).toContainText('Ready');

    // A pull request opened: its preview on the overview, building then ready, served at its own address.
    const cart1 = await repo.commit({ 'index.html': html('Cart', 'Cart, first try') }, 'Add a cart', { branch: 'feature/cart' });
    const opened = await deliver(
      platform.url,
      project.id,
      secret,
      'pull_request',
      pullRequestPayload(fullName, 'opened', { number: 7, sha: cart1, ref: 'feature/cart', title: 'Add a cart' }),
    );
    expect(opened.outcome, opened.detail).toBe('deployed');
    await page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name: 'Overview' }).click();
    const previewsCard = page.getByRole('region', { name: 'Previews' });
    const pr7 = previewsCard.getByTestId('preview-7');
    await expect(pr7).toContainText('Add a cart');
    await expect(pr7).toContainText('feature/cart');
    await expect(pr7).toContainText(cart1.slice(0, 7));
    const [preview7] = await previewsOf(api, project.id);
    expect(preview7).toMatchObject({ pr_number: 7, state: 'active' });
    if (preview7?.pr_url) await expect(pr7.getByRole('link', { name: /#7 Add a cart/ })).toHaveAttribute('href', preview7.pr_url);
    expect((await waitForDeployment(api, project.id, opened.deployment_id ?? 0)).status).toBe('ready');
    await expect(pr7.locator('[data-slot="status-badge"]')).toHaveText('Ready', { timeout: 15_000 });
    const previewUrl = preview7?.url ?? '';
    expect(previewUrl).toMatch(new RegExp(`^http://pr-7-${project.slug}\\.localhost:\\d+$`));
    await expect(pr7.getByRole('link', { name: previewUrl.replace(/^http:\/\//, '') })).toHaveAttribute('href', previewUrl);
    const visitor = await context.newPage();
    await expectServed(visitor, previewUrl, 'Cart, first try');
    // Production still serves main.
    await expectServed(visitor, project.url, 'Shop v2');

    // A new commit on the pull request (synchronize) deploys its new head to the same address.
    const cart2 = await repo.commit({ 'index.html': html('Cart', 'Cart, second try') }, 'Fix the cart', {
      branch: 'feature/cart',
    });
    const synchronized = await deliver(
      platform.url,
      project.id,
      secret,
      'pull_request',
      pullRequestPayload(fullName, 'synchronize', { number: 7, sha: cart2, ref: 'feature/cart', title: 'Add a cart' }),
    );
    expect(synchronized.outcome, synchronized.detail).toBe('deployed');
    expect((await waitForDeployment(api, project.id, synchronized.deployment_id ?? 0)).status).toBe('ready');
    await expect(pr7).toContainText(cart2.slice(0, 7), { timeout: 15_000 });
    await expect(pr7.locator('[data-slot="status-badge"]')).toHaveText('Ready');
    await expect(previewsCard.getByRole('listitem')).toHaveCount(1);
    await expectServed(visitor, previewUrl, 'Cart, second try');

    // Closed: the preview leaves the list and its address.
    const closed = await deliver(
      platform.url,
      project.id,
      secret,
      'pull_request',
      pullRequestPayload(fullName, 'closed', { number: 7, sha: cart2, ref: 'feature/cart', title: 'Add a cart' }),
    );
    expect(closed.outcome, closed.detail).toBe('removed');
    await expect(pr7).toHaveCount(0, { timeout: 20_000 });
    await expect(previewsCard).toContainText('No previews');
    await expect.poll(async () => (await visitor.goto(previewUrl))?.status(), { timeout: 30_000, intervals: [500] }).toBe(404);

    // A fork's pull request waits for approval; Approve (after the confirmation) builds it and it becomes ready.
    const forkSha = await repo.commit({ 'index.html': html('Fork', 'From a fork') }, 'Fork work', { branch: 'fork-work' });
    const forked = await deliver(
      platform.url,
      project.id,
      secret,
      'pull_request',
      pullRequestPayload(fullName, 'opened', {
        number: 8,
        sha: forkSha,
        ref: 'fork-work',
        title: 'A change from a fork',
        headRepo: `stranger/${repoName}`,
      }),
    );
    expect(forked.outcome, forked.detail).toBe('awaiting_approval');
    const pr8 = previewsCard.getByTestId('preview-8');
    await expect(pr8).toContainText('A change from a fork', { timeout: 20_000 });
    await expect(pr8.locator('[data-slot="status-badge"]')).toHaveText('Awaiting approval');
    await expect(pr8).toContainText('Fork');
    await pr8.getByRole('button', { name: 'Approve #8' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Approve the preview of #8?' });
    await expect(dialog).toContainText('with the environment variables marked for previews');
    await dialog.getByRole('button', { name: 'Approve and deploy' }).click();
    await expect(toast(page, 'Preview approved')).toContainText('Pull request #8 is building');
    await expect(dialog).toBeHidden();
    await expect(pr8.getByRole('button', { name: 'Approve #8' })).toHaveCount(0);
    const [preview8] = await previewsOf(api, project.id);
    expect(preview8).toMatchObject({ pr_number: 8, state: 'active' });
    expect((await waitForDeployment(api, project.id, preview8?.deployment_id ?? 0)).status).toBe('ready');
    await expect(pr8.locator('[data-slot="status-badge"]')).toHaveText('Ready', { timeout: 15_000 });
    await expectServed(visitor, preview8?.url ?? '', 'From a fork');
    await visitor.close();

    // Every pull request delivery is in the log with what came of it.
    await page.goto(`${base}/settings/git`);
    await expect(deliveries.getByRole('row').filter({ hasText: 'Pull request · closed' })).toContainText('Removed');
    await expect(deliveries.getByRole('row').filter({ hasText: 'Pull request · synchronize' })).toContainText('Deployed');
    await expect(deliveries.getByRole('row').filter({ hasText: forkSha.slice(0, 7) })).toContainText('Awaiting approval');
  } finally {
    // Leave the worker's platform as other tests expect it.
    if (projectId !== null) expect((await api.delete(`/api/projects/${projectId}`)).ok()).toBe(true);
    if (providerId !== null) expect((await api.delete(`/api/git-providers/${providerId}`)).ok()).toBe(true);
    const restored = await api.put('/api/settings', {
      data: { external_url: before.external_url, preview_environments_enabled: before.preview_environments_enabled },
    });
    expect(restored.status(), await restored.text()).toBe(200);
  }
});
