/**
 * Memory, CPU and pid limits for one app process through cgroups, where the machine lets the
 * platform write them: cgroup v1 (`/sys/fs/cgroup/{memory,cpu,pids}/PARENT/NAME`) or a pure
 * cgroup v2 hierarchy (`/sys/fs/cgroup/PARENT/NAME` with `memory.max`, `cpu.max`, `pids.max`).
 * The process joins its cgroup before it runs the app (the launching shell writes its own pid to
 * `cgroup.procs`, then execs), so nothing it starts escapes the limits.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ResourceLimits } from '../driver';
import { trySignal } from './proc';

const CONTROLLERS = ['memory', 'cpu', 'pids'] as const;
type Controller = (typeof CONTROLLERS)[number];

export type CgroupSupport =
  | { kind: 'v1'; parents: Partial<Record<Controller, string>>; missing: Controller[] }
  | { kind: 'v2'; parent: string; controllers: Controller[]; missing: Controller[] }
  | { kind: 'none'; reason: string };

const CPU_PERIOD_US = 100_000;

function write(file: string, value: string): void {
  fs.writeFileSync(file, value);
}

function tryWrite(file: string, value: string): boolean {
  try {
    write(file, value);
    return true;
  } catch {
    return false;
  }
}

function isCgroup2Root(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'cgroup.controllers')) && fs.existsSync(path.join(dir, 'cgroup.subtree_control'));
}

/** Makes and removes a child to learn whether the platform may manage cgroups under `parent`. */
function probe(parent: string): void {
  fs.mkdirSync(parent, { recursive: true });
  const dir = path.join(parent, `probe-${process.pid}`);
  fs.mkdirSync(dir);
  fs.rmdirSync(dir);
}

function errorText(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

/**
 * Which cgroups the platform can use. `parentName` is the folder (under each hierarchy) that holds
 * the apps' cgroups; `root` is where the hierarchies are mounted (for tests of another layout).
 */
export function detectCgroups(options: { setting: 'auto' | 'off'; parentName?: string; root?: string }): CgroupSupport {
  if (options.setting === 'off') return { kind: 'none', reason: 'cgroups are turned off' };
  const root = options.root ?? '/sys/fs/cgroup';
  const parentName = options.parentName ?? 'launchbay';
  if (isCgroup2Root(root)) {
    const available = fs.readFileSync(path.join(root, 'cgroup.controllers'), 'utf8').trim().split(/\s+/);
    const controllers = CONTROLLERS.filter((controller) => available.includes(controller));
    // A delegated subtree (e.g. systemd's Delegate=yes) can be named by its absolute path.
    const parent = path.isAbsolute(parentName) ? parentName : path.join(root, parentName);
    try {
      // One at a time: a controller that cannot be enabled must not keep the others off.
      for (const controller of controllers) tryWrite(path.join(path.dirname(parent), 'cgroup.subtree_control'), `+${controller}`);
      probe(parent);
      // The parent holds no process, so it may hand the controllers down to the apps' cgroups.
      for (const controller of controllers) tryWrite(path.join(parent, 'cgroup.subtree_control'), `+${controller}`);
      const enabled = fs
        .readFileSync(path.join(parent, 'cgroup.subtree_control'), 'utf8')
        .trim()
        .split(/\s+/)
        .map((word) => word.replace(/^\+/, ''));
      const usable = controllers.filter((controller) => enabled.includes(controller));
      if (usable.length === 0) return { kind: 'none', reason: `no cgroup v2 controller can be enabled under ${parent}` };
      return { kind: 'v2', parent, controllers: usable, missing: CONTROLLERS.filter((c) => !usable.includes(c)) };
    } catch (error) {
      return { kind: 'none', reason: `cgroup v2 is not writable under ${parent} (${errorText(error)})` };
    }
  }
  const parents: Partial<Record<Controller, string>> = {};
  const failures: string[] = [];
  for (const controller of CONTROLLERS) {
    const mount = path.join(root, controller);
    if (!fs.existsSync(path.join(mount, 'cgroup.procs')) || isCgroup2Root(mount)) continue;
    const parent = path.join(mount, parentName);
    try {
      probe(parent);
      parents[controller] = parent;
    } catch (error) {
      failures.push(`${controller}: ${errorText(error)}`);
    }
  }
  const found = CONTROLLERS.filter((controller) => parents[controller]);
  if (found.length === 0) {
    return {
      kind: 'none',
      reason: failures.length > 0 ? `cgroups are not writable (${failures.join(', ')})` : `no cgroup hierarchy under ${root}`,
    };
  }
  return { kind: 'v1', parents, missing: CONTROLLERS.filter((controller) => !parents[controller]) };
}

/** Whether the machine enforces this limit (a limit of a missing controller is not). */
export function enforces(support: CgroupSupport, controller: Controller): boolean {
  if (support.kind === 'v1') return Boolean(support.parents[controller]);
  if (support.kind === 'v2') return support.controllers.includes(controller);
  return false;
}

function applyV1(controller: Controller, dir: string, limits: ResourceLimits): void {
  if (controller === 'memory') {
    const memsw = path.join(dir, 'memory.memsw.limit_in_bytes');
    const hasMemsw = fs.existsSync(memsw);
    if (hasMemsw) tryWrite(memsw, '-1'); // memsw may never be below the memory limit: lift it first
    const bytes = limits.memoryMb === null ? '-1' : String(Math.round(limits.memoryMb * 1024 * 1024));
    write(path.join(dir, 'memory.limit_in_bytes'), bytes);
    if (hasMemsw && limits.memoryMb !== null) tryWrite(memsw, bytes); // no swapping past the limit
  } else if (controller === 'cpu') {
    write(path.join(dir, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
    write(path.join(dir, 'cpu.cfs_quota_us'), limits.cpuPercent === null ? '-1' : String(cpuQuotaUs(limits.cpuPercent)));
  } else {
    write(path.join(dir, 'pids.max'), limits.pids === null ? 'max' : String(Math.max(1, Math.floor(limits.pids))));
  }
}

function cpuQuotaUs(percent: number): number {
  return Math.max(1000, Math.round((percent / 100) * CPU_PERIOD_US));
}

function applyV2(dir: string, controllers: Controller[], limits: ResourceLimits): void {
  if (controllers.includes('memory')) {
    write(path.join(dir, 'memory.max'), limits.memoryMb === null ? 'max' : String(Math.round(limits.memoryMb * 1024 * 1024)));
    tryWrite(path.join(dir, 'memory.swap.max'), limits.memoryMb === null ? 'max' : '0');
  }
  if (controllers.includes('cpu')) {
    write(path.join(dir, 'cpu.max'), `${limits.cpuPercent === null ? 'max' : cpuQuotaUs(limits.cpuPercent)} ${CPU_PERIOD_US}`);
  }
  if (controllers.includes('pids')) {
    write(path.join(dir, 'pids.max'), limits.pids === null ? 'max' : String(Math.max(1, Math.floor(limits.pids))));
  }
}

/**
 * Makes (or reuses) the cgroup `name` with these limits; returns its folders (one per controller
 * on v1). Throws when the limits cannot be written.
 */
export function createCgroup(support: CgroupSupport, name: string, limits: ResourceLimits): string[] {
  if (support.kind === 'none') return [];
  if (support.kind === 'v2') {
    const dir = path.join(support.parent, name);
    fs.mkdirSync(dir, { recursive: true });
    applyV2(dir, support.controllers, limits);
    return [dir];
  }
  const dirs: string[] = [];
  for (const controller of CONTROLLERS) {
    const parent = support.parents[controller];
    if (!parent) continue;
    const dir = path.join(parent, name);
    fs.mkdirSync(dir, { recursive: true });
    applyV1(controller, dir, limits);
    dirs.push(dir);
  }
  return dirs;
}

/** The files a launching shell writes its pid to, to join the cgroup. */
export function procsFiles(dirs: string[]): string[] {
  return dirs.map((dir) => path.join(dir, 'cgroup.procs'));
}

/** The processes in the cgroup (all its folders). */
export function cgroupPids(dirs: string[]): number[] {
  const pids = new Set<number>();
  for (const dir of dirs) {
    try {
      for (const line of fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n')) {
        if (/^\d+$/.test(line)) pids.add(Number(line));
      }
    } catch {
      // gone
    }
  }
  return [...pids];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Kills whatever is still in the cgroup (everything in it is the app's) and waits until it is empty. */
export async function emptyCgroup(dirs: string[], timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pids = cgroupPids(dirs);
    if (pids.length === 0) return true;
    if (Date.now() > deadline) return false;
    for (const pid of pids) trySignal(pid, 'SIGKILL');
    await sleep(20);
  }
}

/** Empties and removes the cgroup; false when a folder stays (a process would not die). */
export async function removeCgroup(dirs: string[]): Promise<boolean> {
  if (dirs.length === 0) return true;
  await emptyCgroup(dirs);
  let removed = true;
  for (const dir of dirs) {
    for (let attempt = 0; ; attempt++) {
      try {
        fs.rmdirSync(dir);
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') break;
        if (code !== 'EBUSY' || attempt >= 50) {
          removed = false;
          break;
        }
        await sleep(20);
      }
    }
  }
  return removed;
}

/** The memory the cgroup uses now (bytes), or null. */
export function cgroupMemoryBytes(dirs: string[]): number | null {
  for (const dir of dirs) {
    for (const file of ['memory.current', 'memory.usage_in_bytes']) {
      try {
        return Number(fs.readFileSync(path.join(dir, file), 'utf8').trim());
      } catch {
        // another controller's folder
      }
    }
  }
  return null;
}
