import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  askEdgeIdentity,
  type EdgeIdentity,
  type EdgeState,
  edgePaths,
  processStartTime,
  readEdgeState,
  writeFileAtomic,
} from '@launchbay/edge-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api';
import { cleanUpChildren, ensureBuilt, startChildPlatform } from '../helpers/child-platform';
import { freshExternalDatabase } from '../helpers/platform';

/**
 * The edge proxy as users run it: the platform (dist/main.js, a child process here) starts it
 * detached, restarts it when it dies, leaves it serving through its own stop or kill -9, and adopts
 * it again on the next start. Every platform gets PROXY_PORT=0 (a free port, in the state file).
 */
const dataDirs: string[] = [];
const strangers: ChildProcess[] = [];

beforeAll(() => ensureBuilt(), 120_000);
afterAll(async () => {
  for (const stranger of strangers) stranger.kill('SIGKILL');
  await cleanUpChildren(dataDirs); // stops the edges too
  //  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function installation() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-edge-'));
  fs.chmodSync(dataDir, 0o711); // the embedded PostgreSQL runs as 'postgres' when the tests run as root
  dataDirs.push(dataDir);
  const databaseUrl = await freshExternalDatabase();
  return {
    dataDir,
    env: { DATA_DIR: dataDir, LOG_LEVEL: 'info', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) } as Record<
      string,
      string
    >,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readyState(dataDir: string): EdgeState {
  const state = readEdgeState(edgePaths(dataDir).state);
  if (state?.status !== 'ready' || !state.port) throw new Error(`no ready edge in ${dataDir}: ${JSON.stringify(state)}`);
  return state;
}

type Answer = { status: number; type: string; body: string };

/** A request to the edge with a Host header of our choice (fetch does not let us set one). */
function get(port: number, host: string, headers: Record<string, string> = {}, pathname = '/'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: '127.0.0.1', port, path: pathname, headers: { host, ...headers }, agent: false, timeout: 2000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
        res.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
  });
}

/** The edge's last log lines, for a failure's message. */
function edgeLogTail(dataDir: string): string {
  try {
    return `; the edge's log ends with:\n${fs.readFileSync(edgePaths(dataDir).log, 'utf8').trim().split('\n').slice(-8).join('\n')}`;
  } catch {
    return '';
  }
}

async function waitFor<T>(
  what: string,
  look: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
  explain: () => string = () => '',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await look();
      if (value !== undefined) return value;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${explain()}`);
    await sleep(20);
  }
}

/** The edge processes serving `dataDir`, found by their environment (an edge's DATA_DIR and instance id). */
function edgesOf(dataDir: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const env = fs.readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
        return env.includes(`DATA_DIR=${dataDir}`) && env.some((line) => line.startsWith('LAUNCHBAY_EDGE_INSTANCE='));
      } catch {
        return false;
      }
    })
    .map(Number);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !/^\S+ \S+ Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/\(.*\)/, 'cmd'));
  } catch {
    return false;
  }
};

/**
 * Kills the edge like a crash and measures how long until a new edge listens on the same port: the
 * new process records `ready` once its listen() has returned. That it answers is checked after that
 * moment and not timed: under a saturating load the first answer waits behind the load's connections
 * (0.75 s here), which a never-killed edge would make it wait as well.
 */
async function killEdgeAndTimeRecovery(dataDir: string) {
  const before = readyState(dataDir);
  const port = before.port as number;
  const killedAt = Date.now();
  process.kill(before.pid, 'SIGKILL');
  const after = await waitFor('a new edge', () => {
    const state = readEdgeState(edgePaths(dataDir).state);
    return state && state.pid !== before.pid && state.status === 'ready' ? state : undefined;
  });
  const recoveryMs = Date.now() - killedAt;
  await waitFor('the new edge to answer', async () =>
    (await get(port, 'after-crash.example.test')).status === 404 ? true : undefined,
  );
  const answeredMs = Date.now() - killedAt;
  // When it is slow, what the edge's log says of the new process's start (its code, its table, its port).
  const edgeLog = fs.readFileSync(edgePaths(dataDir).log, 'utf8').split('\n').slice(-8).join('\n');
  const why = `killed at ${new Date(killedAt).toISOString()}, listening after ${recoveryMs} ms, answered after ${answeredMs} ms; the edge log ends with\n${edgeLog}`;
  return { before, after, recoveryMs, why };
}

/**
 * 20 s of autocannon against `url` in a process of its own, so that the load does not queue this test's
 * own checks behind it (a recovery timed on this event loop measured autocannon's backlog: 1.3 s here
 * for an edge listening 0.44 s after its kill). `stop()` ends it and resolves with its counts.
 * (Not a thread: autocannon in a worker thread reports to its parent in its own way and keeps no result.)
 */
function loadInAProcess(options: { url: string; connections: number; host: string }) {
  const program = `const autocannon = require(process.argv[1]);
    const instance = autocannon(
      { url: ${JSON.stringify(options.url)}, connections: ${options.connections}, duration: 20, headers: { host: ${JSON.stringify(options.host)} } },
      (error, result) => {
        process.stdout.write(JSON.stringify(error ? { error: String(error) } : { errors: result.errors, non2xx: result.non2xx, total: result.requests.total }));
        process.exit(0);
      },
    );
    process.stdin.once('data', () => instance.stop());`;
  const child = spawn(process.execPath, ['-e', program, createRequire(import.meta.url).resolve('autocannon')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  strangers.push(child);
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    printed += chunk.toString('utf8');
  });
  const result = new Promise<{ errors: number; non2xx: number; total: number }>((resolve, reject) => {
    child.once('close', () => {
      try {
        const answer = JSON.parse(printed) as { error?: string; errors: number; non2xx: number; total: number };
        if (answer.error) reject(new Error(answer.error));
        else resolve(answer);
      } catch {
        reject(new Error(`the load ended without a result: ${printed}`));
      }
    });
  });
  return {
    stop: () => {
      child.stdin?.write('stop\n');
      return result;
    },
  };
}

/** Asks the edge every 20 ms while `during` runs; resolves to the requests that failed. */
async function keepAsking(port: number, during: () => Promise<void>) {
  let done = false;
  let asked = 0;
  const failures: string[] = [];
  const asker = (async () => {
    while (!done) {
      asked++;
      try {
        const answer = await get(port, 'steady.example.test');
        if (answer.status !== 404) failures.push(`status ${answer.status}`);
      } catch (error) {
        failures.push((error as Error).message);
      }
      await sleep(20);
    }
  })();
  try {
    await during();
  } finally {
    done = true;
    await asker;
  }
  return { asked, failures };
}

/** An HTTP server answering `body` in a Node process of its own (killed after the tests), and its port. */
async function serverProcess(body: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `require('http').createServer((q, s) => s.end(${JSON.stringify(body)})).listen(0, '127.0.0.1', function () { console.log(this.address().port) })`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  strangers.push(child);
  const port = await new Promise<number>((resolve) =>
    child.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString()))),
  );
  return { child, port };
}

describe('the edge proxy', () => {
  it('answers an unknown host with a page naming it (HTML, or JSON when asked), from an empty route table loaded from the database', async () => {
    const { dataDir, env } = await installation();
    const platform = await startChildPlatform(env);
    const state = readyState(dataDir);
    expect(state.pid).not.toBe(platform.pid);
    expect(edgesOf(dataDir)).toEqual([state.pid]);
    expect(platform.output()).toContain(`Edge proxy started (pid ${state.pid}) on 127.0.0.1:${state.port}`);
    // Started so that it can give a burst's memory back once quiet (apps/edge/src/memory.ts), with glibc told to
    // return it, and without V8's sticky pretenuring (src/engine/edge/supervisor.ts).
    expect(fs.readFileSync(`/proc/${state.pid}/cmdline`, 'latin1').split('\0')).toEqual(
      expect.arrayContaining(['--expose-gc', '--no-allocation-site-pretenuring']),
    );
    expect(fs.readFileSync(`/proc/${state.pid}/environ`, 'latin1').split('\0')).toEqual(
      expect.arrayContaining(['MALLOC_ARENA_MAX=2', 'MALLOC_TRIM_THRESHOLD_=131072']),
    );

    const page = await get(state.port as number, 'Shop.Example.test:8080', {}, '/checkout?x=1');
    expect(page.status).toBe(404);
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<h1>No app is deployed at shop.example.test</h1>');
    expect(page.body).toContain('<title>Not found: shop.example.test</title>');

    const json = await get(state.port as number, 'api.example.test', { accept: 'application/json' });
    expect(json.status).toBe(404);
    expect(json.type).toBe('application/json; charset=utf-8');
    expect(JSON.parse(json.body)).toEqual({ detail: 'No app is deployed at api.example.test', host: 'api.example.test' });

    // A Host that is no host name is refused, and never echoed as markup.
    const hostile = await get(state.port as number, '<script>alert(1)</script>');
    expect(hostile.status).toBe(400);
    expect(hostile.body).not.toContain('<script');

    // The identity path is ordinary traffic without the instance id.
    expect((await get(state.port as number, 'a.test', {}, '/.launchbay/edge')).status).toBe(404);
    // It reached the database, LISTENs there, and loaded the (empty) table the platform publishes at every start.
    const identity = await waitFor<EdgeIdentity>('the edge to reach its database', async () => {
      const answer = await askEdgeIdentity(state);
      return answer?.database === 'connected' && answer.routeTableVersion >= 1 ? answer : undefined;
    });
    expect(identity).toMatchObject({ pid: state.pid, port: state.port, routes: 0, routeTableVersion: 1 });
    expect(await platform.stop()).toEqual({ code: 0, signal: null });
  }, 60_000);

  it('killed with SIGKILL, the edge is replaced within 2 s on the same port, serving the routes from its first request', async () => {
    const { dataDir, env } = await installation();
    const platform = await startChildPlatform({ ...env, ADMIN_EMAIL: 'edge@example.test', ADMIN_PASSWORD: 'edge-password-1' });
    const app = http.createServer((_req, res) => res.end('the app'));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const api = apiClient(platform.url);
    const admin = await api.login('edge@example.test', 'edge-password-1');
    const created = await api.call('POST', '/lb/routes', {
      token: admin,
      body: {
        domain: 'routed.example.test',
        target: { kind: 'upstreams', upstreams: [`127.0.0.1:${(app.address() as AddressInfo).port}`] },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const port = readyState(dataDir).port as number;
    await waitFor(
      'the route',
      async () => ((await get(port, 'routed.example.test')).body === 'the app' ? true : undefined),
      15_000,
      () => edgeLogTail(dataDir),
    );

    // Asked every few milliseconds from the kill on, the new edge's first answers already route:
    // it has the table before it takes the port, never "no app here" for a routed host.
    const answers: string[] = [];
    let recovered = false;
    const asking = (async () => {
      while (!recovered || answers.length < 5) {
        const answer = await get(port, 'routed.example.test').catch(() => undefined);
        if (answer) answers.push(`${answer.status} ${answer.body.slice(0, 40)}`);
        await sleep(3);
      }
    })();
    const { before, after, recoveryMs, why } = await killEdgeAndTimeRecovery(dataDir);
    recovered = true;
    await asking;
    expect(new Set(answers)).toEqual(new Set(['200 the app']));
    expect(recoveryMs, why).toBeLessThan(2000);
    expect(after.port).toBe(before.port);
    expect(edgesOf(dataDir)).toEqual([after.pid]);
    expect(platform.output()).toContain(`The edge proxy (pid ${before.pid}) is gone; starting a new one`);
    await platform.stop();
    await new Promise((resolve) => app.close(resolve));
  }, 60_000);

  it('keeps serving through a kill -9 and a graceful stop of the platform; each next start adopts the same edge', async () => {
    const { dataDir, env } = await installation();
    const first = await startChildPlatform(env);
    const edge = readyState(dataDir);
    const port = edge.port as number;

    // kill -9 of the control plane, and the time until the next one is up: not one request fails.
    let second: Awaited<ReturnType<typeof startChildPlatform>> | undefined;
    const throughKill = await keepAsking(port, async () => {
      first.child.kill('SIGKILL');
      await first.exited;
      await sleep(300);
      second = await startChildPlatform(env);
    });
    expect(throughKill.failures).toEqual([]);
    expect(throughKill.asked).toBeGreaterThan(10);
    if (!second) throw new Error('no second platform');
    expect(readyState(dataDir).pid).toBe(edge.pid);
    expect(readyState(dataDir).instanceId).toBe(edge.instanceId);
    expect(edgesOf(dataDir)).toEqual([edge.pid]);
    expect(second.output()).toContain(`Adopted the running edge proxy (pid ${edge.pid}) on port ${port}`);
    expect(second.output()).not.toContain('Edge proxy started');
    // The database came back (the embedded one was restarted with the platform): the edge found it again.
    await waitFor('the edge to reconnect to the database', async () =>
      (await askEdgeIdentity(edge))?.database === 'connected' ? true : undefined,
    );

    // A graceful stop leaves the edge serving too.
    const throughStop = await keepAsking(port, async () => {
      expect(await second?.stop()).toEqual({ code: 0, signal: null });
      await sleep(300);
    });
    expect(throughStop.failures).toEqual([]);
    expect(alive(edge.pid)).toBe(true);

    const third = await startChildPlatform(env);
    expect(third.output()).toContain(`Adopted the running edge proxy (pid ${edge.pid})`);
    expect(edgesOf(dataDir)).toEqual([edge.pid]);
    // The adopted edge (not this platform's child) is watched as well: killed, it is replaced within 2 s.
    const { after, recoveryMs, why } = await killEdgeAndTimeRecovery(dataDir);
    expect(recoveryMs, why).toBeLessThan(2000);
    expect(after.port).toBe(port);
    expect(edgesOf(dataDir)).toEqual([after.pid]);
    await third.stop();
  }, 120_000);

  it('a stale state file whose pid belongs to another process is not adopted, and that process is left alone', async () => {
    const { dataDir, env } = await installation();
    // A stranger: a live HTTP server that got the pid, with its real start time and its port on record.
    const { child: stranger, port: strangerPort } = await serverProcess('stranger');
    const strangerPid = stranger.pid as number;
    fs.mkdirSync(edgePaths(dataDir).dir, { recursive: true });
    writeFileAtomic(
      edgePaths(dataDir).state,
      JSON.stringify({
        pid: strangerPid,
        processStart: processStartTime(strangerPid),
        instanceId: 'a0a0a0a0a0a0a0a0a0a0a0a0',
        status: 'ready',
        host: '127.0.0.1',
        port: strangerPort,
        startedAt: new Date().toISOString(),
        protocolVersion: 1,
      }),
    );

    const platform = await startChildPlatform(env);
    const state = readyState(dataDir);
    expect(state.pid).not.toBe(strangerPid);
    expect(state.port).not.toBe(strangerPort); // the stranger still holds its port
    expect(platform.output()).not.toContain('Adopted the running edge proxy');
    expect(edgesOf(dataDir)).toEqual([state.pid]);
    expect((await get(state.port as number, 'unknown.example.test')).body).toContain(
      'No app is deployed at unknown.example.test',
    );
    // Never signalled: the stranger still runs and answers.
    expect(alive(strangerPid)).toBe(true);
    expect((await get(strangerPort, 'x.test')).body).toBe('stranger');
    await platform.stop();
  }, 60_000);

  it('under a load that saturates it, the edge serves from a second process that gets the route table, retires when the load is gone, and leaves the port to the replacement of a killed edge', async () => {
    const { dataDir, env } = await installation();
    const platform = await startChildPlatform({
      ...env,
      ADMIN_EMAIL: 'edge@example.test',
      ADMIN_PASSWORD: 'edge-password-1',
      EDGE_PROCESSES: '2',
      EDGE_SCALE_DOWN_SECONDS: '2',
      // Saturated at a lighter load than the default 0.8: other test files share this machine's cores.
      EDGE_SCALE_UP_AT: '0.4',
    });
    // The app in a process of its own, so the load is on the edge, not on this test's event loop.
    const { child: app, port: appPort } = await serverProcess('the app');
    const api = apiClient(platform.url);
    const admin = await api.login('edge@example.test', 'edge-password-1');
    const routeTo = async (domain: string) => {
      const created = await api.call('POST', '/lb/routes', {
        token: admin,
        body: { domain, target: { kind: 'upstreams', upstreams: [`127.0.0.1:${appPort}`] } },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    };
    await routeTo('busy.example.test');
    const state = readyState(dataDir);
    const port = state.port as number;
    await waitFor(
      'the route',
      async () => ((await get(port, 'busy.example.test')).body === 'the app' ? true : undefined),
      15_000,
      () => edgeLogTail(dataDir),
    );
    const identity = () => askEdgeIdentity(readyState(dataDir));
    expect((await identity())?.processes).toBe(1);
    const workersOf = (pid: number) => edgesOf(dataDir).filter((edge) => edge !== pid);

    /** Load until the edge has a second process; every request of it answered by the app. */
    const saturate = async () => {
      const load = loadInAProcess({ url: `http://127.0.0.1:${port}/`, connections: 100, host: 'busy.example.test' });
      const worker = await waitFor(
        'a second edge process',
        async () => ((await identity())?.processes === 2 ? workersOf(readyState(dataDir).pid)[0] : undefined),
        20_000,
      );
      return { load, worker };
    };

    const first = await saturate();
    // Load on both processes for a moment, then stop it: nothing failed, every answer came from the app.
    await sleep(1500);
    const result = await first.load.stop();
    expect(result.errors).toBe(0);
    expect(result.non2xx).toBe(0);
    expect(result.total).toBeGreaterThan(1000);

    // A route made while two processes serve: the identity's table version counts once both serve it,
    // and every new connection (whichever process takes it) finds the route.
    const before = (await identity())?.routeTableVersion ?? 0;
    await routeTo('new.example.test');
    await waitFor('the new table in every process', async () =>
      ((await identity())?.routeTableVersion ?? 0) > before ? true : undefined,
    );
    for (let i = 0; i < 30; i++) expect((await get(port, 'new.example.test')).body).toBe('the app');

    // The load is gone: after EDGE_SCALE_DOWN_SECONDS the worker finishes and exits, the edge is one process again.
    await waitFor(
      'the worker to retire',
      async () => ((await identity())?.processes === 1 && !alive(first.worker) ? true : undefined),
      20_000,
    );
    expect(fs.readFileSync(edgePaths(dataDir).log, 'utf8')).toContain(`worker ${first.worker} retires: the load is gone`);
    expect((await get(port, 'busy.example.test')).body).toBe('the app');

    // Under load again, the first process is killed: its worker lets go of the port at once, and the
    // replacement the platform starts takes the same port within 2 s.
    const second = await saturate();
    const { before: killed, after, recoveryMs, why } = await killEdgeAndTimeRecovery(dataDir);
    await second.load.stop();
    expect(recoveryMs, why).toBeLessThan(2000);
    expect(after.port).toBe(killed.port);
    await waitFor('the orphaned worker to exit', () => (alive(second.worker) ? undefined : true), 15_000);
    expect((await get(port, 'busy.example.test')).body).toBe('the app');
    await platform.stop();
    app.kill();
  }, 120_000);

  it('an edge started before the database file exists listens once its wait for the table is over, and answers the no-app page', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-edge-nodb-'));
    dataDirs.push(dataDir);
    const edgeMain = fileURLToPath(new URL('../../../edge/dist/main.js', import.meta.url));
    const edge = spawn(process.execPath, [edgeMain], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PROXY_PORT: '0', PROXY_TLS_PORT: '0' },
      stdio: 'ignore',
    });
    strangers.push(edge);
    const state = await waitFor(
      'the edge to listen',
      () => {
        if (edge.exitCode !== null) throw new Error(`the edge ended (${edge.exitCode}) without a database`);
        const current = readEdgeState(edgePaths(dataDir).state);
        return current?.status === 'ready' ? current : undefined;
      },
      10_000,
    );
    const answer = await get(state.port as number, 'nothing.example.test');
    expect(answer.status).toBe(404);
    expect(answer.body).toContain('No app is deployed at nothing.example.test');
    expect(edge.exitCode).toBeNull();
    edge.kill('SIGTERM');
  }, 30_000);
});
