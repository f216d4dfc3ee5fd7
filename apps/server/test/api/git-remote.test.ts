import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, apiClient } from '../helpers/api';
import { createKey } from '../helpers/audit';
import { getThroughEdge } from '../helpers/edge';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/**
 * The platform as a git remote: the real git client pushes over smart HTTP to
 * /git/{slug}.git with an API key as the password; the push stores the commits, deploys the
 * pushed head and prints the build and the live address; a bad key stores nothing.
 */

let platform: TestPlatform;
let api: Api;
let admin: string;
let pushKey = '';
let readKey = '';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-push-'));

type Run = { code: number; stdout: string; stderr: string };

function gitRun(args: string[], cwd = work): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      {
        cwd,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: work,
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_TERMINAL_PROMPT: '0',
          GIT_AUTHOR_NAME: 'Dev',
          GIT_AUTHOR_EMAIL: 'dev@example.com',
          GIT_COMMITTER_NAME: 'Dev',
          GIT_COMMITTER_EMAIL: 'dev@example.com',
        },
        timeout: Number(process.env.GIT_TEST_TIMEOUT ?? 120_000),
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) || 1 : 0, stdout, stderr }),
    );
  });
}

function remote(slug: string, key: string): string {
  const url = new URL(platform.url);
  return `http://push:${encodeURIComponent(key)}@${url.host}/git/${slug}.git`;
}

async function viaEdge(host: string): Promise<string> {
  return (await getThroughEdge(platform.ctx.edge.port(), host)).body;
}

async function commit(dir: string, files: Record<string, string>, message: string): Promise<string> {
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  await gitRun(['add', '-A'], dir);
  await gitRun(['commit', '-q', '-m', message], dir);
  return (await gitRun(['rev-parse', 'HEAD'], dir)).stdout.trim();
}

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  pushKey = (await createKey(api, admin, ['projects:read', 'deployments:write'])).secret;
  readKey = (await createKey(api, admin, ['projects:read'])).secret;
}, 60_000);
afterAll(async () => {
  await platform.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('the platform as a git remote', { timeout: 180_000 }, () => {
  let slug = '';
  let projectId = 0;
  const appDir = path.join(work, 'app');

  it('creates a project with no git URL: nothing deploys until the first push', async () => {
    const created = await api.call<{ id: number; slug: string; git_url: string | null; last_deployment: unknown }>(
      'POST',
      '/projects',
      {
        token: admin,
        body: { name: 'Pushed Site', branch: 'main' },
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.git_url).toBeNull();
    expect(created.body.last_deployment).toBeNull();
    slug = created.body.slug;
    projectId = created.body.id;
    const withToken = await api.call('POST', '/projects', { token: admin, body: { name: 'X', branch: 'main', git_token: 't' } });
    expect(withToken.status).toBe(400);
  });

  it('a push with a wrong key, or a key without deployments:write, is refused and stores nothing', async () => {
    fs.mkdirSync(appDir, { recursive: true });
    await gitRun(['init', '-q', '-b', 'main'], appDir);
    await commit(appDir, { 'index.html': '<h1>first push</h1>' }, 'First page');
    const wrong = await gitRun(['push', remote(slug, 'lb_wrong_key'), 'main'], appDir);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/Authentication failed|401/);
    const readOnly = await gitRun(['push', remote(slug, readKey), 'main'], appDir);
    expect(readOnly.code).not.toBe(0);
    expect(readOnly.stderr).toMatch(/403/);
    const stored = await gitRun([
      '--git-dir',
      path.join(platform.dataDir, 'git', `${projectId}.git`),
      'rev-parse',
      '--verify',
      '--quiet',
      'refs/heads/main',
    ]);
    expect(stored.code).not.toBe(0); // the branch was never written
    const deployments = await api.call<{ total: number }>('GET', `/projects/${projectId}/deployments`, { token: admin });
    expect(deployments.body.total).toBe(0);
  });

  it('a push deploys the pushed commit and its output ends with the live address', async () => {
    const sha = (await gitRun(['rev-parse', 'HEAD'], appDir)).stdout.trim();
    const pushed = await gitRun(['push', remote(slug, pushKey), 'main'], appDir);
    expect(pushed.code, pushed.stderr).toBe(0);
    // Everything the hook printed reaches the pusher as `remote:` lines.
    expect(pushed.stderr).toContain(`remote: Deploying ${sha.slice(0, 7)} to production`);
    expect(pushed.stderr).toMatch(/remote: .*Static HTML/);
    expect(pushed.stderr).toContain(`remote: Live at http://${slug}.localhost:${platform.ctx.edge.port()}`);
    expect(await viaEdge(`${slug}.localhost`)).toBe('<h1>first push</h1>');
    const last = await api.call<{ commit_sha: string; trigger: string; status: string }>(
      'GET',
      `/projects/${projectId}/last-deployment`,
      {
        token: admin,
      },
    );
    expect(last.body).toMatchObject({ commit_sha: sha, trigger: 'git_push', status: 'ready' });
  });

  it('the next push deploys the new commit; a push to a branch no environment follows only stores it', async () => {
    const sha = await commit(appDir, { 'index.html': '<h1>second push</h1>' }, 'Second page');
    const pushed = await gitRun(['push', remote(slug, pushKey), 'main'], appDir);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stderr).toContain(`remote: Deploying ${sha.slice(0, 7)} to production`);
    expect(await viaEdge(`${slug}.localhost`)).toBe('<h1>second push</h1>');

    await gitRun(['checkout', '-q', '-b', 'feature'], appDir);
    const feature = await commit(appDir, { 'index.html': '<h1>feature</h1>' }, 'Feature');
    const side = await gitRun(['push', remote(slug, pushKey), 'feature'], appDir);
    expect(side.code, side.stderr).toBe(0);
    expect(side.stderr).toContain(
      `remote: Stored feature (${feature.slice(0, 7)}): no environment deploys it (production deploys main)`,
    );
    expect(await viaEdge(`${slug}.localhost`)).toBe('<h1>second push</h1>');
  });

  it('a key with projects:read clones the stored source; an unknown project is a 404', async () => {
    const clone = await gitRun(['clone', '-q', remote(slug, readKey), path.join(work, 'clone')]);
    expect(clone.code, clone.stderr).toBe(0);
    expect(fs.readFileSync(path.join(work, 'clone', 'index.html'), 'utf8')).toBe('<h1>second push</h1>');
    const missing = await gitRun(['ls-remote', remote('no-such-project', readKey)]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/404|not found/i);
    const audit = await platform.ctx.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM audit_logs WHERE action = 'projects.git.push' AND target_id = $1",
      [String(projectId)],
    );
    expect(audit.rows[0]?.n).toBeGreaterThanOrEqual(3);
  });
});
