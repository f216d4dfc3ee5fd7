/**
 * The bubblewrap sandbox around an app's process: the whole system read-only, a private /tmp, the
 * app's own folder writable, the platform's data folder (and the driver's state) replaced by an
 * empty tmpfs, its own pid, ipc and uts namespaces, the host's network (the edge reaches the app on
 * loopback).
 *
 * As root, bwrap runs privileged (it can reach an app folder inside a 0700 data folder, which an
 * unprivileged bwrap cannot) keeping only the capabilities to change user, and `setpriv` inside
 * drops to the unprivileged user and clears every capability set (no-new-privs is set by bwrap).
 * As another user, bwrap runs unprivileged (a user namespace) and the app keeps that user.
 *
 * Process shape: the driver's child is bwrap itself (the monitor), whose child is bwrap's init
 * (pid 1 in the sandbox, which leads a new session thanks to `--new-session`), whose child is the
 * app. Signals: bwrap forwards none and dies on SIGTERM at once, so the driver signals the init's
 * process group (the app and everything it started; the init, a pid 1 without handlers, ignores
 * SIGTERM). When the app ends the init ends with its exit status, the kernel kills whatever is left
 * in the sandbox, and the monitor exits with the same status (128 + n for a signal). No
 * `--die-with-parent`: the app must outlive the control plane.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { execForm, shellQuote } from '../../../lib/shell';

export type RunAs = { uid: number; gid: number };

export type SandboxSupport =
  | { kind: 'bubblewrap'; bwrap: string; setpriv: string | null; runAs: RunAs | null }
  | { kind: 'none'; reason: string };

const BWRAP_PATHS = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'];
const SETPRIV_PATHS = ['/usr/bin/setpriv', '/bin/setpriv'];

function findExecutable(candidates: string[]): string | null {
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  return null;
}

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Whether `child` is `parent` or inside it. */
export function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** The folders the app must not see: the platform's data folder and the driver's state (logs, env). */
function hiddenFolders(dataDir: string, stateDir: string): string[] {
  const folders = [path.resolve(dataDir)];
  if (!isInside(path.resolve(stateDir), path.resolve(dataDir))) folders.push(path.resolve(stateDir));
  return folders.filter((folder) => folder !== '/');
}

export type SandboxTarget = {
  appDir: string;
  dataDir: string;
  stateDir: string;
  command: string;
  /** For one-off commands (builds): the sandbox dies with the process that started it, so killing that ends everything in it. */
  dieWithParent?: boolean;
};

/** The command line that runs `sh -c command` in the sandbox (from setpriv or bwrap on). */
export function sandboxArgv(support: Extract<SandboxSupport, { kind: 'bubblewrap' }>, target: SandboxTarget): string[] {
  const appDir = path.resolve(target.appDir);
  const privileged = isRoot();
  const argv: string[] = [support.bwrap];
  if (privileged) {
    // Root keeps every capability in the sandbox unless told: keep only what setpriv needs to drop them.
    argv.push('--cap-drop', 'ALL');
    if (support.runAs) argv.push('--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_SETPCAP');
  }
  argv.push('--ro-bind', '/', '/', '--dev', '/dev', '--perms', '1777', '--tmpfs', '/dev/shm', '--proc', '/proc');
  argv.push('--perms', '1777', '--tmpfs', '/tmp'); // private, and writable by the app's user like a real /tmp
  // Mounts apply in order: hide the data folder first, then bind the app folder back (it may live inside).
  const tmpfsFolders = ['/tmp', ...hiddenFolders(target.dataDir, target.stateDir)];
  for (const folder of tmpfsFolders.slice(1)) argv.push('--tmpfs', folder);
  // The folders leading to the app inside a tmpfs: made by bwrap, 0700 unless told; the app's user must pass.
  const innermost = tmpfsFolders
    .filter((folder) => isInside(appDir, folder) && folder !== appDir)
    .sort((a, b) => b.length - a.length)[0];
  if (innermost) {
    const parts = path.relative(innermost, path.dirname(appDir)).split(path.sep).filter(Boolean);
    let current = innermost;
    for (const part of parts) {
      current = path.join(current, part);
      argv.push('--perms', '0755', '--dir', current);
    }
  }
  argv.push('--bind', appDir, appDir);
  argv.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--share-net', '--new-session');
  if (target.dieWithParent) argv.push('--die-with-parent');
  // No --chdir: bwrap, as root without capabilities, may not enter a 0700 folder of the app's user.
  argv.push('--');
  if (privileged && support.runAs && support.setpriv) {
    argv.push(
      support.setpriv,
      `--reuid=${support.runAs.uid}`,
      `--regid=${support.runAs.gid}`,
      '--clear-groups',
      '--inh-caps=-all',
      '--bounding-set=-all',
    );
  }
  argv.push('/bin/sh', '-c', sandboxScript(appDir, target.command));
  return argv;
}

/** The script the sandbox's shell runs: into the app folder (as the app's user), then the command. */
export function sandboxScript(appDir: string, command: string): string {
  return `cd ${shellQuote(path.resolve(appDir))} || exit 126\n${execForm(command)}`;
}

/** The command line outside a sandbox: the shell, as the platform's own user. */
export function plainArgv(command: string): string[] {
  return ['/bin/sh', '-c', execForm(command)];
}

function run(argv: string[], cwd: string): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(
      argv[0]!,
      argv.slice(1),
      { cwd, timeout: 15_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
      (error, stdout, stderr) => resolve({ ok: !error, output: `${stdout}${stderr}`.trim() }),
    );
  });
}

/** Gives the app folder to the user the app runs as (it writes there). */
export async function ensureOwner(dir: string, runAs: RunAs | null): Promise<void> {
  if (!runAs || !isRoot()) return;
  const stat = await fs.promises.stat(dir);
  if (stat.uid === runAs.uid && stat.gid === runAs.gid) return;
  await chownTree(dir, runAs);
}

/** chown -R, whatever the top folder's owner. */
export async function chownTree(dir: string, runAs: RunAs): Promise<void> {
  const result = await run(['chown', '-R', `${runAs.uid}:${runAs.gid}`, dir], dir);
  if (!result.ok) throw new Error(`could not give ${dir} to uid ${runAs.uid}: ${result.output}`);
}

/**
 * Finds bubblewrap and checks that it really works here (user namespaces may be off, a container
 * may forbid mounts): runs the real command line once, in a folder shaped like an app's.
 */
export async function detectSandbox(options: {
  setting: 'auto' | 'off';
  dataDir: string;
  stateDir: string;
  runAs?: RunAs | null;
}): Promise<SandboxSupport> {
  if (options.setting === 'off') return { kind: 'none', reason: 'the sandbox is turned off' };
  const bwrap = findExecutable(BWRAP_PATHS);
  if (!bwrap) return { kind: 'none', reason: 'bubblewrap is not installed (apt-get install bubblewrap)' };
  let runAs = options.runAs === undefined ? (isRoot() ? { uid: 65534, gid: 65534 } : null) : options.runAs;
  if (runAs && !isRoot()) runAs = null; // only root can become another user
  const setpriv = runAs ? findExecutable(SETPRIV_PATHS) : null;
  if (runAs && !setpriv) {
    return { kind: 'none', reason: 'setpriv (util-linux) is missing: the app cannot be run as an unprivileged user' };
  }
  const support: SandboxSupport = { kind: 'bubblewrap', bwrap, setpriv, runAs };
  fs.mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
  const probeDir = fs.mkdtempSync(path.join(options.stateDir, 'sandbox-probe-'));
  try {
    await ensureOwner(probeDir, runAs);
    const argv = sandboxArgv(support, {
      appDir: probeDir,
      dataDir: options.dataDir,
      stateDir: options.stateDir,
      command: 'echo ok > probe',
    });
    const result = await run(argv, probeDir);
    if (!result.ok || !fs.existsSync(path.join(probeDir, 'probe'))) {
      return { kind: 'none', reason: `bubblewrap does not work here: ${result.output || 'the probe wrote nothing'}` };
    }
    return support;
  } finally {
    fs.rmSync(probeDir, { recursive: true, force: true });
  }
}
