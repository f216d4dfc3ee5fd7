import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { edgePaths, readEdgeState } from '@launchbay/edge-protocol';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api';
import {
  type ChildPlatform,
  childPlatformEnv,
  cleanUpChildren,
  ensureBuilt,
  startChildPlatform,
} from '../helpers/child-platform';
import { getThroughEdge } from '../helpers/edge';
import { freshExternalDatabase } from '../helpers/platform';

/**
 * Apps keep serving while the control plane restarts, and are adopted again, not restarted; a
 * build cut short by a power cut of the platform is built again after it comes back.
 */

const EMAIL = 'restart@example.com';
const PASSWORD = 'restart-password-1';
const TOKEN = 'restart-git-token';
const dataDirs: string[] = [];
let git: GitServer;

beforeAll(async () => {
  ensureBuilt();
  git = await startGitServer({ token: TOKEN });
}, 120_000);
afterAll(async () => {
  await cleanUpChildren(dataDirs);
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  await git?.close();
});

function get(port: number, host: string) {
  return getThroughEdge(port, host);
}

const SERVER_JS = `
const http = require('node:http');
http.createServer((req, res) => res.end('served by pid ' + process.pid)).listen(Number(process.env.PORT), process.env.HOST);
`;

describe('deployments across platform restarts', { timeout: 240_000 }, () => {
  it('the app serves while the platform is down, is adopted after, and a build or a start cut short by kill -9 is built again', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-restart-'));
    dataDirs.push(dataDir);
    const databaseUrl = await freshExternalDatabase();
    const env = childPlatformEnv(dataDir, {
      ADMIN_EMAIL: EMAIL,
      ADMIN_PASSWORD: PASSWORD,
      JOB_LEASE_SECONDS: '3',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    });
    let platform: ChildPlatform = await startChildPlatform(env);
    let api = apiClient(platform.url);
    let admin = await api.login(EMAIL, PASSWORD);

    const repo = await git.createRepo('acme/steady', {
      'package.json': JSON.stringify({ name: 'steady', scripts: { start: 'node server.js' } }),
      'server.js': SERVER_JS,
    });
    const created = await api.call<{ id: number; last_deployment: { id: number } }>('POST', '/projects', {
      token: admin,
      body: { name: 'Steady', git_url: repo.url, git_token: TOKEN, branch: 'main' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const projectId = created.body.id;
    const waitFor = async (deploymentId: number, statuses: string[]) => {
      for (let i = 0; i < 600; i++) {
        const d = await api.call<{ status: string; error: string | null }>(
          'GET',
          `/projects/${projectId}/deployments/${deploymentId}`,
          {
            token: admin,
          },
        );
        if (d.status === 200 && statuses.includes(d.body.status)) return d.body;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error(`deployment ${deploymentId} never reached ${statuses.join('/')}`);
    };
    expect((await waitFor(created.body.last_deployment.id, ['ready', 'failed', 'crashed'])).status).toBe('ready');
    const edgePort = readEdgeState(edgePaths(dataDir).state)?.port ?? 0;
    const first = await get(edgePort, 'steady.localhost');
    expect(first.body).toMatch(/^served by pid \d+$/);

    // A loop of requests through the edge while the control plane stops and starts again.
    let failures = 0;
    let served = 0;
    let looping = true;
    const loop = (async () => {
      while (looping) {
        try {
          const answer = await get(edgePort, 'steady.localhost');
          if (answer.status === 200 && answer.body === first.body) served++;
          else failures++;
        } catch {
          failures++;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await platform.stop();
    const servedWhileDown = served;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(served).toBeGreaterThan(servedWhileDown); // still serving with no control plane at all
    platform = await startChildPlatform(env);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    looping = false;
    await loop;
    expect(failures).toBe(0);
    // Adopted, not restarted: the same process answers.
    expect((await get(edgePort, 'steady.localhost')).body).toBe(first.body);

    // A power cut in the middle of a build: the build runs again when the platform is back.
    api = apiClient(platform.url);
    admin = await api.login(EMAIL, PASSWORD);
    const sha = await repo.commit(
      {
        'package.json': JSON.stringify({ name: 'steady', scripts: { build: 'sleep 3', start: 'node server.js' } }),
        'server.js': SERVER_JS.replace('served by pid', 'second build, pid'),
      },
      'A slow build',
    );
    const triggered = await api.call<{ deployment_id: number }>('POST', `/projects/${projectId}/trigger-pipeline`, {
      token: admin,
      body: {},
    });
    expect(triggered.status).toBe(202);
    await waitFor(triggered.body.deployment_id, ['building']);
    // Visitors keep asking from the power cut until the rebuilt version serves: every answer is a 200,
    // from the old version until the switch, then from the new one.
    const answers: string[] = [];
    let throughCut = true;
    const visitors = (async () => {
      while (throughCut) {
        const answer = await get(edgePort, 'steady.localhost').catch((error: Error) => ({ status: 0, body: error.message }));
        answers.push(answer.status === 200 ? answer.body.replace(/\d+$/, 'N') : `${answer.status} ${answer.body}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    platform.child.kill('SIGKILL');
    await platform.exited;
    expect((await get(edgePort, 'steady.localhost')).body).toBe(first.body); // the old version keeps serving
    platform = await startChildPlatform(env);
    api = apiClient(platform.url);
    admin = await api.login(EMAIL, PASSWORD);
    const resumed = await waitFor(triggered.body.deployment_id, ['ready', 'failed', 'crashed']);
    throughCut = false;
    await visitors;
    expect(resumed.status, resumed.error ?? '').toBe('ready');
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((answer) => answer !== 'served by pid N' && answer !== 'second build, pid N')).toEqual([]);
    expect(answers).toContain('served by pid N');
    const deployment = await api.call<{ commit_sha: string }>(
      'GET',
      `/projects/${projectId}/deployments/${triggered.body.deployment_id}`,
      {
        token: admin,
      },
    );
    expect(deployment.body.commit_sha).toBe(sha);
    const log = await api.call<string>('GET', `/projects/${projectId}/deployments/${triggered.body.deployment_id}/logs`, {
      token: admin,
    });
    expect(log.body).toContain('The platform restarted during this build');
    expect((await get(edgePort, 'steady.localhost')).body).toMatch(/^second build, pid \d+$/);

    // A power cut while the new version starts (its app takes 4 s to listen): built again and started
    // when the platform is back, through the status table (deploying back to building), never half-started.
    const secondBody = (await get(edgePort, 'steady.localhost')).body;
    await repo.commit(
      {
        'package.json': JSON.stringify({ name: 'steady', scripts: { start: 'node server.js' } }),
        'server.js': `setTimeout(() => {${SERVER_JS.replace('served by pid', 'slow start, pid')}}, 4000);`,
      },
      'A slow start',
    );
    const slow = await api.call<{ deployment_id: number }>('POST', `/projects/${projectId}/trigger-pipeline`, {
      token: admin,
      body: {},
    });
    expect(slow.status).toBe(202);
    await waitFor(slow.body.deployment_id, ['deploying']);
    platform.child.kill('SIGKILL');
    await platform.exited;
    expect((await get(edgePort, 'steady.localhost')).body).toBe(secondBody);
    platform = await startChildPlatform(env);
    api = apiClient(platform.url);
    admin = await api.login(EMAIL, PASSWORD);
    const restarted = await waitFor(slow.body.deployment_id, ['ready', 'failed', 'crashed']);
    expect(restarted.status, restarted.error ?? '').toBe('ready');
    const slowLog = await api.call<string>('GET', `/projects/${projectId}/deployments/${slow.body.deployment_id}/logs`, {
      token: admin,
    });
    expect(slowLog.body).toContain('The platform restarted while this deployment was starting: building it again');
    expect((await get(edgePort, 'steady.localhost')).body).toMatch(/^slow start, pid \d+$/);

    // Deleting the project stops its app.
    expect((await api.call('DELETE', `/projects/${projectId}`, { token: admin })).status).toBe(204);
    await platform.stop();
  });
});
