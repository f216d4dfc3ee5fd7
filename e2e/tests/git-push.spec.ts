import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, signIn, test, unique } from '../fixtures';

/*
 * A project with no repository URL: the overview shows the platform's own git remote and the
 * commands to push to it; a real `git push` with an API key deploys it, and the page shows it live.
 */

function git(args: string[], cwd: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      {
        cwd,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: cwd,
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_TERMINAL_PROMPT: '0',
          GIT_AUTHOR_NAME: 'Dev',
          GIT_AUTHOR_EMAIL: 'dev@example.com',
          GIT_COMMITTER_NAME: 'Dev',
          GIT_COMMITTER_EMAIL: 'dev@example.com',
        },
        timeout: 120_000,
      },
      (error, _stdout, stderr) => resolve({ code: error ? 1 : 0, stderr }),
    );
  });
}

test('a project without a git URL shows its git remote, and a git push deploys it', async ({ page, platform, admin }) => {
  test.setTimeout(180_000);
  const name = unique('Pushed');
  const created = await platform.adminApi.post('/api/projects', { data: { name, branch: 'main' } });
  expect(created.status(), await created.text()).toBe(201);
  const project = (await created.json()) as { id: number; slug: string };
  const key = await platform.adminApi.post('/api/api-keys', {
    data: { name: unique('push key'), permissions: ['projects:read', 'deployments:write'] },
  });
  const secret = ((await key.json()) as { secret: string }).secret;

  await signIn(page, admin, `/projects/${project.slug}`);
  const card = page.getByRole('region', { name: 'Deploy with git push' });
  const remote = `${platform.url.replace('127.0.0.1', 'localhost')}/git/${project.slug}.git`;
  await expect(card).toBeVisible();
  await expect(card.getByText(`/git/${project.slug}.git`, { exact: false }).first()).toBeVisible();
  await expect(card.getByText(`git push launchbay main`, { exact: false })).toBeVisible();

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-e2e-push-'));
  try {
    fs.writeFileSync(path.join(dir, 'index.html'), '<h1>pushed from a terminal</h1>');
    expect((await git(['init', '-q', '-b', 'main'], dir)).code).toBe(0);
    await git(['add', '-A'], dir);
    await git(['commit', '-q', '-m', 'First page'], dir);
    const url = new URL(`${platform.url}/git/${project.slug}.git`);
    url.username = 'push';
    url.password = secret;
    const pushed = await git(['push', url.toString(), 'main'], dir);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stderr).toContain('remote: Live at http://');
    expect(remote).toContain(project.slug);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  await page.reload();
  await expect(page.getByRole('region', { name: 'Production deployment' }).getByText('Ready').first()).toBeVisible();
  await expect(page.getByText('First page').first()).toBeVisible();
});
