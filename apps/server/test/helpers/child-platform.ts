import fs from 'node:fs';
import path from 'node:path';
import { stopEdgeOf } from '@launchbay/edge-protocol';
import {
  healthStatus,
  killPlatformProcesses,
  type PlatformProcess,
  SERVER_MAIN_JS,
  spawnPlatformProcess,
  waitForPlatform,
} from '@launchbay/testkit';

/**
 * The platform as users run it: `node apps/server/dist/main.js` in its own process (the testkit's
 * spawnPlatformProcess), so a test can kill it like a power cut and start it again on the same data.
 */

export { type Exit, ensureBuilt, SERVER_DIR } from '@launchbay/testkit';
export const MAIN_JS = SERVER_MAIN_JS;

export type ChildPlatform = PlatformProcess;

/** Spawns the platform with only PATH and HOME of this process's environment besides `env`; not ready yet. */
export async function spawnPlatform(env: Record<string, string>, options: { mainJs?: string } = {}): Promise<ChildPlatform> {
  return spawnPlatformProcess({ env, mainJs: options.mainJs });
}

const READY_LINE = /is ready at http:\/\/localhost:\d+/;

/** Waits until the platform printed its ready line (and answers), or fails with its output. */
export async function waitUntilReady(platform: ChildPlatform, timeoutMs = 60_000): Promise<ChildPlatform> {
  await waitForPlatform(platform, {
    ready: async (p) => READY_LINE.test(p.output()) && (await healthStatus(p)) !== undefined,
    timeoutMs,
    everyMs: 25,
  });
  // The rest of the start banner (first admin, password) follows the ready line in later writes:
  // wait until the output has settled.
  let seen = -1;
  while (seen !== platform.output().length) {
    seen = platform.output().length;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return platform;
}

/** The environment of a child platform in a test: its data folder, loopback, free edge ports, warnings only. */
export function childPlatformEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { DATA_DIR: dataDir, HOST: '127.0.0.1', PROXY_PORT: '0', PROXY_TLS_PORT: '0', LOG_LEVEL: 'warn', ...extra };
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
  await killPlatformProcesses();
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
