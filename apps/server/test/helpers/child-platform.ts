import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopEdgeOf } from '@launchbay/edge-protocol';

/**
 * The platform as users run it: `node apps/server/dist/main.js` in its own process, so a test can
 * kill it like a power cut and start it again on the same data.
 */

export const SERVER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MAIN_JS = path.join(SERVER_DIR, 'dist', 'main.js');
const EDGE_DIR = path.join(SERVER_DIR, '..', 'edge');
const EDGE_MAIN_JS = path.join(EDGE_DIR, 'dist', 'main.js');
const EDGE_PROTOCOL_SRC = path.join(SERVER_DIR, '..', '..', 'packages', 'edge-protocol', 'src');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

function buildIfStale(mainJs: string, sources: string[], buildScript: string): void {
  const built = fs.existsSync(mainJs) ? fs.statSync(mainJs).mtimeMs : 0;
  if (built > Math.max(...sources.map(newestMtime))) return;
  const result = spawnSync(process.execPath, [buildScript], { cwd: path.dirname(buildScript), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building ${path.dirname(buildScript)} failed: ${result.stderr || result.stdout}`);
}

/** Builds the server's and the edge's dist/main.js when missing or older than the sources they bundle. */
export function ensureBuilt(): void {
  buildIfStale(EDGE_MAIN_JS, [path.join(EDGE_DIR, 'src'), EDGE_PROTOCOL_SRC], path.join(EDGE_DIR, 'build.mjs'));
  const contract = path.join(SERVER_DIR, '..', '..', 'packages', 'contract', 'src');
  buildIfStale(MAIN_JS, [path.join(SERVER_DIR, 'src'), contract, EDGE_PROTOCOL_SRC], path.join(SERVER_DIR, 'build.mjs'));
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export type ChildPlatform = {
  child: ChildProcess;
  pid: number;
  port: number;
  /** http://127.0.0.1:PORT */
  url: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  exited: Promise<Exit>;
  /** SIGTERM and wait: the graceful stop a user gets with Ctrl-C. */
  stop(): Promise<Exit>;
};

const running = new Set<ChildProcess>();

/** Spawns the platform and waits for its output; `ready` false waits for the exit instead (a start meant to fail). */
export async function spawnPlatform(
  env: Record<string, string>,
  options: { mainJs?: string; timeoutMs?: number } = {},
): Promise<ChildPlatform> {
  const port = await freePort();
  const child = spawn(process.execPath, [options.mainJs ?? MAIN_JS], {
    // PROXY_PORT 0: the edge of each platform takes a free port (DATA_DIR/edge/state.json says which).
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      HOST: '127.0.0.1',
      PORT: String(port),
      PROXY_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  const platform: ChildPlatform = {
    child,
    pid: child.pid ?? -1,
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  return platform;
}

/** Waits until the platform printed its ready line (and answers), or fails with its output. */
export async function waitUntilReady(platform: ChildPlatform, timeoutMs = 60_000): Promise<ChildPlatform> {
  const deadline = Date.now() + timeoutMs;
  let done: Exit | undefined;
  void platform.exited.then((exit) => {
    done = exit;
  });
  while (Date.now() < deadline) {
    if (/is ready at http:\/\/localhost:\d+/.test(platform.output())) {
      // The rest of the start banner (first admin, password) follows the ready line in later
      // writes: wait until the platform answers and its output has settled.
      const health = await fetch(`${platform.url}/api/health`);
      await health.arrayBuffer();
      let seen = -1;
      while (seen !== platform.output().length) {
        seen = platform.output().length;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return platform;
    }
    if (done) throw new Error(`the platform exited (${JSON.stringify(done)}) before it was ready:\n${platform.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the platform was not ready after ${timeoutMs} ms:\n${platform.output()}`);
}

export async function startChildPlatform(env: Record<string, string>, options: { mainJs?: string } = {}) {
  return waitUntilReady(await spawnPlatform(env, options));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends what the tests started and left behind: platform processes still running, the edge proxy
 * each platform leaves running on purpose (found by its state file), and an embedded PostgreSQL
 * orphaned by a kill -9 (found by the pid in its data folder's postmaster.pid).
 */
export async function cleanUpChildren(dataDirs: string[]): Promise<void> {
  for (const child of running) child.kill('SIGKILL');
  for (const child of running) await new Promise((resolve) => child.once('exit', resolve));
  for (const dataDir of dataDirs) {
    await stopEdgeOf(dataDir);
    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    if (!fs.existsSync(pidFile)) continue;
    const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) continue;
    process.kill(pid, 'SIGQUIT');
    for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
