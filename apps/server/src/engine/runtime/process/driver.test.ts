/**
 * The process driver against real processes: a small Node HTTP server written here, started,
 * restarted, stopped and adopted by real drivers, in the sandbox and without it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isSameProcessAlive, processStartTime } from '@launchbay/edge-protocol';
import { sleep, waitUntil } from '@launchbay/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { DeploymentRunSpec, LogLine, RuntimeEvent } from '../driver';
import { ProcessDriver, type ProcessDriverOptions } from './driver';
import { processTree } from './proc';
import { readDeploymentRecord, stateFile, writeDeploymentRecord } from './state';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-runtime-'));
// The platform's data folder, private like a real one; the apps live inside it.
const dataDir = path.join(root, 'data');
const stateDir = path.join(dataDir, 'runtime');
fs.mkdirSync(path.join(dataDir, 'apps'), { recursive: true, mode: 0o700 });
fs.chmodSync(dataDir, 0o700);
fs.writeFileSync(path.join(dataDir, 'secret.txt'), 'platform secret', { mode: 0o644 });

const SERVER = `
const http = require('node:http');
const bootId = Math.random().toString(36).slice(2);
const fs = require('node:fs');
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://app');
  const arg = url.searchParams.get('path');
  if (url.pathname === '/env') {
    return res.end(JSON.stringify({ GREETING: process.env.GREETING, PORT: process.env.PORT, HOST: process.env.HOST, uid: process.getuid() }));
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
  if (url.pathname === '/read') {
    try { return res.end('read:' + fs.readFileSync(arg, 'utf8')); } catch (e) { return res.end('error:' + e.code); }
  }
  if (url.pathname === '/write') {
    try { fs.writeFileSync(arg, 'written'); return res.end('wrote'); } catch (e) { return res.end('error:' + e.code); }
  }
  res.end('boot:' + bootId);
});
server.listen(Number(process.env.PORT), process.env.HOST, () => console.log('listening on ' + process.env.PORT));
if (process.env.IGNORE_TERM) {
  process.on('SIGTERM', () => console.log('ignoring SIGTERM'));
} else {
  process.on('SIGTERM', () => {
    fs.writeFileSync('terminated', new Date().toISOString());
    server.close(() => process.exit(0));
  });
}
`;

let nextId = 1000 + Math.floor(Math.random() * 1000);
const drivers: ProcessDriver[] = [];

function makeApp(name: string, files: Record<string, string> = { 'server.cjs': SERVER }): string {
  const dir = path.join(dataDir, 'apps', `${name}-${nextId}`);
  fs.mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  return dir;
}

function spec(appDir: string, overrides: Partial<DeploymentRunSpec> = {}): DeploymentRunSpec {
  return {
    deploymentId: nextId++,
    appDir,
    processes: [{ type: 'web', command: 'node server.cjs' }],
    env: { GREETING: 'hello there' },
    limits: { memoryMb: null, cpuPercent: null, pids: null },
    ...overrides,
  };
}

function driver(options: Partial<ProcessDriverOptions> = {}) {
  const created = new ProcessDriver({
    stateDir,
    dataDir,
    graceMs: 3000,
    pollMs: 100,
    restart: { firstDelayMs: 50, maxDelayMs: 200, crashLoopRestarts: 3, crashLoopWindowMs: 20_000 },
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

/** Resolves once something answers on the port. */
function answers(port: number | null, pathname = '/') {
  return waitUntil(() => get(port, pathname).catch(() => null), `an answer on port ${port}`, 10_000, 50);
}

const capabilities = await new ProcessDriver({ stateDir, dataDir }).capabilities();
const hasSandbox = capabilities.sandbox.kind === 'bubblewrap';
const hasMemoryLimit =
  (capabilities.cgroups.kind === 'v1' && Boolean(capabilities.cgroups.parents.memory)) ||
  (capabilities.cgroups.kind === 'v2' && capabilities.cgroups.controllers.includes('memory'));
const sandboxWhy = capabilities.sandbox.kind === 'none' ? capabilities.sandbox.reason : '';
const cgroupWhy = capabilities.cgroups.kind === 'none' ? capabilities.cgroups.reason : 'no memory controller';
if (!hasSandbox) console.warn(`Sandbox tests skipped: ${sandboxWhy}`);
if (!hasMemoryLimit) console.warn(`Memory-limit test skipped: ${cgroupWhy}`);

afterEach(async () => {
  // Whatever a test left running: adopted by a fresh driver and stopped.
  for (const created of drivers.splice(0)) await created.close();
  const sweeper = new ProcessDriver({ stateDir, dataDir, sandbox: 'off', cgroups: 'off', graceMs: 500 });
  for (const deployment of await sweeper.adopt()) await sweeper.stop(deployment.deploymentId, { graceMs: 500 });
  await sweeper.close();
});

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const modes = hasSandbox ? (['sandbox', 'plain'] as const) : (['plain'] as const);

describe.each(modes)('process driver (%s)', (mode) => {
  const sandbox = mode === 'sandbox' ? 'auto' : 'off';

  it('starts the app on the port it reports, with its environment, PORT and HOST', async () => {
    const { driver: runtime } = driver({ sandbox });
    const started = await runtime.start(spec(makeApp('env')));
    const web = started.processes[0]!;
    expect(web).toMatchObject({ type: 'web', index: 0, state: 'running', restarts: 0 });
    expect(web.port).toBeGreaterThan(0);
    expect(isSameProcessAlive(web.pid!, null)).toBe(true);
    await answers(web.port);
    const env = JSON.parse(await get(web.port, '/env'));
    expect(env).toMatchObject({ GREETING: 'hello there', PORT: String(web.port), HOST: '127.0.0.1' });
    if (mode === 'sandbox' && process.getuid?.() === 0) expect(env.uid).toBe(65534);
    expect(runtime.status(started.deploymentId)).toEqual(started);
  });

  it('stops with SIGTERM: the app ends gracefully; the state goes, the logs stay', async () => {
    const { driver: runtime, events } = driver({ sandbox });
    const appDir = makeApp('term');
    const started = await runtime.start(spec(appDir));
    const web = started.processes[0]!;
    await answers(web.port);
    const tree = processTree(web.pid!);
    await runtime.stop(started.deploymentId);
    expect(fs.readFileSync(path.join(appDir, 'terminated'), 'utf8')).toMatch(/^\d{4}-/);
    expect(events).toContainEqual(expect.objectContaining({ kind: 'exited', code: 0, expected: true }));
    expect(events.filter((event) => event.kind === 'restarting')).toEqual([]);
    for (const pid of tree) expect(isSameProcessAlive(pid, null)).toBe(false);
    expect(runtime.status(started.deploymentId)).toBeNull();
    expect(fs.existsSync(stateFile(stateDir, started.deploymentId))).toBe(false);
    expect(fs.readdirSync(path.dirname(stateFile(stateDir, started.deploymentId)))).toEqual([
      'web-0.stderr.log',
      'web-0.stdout.log',
    ]);
    await expect(get(web.port)).rejects.toThrow();
  });

  it('kills an app that ignores SIGTERM after the grace period', async () => {
    const { driver: runtime, events } = driver({ sandbox });
    const started = await runtime.start(spec(makeApp('stubborn'), { env: { IGNORE_TERM: '1' } }));
    const web = started.processes[0]!;
    await answers(web.port);
    const tree = processTree(web.pid!);
    const before = Date.now();
    await runtime.stop(started.deploymentId, { graceMs: 600 });
    const took = Date.now() - before;
    expect(took).toBeGreaterThanOrEqual(600);
    expect(took).toBeLessThan(4000);
    for (const pid of tree) expect(isSameProcessAlive(pid, null)).toBe(false);
    const exited = events.find((event) => event.kind === 'exited');
    expect(exited).toMatchObject({ expected: true });
    // Killed by SIGKILL: seen as the signal, or (through the sandbox) as the shell's 128 + 9.
    expect(exited?.kind === 'exited' && (exited.signal === 'SIGKILL' || exited.code === 137)).toBe(true);
  });

  it('restarts a crashing process with backoff, then gives up: crash_loop', async () => {
    const { driver: runtime, events, logs } = driver({ sandbox });
    const started = await runtime.start(
      spec(makeApp('crash'), { processes: [{ type: 'web', command: 'echo starting; echo failing >&2; exit 4' }] }),
    );
    const id = started.deploymentId;
    await waitUntil(() => events.find((event) => event.kind === 'crash_loop'), 'a crash loop', 10_000);
    const restarting = events.filter((event) => event.kind === 'restarting');
    expect(restarting.map((event) => event.kind === 'restarting' && event.delayMs)).toEqual([50, 100, 200]);
    expect(restarting.map((event) => event.kind === 'restarting' && event.attempt)).toEqual([1, 2, 3]);
    expect(events.filter((event) => event.kind === 'exited')).toHaveLength(4);
    expect(events.find((event) => event.kind === 'exited')).toMatchObject({ code: 4, expected: false });
    expect(events.at(-1)).toEqual({ kind: 'crash_loop', deploymentId: id, type: 'web', index: 0, restarts: 3, windowMs: 20_000 });
    expect(runtime.status(id)?.processes[0]).toMatchObject({ state: 'crashed', pid: null, restarts: 3 });
    await sleep(400);
    expect(events.filter((event) => event.kind === 'exited')).toHaveLength(4); // it stays down
    expect(logs.filter((line) => line.line === 'starting' && line.stream === 'stdout')).toHaveLength(4);
    expect(logs.filter((line) => line.line === 'failing' && line.stream === 'stderr')).toHaveLength(4);
    // A crashed deployment is still recorded (adopt keeps it down) until it is stopped.
    expect(readDeploymentRecord(stateFile(stateDir, id))?.processes[0]?.state).toBe('crashed');
    await runtime.stop(id);
  });

  it('streams the app log lines with stream, process and time', async () => {
    const { driver: runtime, logs } = driver({ sandbox });
    const started = await runtime.start(spec(makeApp('logs')));
    const web = started.processes[0]!;
    await answers(web.port);
    const before = Date.now();
    await get(web.port, '/log?text=first%20line');
    await waitUntil(() => logs.some((line) => line.line === 'err: first line'), 'the stderr line');
    await waitUntil(() => logs.some((line) => line.line === 'out: first line'), 'the stdout line');
    const out = logs.find((line) => line.line === 'out: first line')!;
    expect(out).toMatchObject({ deploymentId: started.deploymentId, process: 'web', index: 0, stream: 'stdout' });
    expect(out.at.getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(out.at.getTime()).toBeLessThanOrEqual(Date.now());
    expect(logs.find((line) => line.line === 'err: first line')?.stream).toBe('stderr');
    expect(logs.some((line) => line.line === `listening on ${web.port}`)).toBe(true);
  });

  it('keeps the app running through close(); a new driver adopts it, reads what it logged meanwhile, and stops it', async () => {
    const first = driver({ sandbox });
    const started = await first.driver.start(spec(makeApp('adopt')));
    const web = started.processes[0]!;
    const greeting = await answers(web.port);
    await get(web.port, '/log?text=before');
    await waitUntil(() => first.logs.some((line) => line.line === 'out: before'), 'the first line');
    await sleep(150); // the offsets are saved on the next poll after a line... or at close
    await first.driver.close();

    expect(await get(web.port)).toBe(greeting); // the same process still serves
    await get(web.port, '/log?text=while%20nobody%20watched');

    const second = driver({ sandbox });
    const adopted = await second.driver.adopt();
    const mine = adopted.find((deployment) => deployment.deploymentId === started.deploymentId);
    expect(mine?.processes[0]).toMatchObject({ pid: web.pid, port: web.port, state: 'running', restarts: 0 });
    await waitUntil(() => second.logs.some((line) => line.line === 'out: while nobody watched'), 'the line written meanwhile');
    expect(second.logs.some((line) => line.line === 'out: before')).toBe(false); // already read by the first driver
    expect(second.events.filter((event) => event.kind !== 'exited')).toEqual([]);
    expect(await get(web.port)).toBe(greeting);

    await second.driver.stop(started.deploymentId);
    expect(second.events).toContainEqual(expect.objectContaining({ kind: 'exited', expected: true }));
    expect(isSameProcessAlive(web.pid!, null)).toBe(false);
    await expect(get(web.port)).rejects.toThrow();
  });

  it('restarts on adoption a process that died while no driver watched, on the same port', async () => {
    const first = driver({ sandbox });
    const started = await first.driver.start(spec(makeApp('revive')));
    const web = started.processes[0]!;
    const greeting = await answers(web.port);
    await first.driver.close();
    await get(web.port, '/exit');
    await waitUntil(() => !isSameProcessAlive(web.pid!, null), 'the app to end');

    const second = driver({ sandbox });
    const [adopted] = (await second.driver.adopt()).filter((deployment) => deployment.deploymentId === started.deploymentId);
    expect(adopted?.processes[0]).toMatchObject({ state: 'restarting', restarts: 1, port: web.port, pid: null });
    expect(second.events.slice(0, 2)).toEqual([
      { kind: 'exited', deploymentId: started.deploymentId, type: 'web', index: 0, code: null, signal: null, expected: false },
      { kind: 'restarting', deploymentId: started.deploymentId, type: 'web', index: 0, attempt: 1, delayMs: 50 },
    ]);
    const again = await answers(web.port);
    expect(again).not.toBe(greeting); // a new process
    expect(second.driver.status(started.deploymentId)?.processes[0]).toMatchObject({ state: 'running', restarts: 1 });
    await second.driver.stop(started.deploymentId);
  });
});

/** The driver bundled for a control plane in another Node process (Node 20 runs no TypeScript). */
async function bundleDriver(): Promise<string> {
  const { build } = await import('esbuild');
  const outfile = path.join(root, 'driver.bundle.mjs');
  await build({
    entryPoints: [path.join(import.meta.dirname, 'driver.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'silent',
  });
  const main = path.join(root, 'control-plane.mjs');
  fs.writeFileSync(
    main,
    `import { ProcessDriver } from ${JSON.stringify(outfile)};
const [stateDir, dataDir, spec] = process.argv.slice(2);
const driver = new ProcessDriver({ stateDir, dataDir });
console.log(JSON.stringify(await driver.start(JSON.parse(spec))));
setInterval(() => {}, 1000);
`,
  );
  return main;
}

describe('process driver', () => {
  it('keeps the apps serving when the control plane is killed, and the next one adopts them', async () => {
    const main = await bundleDriver();
    const run = spec(makeApp('outlive'));
    const controlPlane = spawn(process.execPath, [main, stateDir, dataDir, JSON.stringify(run)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let printed = '';
    controlPlane.stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString('utf8');
    });
    const started = JSON.parse(
      await waitUntil(() => printed.split('\n').find((line) => line.startsWith('{')), 'the control plane to start the app'),
    );
    const web = started.processes[0];
    const greeting = await answers(web.port);
    controlPlane.kill('SIGKILL');
    await new Promise((resolve) => controlPlane.once('exit', resolve));
    await sleep(300);
    expect(await get(web.port)).toBe(greeting);
    expect(isSameProcessAlive(web.pid, null)).toBe(true);

    const next = driver();
    const adopted = (await next.driver.adopt()).find((deployment) => deployment.deploymentId === run.deploymentId);
    expect(adopted?.processes[0]).toMatchObject({ pid: web.pid, port: web.port, state: 'running', restarts: 0 });
    expect(await get(web.port)).toBe(greeting);
    await next.driver.stop(run.deploymentId);
    expect(next.events).toContainEqual(expect.objectContaining({ kind: 'exited', expected: true }));
    expect(isSameProcessAlive(web.pid, null)).toBe(false);
  });

  it('runs every process type and instance: web copies on their own ports, workers without one', async () => {
    const { driver: runtime, logs } = driver();
    const appDir = makeApp('many', {
      'server.cjs': SERVER,
      'worker.cjs': `console.log('worker ' + (process.env.PORT ?? 'no port')); setInterval(() => {}, 1000);`,
    });
    const started = await runtime.start(
      spec(appDir, {
        processes: [
          { type: 'web', command: 'node server.cjs', instances: 2 },
          { type: 'worker', command: 'node worker.cjs' },
        ],
      }),
    );
    expect(started.processes.map(({ type, index }) => `${type}.${index}`)).toEqual(['web.0', 'web.1', 'worker.0']);
    const [web0, web1, worker] = started.processes;
    expect(web0!.port).not.toBe(web1!.port);
    expect(worker!.port).toBeNull();
    await answers(web0!.port);
    await answers(web1!.port);
    await waitUntil(() => logs.find((line) => line.process === 'worker'), 'the worker line');
    expect(logs.find((line) => line.process === 'worker')).toMatchObject({ line: 'worker no port', index: 0 });
    await runtime.stop(started.deploymentId);
    for (const running of started.processes) expect(isSameProcessAlive(running.pid!, null)).toBe(false);
  });

  it('never signals a process that only reuses a recorded pid', async () => {
    const first = driver();
    const started = await first.driver.start(spec(makeApp('stranger')));
    await answers(started.processes[0]!.port);
    await first.driver.stop(started.deploymentId);
    // A state file that names a live stranger (wrong start time): it is not the recorded process.
    const stranger = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    stranger.unref();
    const pid = stranger.pid!;
    const record = {
      version: 1,
      deploymentId: started.deploymentId,
      spec: spec(makeApp('stranger-2'), { deploymentId: started.deploymentId }),
      updatedAt: new Date().toISOString(),
      processes: [
        {
          type: 'web',
          index: 0,
          port: started.processes[0]!.port,
          pid,
          processStart: String(Number(processStartTime(pid)) + 1),
          sandboxed: false,
          sandboxPid: null,
          sandboxStart: null,
          state: 'running' as const,
          restarts: 0,
          restartTimes: [],
          backoffAttempt: 0,
          startedAt: Date.now(),
          cgroups: [],
          logs: {
            stdout: { file: path.join(root, 'stranger.out'), offset: 0 },
            stderr: { file: path.join(root, 'stranger.err'), offset: 0 },
          },
        },
      ],
    };
    fs.mkdirSync(path.dirname(stateFile(stateDir, started.deploymentId)), { recursive: true });
    writeDeploymentRecord(stateDir, record);
    const second = driver();
    await second.driver.adopt();
    expect(second.events[0]).toMatchObject({ kind: 'exited', expected: false });
    await second.driver.stop(started.deploymentId, { graceMs: 200 });
    expect(isSameProcessAlive(pid, null)).toBe(true);
    process.kill(pid, 'SIGKILL');
  });

  it('uses a fixed web port when the spec gives one (an app that ignores PORT), and PORT in env never wins', async () => {
    const { driver: runtime } = driver();
    const fixed = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const started = await runtime.start(spec(makeApp('fixed'), { port: fixed, env: { PORT: '1' } }));
    expect(started.processes[0]?.port).toBe(fixed);
    expect(JSON.parse(await answers(fixed, '/env'))).toMatchObject({ PORT: String(fixed) });
    await expect(runtime.start(spec(makeApp('fixed-2'), { port: fixed }))).rejects.toThrow(/taken/);
    await runtime.stop(started.deploymentId);
  });

  it('refuses a second start of a running deployment and an app folder that does not exist', async () => {
    const { driver: runtime } = driver();
    const first = spec(makeApp('twice'));
    await runtime.start(first);
    await expect(runtime.start(first)).rejects.toThrow(/already running/);
    await expect(runtime.start(spec(path.join(root, 'missing')))).rejects.toThrow(/does not exist/);
    await runtime.stop(first.deploymentId);
    await runtime.stop(123_456_789); // unknown: nothing to do
  });
});

describe.skipIf(!hasSandbox)('sandbox', () => {
  it('hides the data folder, keeps the system read-only, and lets the app write only in its folder', async () => {
    const { driver: runtime } = driver({ sandbox: 'auto' });
    const appDir = makeApp('jail');
    const started = await runtime.start(spec(appDir));
    const port = started.processes[0]!.port;
    await answers(port);
    const ask = (route: string, file: string) => get(port, `${route}?path=${encodeURIComponent(file)}`);
    expect(await ask('/read', path.join(dataDir, 'secret.txt'))).toBe('error:ENOENT');
    expect(await ask('/read', path.join(stateDir, 'deployments', String(started.deploymentId), 'state.json'))).toBe(
      'error:ENOENT',
    );
    expect(await ask('/read', '/etc/passwd')).toMatch(/^read:root:/); // the system is visible, read-only
    expect(await ask('/write', '/etc/launchbay-test')).toBe('error:EROFS');
    // The test's folder is under /tmp, which is the sandbox's own: the write fails, or lands in the sandbox.
    expect(await ask('/write', path.join(root, 'outside.txt'))).toMatch(/^error:(ENOENT|EACCES|EROFS)$/);
    expect(fs.existsSync(path.join(root, 'outside.txt'))).toBe(false);
    expect(await ask('/write', '/usr/launchbay-test')).toBe('error:EROFS');
    expect(await ask('/write', path.join(appDir, 'inside.txt'))).toBe('wrote');
    expect(fs.readFileSync(path.join(appDir, 'inside.txt'), 'utf8')).toBe('written');
    expect(await ask('/write', '/tmp/scratch.txt')).toBe('wrote'); // a private /tmp
    expect(fs.existsSync('/tmp/scratch.txt')).toBe(false);
    await runtime.stop(started.deploymentId);
  });
});

describe.skipIf(!hasMemoryLimit)('cgroup limits', () => {
  it('kills an app that allocates past its memory limit, and counts it as a crash', async () => {
    const { driver: runtime, events } = driver({ restart: { firstDelayMs: 5000, maxDelayMs: 5000 } });
    const appDir = makeApp('hog', {
      'hog.cjs': `const keep = []; for (let i = 0; i < 64; i++) keep.push(Buffer.alloc(8 * 1024 * 1024, 1)); console.log('survived');`,
    });
    const started = await runtime.start(
      spec(appDir, {
        processes: [{ type: 'worker', command: 'node hog.cjs' }],
        limits: { memoryMb: 96, cpuPercent: 50, pids: 64 },
      }),
    );
    const record = readDeploymentRecord(stateFile(stateDir, started.deploymentId))!;
    const cgroups = record.processes[0]!.cgroups;
    expect(cgroups.length).toBeGreaterThan(0);
    const memoryDir = cgroups.find(
      (dir) => fs.existsSync(path.join(dir, 'memory.limit_in_bytes')) || fs.existsSync(path.join(dir, 'memory.max')),
    )!;
    const limitFile = fs.existsSync(path.join(memoryDir, 'memory.max')) ? 'memory.max' : 'memory.limit_in_bytes';
    expect(fs.readFileSync(path.join(memoryDir, limitFile), 'utf8').trim()).toBe(String(96 * 1024 * 1024));
    const exited = await waitUntil(() => events.find((event) => event.kind === 'exited'), 'the app to be killed');
    expect(exited.kind === 'exited' && (exited.signal === 'SIGKILL' || exited.code === 137)).toBe(true);
    expect(exited).toMatchObject({ expected: false });
    expect(events.find((event) => event.kind === 'restarting')).toMatchObject({ attempt: 1, delayMs: 5000 });
    await runtime.stop(started.deploymentId);
    for (const dir of cgroups) expect(fs.existsSync(dir)).toBe(false);
  });
});
