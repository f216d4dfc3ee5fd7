/**
 * What the pipeline asks of a runtime: run a deployment's processes, say where `web` listens, stop
 * them, and find them again after a restart of the control plane. The `process` driver (default)
 * runs them as children of the host; a `docker` driver does the same over the Docker Engine API.
 * The engine hands a driver everything it needs; a driver imports no module.
 */
import path from 'node:path';

/** One process type of a deployment (a Procfile line, launchbay.json `processes`, or the start command as `web`). */
export type ProcessSpec = {
  /** `web` takes traffic; the others (workers, clock) run beside it. */
  type: string;
  /** A shell command, run with `sh -c` in the app folder. */
  command: string;
  /** How many copies; `web` copies are balanced by the edge. Default 1. */
  instances?: number;
};

export type ResourceLimits = {
  /** Per process; enforced through cgroups where the machine allows it. */
  memoryMb: number | null;
  /** 100 = one core. */
  cpuPercent: number | null;
  pids: number | null;
};

export type DeploymentRunSpec = {
  deploymentId: number;
  /**
   * The built app: the driver runs processes here and they may write only here (and in /tmp). The
   * process driver, sandboxing as root, gives the folder to the unprivileged user the app runs as.
   */
  appDir: string;
  processes: ProcessSpec[];
  /** The environment the app gets; the driver sets PORT (and HOST) for `web`, over any PORT given here. */
  env: Record<string, string>;
  /**
   * A fixed port for `web` (copy 0), for an app that ignores PORT and listens where it likes; the
   * driver then reports (and passes as PORT) this one. Absent or null: a free loopback port.
   */
  port?: number | null;
  limits: ResourceLimits;
};

export type RunningProcess = {
  type: string;
  index: number;
  pid: number | null;
  /** Where `web` listens (loopback); null for other types. */
  port: number | null;
  state: 'starting' | 'running' | 'restarting' | 'crashed' | 'stopped';
  restarts: number;
};

export type RunningDeployment = { deploymentId: number; processes: RunningProcess[] };

export type RuntimeEvent =
  /**
   * A process ended. `expected` when the driver stopped it; otherwise it is restarted (or declared
   * a crash loop). `code` and `signal` are null when the driver saw it gone without being its parent
   * (adopted after a restart of the control plane); a process killed inside a sandbox may show as
   * code 128 + n (the sandbox reports the signal the shell way).
   */
  | {
      kind: 'exited';
      deploymentId: number;
      type: string;
      index: number;
      code: number | null;
      signal: string | null;
      expected: boolean;
    }
  /** An unexpected exit, restarted after `delayMs`; `attempt` counts the restarts since it last ran stably. */
  | { kind: 'restarting'; deploymentId: number; type: string; index: number; attempt: number; delayMs: number }
  /** Several restarts within the window: the driver gives up on the process and says so. */
  | { kind: 'crash_loop'; deploymentId: number; type: string; index: number; restarts: number; windowMs: number };

export type LogLine = {
  deploymentId: number;
  /** `web`, `worker`, ... */
  process: string;
  /** Which copy of the process type (0 for the first). */
  index: number;
  stream: 'stdout' | 'stderr';
  at: Date;
  line: string;
};

export interface RuntimeDriver {
  readonly name: 'process' | 'docker';
  /** Starts every process of the deployment; resolves once each one is spawned (not yet healthy). */
  start(spec: DeploymentRunSpec): Promise<RunningDeployment>;
  /**
   * SIGTERM, then SIGKILL after `graceMs`; resolves when every process is gone. Unknown ids are a
   * no-op; a deployment left by an earlier control plane and not adopted yet is stopped too.
   */
  stop(deploymentId: number, options?: { graceMs?: number }): Promise<void>;
  /**
   * The deployments still running from before a restart of the control plane, watched again: a live
   * process is never restarted; one that died meanwhile is restarted like a crash (with its backoff
   * and crash-loop count); one given up on (crashed) stays down. Logs written meanwhile are read.
   */
  adopt(): Promise<RunningDeployment[]>;
  status(deploymentId: number): RunningDeployment | null;
  onEvent(listener: (event: RuntimeEvent) => void): () => void;
  onLog(listener: (line: LogLine) => void): () => void;
  /**
   * The command line that runs a one-off command (an install or a build) the way apps run: in the
   * sandbox, as the apps' user, in `dir` (which is given to that user). `sh -c command` where there is no sandbox.
   */
  commandLine(dir: string, command: string): Promise<string[]>;
  /** Gives a folder tree the platform wrote (a restored cache) to the apps' user, so commands run by commandLine may change it. */
  handOver(dir: string): Promise<void>;
  /** Stops watching (the apps keep running: they must serve through a restart of the control plane). */
  close(): Promise<void>;
}

/** Throws on a spec no driver can run (the engine builds them; this guards its mistakes). */
export function validateRunSpec(spec: DeploymentRunSpec): void {
  if (!Number.isInteger(spec.deploymentId) || spec.deploymentId < 0) throw new Error('deploymentId must be an integer');
  if (!path.isAbsolute(spec.appDir)) throw new Error(`appDir must be an absolute path: ${spec.appDir}`);
  if (spec.processes.length === 0) throw new Error('a deployment needs at least one process');
  const types = new Set<string>();
  for (const process of spec.processes) {
    if (!process.type || types.has(process.type))
      throw new Error(`process types must be unique and non-empty: "${process.type}"`);
    types.add(process.type);
    if (!process.command.trim()) throw new Error(`process ${process.type} has no command`);
    const instances = process.instances ?? 1;
    if (!Number.isInteger(instances) || instances < 0 || instances > 64)
      throw new Error(`process ${process.type}: 0 to 64 instances`);
  }
  if (spec.port !== undefined && spec.port !== null && !(Number.isInteger(spec.port) && spec.port > 0 && spec.port < 65536)) {
    throw new Error(`port must be a TCP port: ${spec.port}`);
  }
}
