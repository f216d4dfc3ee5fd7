import fs from 'node:fs';
import http from 'node:http';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import type { APIRequestContext, Page } from '@playwright/test';
import { type Credentials, expect, type Platform, signIn, test, toast, unique } from '../fixtures';
import { waitForDeployment } from '../support/deployments';

/*
 * Project screens against the real pipeline: the dashboard's projects and recent deployments, the
 * runtime log of the serving app, the environments settings, the general settings (rename and a
 * build override that the next deployment uses), cancelling a slow build, and the environment
 * variables' .env import and download. Apps are tiny node:http servers from the testkit's git
 * server; projects are created through the API and deleted at the end of each test.
 */

type Project = { id: number; slug: string; name: string; url: string };
type ApiDeployment = { id: number; status: string; error: string | null; commit_sha: string | null };
type ApiEnvironment = {
  id: number;
  name: string;
  branch: string;
  is_production: boolean;
  memory_mb: number | null;
  cpu_percent: number | null;
  instances: number;
};

const PACKAGE_JSON = JSON.stringify({
  name: 'e2e-screens-app',
  version: '1.0.0',
  private: true,
  scripts: { build: 'node build.js', start: 'node server.js' },
});

/** A server that says `text` to every visitor. */
const PLAIN_SERVER = (text: string) => `
const http = require('node:http');
http.createServer((req, res) => {
  res.setHeader('content-type', 'text/plain');
  res.end(${JSON.stringify(text)});
}).listen(Number(process.env.PORT), process.env.HOST);
`;

let git: GitServer;

test.beforeAll(async () => {
  git = await startGitServer();
});

test.afterAll(async () => {
  await git?.close();
});

/** A project from a new repository of `files` (its first deployment starts at once). */
async function createGitProject(
  platform: Platform,
  name: string,
  files: Record<string, string>,
  message: string,
): Promise<{ project: Project; deploymentId: number }> {
  const repo = await git.createRepo(`e2e/${name.toLowerCase()}`, files, { message });
  const created = await platform.adminApi.post('/api/projects', { data: { name, git_url: repo.url, branch: 'main' } });
  expect(created.status(), await created.text()).toBe(201);
  const project = (await created.json()) as Project;
  const last = await platform.adminApi.get(`/api/projects/${project.id}/last-deployment`);
  expect(last.status()).toBe(200);
  return { project, deploymentId: ((await last.json()) as ApiDeployment).id };
}

/** A project deployed by `git push` to the platform: it has no deployment until something is pushed. */
async function createPushProject(platform: Platform, name: string): Promise<Project> {
  const created = await platform.adminApi.post('/api/projects', { data: { name, branch: 'main' } });
  expect(created.status(), await created.text()).toBe(201);
  return (await created.json()) as Project;
}

async function expectReady(api: APIRequestContext, projectId: number, deploymentId: number) {
  const settled = await waitForDeployment(api, projectId, deploymentId);
  expect(settled.status, settled.error ?? '').toBe('ready');
}

/** What a visitor of the project's address gets at `path`, through the edge (the Host header names the project). */
function askEdge(url: string, path = '/'): Promise<{ status: number; body: string }> {
  const address = new URL(url);
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port: Number(address.port), path, headers: { host: address.host }, agent: false },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.setTimeout(10_000, () => request.destroy(new Error('no answer within 10 s')));
    request.on('error', reject);
  });
}

async function expectServed(url: string, text: string) {
  await expect
    .poll(async () => (await askEdge(url).catch((error: Error) => ({ body: error.message }))).body, { timeout: 20_000 })
    .toBe(text);
}

/** Signs in and opens `path`; a deploy keeps both cores busy, so the first page gets more time than signIn's. */
async function openAfterSignIn(page: Page, admin: Credentials, path: string) {
  const response = await page.request.post('/api/auth/login', { data: admin });
  expect(response.status(), await response.text()).toBe(200);
  await page.goto(path);
  await expect(page.getByRole('banner')).toBeVisible({ timeout: 30_000 });
}

const deploymentHeader = (page: Page) => page.getByTestId('deployment-header');

test('the dashboard lists a deployed project with its address and status, and its deployment among the recent ones', async ({
  page,
  platform,
  admin,
}) => {
  test.setTimeout(150_000);
  // The dashboard lists the first projects by name: a leading digit keeps this one among them.
  const name = unique('0-Dashboard');
  const { project, deploymentId } = await createGitProject(
    platform,
    name,
    { 'package.json': PACKAGE_JSON, 'build.js': 'console.log("built")', 'server.js': PLAIN_SERVER('dashboard app') },
    'A commit for the dashboard',
  );
  try {
    await expectReady(platform.adminApi, project.id, deploymentId);
    const deployment = (await (
      await platform.adminApi.get(`/api/projects/${project.id}/deployments/${deploymentId}`)
    ).json()) as ApiDeployment;
    const total = ((await (await platform.adminApi.get('/api/projects?per_page=1')).json()) as { total: number }).total;
    const address = project.url.replace(/^http:\/\//, '');

    await openAfterSignIn(page, admin, '/dashboard');
    await expect(page).toHaveTitle('Dashboard - Launchbay');
    const main = page.getByRole('main');
    await expect(main.getByRole('heading', { level: 1 })).toHaveText(/^Good (morning|afternoon|evening), /);
    await expect(main.locator('[data-slot="card"]').filter({ hasText: 'Total projects on this platform' })).toHaveText(
      `Projects${total}Total projects on this platform`,
    );

    // Projects: the name, the production address (live), the latest deployment's status.
    const row = main
      .getByRole('list', { name: 'Projects', exact: true })
      .getByRole('listitem')
      .filter({ has: page.locator(`a[href="/projects/${project.slug}"]`) });
    await expect(row).toContainText(name);
    await expect(row).toContainText(address);
    await expect(row).not.toContainText('(not live)');
    await expect(row.locator('[data-slot="status-badge"]')).toHaveText('Ready');

    // Recent deployments: the commit's title, the project, its branch and short sha, the status.
    const recent = main
      .getByRole('list', { name: 'Recent deployments', exact: true })
      .locator(`a[href="/projects/${project.slug}/deployments/${deploymentId}"]`);
    await expect(recent).toHaveCount(1);
    await expect(recent).toContainText('A commit for the dashboard');
    await expect(recent).toContainText(name);
    await expect(recent).toContainText('main');
    await expect(recent).toContainText((deployment.commit_sha ?? 'no sha').slice(0, 7));
    await expect(recent.locator('[data-slot="status-badge"]')).toHaveText('Ready');

    // The deployment's row opens its page.
    await recent.click();
    await expect(page).toHaveURL(new RegExp(`/projects/${project.slug}/deployments/${deploymentId}$`));
    await expect(page.getByRole('heading', { name: `Deployment #${deploymentId}`, exact: true })).toBeVisible();
    await expect(deploymentHeader(page)).toContainText('Ready');
  } finally {
    await platform.adminApi.delete(`/api/projects/${project.id}`);
  }
});

test("the runtime page streams the serving app's own output, at start and on each request, without the build's", async ({
  page,
  platform,
  admin,
}) => {
  test.setTimeout(150_000);
  const name = unique('Runtime');
  const marker = unique('rt');
  const server = `
const http = require('node:http');
console.log('${marker}: the app started on port ' + process.env.PORT);
http.createServer((req, res) => {
  console.log('${marker}: served ' + req.method + ' ' + req.url);
  console.error('${marker}: a warning while serving ' + req.url);
  res.setHeader('content-type', 'text/plain');
  res.end('runtime app');
}).listen(Number(process.env.PORT), process.env.HOST);
`;
  const { project, deploymentId } = await createGitProject(
    platform,
    name,
    { 'package.json': PACKAGE_JSON, 'build.js': `console.log('${marker}: the build wrote this')`, 'server.js': server },
    'An app that talks',
  );
  try {
    await expectReady(platform.adminApi, project.id, deploymentId);

    await openAfterSignIn(page, admin, `/projects/${project.slug}`);
    await page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name: 'Runtime', exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/projects/${project.slug}/runtime$`));
    await expect(page).toHaveTitle(`Runtime · ${name} - Launchbay`);
    await expect(page.getByRole('heading', { name: 'Runtime', exact: true })).toBeVisible();
    await expect(page.getByText('Live output of the app serving production.', { exact: true })).toBeVisible();
    await expect(page.getByRole('link', { name: `Deployment #${deploymentId}` })).toBeVisible();
    await expect(page.getByRole('main').getByText('An app that talks', { exact: true })).toBeVisible();

    const log = page.getByRole('log', { name: 'Runtime log of production', exact: true });
    await expect(log).toContainText(`${marker}: the app started on port`, { timeout: 20_000 });
    // Only the app's output: not the build's.
    await expect(log).not.toContainText(`${marker}: the build wrote this`);

    // A visit through the edge: the app's line about it arrives while the page is open.
    const visits = `/visit-${unique('page')}`;
    const path = `${visits}/first`;
    const visit = await askEdge(project.url, path);
    expect(visit).toEqual({ status: 200, body: 'runtime app' });
    await expect(log).toContainText(`${marker}: served GET ${path}`, { timeout: 20_000 });
    await expect(log).toContainText(`${marker}: a warning while serving ${path}`);

    // A second one; the log's search finds both visits (the health check's requests are there too).
    const second = `${visits}/second`;
    expect((await askEdge(project.url, second)).body).toBe('runtime app');
    await expect(log).toContainText(`${marker}: served GET ${second}`, { timeout: 20_000 });
    await page.getByRole('searchbox', { name: 'Search logs' }).fill(`${marker}: served GET ${visits}/`);
    await expect(page.getByText('1 of 2', { exact: true })).toBeVisible();
  } finally {
    await platform.adminApi.delete(`/api/projects/${project.id}`);
  }
});

test('an environment is added, its branch and limits are edited, and the change persists after a reload and in the API', async ({
  page,
  platform,
}) => {
  const name = unique('Envs');
  const project = await createPushProject(platform, name);
  try {
    await signIn(page, platform.admin, `/projects/${project.slug}/settings/environments`);
    await expect(page).toHaveTitle(`${name} - Environments - Launchbay`);
    await expect(page.getByRole('heading', { name: 'Environments', exact: true })).toBeVisible();
    await expect(
      page.getByText('Production deploys main. Add environments to deploy other branches to their own addresses.'),
    ).toBeVisible();
    const rows = page.getByRole('main').getByRole('table').getByRole('row');
    const production = rows.filter({ hasText: 'Production' });
    await expect(production).toContainText('main');
    await expect(production).toContainText('Not deployed');
    await expect(production).toContainText('1 instance');

    // Add: the name's rules first, then a valid one.
    await page.getByRole('button', { name: 'Add environment', exact: true }).click();
    const add = page.getByRole('dialog', { name: 'Add environment' });
    await expect(add).toContainText('An environment deploys a branch to its own address, with its own variables.');
    await add.getByLabel('Name', { exact: true }).fill('production');
    await add.getByLabel('Branch', { exact: true }).fill('develop');
    await add.getByRole('button', { name: 'Add environment', exact: true }).click();
    await expect(add.getByText('The project already has its production environment')).toBeVisible();
    await add.getByLabel('Name', { exact: true }).fill('staging');
    await expect(add).toContainText(`Served at ${project.slug}-staging.`);
    await add.getByRole('button', { name: 'Add environment', exact: true }).click();
    const stagingAddress = `${project.slug}-staging.localhost:${new URL(project.url).port}`;
    await expect(toast(page, 'Environment added')).toContainText(`staging deploys develop to ${stagingAddress}.`);
    await expect(add).toBeHidden();
    const staging = rows.filter({ hasText: 'Staging' });
    await expect(staging).toContainText('develop');
    await expect(staging).toContainText(stagingAddress);
    await expect(staging).toContainText('Not deployed');
    await expect(staging).toContainText('1 instance');

    // Edit: a limit out of range is refused on the field; valid values are saved.
    await staging.getByRole('button', { name: 'Actions for staging', exact: true }).click();
    await page.getByRole('menuitem', { name: 'Edit', exact: true }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Staging' });
    await expect(edit).toContainText('Its branch and resource limits apply from its next deployment.');
    await expect(edit.getByLabel('Branch', { exact: true })).toHaveValue('develop');
    await expect(edit.getByRole('button', { name: 'Save', exact: true })).toBeDisabled();
    await edit.getByLabel('Branch', { exact: true }).fill('release');
    await edit.getByLabel('Memory (MB)', { exact: true }).fill('32');
    await edit.getByLabel('CPU (%)', { exact: true }).fill('50');
    await edit.getByLabel('Instances', { exact: true }).fill('2');
    await edit.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(edit.getByText('At least 64 MB', { exact: true })).toBeVisible();
    await edit.getByLabel('Memory (MB)', { exact: true }).fill('256');
    await edit.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(toast(page, 'Environment saved')).toContainText('staging uses the new settings from its next deployment.');
    await expect(edit).toBeHidden();
    await expect(staging).toContainText('release');
    await expect(staging).toContainText('256 MB · 50% CPU · 2 instances');

    // After a reload, from the server.
    await page.reload();
    await expect(rows.filter({ hasText: 'Staging' })).toContainText('release');
    await expect(rows.filter({ hasText: 'Staging' })).toContainText('256 MB · 50% CPU · 2 instances');
    await expect(rows.filter({ hasText: 'Production' })).toContainText('1 instance');
    await expect(rows.filter({ hasText: 'Production' })).not.toContainText('MB');
    // The dialog opens with the saved values.
    await rows.filter({ hasText: 'Staging' }).getByRole('button', { name: 'Actions for staging', exact: true }).click();
    await page.getByRole('menuitem', { name: 'Edit', exact: true }).click();
    await expect(edit.getByLabel('Memory (MB)', { exact: true })).toHaveValue('256');
    await expect(edit.getByLabel('CPU (%)', { exact: true })).toHaveValue('50');
    await expect(edit.getByLabel('Instances', { exact: true })).toHaveValue('2');
    await edit.getByRole('button', { name: 'Cancel', exact: true }).click();
    await expect(edit).toBeHidden();

    const listed = await platform.adminApi.get(`/api/projects/${project.id}/environments`);
    expect(listed.status()).toBe(200);
    const { environments } = (await listed.json()) as { environments: ApiEnvironment[] };
    expect(
      environments.map(({ name, branch, is_production, memory_mb, cpu_percent, instances }) => ({
        name,
        branch,
        is_production,
        memory_mb,
        cpu_percent,
        instances,
      })),
    ).toEqual([
      { name: 'production', branch: 'main', is_production: true, memory_mb: null, cpu_percent: null, instances: 1 },
      { name: 'staging', branch: 'release', is_production: false, memory_mb: 256, cpu_percent: 50, instances: 2 },
    ]);
  } finally {
    await platform.adminApi.delete(`/api/projects/${project.id}`);
  }
});

test('general settings rename the project in its header, and overridden build and start commands are what the next deployment runs', async ({
  page,
  platform,
  admin,
}) => {
  test.setTimeout(180_000);
  const name = unique('General');
  const server = `
const fs = require('node:fs');
const http = require('node:http');
const built = fs.existsSync('built.txt') ? fs.readFileSync('built.txt', 'utf8').trim() : 'nothing built';
const args = process.argv.slice(2).join(' ') || 'no arguments';
http.createServer((req, res) => {
  res.setHeader('content-type', 'text/plain');
  res.end(built + ' | started with ' + args);
}).listen(Number(process.env.PORT), process.env.HOST);
`;
  const { project, deploymentId } = await createGitProject(
    platform,
    name,
    {
      'package.json': PACKAGE_JSON,
      'build.js': "require('node:fs').writeFileSync('built.txt', 'built by build.js');",
      'alt-build.js':
        "console.log('the overridden build command ran'); require('node:fs').writeFileSync('built.txt', 'built by alt-build.js');",
      'server.js': server,
    },
    'An app with two build scripts',
  );
  try {
    await expectReady(platform.adminApi, project.id, deploymentId);
    await expectServed(project.url, 'built by build.js | started with no arguments');

    await openAfterSignIn(page, admin, `/projects/${project.slug}/settings/general`);
    await expect(page).toHaveTitle(`${name} - General Settings - Launchbay`);
    const main = page.getByRole('main');
    await expect(main.getByRole('heading', { level: 1 })).toHaveText(name);

    // Rename: the header, the title and the API follow; the address stays.
    const nameCard = page.getByRole('region', { name: 'Project name' });
    const address = project.url.replace(/^http:\/\//, '');
    await expect(nameCard).toContainText(`Renaming keeps the address ${address}.`);
    const saveName = nameCard.getByRole('button', { name: 'Save Project name', exact: true });
    await expect(saveName).toBeDisabled();
    const renamed = `Renamed ${name}`;
    await nameCard.getByLabel('Name', { exact: true }).fill(renamed);
    await expect(nameCard).toContainText('You have unsaved changes.');
    await saveName.click();
    await expect(toast(page, 'Project renamed')).toContainText(renamed);
    await expect(main.getByRole('heading', { level: 1 })).toHaveText(renamed);
    await expect(page).toHaveTitle(`${renamed} - General Settings - Launchbay`);
    await expect(nameCard).toContainText(`Renaming keeps the address ${address}.`);
    await expect(saveName).toBeDisabled();

    // Build settings: the build and start commands overridden, then a redeploy from the toast.
    const buildCard = page.getByRole('region', { name: 'Build settings' });
    const buildCommand = buildCard.getByLabel(/^Build command/);
    const startCommand = buildCard.getByLabel(/^Start command/);
    await expect(buildCommand).toHaveValue('');
    await buildCommand.fill('node alt-build.js');
    await startCommand.fill('node server.js --started-by-override');
    await expect(buildCard).toContainText('You have unsaved changes.');
    await buildCard.getByRole('button', { name: 'Save Build settings', exact: true }).click();
    const saved = toast(page, 'Build settings saved');
    await expect(saved).toContainText('They apply from the next deployment.');
    await expect(buildCard).toContainText('Changes apply from the next deployment.');

    const detail = (await (await platform.adminApi.get(`/api/projects/${project.id}`)).json()) as Project & {
      build_command: string | null;
      start_command: string | null;
    };
    expect(detail).toMatchObject({
      name: renamed,
      slug: project.slug,
      build_command: 'node alt-build.js',
      start_command: 'node server.js --started-by-override',
    });

    // The saved toast's Redeploy starts the next deployment; the next toast's View opens it.
    await saved.getByRole('button', { name: 'Redeploy', exact: true }).click();
    const started = toast(page, 'Deployment started');
    await expect(started).toContainText(/Deployment #\d+ of production is queued\./);
    const nextId = Number(/#(\d+)/.exec((await started.textContent()) ?? '')?.[1]);
    expect(nextId).toBeGreaterThan(deploymentId);
    await started.getByRole('button', { name: 'View', exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/projects/${project.slug}/deployments/${nextId}$`));
    const log = page.getByRole('log', { name: `Log of deployment #${nextId}` });
    await expect(log).toContainText('$ node alt-build.js', { timeout: 60_000 });
    await expect(log).toContainText('the overridden build command ran', { timeout: 60_000 });
    await expect(deploymentHeader(page)).toContainText('Ready', { timeout: 90_000 });
    await expect(log).not.toContainText('$ npm run build');
    await expectServed(project.url, 'built by alt-build.js | started with --started-by-override');

    // The settings page after a reload: the saved name and commands, from the server.
    await page.goto(`/projects/${project.slug}/settings/general`);
    await expect(main.getByRole('heading', { level: 1 })).toHaveText(renamed, { timeout: 20_000 });
    await expect(nameCard.getByLabel('Name', { exact: true })).toHaveValue(renamed);
    await expect(buildCard.getByLabel(/^Build command/)).toHaveValue('node alt-build.js');
    await expect(buildCard.getByLabel(/^Start command/)).toHaveValue('node server.js --started-by-override');
  } finally {
    await platform.adminApi.delete(`/api/projects/${project.id}`);
  }
});

test('a slow build is cancelled from its deployment page: toast, status Cancelled, the build step cancelled', async ({
  page,
  platform,
  admin,
}) => {
  test.setTimeout(150_000);
  const name = unique('Cancel');
  // The build also reports each tick to this listener (builds share the host's network): once
  // cancelled, its ticks must stop coming, which shows the build's process was ended.
  const ticks: { tick: number; at: number }[] = [];
  const listener = http.createServer((request, response) => {
    const tick = Number(/^\/tick\/(\d+)$/.exec(request.url ?? '')?.[1]);
    if (tick) ticks.push({ tick, at: Date.now() });
    response.end('ok');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const listenerPort = (listener.address() as { port: number }).port;
  const slowBuild = `
const http = require('node:http');
let tick = 0;
const timer = setInterval(() => {
  tick += 1;
  console.log('slow build: tick ' + tick);
  http.get('http://127.0.0.1:${listenerPort}/tick/' + tick, (response) => response.resume()).on('error', () => {});
  if (tick === 300) {
    clearInterval(timer);
    console.log('slow build: finished');
  }
}, 300);
`;
  const { project, deploymentId } = await createGitProject(
    platform,
    name,
    { 'package.json': PACKAGE_JSON, 'build.js': slowBuild, 'server.js': PLAIN_SERVER('never served') },
    'A build that takes its time',
  );
  try {
    await openAfterSignIn(page, admin, `/projects/${project.slug}/deployments/${deploymentId}`);
    await expect(page.getByRole('heading', { name: `Deployment #${deploymentId}`, exact: true })).toBeVisible({
      timeout: 30_000,
    });
    const log = page.getByRole('log', { name: `Log of deployment #${deploymentId}` });
    await expect(log).toContainText('slow build: tick 3', { timeout: 60_000 });
    await expect(deploymentHeader(page)).toContainText('Building');
    await expect(page.getByText('Live once ready', { exact: true })).toBeVisible();

    // Cancel asks nothing: one click, then the toast.
    await page.getByRole('button', { name: 'Cancel deployment', exact: true }).click();
    await expect(toast(page, 'Deployment cancelled')).toBeVisible();
    await expect(page.getByRole('alertdialog')).toHaveCount(0);
    await expect(deploymentHeader(page)).toContainText('Cancelled', { timeout: 30_000 });
    await expect(page.getByRole('button', { name: 'Cancel deployment', exact: true })).toBeHidden();
    await expect(page.getByRole('button', { name: 'Redeploy', exact: true })).toBeVisible();
    await expect(page.getByText('Not serving', { exact: true })).toBeVisible();
    const pipeline = page.getByRole('list', { name: 'Pipeline steps' });
    await expect(pipeline.getByRole('button', { name: /^Build: cancelled/ })).toBeVisible({ timeout: 30_000 });
    await expect(log).not.toContainText('slow build: finished');
    // The build's process is gone: the ticks stop (one every 300 ms while it runs).
    expect(ticks.length, 'the build never reached the test listener').toBeGreaterThan(0);
    await expect
      .poll(() => Date.now() - (ticks.at(-1)?.at ?? 0), {
        timeout: 15_000,
        message: 'the build kept ticking after it was cancelled',
      })
      .toBeGreaterThan(3_000);

    const settled = (await (
      await platform.adminApi.get(`/api/projects/${project.id}/deployments/${deploymentId}`)
    ).json()) as ApiDeployment;
    expect(settled.status).toBe('cancelled');
    // Nothing went live: the project's address serves no app.
    const visit = await askEdge(project.url);
    expect(visit.body).not.toContain('never served');

    // The list says so too.
    await page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name: 'Deployments' }).click();
    await expect(page.getByTestId(`deployment-row-${deploymentId}`)).toContainText('Cancelled');
  } finally {
    await platform.adminApi.delete(`/api/projects/${project.id}`);
    listener.closeAllConnections();
    await new Promise((resolve) => listener.close(resolve));
  }
});

test('a .env file is imported (from a file, then pasted for one environment) and each environment downloads its own .env', async ({
  page,
  platform,
}) => {
  const name = unique('Dotenv');
  const project = await createPushProject(platform, name);
  try {
    const created = await platform.adminApi.post(`/api/projects/${project.id}/environments`, {
      data: { name: 'staging', branch: 'develop' },
    });
    expect(created.status(), await created.text()).toBe(201);
    const staging = (await created.json()) as ApiEnvironment;
    const { environments } = (await (await platform.adminApi.get(`/api/projects/${project.id}/environments`)).json()) as {
      environments: ApiEnvironment[];
    };
    const production = environments.find((env) => env.is_production);
    if (!production) throw new Error('the project has no production environment');

    await signIn(page, platform.admin, `/projects/${project.slug}/settings/environment-variables`);
    await expect(page).toHaveTitle(`${name} - Environment Variables - Launchbay`);
    await expect(page.getByText('No environment variables yet', { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Download .env', exact: true })).toBeDisabled();

    // A .env file chosen from disk: comments, export, quotes and an inline comment; a bad line is skipped.
    await page.getByRole('button', { name: 'Import .env', exact: true }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Import .env' });
    await expect(dialog).toContainText('The preview shows here once you paste something.');
    await expect(dialog.getByRole('button', { name: /^Import/ })).toBeDisabled();
    await dialog.getByLabel('Choose a .env file').setInputFiles({
      name: '.env',
      mimeType: 'text/plain',
      buffer: Buffer.from(
        [
          '# exported from the old host',
          'export GREETING="hello, world"',
          'API_URL=https://api.example.com/v1 # the public API',
          'this line is not a variable',
          'EMPTY=',
          '',
        ].join('\n'),
      ),
    });
    await expect(dialog.getByLabel('Contents', { exact: true })).toHaveValue(/export GREETING="hello, world"/);
    await expect(dialog).toContainText('3 will be added, 0 will be updated.');
    await expect(dialog).toContainText('Line 4 is not KEY=VALUE (skipped)');
    await expect(dialog.getByLabel('Environments', { exact: true })).toHaveText('All environments');
    await dialog.getByRole('button', { name: 'Import 3 variables', exact: true }).click();
    await expect(toast(page, 'Imported 3 variables')).toContainText('3 added');
    await expect(dialog).toBeHidden();
    for (const key of ['GREETING', 'API_URL', 'EMPTY']) {
      await expect(page.getByTestId(`env-var-${key}`)).toContainText('All environments');
      await expect(page.getByTestId(`env-value-${key}`)).toHaveText('••••••••');
    }
    await page.getByRole('button', { name: 'Reveal GREETING' }).click();
    await expect(page.getByTestId('env-value-GREETING')).toHaveText('hello, world');
    await page.getByRole('button', { name: 'Reveal EMPTY' }).click();
    await expect(page.getByTestId('env-value-EMPTY')).toHaveText('(empty)');

    // Pasted, for staging only: GREETING gets a staging value of its own, production keeps its value.
    await page.getByRole('button', { name: 'Import .env', exact: true }).click();
    await expect(dialog).toBeVisible();
    await dialog.getByLabel('Contents', { exact: true }).fill('GREETING=hello from staging\nSTAGING_ONLY=yes');
    // For every environment, GREETING would be updated in place.
    await expect(dialog).toContainText('1 will be added, 1 will be updated.');
    await dialog.getByLabel('Environments', { exact: true }).click();
    await page.getByRole('menuitemcheckbox', { name: 'All environments' }).click();
    await expect(dialog).toContainText('Choose at least one environment.');
    await expect(dialog.getByRole('button', { name: 'Import 2 variables', exact: true })).toBeDisabled();
    await page.getByRole('menuitemcheckbox', { name: 'Staging', exact: true }).click();
    await page.keyboard.press('Escape');
    await expect(dialog.getByLabel('Environments', { exact: true })).toHaveText('Staging');
    await expect(dialog).toContainText('1 will be added, 1 will be updated.');
    await dialog.getByRole('button', { name: 'Import 2 variables', exact: true }).click();
    await expect(toast(page, 'Imported 2 variables')).toContainText('1 added, 1 updated');
    await expect(dialog).toBeHidden();
    await expect(page.getByTestId('env-var-STAGING_ONLY')).toContainText('Staging');
    await expect(page.getByTestId('env-var-STAGING_ONLY')).not.toContainText('Production');

    const storedValue = async (key: string, environmentId: number) => {
      const response = await platform.adminApi.get(
        `/api/projects/${project.id}/env-vars/${key}/value?environment_id=${environmentId}`,
      );
      expect(response.status(), await response.text()).toBe(200);
      return ((await response.json()) as { value: string }).value;
    };
    expect(await storedValue('GREETING', production.id)).toBe('hello, world');
    expect(await storedValue('GREETING', staging.id)).toBe('hello from staging');
    expect(await storedValue('API_URL', staging.id)).toBe('https://api.example.com/v1');

    // Download: one .env per environment, each with its own values, readable back.
    const downloadOf = async (environment: 'Production' | 'Staging') => {
      await page.getByRole('button', { name: 'Download .env', exact: true }).click();
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('menuitem', { name: environment, exact: true }).click(),
      ]);
      const file = await download.path();
      return { filename: download.suggestedFilename(), text: fs.readFileSync(file, 'utf8') };
    };

    const prod = await downloadOf('Production');
    await expect(toast(page, 'Downloaded .env').filter({ hasText: '3 variables of production.' })).toBeVisible();
    expect(prod.filename).toBe(`${project.slug}.production.env`);
    const prodLines = prod.text.split('\n');
    expect(prodLines[0]).toMatch(new RegExp(`^# ${project.slug} \\(production\\), downloaded \\d{4}-\\d{2}-\\d{2}T`));
    expect(prodLines.slice(1)).toEqual(['API_URL=https://api.example.com/v1', 'EMPTY=', 'GREETING="hello, world"', '']);

    const stag = await downloadOf('Staging');
    await expect(toast(page, 'Downloaded .env').filter({ hasText: '4 variables of staging.' })).toBeVisible();
    expect(stag.filename).toBe(`${project.slug}.staging.env`);
    expect(stag.text.split('\n').slice(1)).toEqual([
      'API_URL=https://api.example.com/v1',
      'EMPTY=',
      'GREETING="hello from staging"',
      'STAGING_ONLY=yes',
      '',
    ]);
  } finally {
    await platform.adminApi.delete(`/api/projects/${project.id}`);
  }
});
