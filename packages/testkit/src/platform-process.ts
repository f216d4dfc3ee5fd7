import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopEdgeOf } from '@launchbay/edge-protocol';
import { freePort } from './port';
import { sleep } from './wait';

/**
 * The platform as users run it: `node apps/server/dist/main.js` in its own process on a data
 * folder of the caller's, so a test can stop it like Ctrl-C, kill it like a power cut and start it
 * again on the same data.
 */

/** The repository: found upwards from this file, which also works from a bundle of it (bench/.out). */
function findRepoRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = here; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'apps', 'server', 'package.json'))) return dir;
  }
  return path.resolve(here, '..', '..', '..');
}

export const REPO_ROOT = findRepoRoot();
export const SERVER_DIR = path.join(REPO_ROOT, 'apps', 'server');
export const SERVER_MAIN_JS = path.join(SERVER_DIR, 'dist', 'main.js');
const EDGE_DIR = path.join(REPO_ROOT, 'apps', 'edge');
const EDGE_PROTOCOL_SRC = path.join(REPO_ROOT, 'packages', 'edge-protocol', 'src');
const CONTRACT_SRC = path.join(REPO_ROOT, 'packages', 'contract', 'src');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Runs `buildScript` (in its folder) when `mainJs` is missing or older than any file below `sources`. */
export function buildIfStale(mainJs: string, sources: string[], buildScript: string): void {
  const built = fs.existsSync(mainJs) ? fs.statSync(mainJs).mtimeMs : 0;
  if (built > Math.max(...sources.map(newestMtime))) return;
  const result = spawnSync(process.execPath, [buildScript], { cwd: path.dirname(buildScript), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`building ${path.dirname(buildScript)} failed: ${result.stderr || result.stdout}`);
}

/** Builds the server's and the edge's dist/main.js when missing or older than the sources they bundle. */
export function ensureBuilt(): void {
  buildIfStale(
    path.join(EDGE_DIR, 'dist', 'main.js'),
    [path.join(EDGE_DIR, 'src'), EDGE_PROTOCOL_SRC],
    path.join(EDGE_DIR, 'build.mjs'),
  );
  buildIfStale(
    SERVER_MAIN_JS,
    [path.join(SERVER_DIR, 'src'), CONTRACT_SRC, EDGE_PROTOCOL_SRC],
    path.join(SERVER_DIR, 'build.mjs'),
  );
}

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export type PlatformProcess = {
  child: ChildProcess;
  pid: number;
  port: number;
  /** http://127.0.0.1:PORT */
  url: string;
  /** The DATA_DIR it was started on. */
  dataDir: string | undefined;
  /** Everything the process wrote to stdout and stderr so far (the tail, with `outputLimit`). */
  output(): string;
  exited: Promise<Exit>;
  isRunning(): boolean;
  /** SIGTERM and wait: the graceful stop a user gets with Ctrl-C; SIGKILL after `killAfterMs`, when given. */
  stop(options?: { killAfterMs?: number }): Promise<Exit>;
  /** Stops the edge proxy of its data folder: the platform's stop leaves it running on purpose. */
  stopEdge(): Promise<void>;
};

export type SpawnPlatformOptions = {
  /** The platform's settings (DATA_DIR, ADMIN_EMAIL, ...), over HOST=127.0.0.1, PORT=port, PROXY_PORT=0 and PROXY_TLS_PORT=0. */
  env: Record<string, string>;
  /** Pass this process's whole environment on; otherwise the child gets only PATH and HOME from it. */
  inheritEnv?: boolean;
  /** Default: a free port. */
  port?: number;
  /** Default: apps/server/dist/main.js. */
  mainJs?: string;
  cwd?: string;
  /** Keep only the last this many characters of the output. */
  outputLimit?: number;
  /** Also copy the child's stderr to this process's stderr. */
  echoStderr?: boolean;
};

const running = new Set<PlatformProcess>();

/** Spawns the platform; it is not ready yet (see waitForPlatform). */
export async function spawnPlatformProcess(options: SpawnPlatformOptions): Promise<PlatformProcess> {
  const port = options.port ?? (await freePort());
  const inherited = options.inheritEnv ? process.env : { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
  const child = spawn(process.execPath, [options.mainJs ?? SERVER_MAIN_JS], {
    cwd: options.cwd,
    // PROXY_PORT 0: the edge of each platform takes a free port (DATA_DIR/edge/state.json says which).
    env: { ...inherited, HOST: '127.0.0.1', PORT: String(port), PROXY_PORT: '0', PROXY_TLS_PORT: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (options.outputLimit !== undefined && output.length > options.outputLimit) output = output.slice(-options.outputLimit);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', (chunk: Buffer) => {
    collect(chunk);
    if (options.echoStderr) process.stderr.write(chunk);
  });
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(platform);
      resolve({ code, signal });
    });
  });
  const isRunning = () => child.exitCode === null && child.signalCode === null;
  const dataDir = options.env.DATA_DIR;
  const platform: PlatformProcess = {
    child,
    pid: child.pid ?? -1,
    port,
    url: `http://127.0.0.1:${port}`,
    dataDir,
    output: () => output,
    exited,
    isRunning,
    async stop({ killAfterMs } = {}) {
      if (isRunning()) child.kill('SIGTERM');
      if (killAfterMs === undefined) return exited;
      const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    async stopEdge() {
      if (dataDir) await stopEdgeOf(dataDir);
    },
  };
  running.add(platform);
  return platform;
}

/** The status /api/health answers with, or undefined when nothing answers (yet). */
export async function healthStatus(platform: PlatformProcess): Promise<number | undefined> {
  try {
    const response = await fetch(`${platform.url}/api/health`, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return undefined;
  }
}

export type WaitForPlatformOptions = {
  /** When the platform counts as ready; default: /api/health answers 200. */
  ready?: (platform: PlatformProcess) => boolean | Promise<boolean>;
  timeoutMs?: number;
  everyMs?: number;
};

/**
 * Polls until the platform is ready. Fails with its output when it exits first, or when it is not
 * ready in time (then it is stopped).
 */
export async function waitForPlatform(platform: PlatformProcess, options: WaitForPlatformOptions = {}): Promise<PlatformProcess> {
  const { ready = async (p) => (await healthStatus(p)) === 200, timeoutMs = 60_000, everyMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!platform.isRunning()) {
      const exit = await platform.exited;
      throw new Error(`the platform exited (${JSON.stringify(exit)}) before it was ready:\n${platform.output()}`);
    }
    if (await ready(platform)) return platform;
    await sleep(everyMs);
  }
  await platform.stop({ killAfterMs: 10_000 });
  throw new Error(`the platform was not ready after ${timeoutMs} ms:\n${platform.output()}`);
}

/** SIGKILLs every platform process spawned here that still runs, and waits for them to exit. */
export async function killPlatformProcesses(): Promise<void> {
  const all = [...running];
  for (const platform of all) platform.child.kill('SIGKILL');
  await Promise.all(all.map((platform) => platform.exited));
}
