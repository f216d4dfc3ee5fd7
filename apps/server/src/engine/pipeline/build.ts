import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { shellQuote } from '../../lib/shell';
import type { BuildPlan } from './build-plan';
import { readPackageJson } from './config/package-manager';

/**
 * Install and build, with the dependency cache: `node_modules` (and the framework's own caches
 * such as `.next/cache`) are kept per environment, keyed by the lockfile, the package manager and
 * the Node version, and restored as hard links, so a push that changes only source code skips
 * the install. Restored trees are new folders of links: files the build adds never reach the cache.
 */

export type BuildLog = (line: string) => void;

export type CommandOptions = {
  cwd: string;
  env: Record<string, string>;
  log: BuildLog;
  signal: AbortSignal;
  timeoutMs: number;
  /** The command line for a command (the runtime's sandbox); `sh -c command` when not given. */
  commandLine?: (command: string) => Promise<string[]>;
};

const MAX_LINE = 4000;

/** Runs `sh -c command`, streaming its output line by line; rejects with the reason on a non-zero exit, a timeout or an abort. */
export async function runCommand(command: string, options: CommandOptions): Promise<void> {
  const argv = options.commandLine ? await options.commandLine(command) : ['sh', '-c', command];
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group: a timeout or a cancel stops everything it started
    });
    let settled = false;
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve();
    };
    const timer = setTimeout(() => {
      kill();
      finish(new Error(`${command} did not finish within ${Math.round(options.timeoutMs / 1000)} s (the build time limit)`));
    }, options.timeoutMs);
    const onAbort = () => {
      kill();
      finish(options.signal.reason instanceof Error ? options.signal.reason : new Error('Cancelled'));
    };
    if (options.signal.aborted) return onAbort();
    options.signal.addEventListener('abort', onAbort, { once: true });
    for (const stream of [child.stdout, child.stderr]) {
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const lines = (rest + chunk).split(/\r?\n|\r/);
        rest = lines.pop() ?? '';
        for (const line of lines) options.log(line.slice(0, MAX_LINE));
      });
      stream.on('end', () => {
        if (rest) options.log(rest.slice(0, MAX_LINE));
      });
    }
    child.on('error', (error) => finish(new Error(`${command} could not start: ${error.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) finish();
      else finish(new Error(`${command} failed (${signal ? `killed by ${signal}` : `exit code ${code}`})`));
    });
  });
}

const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock', 'bun.lockb'];

/** The cache key of an app's dependencies: its lockfile (or package.json without one), the package manager, the install command and Node's version. */
export function dependencyCacheKey(appDir: string, plan: Pick<BuildPlan, 'packageManager' | 'installCommand'>): string | null {
  const hash = createHash('sha256');
  const lockfile = LOCKFILES.find((name) => fs.existsSync(path.join(appDir, name)));
  const manifest = lockfile ?? (fs.existsSync(path.join(appDir, 'package.json')) ? 'package.json' : null);
  if (!manifest) return null;
  hash.update(fs.readFileSync(path.join(appDir, manifest)));
  if (lockfile) hash.update(fs.readFileSync(path.join(appDir, 'package.json')));
  hash.update(`\0${plan.packageManager ?? ''}\0${plan.installCommand ?? ''}\0${process.version}`);
  return hash.digest('hex').slice(0, 32);
}

const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'] as const;
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'workspaces'] as const;

/**
 * Whether an install would do anything: a package.json that lists no dependencies, no workspaces and
 * no install scripts gets nothing from one (a dependency-free server deploys in seconds, every time).
 * Without a package.json, or one that cannot be read, the install runs as planned.
 */
export async function installHasWork(appDir: string): Promise<boolean> {
  const pkg = await readPackageJson(appDir);
  if (!pkg) return true;
  const nonEmpty = (value: unknown) =>
    Array.isArray(value) ? value.length > 0 : !!value && typeof value === 'object' && Object.keys(value).length > 0;
  if (DEPENDENCY_FIELDS.some((field) => nonEmpty(pkg[field]))) return true;
  const scripts = pkg.scripts ?? {};
  return INSTALL_SCRIPTS.some((name) => scripts[name] !== undefined);
}

/** Copies a tree as hard links (cp -al): near-instant, and the copy's own new files stay its own. */
function linkTree(from: string, to: string, signal: AbortSignal): Promise<void> {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  return runCommand(`cp -al ${shellQuote(from)} ${shellQuote(to)}`, {
    cwd: path.dirname(to),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    log: () => undefined,
    signal,
    timeoutMs: 120_000,
  });
}

export type CacheLayout = { dir: string };

/** Restores node_modules when the key matches: answers whether the install can be skipped. */
export async function restoreDependencies(
  appDir: string,
  cache: CacheLayout,
  key: string | null,
  signal: AbortSignal,
): Promise<boolean> {
  if (!key) return false;
  const cached = path.join(cache.dir, 'deps', key, 'node_modules');
  if (!fs.existsSync(path.join(cache.dir, 'deps', key, '.complete'))) return false;
  fs.rmSync(path.join(appDir, 'node_modules'), { recursive: true, force: true });
  await linkTree(cached, path.join(appDir, 'node_modules'), signal);
  return true;
}

/** Keeps node_modules under its key (and only the latest key: older ones are removed). */
export async function saveDependencies(
  appDir: string,
  cache: CacheLayout,
  key: string | null,
  signal: AbortSignal,
): Promise<boolean> {
  const modules = path.join(appDir, 'node_modules');
  if (!key || !fs.existsSync(modules)) return false;
  const depsDir = path.join(cache.dir, 'deps');
  const target = path.join(depsDir, key);
  if (fs.existsSync(path.join(target, '.complete'))) return false;
  const temp = `${target}.tmp-${process.pid}-${Date.now()}`;
  await linkTree(modules, path.join(temp, 'node_modules'), signal);
  fs.writeFileSync(path.join(temp, '.complete'), new Date().toISOString());
  fs.rmSync(target, { recursive: true, force: true });
  fs.renameSync(temp, target);
  for (const entry of fs.readdirSync(depsDir)) {
    if (entry !== key) fs.rmSync(path.join(depsDir, entry), { recursive: true, force: true });
  }
  return true;
}

/** Framework caches (`.next/cache`...): restored before the build, saved after it. */
export async function restoreBuildCaches(
  appDir: string,
  cache: CacheLayout,
  folders: string[],
  signal: AbortSignal,
): Promise<string[]> {
  const restored: string[] = [];
  for (const folder of folders) {
    const saved = path.join(cache.dir, 'build', folder);
    const target = path.join(appDir, folder);
    if (!isInside(appDir, target) || !fs.existsSync(saved) || fs.existsSync(target)) continue;
    await linkTree(saved, target, signal);
    restored.push(folder);
  }
  return restored;
}

export async function saveBuildCaches(
  appDir: string,
  cache: CacheLayout,
  folders: string[],
  signal: AbortSignal,
): Promise<string[]> {
  const saved: string[] = [];
  for (const folder of folders) {
    const source = path.join(appDir, folder);
    const target = path.join(cache.dir, 'build', folder);
    if (!isInside(appDir, source) || !fs.existsSync(source)) continue;
    const temp = `${target}.tmp-${process.pid}`;
    fs.rmSync(temp, { recursive: true, force: true });
    await linkTree(source, temp, signal);
    fs.rmSync(target, { recursive: true, force: true });
    fs.renameSync(temp, target);
    saved.push(folder);
  }
  return saved;
}

function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/** Bytes of a folder tree (hard-linked files counted once). */
export function folderBytes(dir: string): number {
  const seen = new Set<string>();
  let total = 0;
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const stat = fs.statSync(full);
        const id = `${stat.dev}:${stat.ino}`;
        if (seen.has(id)) continue;
        seen.add(id);
        total += stat.size;
      }
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return total;
}
