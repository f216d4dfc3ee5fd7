/**
 * The docker driver against a real Docker Engine API: the host's Docker where a socket answers,
 * else Podman's Docker-compatible service (testkit's startContainerEngine). Where neither exists
 * the suite is skipped and says why.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ContainerEngine, sleep, startContainerEngine, waitUntil } from '@launchbay/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DeploymentRunSpec, LogLine, RuntimeDriver, RuntimeEvent } from '../driver';
import { DockerDriver, type DockerDriverOptions, dockerOwnerFilter, hostUlimits } from './driver';
import { DockerEngine } from './engine-api';

const engine: ContainerEngine | null = await startContainerEngine().catch((error: Error) => {
  console.warn(`Docker driver tests skipped: the container engine did not start: ${error.message}`);
  return null;
});
if (!engine) console.warn('Docker driver tests skipped: no Docker socket and no Podman on this machine');

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-docker-'));
const stateDir = path.join(root, 'runtime');
const appUid = process.getuid?.() === 0 ? 65534 : (process.getuid?.() ?? 1000);
const appGid = process.getuid?.() === 0 ? 65534 : (process.getgid?.() ?? 1000);

const SERVER = `
const http = require('node:http');
const fs = require('node:fs');
const bootId = Math.random().toString(36).slice(2);
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://app');
  if (url.pathname === '/env') {
    return res.end(JSON.stringify({ GREETING: process.env.GREETING, PORT: process.env.PORT, uid: process.getuid() }));
  }
  if (url.pathname === '/log') {
    console.log('out: ' + url.searchParams.get('text'));
    console.error('err: ' + url.searchParams.get('text'));
    return res.end('logged');
  }
  if (url.pathname === '/exit') {
    res.end('bye');
    return setTimeout(() => process.exit(3), 20);
  }
  res.end('boot:' + bootId);
});
server.listen(Number(process.env.PORT), process.env.HOST, () => console.log('listening on ' + process.env.PORT));
process.on('SIGTERM', () => {
  fs.writeFileSync('terminated', 'by SIGTERM');
  console.log('draining');
  server.close(() => process.exit(0));
});
`;

/** The builds side of the driver: the tests run no builds, so a plain shell. */
const hostBuilds: Pick<RuntimeDriver, 'commandLine' | 'handOver'> = {
  commandLine: async (_dir, command) => ['/bin/sh', '-c', command],
  handOver: async () => {},
};

let nextId = 5000 + Math.floor(Math.random() * 1000);
const drivers: DockerDriver[] = [];

function makeApp(files: Record<string, string> = { 'server.cjs': SERVER }): string {
  const dir = path.join(root, 'apps', String(nextId));
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  fs.chownSync(dir, appUid, appGid);
  for (const file of Object.keys(files)) fs.chownSync(path.join(dir, file), appUid, appGid);
  return dir;
}

function spec(appDir: string, overrides: Partial<DeploymentRunSpec> = {}): DeploymentRunSpec {
  return {
    deploymentId: nextId++,
    appDir,
    processes: [{ type: 'web', command: 'node server.cjs' }],
    env: { GREETING: 'hello from a container', PATH: '/host/only/bin' },
    limits: { memoryMb: 256, cpuPercent: 50, pids: 128 },
    ...overrides,
  };
}

function driver(options: Partial<DockerDriverOptions> = {}) {
  const created = new DockerDriver({
    stateDir,
    dockerHost: engine!.dockerHost,
    image: engine!.image,
    builds: hostBuilds,
    graceMs: 5000,
    pollMs: 200,
    restart: { firstDelayMs: 50, maxDelayMs: 200, crashLoopRestarts: 3, crashLoopWindowMs: 60_000 },
    ...options,
  });
  drivers.push(created);
  const events: RuntimeEvent[] = [];
  const logs: LogLine[] = [];
  created.onEvent((event) => events.push(event));
  created.onLog((line) => logs.push(line));
  return { driver: created, events, logs };
}

async function get(port: number | null, pathname = '/'): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}${pathname}`, { signal: AbortSignal.timeout(3000) });
  return response.text();
}

function answers(port: number | null, pathname = '/') {
  return waitUntil(() => get(port, pathname).catch(() => null), `an answer on port ${port}`, 20_000, 100);
}

const describeEngine = engine ? describe : describe.skip;

describeEngine('docker driver', () => {
  let api: DockerEngine;
  beforeAll(() => {
    api = new DockerEngine(engine!.dockerHost);
  });

  afterEach(async () => {
    for (const created of drivers.splice(0)) await created.close();
    const { driver: sweeper } = driver({ graceMs: 500 });
    for (const deployment of await sweeper.adopt()) await sweeper.stop(deployment.deploymentId, { graceMs: 500 });
    await sweeper.close();
    drivers.splice(0);
  });

  afterAll(async () => {
    api?.close();
    await engine?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('runs web in a container on the loopback port it reports, with the env, limits and the folder owner as user', async () => {
    const { driver: runtime, logs } = driver();
    const run = spec(makeApp());
    const started = await runtime.start(run);
    const web = started.processes[0]!;
    expect(web).toMatchObject({ type: 'web', index: 0, state: 'running', restarts: 0 });
    expect(web.port).toBeGreaterThan(0);
    await answers(web.port);
    const env = JSON.parse(await get(web.port, '/env')) as { GREETING: string; PORT: string; uid: number };
    expect(env).toEqual({ GREETING: 'hello from a container', PORT: String(web.port), uid: appUid });

    const containers = await api.list(dockerOwnerFilter(stateDir), `dev.launchbay.deployment=${run.deploymentId}`);
    expect(containers).toHaveLength(1);
    const inspected = await api.json<{
      HostConfig: { Memory: number; NanoCpus: number; PidsLimit: number; RestartPolicy: { Name: string } };
      Config: { Env: string[] };
    }>('GET', `/containers/${containers[0]!.Id}/json`);
    expect(inspected.HostConfig.Memory).toBe(256 * 1024 * 1024);
    expect(inspected.HostConfig.NanoCpus).toBe(500_000_000);
    expect(inspected.HostConfig.PidsLimit).toBe(128);
    expect(inspected.Config.Env).not.toContain('PATH=/host/only/bin');

    await get(web.port, '/log?text=hello');
    await waitUntil(() => logs.some((line) => line.line === 'err: hello' && line.stream === 'stderr'), 'the stderr line', 10_000);
    const out = logs.find((line) => line.line === 'out: hello');
    expect(out).toMatchObject({ deploymentId: run.deploymentId, process: 'web', index: 0, stream: 'stdout' });
    expect(Math.abs(out!.at.getTime() - Date.now())).toBeLessThan(30_000);
  });

  it('stops with SIGTERM reaching the app behind a shell, then removes the container', async () => {
    const { driver: runtime, events, logs } = driver();
    const appDir = makeApp();
    // Shell syntax: the shell stays pid 2 and the app is its child; the app must still hear SIGTERM.
    const run = spec(appDir, { processes: [{ type: 'web', command: 'echo starting && node server.cjs' }] });
    const started = await runtime.start(run);
    await answers(started.processes[0]!.port);
    await runtime.stop(run.deploymentId, { graceMs: 5000 });
    expect(fs.readFileSync(path.join(appDir, 'terminated'), 'utf8')).toBe('by SIGTERM');
    expect(logs.map((line) => line.line)).toContain('draining');
    expect(events).toContainEqual(expect.objectContaining({ kind: 'exited', deploymentId: run.deploymentId, expected: true }));
    expect(await api.list(dockerOwnerFilter(stateDir), `dev.launchbay.deployment=${run.deploymentId}`)).toHaveLength(0);
    expect(runtime.status(run.deploymentId)).toBeNull();
    await expect(get(started.processes[0]!.port)).rejects.toThrow();
  });

  it('restarts a crashed container with backoff and gives up on a crash loop', async () => {
    const { driver: runtime, events } = driver();
    const run = spec(makeApp());
    const started = await runtime.start(run);
    const port = started.processes[0]!.port;
    await answers(port);
    await get(port, '/exit');
    await waitUntil(() => events.some((event) => event.kind === 'restarting'), 'a restart', 20_000);
    expect(events).toContainEqual(
      expect.objectContaining({ kind: 'exited', code: 3, expected: false, deploymentId: run.deploymentId }),
    );
    await answers(port);
    expect(runtime.status(run.deploymentId)!.processes[0]).toMatchObject({ state: 'running', restarts: 1 });

    const crashing = spec(makeApp({ 'crash.cjs': 'console.error("boom"); process.exit(1);' }), {
      processes: [{ type: 'web', command: 'node crash.cjs' }],
    });
    await runtime.start(crashing);
    await waitUntil(
      () => events.some((event) => event.kind === 'crash_loop' && event.deploymentId === crashing.deploymentId),
      'a crash loop',
      30_000,
    );
    expect(runtime.status(crashing.deploymentId)!.processes[0]).toMatchObject({ state: 'crashed', restarts: 3 });
  });

  it('is adopted by the next control plane without a restart, reading only the log lines written meanwhile', async () => {
    const first = driver();
    const run = spec(makeApp());
    const started = await first.driver.start(run);
    const port = started.processes[0]!.port;
    await answers(port);
    const boot = await get(port);
    await get(port, '/log?text=before');
    await waitUntil(() => first.logs.some((line) => line.line === 'out: before'), 'the first line', 10_000);
    await first.driver.close();

    await get(port, '/log?text=meanwhile');
    await sleep(1100); // a later second than the cursor's (Podman's timestamps are whole seconds)
    const second = driver();
    const adopted = await second.driver.adopt();
    expect(adopted.find((deployment) => deployment.deploymentId === run.deploymentId)?.processes[0]).toMatchObject({
      state: 'running',
      port,
    });
    expect(await get(port)).toBe(boot); // the same process: not restarted
    await waitUntil(() => second.logs.some((line) => line.line === 'out: meanwhile'), 'the line written meanwhile', 10_000);
    await get(port, '/log?text=after');
    await waitUntil(() => second.logs.some((line) => line.line === 'out: after'), 'a new line', 10_000);
    const lines = second.logs.map((line) => line.line);
    expect(lines).not.toContain('out: before');
    expect(lines.filter((line) => line === 'out: meanwhile')).toHaveLength(1);
    expect(second.events.filter((event) => event.kind === 'restarting')).toHaveLength(0);
  });

  it('restarts, as a crash, a container that died while no control plane watched', async () => {
    const first = driver();
    const run = spec(makeApp());
    const started = await first.driver.start(run);
    const port = started.processes[0]!.port;
    await answers(port);
    await first.driver.close();
    await get(port, '/exit');
    await waitUntil(async () => (await get(port).catch(() => 'down')) === 'down', 'the app to be down', 10_000);

    const second = driver();
    await second.driver.adopt();
    await waitUntil(() => second.events.some((event) => event.kind === 'restarting'), 'a restart', 20_000);
    await answers(port);
    expect(second.driver.status(run.deploymentId)!.processes[0]).toMatchObject({ state: 'running', restarts: 1 });
  });
});

describe('container ulimits', () => {
  it('takes the host process soft limits, capped', () => {
    const limits = `Limit                     Soft Limit           Hard Limit           Units
Max processes             96364                96364                processes
Max open files            20000                20000                files
`;
    expect(hostUlimits(limits)).toEqual([
      { Name: 'nofile', Soft: 20_000, Hard: 20_000 },
      { Name: 'nproc', Soft: 16_384, Hard: 16_384 },
    ]);
    expect(hostUlimits('Max open files            unlimited            unlimited            files\n')[0]).toEqual({
      Name: 'nofile',
      Soft: 65_536,
      Hard: 65_536,
    });
  });
});
