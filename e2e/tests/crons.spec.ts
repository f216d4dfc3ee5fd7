import { type GitServer, startGitServer } from '@launchbay/testkit';
import type { APIRequestContext } from '@playwright/test';
import { expect, signIn, test, toast, unique } from '../fixtures';

/*
 * Cron jobs in the console against the real platform: a static site deployed from the testkit's git
 * server, then Settings -> Cron Jobs: the contract's and the server's messages under the Schedule
 * field, a job added, listed with its next run, run now (the edge serves the site: 200), its
 * executions, switched off, seen by a reader without controls, and deleted after the confirmation.
 */

const SCHEDULE_MESSAGE = 'Must be a cron expression, e.g. `0 3 * * *` (5 fields, or 6 with seconds first)';

interface ApiProject {
  id: number;
  slug: string;
  name: string;
}

async function waitForReady(api: APIRequestContext, projectId: number): Promise<void> {
  await expect
    .poll(
      async () => {
        const response = await api.get(`/api/projects/${projectId}/last-deployment`);
        if (response.status() !== 200) return 'none';
        return ((await response.json()) as { status: string }).status;
      },
      { timeout: 120_000, intervals: [500] },
    )
    .toMatch(/^(ready|failed|crashed|cancelled)$/);
  const last = (await (await api.get(`/api/projects/${projectId}/last-deployment`)).json()) as { status: string; error?: string };
  expect(last.status, `the site's deployment: ${JSON.stringify(last)}`).toBe('ready');
}

let git: GitServer;

test.beforeAll(async () => {
  git = await startGitServer();
});

test.afterAll(async () => {
  await git?.close();
});

test('a cron job is added with its schedule checked, runs now against the live site, shows its executions, is switched off and deleted', async ({
  page,
  platform,
  admin,
  browser,
}) => {
  test.setTimeout(240_000);
  // Half an hour from now (minute 0 is read aloud differently: it becomes 1).
  const minute = (new Date().getUTCMinutes() + 30) % 60 || 1;
  const hourlySchedule = `${minute} * * * *`;
  const name = unique('Crons');
  const repo = await git.createRepo(
    `e2e/${name.toLowerCase()}`,
    {
      'launchbay.json': JSON.stringify({ installCommand: null, buildCommand: 'node build.js', outputDirectory: 'dist' }),
      'build.js': [
        "const fs = require('node:fs');",
        "fs.mkdirSync('dist', { recursive: true });",
        "fs.writeFileSync('dist/index.html', '<!doctype html><title>Cron site</title><h1>Hello from the cron site</h1>');",
      ].join('\n'),
    },
    { message: 'A static site for cron jobs' },
  );
  const created = await platform.adminApi.post('/api/projects', { data: { name, git_url: repo.url, branch: 'main' } });
  expect(created.status(), await created.text()).toBe(201);
  const project = (await created.json()) as ApiProject;
  try {
    await waitForReady(platform.adminApi, project.id);

    // Settings -> Cron Jobs: nothing yet.
    await signIn(page, admin, `/projects/${project.slug}`);
    await page.getByRole('navigation', { name: 'Project sections' }).getByRole('link', { name: 'Settings', exact: true }).click();
    await page.getByRole('navigation', { name: 'Project settings' }).getByRole('link', { name: 'Cron Jobs' }).click();
    await expect(page).toHaveURL(new RegExp(`/projects/${project.slug}/settings/cron-jobs$`));
    await expect(page.getByRole('heading', { name: 'Cron Jobs', exact: true })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'No cron jobs yet' })).toBeVisible();
    await expect(page.getByText('launchbay.json', { exact: true })).toBeVisible();
    await expect(page.getByLabel('Environment')).toContainText('Production');

    // A schedule that is not a cron pattern: the contract's message, nothing sent.
    await page.getByRole('button', { name: 'Add Cron Job' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add Cron Job' });
    await dialog.getByLabel('Path', { exact: true }).fill('/');
    await dialog.getByLabel('Schedule', { exact: true }).fill('every five minutes');
    await dialog.getByRole('button', { name: 'Add Cron Job' }).click();
    await expect(dialog.getByRole('alert')).toHaveText(SCHEDULE_MESSAGE);
    await expect(dialog.getByLabel('Schedule', { exact: true })).toHaveAttribute('aria-invalid', 'true');

    // The right shape but no real pattern: the server's field error under the field.
    await dialog.getByLabel('Schedule', { exact: true }).fill('99 * * * *');
    await dialog.getByRole('button', { name: 'Add Cron Job' }).click();
    await expect(dialog.getByRole('alert')).toContainText('Not a valid cron expression');
    await expect(toast(page, 'Failed to add cron job')).toBeVisible();

    // A valid one: every 5 minutes, read aloud under the field.
    await dialog.getByLabel('Schedule', { exact: true }).fill('*/5 * * * *');
    await expect(dialog.getByText('every 5 minutes', { exact: true })).toBeVisible();
    // The job added runs once an hour, half an hour from now: a scheduled run never lands inside this
    // test beside the manual one (with */5 one did on CI, when the test crossed a fifth minute).
    await dialog.getByLabel('Schedule', { exact: true }).fill(hourlySchedule);
    await dialog.getByRole('button', { name: 'Add Cron Job' }).click();
    await expect(toast(page, 'Cron job created')).toBeVisible();
    await expect(dialog).toBeHidden();

    const crons = (await (
      await platform.adminApi.get(
        `/api/projects/${project.id}/environments/${await productionId(platform.adminApi, project.id)}/crons`,
      )
    ).json()) as { crons: { id: number; next_run_at: string }[] };
    expect(crons.crons).toHaveLength(1);
    const cron = crons.crons[0]!;
    const row = page.getByTestId(`cron-job-${cron.id}`);
    await expect(row).toContainText(hourlySchedule);
    await expect(row).toContainText(`Every hour at minute ${minute}`);
    await expect(row).toContainText('Not run yet');
    // Next run: relative and in UTC ('2025-06-01 03:05 UTC').
    const nextRun = row.getByTestId('cron-next-run');
    await expect(nextRun).toContainText(/in (less than a minute|\d+ minutes?)/);
    const next = new Date(cron.next_run_at).toISOString();
    await expect(nextRun).toContainText(`${next.slice(0, 10)} ${next.slice(11, 16)} UTC`);

    // Run now: the edge serves the site, the execution succeeds with 200.
    await row.getByRole('button', { name: 'Run now' }).click();
    const ran = toast(page, 'Cron job succeeded');
    await expect(ran).toBeVisible({ timeout: 40_000 });
    await expect(ran).toContainText('GET / answered 200');
    await expect(row.getByTestId('cron-last-execution')).toContainText('Succeeded');
    await expect(row.getByTestId('cron-last-execution')).toContainText('200');

    // Its executions: the manual run, its code and the start of the page it got.
    await row.getByRole('button', { name: 'Actions for /' }).click();
    await page.getByRole('menuitem', { name: 'View executions' }).click();
    const executions = page.getByRole('dialog', { name: 'Executions' });
    const execution = executions.locator('[data-testid^="cron-execution-"]');
    await expect(execution).toHaveCount(1);
    await expect(execution).toContainText('Manual');
    await expect(execution).toContainText('Succeeded');
    await expect(execution).toContainText('200');
    await expect(execution).toContainText('Hello from the cron site');
    await expect(executions).toContainText('1–1 of 1');
    await page.keyboard.press('Escape');
    await expect(executions).toBeHidden();

    // Switched off: no next run.
    const enabled = row.getByRole('switch', { name: `Enabled: / (${hourlySchedule})` });
    await expect(enabled).toBeChecked();
    await enabled.click();
    await expect(toast(page, 'Cron job updated')).toContainText('is off');
    await expect(enabled).not.toBeChecked();
    await expect(row.getByTestId('cron-next-run')).toBeHidden();
    await expect(row).toContainText('Off');

    // A reader sees the job and its executions, but no control that changes or runs it.
    const reader = await platform.createUser({ roles: ['reader'] });
    const readerContext = await browser.newContext({ baseURL: platform.url });
    try {
      const readerPage = await readerContext.newPage();
      await signIn(readerPage, reader, `/projects/${project.slug}/settings/cron-jobs`);
      const readerRow = readerPage.getByTestId(`cron-job-${cron.id}`);
      await expect(readerRow).toContainText(hourlySchedule);
      await expect(readerRow.getByTestId('cron-last-execution')).toContainText('Succeeded');
      await expect(readerPage.getByRole('button', { name: 'Add Cron Job' })).toHaveCount(0);
      await expect(readerRow.getByRole('button', { name: 'Run now' })).toHaveCount(0);
      await expect(readerRow.getByRole('switch')).toHaveCount(0);
      await readerRow.getByRole('button', { name: 'Actions for /' }).click();
      await expect(readerPage.getByRole('menuitem', { name: 'View executions' })).toBeVisible();
      await expect(readerPage.getByRole('menuitem', { name: 'Delete' })).toHaveCount(0);
    } finally {
      await readerContext.close();
    }

    // Deleted after the confirmation.
    await row.getByRole('button', { name: 'Actions for /' }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete cron job?' });
    await expect(confirm).toContainText('This action cannot be undone');
    await confirm.getByRole('button', { name: 'Delete cron job' }).click();
    await expect(toast(page, 'Cron job deleted')).toBeVisible();
    await expect(row).toBeHidden();
    await expect(page.getByRole('heading', { name: 'No cron jobs yet' })).toBeVisible();
  } finally {
    // The app outlives the platform's stop by design: the project's deletion ends it.
    await platform.adminApi.delete(`/api/projects/${project.id}`);
  }
});

async function productionId(api: APIRequestContext, projectId: number): Promise<number> {
  const response = await api.get(`/api/projects/${projectId}/environments`);
  expect(response.status(), await response.text()).toBe(200);
  const body = (await response.json()) as { environments: { id: number; is_production: boolean }[] };
  const production = body.environments.find((env) => env.is_production);
  if (!production) throw new Error('The project has no production environment');
  return production.id;
}
