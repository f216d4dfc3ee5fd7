/**
 * What /proc says about a process tree: children, process groups, memory. Linux only; every
 * function answers "nothing" (empty, null) where /proc does not tell.
 */
import fs from 'node:fs';

/** The fields of /proc/PID/stat after the command: [state, ppid, pgrp, session, ...]. */
function statFields(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

export function parentOf(pid: number): number | null {
  const value = Number(statFields(pid)?.[1]);
  return Number.isInteger(value) ? value : null;
}

/** The process group of a live process (a zombie counts as gone). */
export function processGroupOf(pid: number): number | null {
  const fields = statFields(pid);
  if (!fields || fields[0] === 'Z' || fields[0] === 'X') return null;
  const value = Number(fields[2]);
  return Number.isInteger(value) ? value : null;
}

function allPids(): number[] {
  try {
    return fs
      .readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

/** The direct children of a process (/proc/PID/task/TID/children, or a scan of /proc where the kernel lacks it). */
export function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children = new Set<number>();
  let supported = true;
  for (const task of tasks) {
    try {
      for (const word of fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ')) {
        if (/^\d+$/.test(word)) children.add(Number(word));
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && fs.existsSync(`/proc/${pid}/task/${task}`)) supported = false;
    }
  }
  if (supported) return [...children];
  return allPids().filter((candidate) => parentOf(candidate) === pid);
}

/** The process and all its descendants, parents first. */
export function processTree(pid: number): number[] {
  const tree: number[] = [];
  const queue = [pid];
  const seen = new Set<number>();
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (seen.has(next) || !fs.existsSync(`/proc/${next}`)) continue;
    seen.add(next);
    tree.push(next);
    queue.push(...childrenOf(next));
  }
  return tree;
}

/** Whether any process is left in the process group (the group id stays taken while one is). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Sends a signal, ignoring a target that is already gone. */
export function trySignal(target: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch {
    return false;
  }
}

export type MemoryUse = {
  /** Resident set: every page the process maps, shared ones (libc, the node binary) counted in full. */
  rssKb: number;
  /** Proportional set: shared pages divided among the processes that share them (the honest per-process cost). */
  pssKb: number;
};

export function memoryOf(pid: number): MemoryUse | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
    return { rssKb: field('Rss'), pssKb: field('Pss') };
  } catch {
    try {
      const pages = fs.readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ');
      const kb = Number(pages[1] ?? 0) * 4;
      return { rssKb: kb, pssKb: kb };
    } catch {
      return null;
    }
  }
}

/** The arguments a process was started with (empty when it is gone or unreadable). */
export function commandLineOf(pid: number): string[] {
  try {
    const raw = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return raw.endsWith('\0') ? raw.slice(0, -1).split('\0') : raw.split('\0');
  } catch {
    return [];
  }
}

/** The file name of the program a process runs (`bwrap`, `node`, `sh`...), or null. */
export function programOf(pid: number): string | null {
  try {
    return (
      fs
        .readlinkSync(`/proc/${pid}/exe`)
        .replace(/ \(deleted\)$/, '')
        .split('/')
        .pop() ?? null
    );
  } catch {
    const first = commandLineOf(pid)[0];
    return first ? (first.split('/').pop() ?? null) : null;
  }
}
