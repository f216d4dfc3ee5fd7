/**
 * What the process driver remembers on disk, one folder per deployment under the driver's state
 * folder: `state.json` (the processes, their pids and start times, ports, restarts, how far their
 * logs were read) and the processes' log files. The apps outlive the control plane, so a new
 * control plane finds them again from here. The state holds the app's environment (its secrets):
 * the folder is the platform's own (0700) and the file is readable by the owner only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '@launchbay/edge-protocol';
import type { DeploymentRunSpec, RunningProcess } from '../driver';

export const STATE_VERSION = 1;

export type LogCursor = {
  file: string;
  /** Bytes of the file already turned into log lines (a partial last line is read again). */
  offset: number;
};

export type ProcessRecord = {
  type: string;
  index: number;
  /** Where `web` listens; kept across restarts (the edge routes to it). */
  port: number | null;
  /** The process the driver spawned (bwrap outside the sandbox, else the shell); its exit is the app's exit. */
  pid: number | null;
  /** Its start time (/proc/PID/stat): a pid is only ever signalled when this still matches. */
  processStart: string | null;
  /** Whether it runs in bubblewrap (then the app's session is led by the sandbox's init, below). */
  sandboxed: boolean;
  /** The sandbox's init (bwrap's pid 1, which leads the app's session and process group). */
  sandboxPid: number | null;
  sandboxStart: string | null;
  state: RunningProcess['state'];
  restarts: number;
  /** When the recent restarts happened (ms since epoch), for the crash-loop window. */
  restartTimes: number[];
  /** Restarts since the process last ran long enough to count as stable: the next delay doubles with it. */
  backoffAttempt: number;
  /** When the current run started (ms since epoch). */
  startedAt: number | null;
  /** The cgroup folders the process runs in (one per controller on cgroup v1, one on v2). */
  cgroups: string[];
  logs: { stdout: LogCursor; stderr: LogCursor };
};

export type DeploymentRecord = {
  version: number;
  deploymentId: number;
  spec: DeploymentRunSpec;
  processes: ProcessRecord[];
  updatedAt: string;
};

export function deploymentsDir(stateDir: string): string {
  return path.join(stateDir, 'deployments');
}

export function deploymentDir(stateDir: string, deploymentId: number): string {
  return path.join(deploymentsDir(stateDir), String(deploymentId));
}

export function stateFile(stateDir: string, deploymentId: number): string {
  return path.join(deploymentDir(stateDir, deploymentId), 'state.json');
}

/** A process type as a file name part (`web`, `worker`; anything odd becomes `_`). */
export function safeName(type: string): string {
  return type.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40) || '_';
}

export function logFiles(stateDir: string, deploymentId: number, type: string, index: number) {
  const base = path.join(deploymentDir(stateDir, deploymentId), `${safeName(type)}-${index}`);
  return { stdout: `${base}.stdout.log`, stderr: `${base}.stderr.log` };
}

export function writeDeploymentRecord(stateDir: string, record: DeploymentRecord): void {
  writeFileAtomic(stateFile(stateDir, record.deploymentId), `${JSON.stringify(record)}\n`);
}

function isProcessRecord(value: unknown): value is ProcessRecord {
  const record = value as Partial<ProcessRecord> | null;
  return (
    typeof record === 'object' &&
    record !== null &&
    typeof record.type === 'string' &&
    Number.isInteger(record.index) &&
    (record.pid === null || Number.isInteger(record.pid)) &&
    typeof record.logs?.stdout?.file === 'string' &&
    typeof record.logs?.stderr?.file === 'string' &&
    Array.isArray(record.cgroups)
  );
}

export function readDeploymentRecord(file: string): DeploymentRecord | null {
  try {
    const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<DeploymentRecord>;
    if (raw.version !== STATE_VERSION || !Number.isInteger(raw.deploymentId)) return null;
    if (!raw.spec || typeof raw.spec.appDir !== 'string' || !Array.isArray(raw.spec.processes)) return null;
    if (!Array.isArray(raw.processes) || !raw.processes.every(isProcessRecord)) return null;
    return {
      version: STATE_VERSION,
      deploymentId: raw.deploymentId as number,
      spec: raw.spec,
      processes: raw.processes.map((process) => ({
        ...process,
        restartTimes: Array.isArray(process.restartTimes) ? process.restartTimes.filter(Number.isFinite) : [],
        backoffAttempt: Number.isInteger(process.backoffAttempt) ? process.backoffAttempt : 0,
        restarts: Number.isInteger(process.restarts) ? process.restarts : 0,
      })),
      updatedAt: typeof raw.updatedAt === 'string' ? raw.updatedAt : '',
    };
  } catch {
    return null;
  }
}

/** The deployment ids that have a state folder (with or without a readable state file). */
export function listDeploymentIds(stateDir: string): number[] {
  try {
    return fs
      .readdirSync(deploymentsDir(stateDir))
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .sort((a, b) => a - b);
  } catch {
    return [];
  }
}
