import { type GitHostStandIn, startGitHostStandIn, type TestRepo } from '@launchbay/testkit';
import type { APIRequestContext } from '@playwright/test';
import { test as base, expect, signIn, toast, unique } from '../fixtures';
import { waitForDeployment } from '../support/deployments';

/*
 * Git providers end to end, against a GitHub stand-in on loopback (the testkit's: GitHub's REST
 * API at {base}/api/v3 and the repositories over git on the same host): adding GitHub by token
 * (the server checks it with the host at once), the provider's page with its repositories, a
 * project created from one of them on /projects/new (branch, detected preset) that deploys and is
 * served through the edge, and deletion refused while the project uses the provider. The admin may
 * use a loopback host.
 */

const TOKEN = 'e2e-github-token';
const LOGIN = 'octo-e2e';

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

/** A static site: one index.html at the root (the Static HTML preset, no build step). */
async function staticSite(host: GitHostStandIn): Promise<{ repo: TestRepo; fullName: string; name: string }> {
  const name = unique('site');
  const fullName = `${LOGIN}/${name}`;
  const repo = await host.createRepo(
    fullName,
    {
      'index.html':
        '<!doctype html><html><head><title>From GitHub</title></head><body><h1>Hello from the connected repository</h1></body></html>',
    },
    { description: 'A static site on the GitHub stand-in' },
  );
  return { repo, fullName, name };
}

async function providerNames(api: APIRequestContext): Promise<string[]> {
  const body = (await (await api.get('/api/git-providers')).json()) as { providers: { name: string }[] };
  return body.providers.map((provider) => provider.name);
}

test('an admin adds GitHub by token, deploys one of its repositories, and cannot delete the provider while the project uses it', async ({
  page,
  context,
  platform,
  host,
}) => {
  // A deployment and several page loads: a busy CI machine takes several times longer than a laptop.
  test.setTimeout(150_000);
  test.setTimeout(240_000);
  const { repo, fullName, name: repoName } = await staticSite(host);
  const providerName = `GitHub ${unique('e2e')}`;
  const projectName = `Connected ${unique('e2e')}`;

  // The header's quick action leads to the add page.
  await signIn(page, platform.admin, '/git-sources');
  await expect(page).toHaveTitle('Git providers - Launchbay');
  await page.getByRole('banner').getByRole('button', { name: 'Create new' }).click();
  await page.getByRole('menuitem', { name: 'Add Git Provider' }).click();
  await expect(page).toHaveURL(/\/git-sources\/add$/);
  await expect(page).toHaveTitle('Add Git Provider - Launchbay');
  await expect(page.getByRole('radio', { name: 'GitHub' })).toBeChecked();
  await expect(page.getByRole('radio', { name: 'Personal access token' })).toBeChecked();
  await expect(page.getByRole('radio', { name: 'OAuth application' })).toBeDisabled();

  await page.getByLabel('Name', { exact: true }).fill(providerName);
  await page.getByLabel(/^Base URL/).fill(host.baseUrl);
  const token = page.getByLabel('Token', { exact: true });
  await expect(token).toHaveAttribute('type', 'password');
  await token.fill(TOKEN);
  await page.getByRole('button', { name: 'Add provider' }).click();

  // The provider's page: its account, its connection and the repository.
  await expect(toast(page, 'Git provider added')).toContainText(`@${LOGIN}`, { timeout: 30_000 });
  await expect(page).toHaveURL(/\/git-providers\/\d+$/);
  const providerId = Number(/\/git-providers\/(\d+)$/.exec(new URL(page.url()).pathname)?.[1]);
  await expect(page.getByRole('heading', { level: 1, name: providerName })).toBeVisible();
  await expect(page).toHaveTitle(`${providerName} - Launchbay`);
  const connection = page.getByRole('list', { name: 'Connections' }).getByRole('listitem').first();
  await expect(connection).toContainText(`@${LOGIN}`);
  await expect(page.getByRole('main')).toContainText('repo');
  await expect(page.getByRole('main')).toContainText('admin:repo_hook');
  const repositories = page.getByRole('list', { name: 'Repositories' });
  await page.getByLabel('Search repositories').fill(repoName);
  await expect(repositories.getByTestId(`repository-${fullName}`)).toBeVisible();
  await expect(repositories.getByRole('listitem')).toHaveCount(1);

  // Sync reads the repositories again and says how many it found.
  await connection.getByRole('button', { name: 'Sync' }).click();
  await expect(toast(page, 'Repositories synced')).toContainText(`from @${LOGIN}`);
  await expect(connection).toContainText(/Synced: \d+ repositor(y|ies) found\./);

  // The list shows it too.
  await page.getByRole('link', { name: 'Git providers' }).first().click();
  await expect(page).toHaveURL(/\/git-sources$/);
  const card = page.getByTestId(`git-provider-card-${providerId}`);
  await expect(card).toContainText(providerName);
  await expect(card).toContainText(host.baseUrl);
  await expect(card).toContainText(`@${LOGIN}`);
  await expect(card).toContainText(/\d+ repositor(y|ies)/);

  // A project from the repository: branch, detected preset, name, then the deployment.
  await page.goto('/projects/new');
  await page.getByRole('tab', { name: 'Connected repository' }).click();
  await expect(page).toHaveURL(/\/projects\/new\?source=repository$/);
  await page.getByLabel('Search repositories').fill(repoName);
  await page.getByRole('button', { name: `Select ${fullName}` }).click();
  await expect(page.getByTestId('picked-repository')).toContainText(fullName);
  await expect(page.getByLabel('Branch', { exact: true })).toHaveText('main');
  const detected = page.getByRole('region', { name: 'Detected settings' });
  await expect(detected).toContainText('Static HTML', { timeout: 30_000 });
  await expect(detected).toContainText(`main at ${(await repo.head()).slice(0, 7)}`);
  await expect(detected.getByText('Output folder')).toBeVisible();
  await expect(page.getByLabel('Project name')).toHaveValue(repoName);
  await page.getByLabel('Project name').fill(projectName);
  await page.getByRole('button', { name: 'Deploy', exact: true }).click();

  await expect(toast(page, 'Project created')).toBeVisible({ timeout: 30_000 });
  await expect(page).toHaveURL(/\/projects\/[a-z0-9-]+\/deployments\/\d+$/);
  const [, slug = '', idText = ''] = /\/projects\/([a-z0-9-]+)\/deployments\/(\d+)$/.exec(new URL(page.url()).pathname) ?? [];
  const project = (await (await platform.adminApi.get(`/api/projects/by-slug/${slug}`)).json()) as {
    id: number;
    url: string;
    branch: string;
    repository: { full_name: string; provider_type: string } | null;
  };
  expect(project.branch).toBe('main');
  expect(project.repository).toMatchObject({ full_name: fullName, provider_type: 'github' });
  const deployment = await waitForDeployment(platform.adminApi, project.id, Number(idText));
  expect(deployment.status, deployment.error ?? '').toBe('ready');

  // The app through the edge, as a visitor's browser reaches it.
  const site = await context.newPage();
  await site.goto(project.url);
  await expect(site.getByRole('heading', { name: 'Hello from the connected repository' })).toBeVisible();
  await site.close();

  // Delete is refused while the project uses the provider: the dialog names it, with a link.
  await page.goto(`/git-providers/${providerId}`);
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  const inUse = page.getByRole('dialog', { name: `${providerName} is in use` });
  await expect(inUse).toBeVisible();
  const projectLink = inUse.getByRole('link', { name: new RegExp(projectName) });
  await expect(projectLink).toHaveAttribute('href', `/projects/${slug}`);
  await expect(inUse.getByRole('button', { name: /delete/i })).toHaveCount(0);
  await inUse.getByRole('button', { name: 'Close' }).first().click();
  await expect(inUse).toBeHidden();
  // The server refuses it too, naming the project.
  const refused = await platform.adminApi.delete(`/api/git-providers/${providerId}`);
  expect(refused.status()).toBe(409);
  expect(((await refused.json()) as { detail: string }).detail).toContain(projectName);

  // Once the project is gone, the provider can be deleted (after a confirmation).
  expect((await platform.adminApi.delete(`/api/projects/${project.id}`)).ok()).toBe(true);
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  const confirm = page.getByRole('alertdialog', { name: `Delete ${providerName}?` });
  await expect(confirm).toContainText('This action cannot be undone.');
  await confirm.getByRole('button', { name: 'Delete provider' }).click();
  await expect(toast(page, 'Git provider deleted')).toContainText(providerName);
  await expect(page).toHaveURL(/\/git-sources$/);
  await expect(page.getByTestId(`git-provider-card-${providerId}`)).toHaveCount(0);
  expect((await platform.adminApi.get(`/api/git-providers/${providerId}`)).status()).toBe(404);
});

test("a wrong token shows the host's refusal under the Token field and creates nothing", async ({ page, platform, host }) => {
  const providerName = `Refused ${unique('e2e')}`;
  await signIn(page, platform.admin, '/git-sources/add');

  // Client-side first: the contract's messages.
  await page.getByRole('button', { name: 'Add provider' }).click();
  await expect(page.getByText('Name is required')).toBeVisible();
  await expect(page.getByText('Token is required')).toBeVisible();

  await page.getByLabel('Name', { exact: true }).fill(providerName);
  await page.getByLabel(/^Base URL/).fill(host.baseUrl);
  const token = page.getByLabel('Token', { exact: true });
  await token.fill('not-the-token');
  await page.getByRole('button', { name: 'Add provider' }).click();

  await expect(toast(page, 'Failed to add git provider')).toContainText('refused the token');
  await expect(token).toHaveAttribute('aria-invalid', 'true');
  const form = page.getByRole('main').locator('form');
  await expect(form.getByRole('alert').filter({ hasText: 'refused the token' })).toBeVisible();
  await expect(page).toHaveURL(/\/git-sources\/add$/);
  expect(await providerNames(platform.adminApi)).not.toContain(providerName);
});

test('a reader sees providers and their repositories but no add, token or delete controls; an unknown id is not found', async ({
  page,
  platform,
  host,
}) => {
  const { fullName, name: repoName } = await staticSite(host);
  const providerName = `Readable ${unique('e2e')}`;
  const created = await platform.adminApi.post('/api/git-providers/github/pat', {
    data: { name: providerName, token: TOKEN, base_url: host.baseUrl },
  });
  expect(created.status(), await created.text()).toBe(201);
  const providerId = ((await created.json()) as { id: number }).id;

  try {
    await signIn(page, await platform.createUser({ roles: ['reader'] }), '/git-sources');
    const card = page.getByTestId(`git-provider-card-${providerId}`);
    await expect(card).toContainText(providerName);
    await expect(page.getByRole('link', { name: 'Add Git Provider' })).toHaveCount(0);

    await card.getByRole('link', { name: providerName }).click();
    await expect(page).toHaveURL(new RegExp(`/git-providers/${providerId}$`));
    await page.getByLabel('Search repositories').fill(repoName);
    await expect(page.getByTestId(`repository-${fullName}`)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Delete', exact: true })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Update token' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Sync' })).toHaveCount(0);

    await page.goto('/git-sources/add');
    await expect(page.getByText('Admins only')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Add provider' })).toHaveCount(0);

    await page.goto('/git-providers/999999');
    await expect(page.getByRole('heading', { name: 'This git provider does not exist' })).toBeVisible();
    await expect(page.getByRole('main').getByRole('link', { name: 'Back to Git providers' })).toHaveAttribute(
      'href',
      '/git-sources',
    );
  } finally {
    expect((await platform.adminApi.delete(`/api/git-providers/${providerId}`)).status()).toBe(200);
  }
});
