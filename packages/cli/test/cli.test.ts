/**
 * The `launchbay` binary as users run it (`node bin/launchbay.js`, built), against a real
 * platform process with a real git repository: login, projects, deploy following the log,
 * a failed deploy, rollback, logs, env push and pull, open.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { edgePaths, readEdgeState } from '@launchbay/edge-protocol';
import {
  ensureBuilt,
  type GitServer,
  killPlatformProcesses,
  type PlatformProcess,
  REPO_ROOT,
  spawnPlatformProcess,
  startGitServer,
  waitForPlatform,
  waitUntil,
} from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = path.join(REPO_ROOT, 'packages', 'cli', 'bin', 'launchbay.js');
const EMAIL = 'cli@example.com';
const PASSWORD = 'cli-password-123';
const TOKEN = 'cli-git-token';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-cli-'));
// The embedded PostgreSQL runs as its own user (as root here) and must pass through to DATA_DIR.
fs.chmodSync(root, 0o711);
const configFile = path.join(root, 'home', 'launchbay.json');

let platform: PlatformProcess;
let git: GitServer;
let apiKey = '';
let projectSlug = 'cli-app';
let edgePort = 0;

type Run = { code: number; stdout: string; stderr: string };

function cli(args: string[], options: { env?: Record<string, string>; cwd?: string; input?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: options.cwd ?? root,
        env: { PATH: process.env.PATH ?? '', HOME: root, LAUNCHBAY_CONFIG: configFile, ...options.env },
        timeout: 120_000,
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

async function api<T>(method: string, urlPath: string, token: string, body?: unknown): Promise<T> {
  const response = await fetch(`${platform.url}/api${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`${method} ${urlPath}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

function viaEdge(host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: edgePort, path: '/', headers: { host }, agent: false, timeout: 5000 }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

const page = (text: string) => ({ 'index.html': `<h1>${text}</h1>` });

let repo: Awaited<ReturnType<GitServer['createRepo']>>;
let firstDeployment = 0;

beforeAll(async () => {
  ensureBuilt();
  if (!fs.existsSync(path.join(REPO_ROOT, 'packages', 'cli', 'dist', 'launchbay.js'))) {
    throw new Error('Build the CLI first: npm run build -w packages/cli (npm test builds everything)');
  }
  git = await startGitServer({ token: TOKEN });
  platform = await spawnPlatformProcess({
    env: { DATA_DIR: path.join(root, 'data'), ADMIN_EMAIL: EMAIL, ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'warn' },
  });
  await waitForPlatform(platform, { timeoutMs: 60_000 });
  const login = await fetch(`${platform.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  const session = ((await login.json()) as { token: string }).token;
  const key = await api<{ secret: string }>('POST', '/api-keys', session, {
    name: 'cli test',
    permissions: ['projects:read', 'projects:write', 'deployments:read', 'deployments:write', 'env_vars:read', 'env_vars:write'],
  });
  apiKey = key.secret;
  repo = await git.createRepo('acme/cli-app', page('version one'));
  const created = await api<{ id: number; slug: string; last_deployment: { id: number } }>('POST', '/projects', session, {
    name: 'CLI App',
    git_url: repo.url,
    git_token: TOKEN,
    branch: 'main',
  });
  projectSlug = created.slug;
  firstDeployment = created.last_deployment.id;
  await waitUntil(
    async () =>
      ['ready', 'failed'].includes(
        (await api<{ status: string }>('GET', `/projects/${created.id}/deployments/${firstDeployment}`, session)).status,
      ),
    'the first deployment',
    60_000,
    200,
  );
  edgePort = readEdgeState(edgePaths(path.join(root, 'data')).state)?.port ?? 0;
}, 120_000);

afterAll(async () => {
  await platform?.stop({ killAfterMs: 10_000 });
  await platform?.stopEdge();
  await killPlatformProcesses();
  await git?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('the launchbay CLI', { timeout: 120_000 }, () => {
  it('refuses to work before login, refuses a wrong key, and saves a good one readable by the user only', async () => {
    const before = await cli(['projects']);
    expect(before.code).toBe(1);
    expect(before.stderr).toContain('Not logged in: run `launchbay login --url <platform address>` first');

    const wrong = await cli(['login', '--url', platform.url, '--key', 'lb_not_a_real_key']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/the API key was refused/);
    expect(fs.existsSync(configFile)).toBe(false);

    const unreachable = await cli(['login', '--url', 'http://127.0.0.1:1', '--key', apiKey]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('Could not reach Launchbay at http://127.0.0.1:1');

    // The key piped on stdin, as a script would pass it without putting it in the process list.
    const good = await cli(['login', '--url', platform.url], { input: `${apiKey}\n` });
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain(`Logged in to ${platform.url} as ${EMAIL}`);
    expect(fs.statSync(configFile).mode & 0o777).toBe(0o600);
  });

  it('lists projects for people and as JSON for scripts', async () => {
    const listed = await cli(['projects']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^NAME\s+SLUG\s+STATUS\s+DEPLOYED\s+URL$/);
    expect(listed.stdout).toMatch(new RegExp(`CLI App\\s+${projectSlug}\\s+ready`));
    const json = await cli(['projects', '--json']);
    const parsed = JSON.parse(json.stdout) as { slug: string; url: string }[];
    expect(parsed.map((p) => p.slug)).toEqual([projectSlug]);
    expect(parsed[0]?.url).toBe(`http://${projectSlug}.localhost:${edgePort}`);
  });

  it('deploys a new commit following the log, exits 0 when live; a failing build exits 1 with the reason', async () => {
    const sha = await repo.commit(page('version two'), 'Second version');
    const deployed = await cli(['deploy', projectSlug]);
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toContain(`of ${projectSlug} queued: following its log`);
    expect(deployed.stdout).toContain('The edge now sends traffic to this deployment');
    expect(deployed.stdout).toContain(`is live at http://${projectSlug}.localhost:${edgePort} (${sha.slice(0, 7)})`);
    expect(await viaEdge(`${projectSlug}.localhost`)).toBe('<h1>version two</h1>');

    const broken = await repo.commit(
      { 'package.json': JSON.stringify({ name: 'broken', scripts: { build: 'echo "compile error: nope" && exit 3' } }) },
      'Broken build',
    );
    const failed = await cli(['deploy', projectSlug, '--commit', broken]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('compile error: nope');
    expect(failed.stderr).toMatch(/✗ Deployment \d+ failed: /);
    expect(await viaEdge(`${projectSlug}.localhost`)).toBe('<h1>version two</h1>'); // the old version keeps serving

    const json = await cli(['deploy', projectSlug, '--commit', sha, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'ready', commit_sha: sha, is_current: true });
  });

  it('rolls back to the deployment before the live one without a build, and shows its logs', async () => {
    const rolled = await cli(['rollback', projectSlug]);
    expect(rolled.code, rolled.stderr).toBe(0);
    expect(rolled.stdout).toMatch(/Rolling back .* to deployment \d+ .*: no rebuild/);
    expect(rolled.stdout).toContain('is live at');
    // The last live one before the current was the second version's first deploy.
    expect(await viaEdge(`${projectSlug}.localhost`)).toBe('<h1>version two</h1>');
    const back = await cli(['rollback', projectSlug, String(firstDeployment)]);
    expect(back.code, back.stderr).toBe(0);
    expect(await viaEdge(`${projectSlug}.localhost`)).toBe('<h1>version one</h1>');

    const logs = await cli(['logs', projectSlug]);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain(`Rollback to deployment ${firstDeployment}`);
  });

  it('pushes a .env file and pulls it back, and reports a bad line with its number', async () => {
    fs.writeFileSync(path.join(root, '.env'), 'API_URL=https://api.example.com\nGREETING="hello world"\n');
    const pushed = await cli(['env', 'push', projectSlug]);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toContain(`${projectSlug} (production): 2 added, 0 updated`);
    fs.writeFileSync(path.join(root, 'second.env'), 'GREETING=changed\n');
    const updated = await cli(['env', 'push', projectSlug, '--file', 'second.env']);
    expect(updated.stdout).toContain('0 added, 1 updated');

    const pulled = await cli(['env', 'pull', projectSlug, '--file', '-']);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toContain('API_URL=https://api.example.com');
    expect(pulled.stdout).toMatch(/GREETING="?changed"?/);
    const toFile = await cli(['env', 'pull', projectSlug, '--file', 'pulled.env']);
    expect(toFile.stdout).toContain(`Wrote 2 variables of ${projectSlug} (production) to pulled.env`);
    expect(fs.statSync(path.join(root, 'pulled.env')).mode & 0o777).toBe(0o600);

    fs.writeFileSync(path.join(root, 'bad.env'), 'GOOD=1\nthis is not a variable\n');
    const bad = await cli(['env', 'push', projectSlug, '--file', 'bad.env']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('line 2');
  });

  it('prints the address, and fails clearly for an unknown project or command', async () => {
    const opened = await cli(['open', projectSlug, '--print']);
    expect(opened.stdout.trim()).toBe(`http://${projectSlug}.localhost:${edgePort}`);
    const missing = await cli(['deploy', 'no-such-project']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('launchbay: No project with the slug no-such-project');
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const scoped = await cli(['projects'], { env: { LAUNCHBAY_API_KEY: 'lb_wrong', LAUNCHBAY_URL: platform.url } });
    expect(scoped.code).toBe(1);
    expect(scoped.stderr).toMatch(/the API key was refused/);
  });
});
