import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { edgePaths, readEdgeState } from '@launchbay/edge-protocol';
import { type ContainerEngine, type GitServer, startContainerEngine, startGitServer, waitUntil } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerOwnerFilter } from '../../src/engine/runtime/docker/driver';
import { DockerEngine } from '../../src/engine/runtime/docker/engine-api';
import { apiClient } from '../helpers/api';
import { type ChildPlatform, cleanUpChildren, ensureBuilt, startChildPlatform } from '../helpers/child-platform';
import { getThroughEdge } from '../helpers/edge';

/**
 * The whole pipeline under RUNTIME_DRIVER=docker: built on the host as under the process driver,
 * run in a container, served through the edge, adopted across a restart of the platform, removed
 * with its project. Runs where a Docker socket answers or Podman is installed (testkit).
 */

const engine: ContainerEngine | null = await startContainerEngine().catch((error: Error) => {
  console.warn(`Docker deploy test skipped: the container engine did not start: ${error.message}`);
  return null;
});
if (!engine) console.warn('Docker deploy test skipped: no Docker socket and no Podman on this machine');

const EMAIL = 'docker@example.com';
const PASSWORD = 'docker-password-1';
const TOKEN = 'docker-git-token';
const dataDirs: string[] = [];
let git: GitServer;

beforeAll(async () => {
  if (!engine) return;
  ensureBuilt();
  git = await startGitServer({ token: TOKEN });
}, 120_000);
afterAll(async () => {
  await cleanUpChildren(dataDirs);
  if (engine) {
    // Whatever a failed run left: every container of these platforms.
    const docker = new DockerEngine(engine.dockerHost);
    for (const dir of dataDirs) {
      for (const container of await docker.list(dockerOwnerFilter(path.join(dir, 'runtime')))) await docker.remove(container.Id);
    }
    docker.close();
  }
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  await git?.close();
  await engine?.stop();
});

function get(port: number, host: string) {
  return getThroughEdge(port, host);
}

const SERVER_JS = `
const http = require('node:http');
const os = require('node:os');
http.createServer((req, res) => res.end(process.env.GREETING + ' from ' + os.hostname())).listen(Number(process.env.PORT), process.env.HOST);
`;

(engine ? describe : describe.skip)('deploys under the docker runtime driver', { timeout: 240_000 }, () => {
  it('builds on the host, runs the app in a container behind the edge, adopts it after a restart and removes it with the project', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-docker-deploy-'));
    dataDirs.push(dataDir);
    const env = {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PROXY_PORT: '0',
      PROXY_TLS_PORT: '0',
      LOG_LEVEL: 'info',
      ADMIN_EMAIL: EMAIL,
      ADMIN_PASSWORD: PASSWORD,
      RUNTIME_DRIVER: 'docker',
      DOCKER_HOST: engine!.dockerHost,
      DOCKER_IMAGE: engine!.image,
    };
    let platform: ChildPlatform = await startChildPlatform(env);
    let api = apiClient(platform.url);
    let admin = await api.login(EMAIL, PASSWORD);
    const repo = await git.createRepo('acme/boxed', {
      'package.json': JSON.stringify({ name: 'boxed', scripts: { start: 'node server.js' } }),
      'server.js': SERVER_JS,
    });
    const created = await api.call<{ id: number; last_deployment: { id: number } }>('POST', '/projects', {
      token: admin,
      body: { name: 'Boxed', git_url: repo.url, git_token: TOKEN, branch: 'main' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const projectId = created.body.id;
    const envVar = await api.call('POST', `/projects/${projectId}/env-vars`, {
      token: admin,
      body: { key: 'GREETING', value: 'hello' },
    });
    expect(envVar.status).toBe(201);
    const waitFor = async (deploymentId: number) => {
      for (let i = 0; i < 600; i++) {
        const d = await api.call<{ status: string; error: string | null }>(
          'GET',
          `/projects/${projectId}/deployments/${deploymentId}`,
          { token: admin },
        );
        if (d.status === 200 && ['ready', 'failed', 'crashed', 'cancelled'].includes(d.body.status)) return d.body;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new Error(`deployment ${deploymentId} never ended`);
    };
    // The first deployment started before the env var existed: a redeploy carries it.
    await waitFor(created.body.last_deployment.id);
    const redeploy = await api.call<{ deployment_id: number }>('POST', `/projects/${projectId}/trigger-pipeline`, {
      token: admin,
      body: {},
    });
    expect(redeploy.status).toBe(202);
    const ready = await waitFor(redeploy.body.deployment_id);
    expect(ready.status, `${ready.error ?? ''}\n${platform.output().slice(-3000)}`).toBe('ready');
    expect(platform.output()).toMatch(/Apps run in containers of localhost\/launchbay-test-node/);

    const edgePort = readEdgeState(edgePaths(dataDir).state)?.port ?? 0;
    const served = await get(edgePort, 'boxed.localhost');
    expect(served.status).toBe(200);
    const api2 = new DockerEngine(engine!.dockerHost);
    const owner = dockerOwnerFilter(path.join(dataDir, 'runtime'));
    try {
      const containers = await api2.list(owner, `dev.launchbay.deployment=${redeploy.body.deployment_id}`);
      expect(containers).toHaveLength(1);
      // The container's hostname is its id's first 12 characters: the answer came from inside it.
      expect(served.body).toBe(`hello from ${containers[0]!.Id.slice(0, 12)}`);
      // The first deployment's container goes once traffic moved on and it drained.
      await waitUntil(
        async () => (await api2.list(owner, `dev.launchbay.deployment=${created.body.last_deployment.id}`)).length === 0,
        'the first deployment to be stopped',
        30_000,
        200,
      );

      // The app keeps serving while the platform restarts, and the same container is adopted.
      await platform.stop();
      expect((await get(edgePort, 'boxed.localhost')).body).toBe(served.body);
      platform = await startChildPlatform(env);
      api = apiClient(platform.url);
      admin = await api.login(EMAIL, PASSWORD);
      expect(platform.output()).toMatch(/Adopted deployment \d+: 1 of 1 containers still running/);
      expect((await get(edgePort, 'boxed.localhost')).body).toBe(served.body);

      expect((await api.call('DELETE', `/projects/${projectId}`, { token: admin })).status).toBe(204);
      expect(await api2.list(owner, `dev.launchbay.deployment=${redeploy.body.deployment_id}`)).toHaveLength(0);
    } finally {
      api2.close();
      await platform.stop();
    }
  });
});
