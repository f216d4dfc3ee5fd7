import { type GitServer, startGitServer, type TestRepo } from '@launchbay/testkit';
import type { Page } from '@playwright/test';
import { test as base, expect, signIn, toast, unique } from '../fixtures';
import { waitForDeployment } from '../support/deployments';

/*
 * Projects end to end, against a real git server over HTTP with a token (the testkit's): the
 * new-project flow (git URL, token, a variable), the deployment it starts, the overview, the app
 * served by the edge at {slug}.localhost (Chromium resolves *.localhost to loopback), environment
 * variables (masked, revealed, added), and deletion. The admin may use a loopback git host.
 */

const TOKEN = 'e2e-git-token';

const test = base.extend<object, { git: GitServer }>({
  git: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies by destructuring
    async ({}, use) => {
      const git = await startGitServer({ token: TOKEN });
      try {
        await use(git);
      } finally {
        await git.close();
      }
    },
    { scope: 'worker' },
  ],
});

/** A static site with a build step that writes GREETING into the page: it shows the variable reached the build. */
async function staticSiteRepo(git: GitServer): Promise<TestRepo> {
  return git.createRepo(
    unique('acme/site'),
    {
      'launchbay.json': JSON.stringify({ installCommand: null, buildCommand: 'node build.js', outputDirectory: 'dist' }),
      'build.js': [
        "const fs = require('node:fs');",
        "fs.mkdirSync('dist', { recursive: true });",
        'fs.writeFileSync(',
        "  'dist/index.html',",
        "  '<!doctype html><title>Static site</title><h1>Hello from the static site</h1><p>Built with GREETING=' + process.env.GREETING + '</p>' +",
        "    '<p>API_URL=' + (process.env.API_URL ?? 'unset') + '</p>',",
        ');',
      ].join('\n'),
    },
    { message: 'Static site with a build step' },
  );
}

interface ApiDeployment {
  id: number;
  status: string;
  trigger: string;
  is_current: boolean;
  error: string | null;
}

interface ApiProject {
  id: number;
  slug: string;
  url: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function projectTab(page: Page, name: string) {
  return page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name, exact: true });
}

test('a project created from a git repository deploys with its variables, is served through the edge, takes a new variable on redeploy, and can be deleted', async ({
  page,
  context,
  platform,
  git,
}) => {
  test.setTimeout(240_000);
  const repo = await staticSiteRepo(git);
  const name = `Site ${unique('e2e')}`;

  await signIn(page, platform.admin, '/projects');
  await page.getByRole('main').getByRole('link', { name: 'Create Project' }).first().click();
  await expect(page).toHaveURL(/\/projects\/new$/);
  await expect(page).toHaveTitle('Create Project - Launchbay');
  await expect(page.getByText('wins over these settings')).toBeVisible();

  await page.getByLabel('Git URL').fill(repo.url);
  await page.getByLabel(/^Access token/).fill(TOKEN);
  await expect(page.getByLabel(/^Access token/)).toHaveAttribute('type', 'password');
  // The console reads the branch as the first deployment will: its launchbay.json decides.
  const detected = page.getByRole('region', { name: 'Detected settings' });
  await expect(detected).toContainText('launchbay.json', { timeout: 30_000 });
  await expect(detected).toContainText('node build.js');
  await expect(detected).toContainText((await repo.head()).slice(0, 7));
  await expect(page.getByLabel('Branch')).toHaveValue('main');
  await page.getByLabel('Project name').fill(name);
  await page.getByLabel('Key 1').fill('GREETING');
  await page.getByLabel('Value 1').fill('hello from e2e');
  await page.getByRole('button', { name: 'Deploy', exact: true }).click();

  // Project, then its variable, then a deployment with it: the console lands on that deployment.
  await expect(toast(page, 'Project created')).toBeVisible({ timeout: 30_000 });
  await expect(page).toHaveURL(/\/projects\/[a-z0-9-]+\/deployments\/\d+$/);
  const [, slug = '', idText = ''] = /\/projects\/([a-z0-9-]+)\/deployments\/(\d+)$/.exec(new URL(page.url()).pathname) ?? [];
  const deploymentId = Number(idText);
  const projectResponse = await platform.adminApi.get(`/api/projects/by-slug/${slug}`);
  expect(projectResponse.status()).toBe(200);
  const project = (await projectResponse.json()) as ApiProject;
  await expect(page.getByRole('heading', { level: 1, name, exact: true })).toBeVisible();

  const envVars = (await (await platform.adminApi.get(`/api/projects/${project.id}/env-vars`)).json()) as {
    env_vars: { key: string; value: string }[];
  };
  expect(envVars.env_vars).toEqual([expect.objectContaining({ key: 'GREETING', value: '••••••••' })]);

  const ready = await waitForDeployment(platform.adminApi, project.id, deploymentId);
  expect(ready.status, ready.error ?? '').toBe('ready');
  expect(ready.trigger).toBe('create');
  expect(ready.is_current).toBe(true);
  // The variables went with the create request: the first deployment already had them, and it is the only one.
  const list = (await (await platform.adminApi.get(`/api/projects/${project.id}/deployments`)).json()) as {
    deployments: ApiDeployment[];
  };
  expect(list.deployments.map((deployment) => deployment.id)).toEqual([deploymentId]);

  // The overview: live address, status, the current deployment and commit, environments, latest deployments.
  await projectTab(page, 'Overview').click();
  await expect(page).toHaveURL(new RegExp(`/projects/${slug}$`));
  await expect(page).toHaveTitle(`${name} - Launchbay`);
  const production = page.getByRole('region', { name: 'Production deployment' });
  await expect(production).toContainText('What the production address serves now.', { timeout: 15_000 });
  await expect(production.locator('[data-slot="status-badge"]')).toHaveText('Ready');
  const address = project.url.replace(/^http:\/\//, '');
  expect(address).toMatch(new RegExp(`^${escapeRegExp(slug)}\\.localhost:\\d+$`));
  await expect(production.getByRole('link', { name: address })).toHaveAttribute('href', project.url);
  await expect(production).toContainText((await repo.head()).slice(0, 7));
  await expect(production).toContainText('Static site with a build step');
  await expect(production).toContainText(`Deployment #${deploymentId}`);
  await expect(page.getByRole('region', { name: 'Environments' })).toContainText('Production');
  await expect(page.getByRole('region', { name: 'Environments' })).toContainText(address);
  const latest = page.getByRole('region', { name: 'Latest deployments' });
  await expect(latest.locator(`a[href="/projects/${slug}/deployments/${deploymentId}"]`)).toContainText('Ready');
  // The header: name, production address and the status of what it serves.
  await expect(page.getByRole('main')).toContainText(`Project: ${slug}`);
  await expect(page.getByRole('main').locator('[data-slot="status-badge"]').first()).toHaveText('Ready');

  // The app through the edge, as a visitor's browser reaches it.
  const site = await context.newPage();
  await site.goto(project.url);
  await expect(site.getByRole('heading', { name: 'Hello from the static site' })).toBeVisible();
  await expect(site.locator('body')).toContainText('Built with GREETING=hello from e2e');
  await expect(site.locator('body')).toContainText('API_URL=unset');

  // The list shows the project with its address and status.
  await page.goto('/projects');
  const card = page
    .getByRole('main')
    .getByRole('listitem')
    .filter({ has: page.locator(`a[href="/projects/${slug}"]`) });
  await expect(card).toContainText(name);
  await expect(card).toContainText(address);
  await expect(card.locator('[data-slot="status-badge"]')).toHaveText('Ready');

  // Environment variables: masked, revealed on request; a new one is masked too and offers a redeploy.
  await page.goto(`/projects/${slug}/settings`);
  await expect(page).toHaveURL(new RegExp(`/projects/${slug}/settings/general$`));
  await page.getByRole('navigation', { name: 'Project settings' }).getByRole('link', { name: 'Environment Variables' }).click();
  await expect(page).toHaveTitle(`${name} - Environment Variables - Launchbay`);
  const greeting = page.getByTestId('env-value-GREETING');
  await expect(greeting).toHaveText('••••••••');
  await page.getByRole('button', { name: 'Reveal GREETING' }).click();
  await expect(greeting).toHaveText('hello from e2e');
  await page.getByRole('button', { name: 'Hide GREETING' }).click();
  await expect(greeting).toHaveText('••••••••');

  await page.getByLabel('Key', { exact: true }).fill('API_URL');
  await page.getByLabel('Value', { exact: true }).fill('https://api.example.com/v1');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await expect(toast(page, 'Environment variable added')).toContainText('API_URL');
  const apiUrl = page.getByTestId('env-value-API_URL');
  await expect(apiUrl).toHaveText('••••••••');
  await expect(page.getByLabel('Key', { exact: true })).toHaveValue('');
  await page.getByRole('button', { name: 'Reveal API_URL' }).click();
  await expect(apiUrl).toHaveText('https://api.example.com/v1');

  const banner = page.getByRole('status').filter({ hasText: 'Redeploy to apply your changes.' });
  await expect(banner).toBeVisible();
  await banner.getByRole('button', { name: 'Redeploy' }).click();
  await expect(toast(page, 'Deployment started')).toBeVisible();
  await expect(banner).toBeHidden();
  const after = (await (await platform.adminApi.get(`/api/projects/${project.id}/last-deployment`)).json()) as ApiDeployment;
  expect(after.id).toBeGreaterThan(deploymentId);
  expect((await waitForDeployment(platform.adminApi, project.id, after.id)).status).toBe('ready');
  // The new variable reached the app with the redeploy, and the first one is still there.
  await site.reload();
  await expect(site.locator('body')).toContainText('API_URL=https://api.example.com/v1');
  await expect(site.locator('body')).toContainText('Built with GREETING=hello from e2e');

  // Deleting asks for the name first, then the project and its address are gone.
  await page.getByRole('navigation', { name: 'Project settings' }).getByRole('link', { name: 'General' }).click();
  await page.getByRole('button', { name: 'Delete project' }).click();
  const dialog = page.getByRole('alertdialog', { name: `Delete ${name}?` });
  await expect(dialog).toContainText('This action cannot be undone.');
  const confirm = dialog.getByRole('button', { name: 'Delete project' });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel(`Type ${name} to confirm.`).fill('not the name');
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel(`Type ${name} to confirm.`).fill(name);
  await confirm.click();
  await expect(toast(page, 'Project deleted')).toContainText(name);
  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.locator(`a[href="/projects/${slug}"]`)).toHaveCount(0);
  expect((await platform.adminApi.get(`/api/projects/by-slug/${slug}`)).status()).toBe(404);
  const gone = await site.goto(project.url);
  expect(gone?.status()).toBe(404);
  await expect(site.locator('body')).not.toContainText('Hello from the static site');
});

test("the new-project form shows the repository check's reasons under the fields, and creates nothing", async ({
  page,
  platform,
  git,
}) => {
  const repo = await staticSiteRepo(git);
  const name = `Refused ${unique('e2e')}`;
  await signIn(page, platform.admin, '/projects/new');

  // Client-side first: required fields, the contract's messages.
  await page.getByRole('button', { name: 'Deploy', exact: true }).click();
  await expect(page.getByText('Git URL is required')).toBeVisible();
  await expect(page.getByText('Name is required')).toBeVisible();

  await page.getByLabel('Git URL').fill(repo.url);
  await page.getByLabel('Project name').fill(name);
  await page.getByLabel(/^Access token/).fill('not-the-token');
  await page.getByRole('button', { name: 'Deploy', exact: true }).click();
  const refused = toast(page, 'Failed to create project');
  await expect(refused).toContainText('refused the access token');
  const tokenField = page.getByLabel(/^Access token/);
  await expect(tokenField).toHaveAttribute('aria-invalid', 'true');
  const form = page.getByRole('main').locator('form');
  // Under the field, and in the detected settings, which could not read the branch either.
  await expect(form.getByRole('alert').filter({ hasText: /^Authentication failed: .* refused the access token/ })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Detected settings' }).getByRole('alert')).toContainText(
    'Could not read main: Authentication failed',
  );

  await tokenField.fill(TOKEN);
  await page.getByLabel('Branch').fill('does-not-exist');
  await page.getByRole('button', { name: 'Deploy', exact: true }).click();
  await expect(form.getByRole('alert').filter({ hasText: /^The branch "does-not-exist" does not exist/ })).toBeVisible();
  await expect(page).toHaveURL(/\/projects\/new$/);

  const projects = (await (await platform.adminApi.get('/api/projects?per_page=100')).json()) as { projects: { name: string }[] };
  expect(projects.projects.map((project) => project.name)).not.toContain(name);
});
