import { execFileSync } from 'node:child_process';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, apiClient } from '../helpers/api';
import { getThroughEdge } from '../helpers/edge';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';
import { settledDeployment } from '../helpers/projects';

/**
 * What a build is held to and what it reports: its commands run under a time limit
 * (BUILD_TIMEOUT_SECONDS, 4 s here) past which they are killed with everything they started, and
 * the size of what it produced is recorded on the deployment and said in its log.
 */

type Deployment = { id: number; status: string; error: string | null; artifact_bytes: number | null; is_current: boolean };
type Step = { name: string; status: string; detail: string | null };

const LIMIT_SECONDS = 4;
let platform: TestPlatform;
let api: Api;
let admin: string;
let git: GitServer;

const settledOf = (projectId: number, deploymentId: number) => settledDeployment<Deployment>(api, admin, projectId, deploymentId);

beforeAll(async () => {
  git = await startGitServer();
  platform = await startTestPlatform({ BUILD_TIMEOUT_SECONDS: String(LIMIT_SECONDS) });
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(async () => {
  await platform?.close();
  await git?.close();
});

async function deploy(name: string, files: Record<string, string>): Promise<{ projectId: number; deploymentId: number }> {
  const repo = await git.createRepo(`acme/${name.toLowerCase().replaceAll(' ', '-')}`, files);
  const created = await api.call<{ id: number }>('POST', '/projects', {
    token: admin,
    body: { name, git_url: repo.url, branch: 'main' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const last = await api.call<Deployment>('GET', `/projects/${created.body.id}/last-deployment`, { token: admin });
  return { projectId: created.body.id, deploymentId: last.body.id };
}

async function logOf(projectId: number, deploymentId: number): Promise<string> {
  const response = await api.call<string>('GET', `/projects/${projectId}/deployments/${deploymentId}/logs`, { token: admin });
  expect(response.status).toBe(200);
  return response.body;
}

/** Processes whose command line holds `marker` (ps, not pgrep -f, which would find this lookup's own shell). */
function processesWith(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker));
}

describe('build limits', { timeout: 120_000 }, () => {
  it('a build past the time limit is killed with what it started, and the deployment fails saying so', async () => {
    // The build starts a grandchild that would outlive a kill of the shell alone.
    const marker = `lb-build-limit-${process.pid}`;
    const { projectId, deploymentId } = await deploy('Endless Build', {
      'launchbay.json': JSON.stringify({ installCommand: null, buildCommand: 'node build.js', outputDirectory: 'dist' }),
      'build.js': [
        "const { spawn } = require('node:child_process');",
        `spawn(process.execPath, ['-e', 'setTimeout(() => {}, 600000) /* ${marker} */'], { stdio: 'inherit' });`,
        "console.log('building forever');",
        'setTimeout(() => {}, 600000);',
      ].join('\n'),
    });
    const started = Date.now();
    const failed = await settledOf(projectId, deploymentId);
    const tookMs = Date.now() - started;
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe(`node build.js did not finish within ${LIMIT_SECONDS} s (the build time limit)`);
    expect(failed.is_current).toBe(false);
    // Killed at the limit, not left to run to its own end (600 s).
    expect(tookMs).toBeLessThan(60_000);
    const log = await logOf(projectId, deploymentId);
    expect(log).toContain('building forever');
    expect(log).toContain('the build time limit');

    const steps = await api.call<{ jobs: Step[] }>('GET', `/projects/${projectId}/deployments/${deploymentId}/jobs`, {
      token: admin,
    });
    expect(steps.body.jobs.find((step) => step.name === 'build')).toMatchObject({ status: 'failed' });
    // Nothing the build started is left running.
    const deadline = Date.now() + 5_000;
    while (processesWith(marker).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processesWith(marker)).toEqual([]);
  });

  it('records the size of the build output on the deployment and in its log', async () => {
    // A static site's output is its output folder: 5,000 + 123,456 bytes here, whatever else the repository holds.
    const { projectId, deploymentId } = await deploy('Sized Output', {
      'launchbay.json': JSON.stringify({ installCommand: null, buildCommand: 'node build.js', outputDirectory: 'dist' }),
      'build.js': [
        "const fs = require('node:fs');",
        "fs.mkdirSync('dist/assets', { recursive: true });",
        "fs.writeFileSync('dist/index.html', '<h1>sized</h1>'.padEnd(5000, ' '));",
        "fs.writeFileSync('dist/assets/app.js', 'x'.repeat(123456));",
      ].join('\n'),
      'notes.txt': 'y'.repeat(50_000),
    });
    const ready = await settledOf(projectId, deploymentId);
    expect(ready.status, ready.error ?? '').toBe('ready');
    expect(ready.artifact_bytes).toBe(128_456);
    expect(await logOf(projectId, deploymentId)).toContain('Build output: 125.45 KB');
    const listed = await api.call<{ deployments: Deployment[] }>('GET', `/projects/${projectId}/deployments`, { token: admin });
    expect(listed.body.deployments.find((deployment) => deployment.id === deploymentId)?.artifact_bytes).toBe(128_456);
    const page = await getThroughEdge(platform.ctx.edge.port(), 'sized-output.localhost', { path: '/assets/app.js' });
    expect(page.status).toBe(200);
    expect(page.body.length).toBe(123_456);
  });
});
