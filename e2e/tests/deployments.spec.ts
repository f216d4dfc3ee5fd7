import http from 'node:http';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import type { Page } from '@playwright/test';
import { type Credentials, closeToasts, expect, type Platform, test, toast, unique } from '../fixtures';

/*
 * Deployments in the console against the real pipeline: a git repository served over HTTP by the
 * test kit, a project created from it through the API, then the console's deployment page (the
 * streaming build log, the pipeline, the status reaching Ready), a redeploy of a new commit and a
 * rollback to the first deployment with its confirmation. The app answers through the edge, so
 * each switch is checked where it matters: what visitors get.
 */

const SERVER_JS = (text: string) => `
const http = require('node:http');
console.log('the e2e app listens on ' + process.env.PORT);
http.createServer((req, res) => {
  res.setHeader('content-type', 'text/plain');
  res.end(${JSON.stringify(text)});
}).listen(Number(process.env.PORT), process.env.HOST);
`;

/** A build that takes a moment and says so, line by line, in colour. */
const BUILD_JS = `
let step = 0;
const timer = setInterval(() => {
  step += 1;
  console.log('\\u001b[34mbuilding the e2e app\\u001b[0m: step ' + step + ' of 6');
  if (step === 6) {
    clearInterval(timer);
    console.log('build finished');
  }
}, 250);
`;

const PACKAGE_JSON = JSON.stringify({
  name: 'e2e-app',
  version: '1.0.0',
  private: true,
  scripts: { build: 'node build.js', start: 'node server.js' },
});

type Project = { id: number; slug: string; url: string };
type Deployment = { id: number; status: string };

/** What a visitor of the project's address gets, through the edge (the Host header names the project). */
function askEdge(url: string): Promise<{ status: number; body: string }> {
  const address = new URL(url);
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port: Number(address.port), path: '/', headers: { host: address.host }, agent: false },
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

const viaEdge = async (url: string) => (await askEdge(url)).body;

/**
 * Visitors asking the project's address one after the other, as fast as answers come, until told
 * to stop: every answer that is not a 200 from the app (or no answer at all) is a failure.
 */
function keepAsking(project: Project) {
  let asking = true;
  const failures: string[] = [];
  const answers = new Map<string, number>();
  const loop = (async () => {
    while (asking) {
      try {
        const { status, body } = await askEdge(project.url);
        if (status === 200) answers.set(body, (answers.get(body) ?? 0) + 1);
        else failures.push(`${status} ${body.slice(0, 80)}`);
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
  })();
  return {
    async stop() {
      asking = false;
      await loop;
      return { failures, answers };
    },
  };
}

async function expectServed(project: Project, text: string) {
  await expect.poll(() => viaEdge(project.url).catch((error: Error) => error.message), { timeout: 20_000 }).toContain(text);
}

/** The deployment page's own status (the project header above it shows the project's). */
const headerStatus = (page: Page) => page.getByTestId('deployment-header');

async function lastDeployment(platform: Platform, projectId: number): Promise<Deployment> {
  const response = await platform.adminApi.get(`/api/projects/${projectId}/last-deployment`);
  expect(response.status()).toBe(200);
  return (await response.json()) as Deployment;
}

/**
 * Signs in through the API and opens a deployment's page. A deploy keeps both cores busy, so the
 * first page of a worker's new platform may take longer than signIn()'s wait for the shell.
 */
async function openDeployment(page: Page, admin: Credentials, project: Project, deploymentId: number) {
  const response = await page.request.post('/api/auth/login', { data: admin });
  expect(response.status(), await response.text()).toBe(200);
  await page.goto(`/projects/${project.slug}/deployments/${deploymentId}`);
  await expect(page.getByRole('heading', { name: `Deployment #${deploymentId}` })).toBeVisible({ timeout: 30_000 });
}

let git: GitServer;

test.beforeAll(async () => {
  git = await startGitServer();
});

test.afterAll(async () => {
  await git?.close();
});

test('a deployment streams its build, goes live, is redeployed with no failed request, keeps serving through a failed build and a crash, and is rolled back with a confirmation', async ({
  page,
  platform,
  admin,
}) => {
  test.setTimeout(480_000);
  const name = unique('Deploy');
  const repo = await git.createRepo(
    `e2e/${name.toLowerCase()}`,
    { 'package.json': PACKAGE_JSON, 'build.js': BUILD_JS, 'server.js': SERVER_JS('version one') },
    { message: 'First version of the e2e app' },
  );
  const created = await platform.adminApi.post('/api/projects', { data: { name, git_url: repo.url, branch: 'main' } });
  expect(created.status(), await created.text()).toBe(201);
  const project = (await created.json()) as Project;
  try {
    const first = await lastDeployment(platform, project.id);

    // The deployment page: the log streams the build as it happens, then the status reaches Ready.
    await openDeployment(page, admin, project, first.id);
    const log = page.getByRole('log', { name: `Log of deployment #${first.id}` });
    // Following: the newest lines are in view as they arrive.
    await expect(log).toContainText('building the e2e app: step 6 of 6', { timeout: 60_000 });
    await expect(log).toContainText('build finished', { timeout: 60_000 });
    await expect(headerStatus(page)).toContainText('Ready', { timeout: 90_000 });
    await expect(page.getByText('Live', { exact: true })).toBeVisible();
    await expect(page.getByText('First version of the e2e app', { exact: true })).toBeVisible();
    await expect(page.getByText('Current', { exact: true })).toBeVisible();

    // The pipeline lists its steps; a step jumps to its part of the log (the first lines, scrolled away).
    const pipeline = page.getByRole('list', { name: 'Pipeline steps' });
    for (const step of ['Clone', 'Install', 'Build', 'Health check', 'Switch']) {
      await expect(pipeline).toContainText(step);
    }
    await pipeline.getByRole('button', { name: /^Clone: succeeded/ }).click();
    await expect(log).toContainText('── clone');
    await expect(page.getByRole('button', { name: 'Follow', exact: true })).toBeVisible();
    await page.getByRole('button', { name: 'Follow', exact: true }).click();
    await expect(page.getByRole('button', { name: 'Follow', exact: true })).toBeHidden();

    // Search counts its matches.
    await page.getByRole('searchbox', { name: 'Search logs' }).fill('building the e2e app');
    await expect(page.getByText('1 of 6', { exact: true })).toBeVisible();
    await page.getByRole('searchbox', { name: 'Search logs' }).fill('');
    await expectServed(project, 'version one');

    // A new commit, deployed from the console's Redeploy (the head of the branch).
    await repo.commit({ 'server.js': SERVER_JS('version two') }, 'Second version of the e2e app');
    await page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name: 'Deployments' }).click();
    await expect(page.getByRole('heading', { name: 'Deployments', exact: true })).toBeVisible();
    await expect(page.getByTestId(`deployment-row-${first.id}`)).toContainText('First version of the e2e app');
    // Visitors keep asking from before the redeploy until after the first version is drained: not one fails.
    const visitors = keepAsking(project);
    await closeToasts(page);
    await page.getByRole('button', { name: 'Redeploy', exact: true }).click();
    await expect(toast(page, 'Deployment started')).toBeVisible();
    const second = await lastDeployment(platform, project.id);
    expect(second.id).toBeGreaterThan(first.id);
    await expect(page).toHaveURL(new RegExp(`/projects/${project.slug}/deployments/${second.id}$`));
    await expect(page.getByText('Second version of the e2e app', { exact: true })).toBeVisible();
    await expect(headerStatus(page)).toContainText('Ready', { timeout: 90_000 });
    await expect(page.getByText('Current', { exact: true })).toBeVisible();
    await expectServed(project, 'version two');
    const pipelineOfSecond = page.getByRole('list', { name: 'Pipeline steps' });
    await expect(pipelineOfSecond.getByRole('button', { name: /^Drain: succeeded/ })).toBeVisible({ timeout: 30_000 });
    const during = await visitors.stop();
    expect(during.failures).toEqual([]);
    expect(during.answers.get('version one')).toBeGreaterThan(0);
    expect(during.answers.get('version two')).toBeGreaterThan(0);
    expect([...during.answers.keys()].sort()).toEqual(['version one', 'version two']);

    // A commit that fails to build: the deployment shows the failure and why; the second version keeps serving.
    await repo.commit(
      { 'build.js': "console.error('the e2e build cannot find its config'); process.exit(3);" },
      'A commit that does not build',
    );
    await page.getByRole('link', { name: 'Deployments', exact: true }).first().click();
    await closeToasts(page);
    await page.getByRole('button', { name: 'Redeploy', exact: true }).click();
    await expect(toast(page, 'Deployment started')).toBeVisible();
    const broken = await lastDeployment(platform, project.id);
    await expect(page).toHaveURL(new RegExp(`/deployments/${broken.id}$`));
    await expect(headerStatus(page)).toContainText('Failed', { timeout: 90_000 });
    const failure = page.getByRole('alert').filter({ hasText: 'The deployment failed' });
    await expect(failure).toContainText('exit code 3');
    await expect(page.getByRole('log', { name: `Log of deployment #${broken.id}` })).toContainText(
      'the e2e build cannot find its config',
    );
    await expect(
      page.getByRole('list', { name: 'Pipeline steps' }).getByRole('button', { name: /^Build: failed/ }),
    ).toBeVisible();
    expect(await viaEdge(project.url)).toBe('version two');

    // An app that exits at start: marked crashed, never given traffic; the second version keeps serving.
    await repo.commit(
      {
        'build.js': "console.log('build finished')",
        'server.js': "console.error('the e2e app gives up at start'); process.exit(1);",
      },
      'A commit whose app exits at start',
    );
    await page.getByRole('link', { name: 'Deployments', exact: true }).first().click();
    await closeToasts(page);
    await page.getByRole('button', { name: 'Redeploy', exact: true }).click();
    await expect(toast(page, 'Deployment started')).toBeVisible();
    const crashing = await lastDeployment(platform, project.id);
    await expect(page).toHaveURL(new RegExp(`/deployments/${crashing.id}$`));
    await expect(headerStatus(page)).toContainText('Crashed', { timeout: 150_000 });
    await expect(page.getByRole('alert').filter({ hasText: 'The app crashed' })).toBeVisible();
    await expect(page.getByRole('log', { name: `Log of deployment #${crashing.id}` })).toContainText(
      'the e2e app gives up at start',
    );
    expect(await viaEdge(project.url)).toBe('version two');

    // The list: the new deployment is current, the first no longer; the failed and crashed ones say so.
    await page.getByRole('link', { name: 'Deployments', exact: true }).first().click();
    await expect(page.getByTestId(`deployment-row-${second.id}`)).toContainText('Current');
    await expect(page.getByTestId(`deployment-row-${first.id}`)).not.toContainText('Current');
    await expect(page.getByTestId(`deployment-row-${broken.id}`)).toContainText('Failed');
    await expect(page.getByTestId(`deployment-row-${crashing.id}`)).toContainText('Crashed');

    // Rollback to the first deployment, after the confirmation.
    await page.getByTestId(`deployment-row-${first.id}`).click();
    await expect(page.getByRole('heading', { name: `Deployment #${first.id}` })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Pause', exact: true })).toBeHidden();
    await page.getByRole('button', { name: 'Rollback', exact: true }).click();
    const dialog = page.getByRole('alertdialog', { name: `Roll back to deployment #${first.id}?` });
    await expect(dialog).toContainText('Serve this deployment again');
    await dialog.getByRole('button', { name: 'Roll back' }).click();
    await expect(toast(page, 'Rollback started')).toBeVisible();
    const rollback = await lastDeployment(platform, project.id);
    expect(rollback.id).toBeGreaterThan(second.id);
    await expect(page).toHaveURL(new RegExp(`/deployments/${rollback.id}$`));
    await expect(page.getByText(`Rollback to #${first.id}`)).toBeVisible();
    await expect(headerStatus(page)).toContainText('Ready', { timeout: 90_000 });
    await expect(page.getByText('Current', { exact: true })).toBeVisible();
    await expect(page.getByText('First version of the e2e app', { exact: true })).toBeVisible();
    await expectServed(project, 'version one');
    // The exact earlier commit, from its own build output: no clone, no install, no build.
    const rolledBack = await platform.adminApi.get(`/api/projects/${project.id}/deployments/${rollback.id}`);
    const firstNow = await platform.adminApi.get(`/api/projects/${project.id}/deployments/${first.id}`);
    expect(((await rolledBack.json()) as { commit_sha: string }).commit_sha).toBe(
      ((await firstNow.json()) as { commit_sha: string }).commit_sha,
    );
    const rollbackPipeline = page.getByRole('list', { name: 'Pipeline steps' });
    await expect(rollbackPipeline).toContainText('Switch');
    await expect(rollbackPipeline).not.toContainText('Build');
    await expect(rollbackPipeline).not.toContainText('Clone');

    // The list again: the rollback (serving the first build) is current.
    await page.getByRole('link', { name: 'Deployments', exact: true }).first().click();
    await expect(page.getByTestId(`deployment-row-${rollback.id}`)).toContainText(`Rollback to #${first.id}`);
    await expect(page.getByTestId(`deployment-row-${rollback.id}`)).toContainText('Current');
    await expect(page.getByTestId(`deployment-row-${second.id}`)).not.toContainText('Current');
  } finally {
    // The app's processes outlive the platform's stop by design: the project's deletion ends them.
    await platform.adminApi.delete(`/api/projects/${project.id}`);
  }
});

test('pausing the serving deployment asks first, then resume serves it again', async ({ page, platform, admin }) => {
  test.setTimeout(180_000);
  const name = unique('Pause');
  const repo = await git.createRepo(
    `e2e/${name.toLowerCase()}`,
    { 'package.json': PACKAGE_JSON, 'build.js': 'console.log("build finished")', 'server.js': SERVER_JS('paused app') },
    { message: 'An app to pause' },
  );
  const created = await platform.adminApi.post('/api/projects', { data: { name, git_url: repo.url, branch: 'main' } });
  expect(created.status(), await created.text()).toBe(201);
  const project = (await created.json()) as Project;
  try {
    const deployment = await lastDeployment(platform, project.id);
    await openDeployment(page, admin, project, deployment.id);
    await expect(headerStatus(page)).toContainText('Ready', { timeout: 90_000 });
    await expectServed(project, 'paused app');

    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Pause this deployment?' });
    await expect(dialog).toContainText('stops serving traffic');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(headerStatus(page)).toContainText('Ready');

    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Pause deployment' }).click();
    await expect(toast(page, 'Deployment paused')).toBeVisible();
    await expect(headerStatus(page)).toContainText('Paused');
    await expect(page.getByText('Paused: not serving')).toBeVisible();

    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    await expect(toast(page, 'Deployment resumed')).toBeVisible();
    await expect(headerStatus(page)).toContainText('Ready');
    await expectServed(project, 'paused app');

    // An action that no longer applies answers 409: the server's detail shows in the toast. The
    // deployment is paused behind the page's back (it polls only while a deployment is on its way).
    const paused = await platform.adminApi.post(`/api/projects/${project.id}/deployments/${deployment.id}/pause`);
    expect(paused.status()).toBe(200);
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Pause deployment' }).click();
    const failed = toast(page, 'Failed to pause the deployment');
    await expect(failed).toBeVisible();
    await expect(failed).toContainText('only the serving deployment can be paused');
    await expect(page.getByRole('alertdialog')).toBeHidden();
    await expect(headerStatus(page)).toContainText('Paused');
  } finally {
    await platform.adminApi.delete(`/api/projects/${project.id}`);
  }
});
