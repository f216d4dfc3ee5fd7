/**
 * The `process` runtime driver (the default): each process of a deployment runs as a detached
 * child of the control plane (its own session), on a free loopback port for `web`, inside
 * bubblewrap where it works, with cgroup limits where the machine allows them. There is no
 * supervisor process per app: the control plane watches its children through their `exit` event,
 * and the processes it adopted after a restart by polling their pid and start time.
 *
 * The apps outlive the control plane: their output goes to append-only files (a pipe would die
 * with the control plane), and `DATA_DIR/runtime/deployments/ID/state.json` records each process
 * (pid, start time, port, restarts, how far its logs were read) for the next control plane to adopt.
 * A pid is signalled only while its start time still matches the recorded one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isSameProcessAlive, processStartTime } from '@launchbay/edge-protocol';
import {
  type DeploymentRunSpec,
  type LogLine,
  type RunningDeployment,
  type RunningProcess,
  type RuntimeDriver,
  type RuntimeEvent,
  validateRunSpec,
} from '../driver';
import { announceUnexpectedExit, PortReservations, RuntimeListeners } from '../driver-support';
import { DEFAULT_RESTART_POLICY, type RestartPolicy } from '../restart-policy';
import { type CgroupSupport, cgroupPids, createCgroup, detectCgroups, procsFiles, removeCgroup } from './cgroups';
import { LogTail } from './log-tail';
import { type DeploymentOverhead, measureRuntimeOverhead } from './overhead';
import { childrenOf, groupAlive, processGroupOf, trySignal } from './proc';
import {
  chownTree,
  detectSandbox,
  ensureOwner,
  isRoot,
  plainArgv,
  type RunAs,
  type SandboxSupport,
  sandboxArgv,
} from './sandbox';
import {
  type DeploymentRecord,
  deploymentDir,
  deploymentsDir,
  listDeploymentIds,
  logFiles,
  type ProcessRecord,
  readDeploymentRecord,
  STATE_VERSION,
  safeName,
  stateFile,
  writeDeploymentRecord,
} from './state';

export type ProcessDriverOptions = {
  /** The driver's own folder (e.g. DATA_DIR/runtime): state files and the apps' log files. */
  stateDir: string;
  /** The platform's data folder: hidden from the apps in the sandbox. */
  dataDir: string;
  log?: (message: string) => void;
  restart?: Partial<RestartPolicy>;
  /** Between SIGTERM and SIGKILL when stopping. Default 10 s. */
  graceMs?: number;
  /** `auto`: bubblewrap where it is installed and works. */
  sandbox?: 'auto' | 'off';
  /** `auto`: cgroup limits where the platform may write them. */
  cgroups?: 'auto' | 'off';
  /**
   * The user apps run as in the sandbox. Default: nobody (65534) when the platform runs as root,
   * the platform's own user otherwise. The app folder is given to that user.
   */
  runAs?: RunAs | null;
  /** How often adopted processes are checked and log files read besides fs.watch. Default 500 ms. */
  pollMs?: number;
  /** Longer lines are cut. Default 16 KiB. */
  maxLineBytes?: number;
  /** A log file past this size is kept as FILE.1 and emptied once read. Default 16 MiB. */
  maxLogBytes?: number;
  /**
   * The folder in each cgroup hierarchy that holds the apps' cgroups. Default `launchbay`; on
   * cgroup v2 also an absolute path (a subtree delegated to the platform).
   */
  cgroupParent?: string;
};

export type RuntimeCapabilities = { sandbox: SandboxSupport; cgroups: CgroupSupport };

type Instance = ProcessRecord & {
  command: string;
  child: ChildProcess | null;
  stopping: boolean;
  timer: NodeJS.Timeout | null;
  tails: { stdout: LogTail; stderr: LogTail };
  /** A process group whose leader ended during a stop while the rest of it is still ending (no sandbox). */
  lingeringGroup: number | null;
};

type Deployment = {
  spec: DeploymentRunSpec;
  instances: Instance[];
  stopping: Promise<void> | null;
  savedAt: number;
};

/** Joins the cgroups given before `--`, then runs the rest: the app starts inside its limits. */
const JOIN_CGROUPS = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const SAVE_OFFSETS_EVERY_MS = 2000;
const KILL_WAIT_MS = 5000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ProcessDriver implements RuntimeDriver {
  readonly name = 'process' as const;
  private readonly stateDir: string;
  private readonly dataDir: string;
  private readonly log: (message: string) => void;
  private readonly policy: RestartPolicy;
  private readonly graceMs: number;
  private readonly pollMs: number;
  private readonly cgroupPrefix: string;
  private readonly deployments = new Map<number, Deployment>();
  private readonly starting = new Set<number>();
  private readonly listeners: RuntimeListeners;
  private readonly ports = new PortReservations();
  private detected: Promise<RuntimeCapabilities> | null = null;
  private caps: RuntimeCapabilities | null = null;
  private ticker: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly reported = new Set<string>();

  constructor(private readonly options: ProcessDriverOptions) {
    this.stateDir = path.resolve(options.stateDir);
    this.dataDir = path.resolve(options.dataDir);
    this.log = options.log ?? (() => {});
    this.listeners = new RuntimeListeners(this.log);
    this.policy = { ...DEFAULT_RESTART_POLICY, ...options.restart };
    this.graceMs = options.graceMs ?? 10_000;
    this.pollMs = options.pollMs ?? 500;
    // Two platforms (or test runs) on one machine must not share cgroup names.
    this.cgroupPrefix = createHash('sha256').update(this.stateDir).digest('hex').slice(0, 8);
  }

  /** What this machine allows (detected once, and said once in the log). */
  capabilities(): Promise<RuntimeCapabilities> {
    this.detected ??= (async () => {
      fs.mkdirSync(deploymentsDir(this.stateDir), { recursive: true, mode: 0o700 });
      const sandbox = await detectSandbox({
        setting: this.options.sandbox ?? 'auto',
        dataDir: this.dataDir,
        stateDir: this.stateDir,
        runAs: this.options.runAs,
      });
      const cgroups = detectCgroups({ setting: this.options.cgroups ?? 'auto', parentName: this.options.cgroupParent });
      if (sandbox.kind === 'bubblewrap') {
        this.log(`Apps run in bubblewrap${sandbox.runAs ? ` as uid ${sandbox.runAs.uid}` : ''}`);
      } else {
        this.log(`Apps run without a sandbox: ${sandbox.reason}`);
      }
      if (cgroups.kind === 'none') {
        this.log(`Apps run without memory or CPU limits: ${cgroups.reason}`);
      } else {
        const missing = cgroups.missing.length > 0 ? ` (not enforced: ${cgroups.missing.join(', ')})` : '';
        this.log(`Resource limits through cgroup ${cgroups.kind}${missing}`);
      }
      this.caps = { sandbox, cgroups };
      return this.caps;
    })();
    return this.detected;
  }

  onEvent(listener: (event: RuntimeEvent) => void): () => void {
    return this.listeners.onEvent(listener);
  }

  onLog(listener: (line: LogLine) => void): () => void {
    return this.listeners.onLog(listener);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the process driver is closed');
  }

  status(deploymentId: number): RunningDeployment | null {
    const deployment = this.deployments.get(deploymentId);
    if (!deployment) return null;
    return {
      deploymentId,
      processes: deployment.instances.map(
        (instance): RunningProcess => ({
          type: instance.type,
          index: instance.index,
          pid: instance.pid,
          port: instance.port,
          state: instance.state,
          restarts: instance.restarts,
        }),
      ),
    };
  }

  /** Memory of the runtime's own processes (bwrap, wrapping shells) beside the app's, per process. */
  measureOverhead(deploymentId: number): DeploymentOverhead | null {
    return measureRuntimeOverhead(this.stateDir, deploymentId);
  }

  async commandLine(dir: string, command: string): Promise<string[]> {
    const caps = await this.capabilities();
    if (caps.sandbox.kind !== 'bubblewrap') return ['/bin/sh', '-c', command];
    await ensureOwner(dir, caps.sandbox.runAs);
    return sandboxArgv(caps.sandbox, {
      appDir: dir,
      dataDir: this.dataDir,
      stateDir: this.stateDir,
      command,
      dieWithParent: true,
    });
  }

  async handOver(dir: string): Promise<void> {
    const caps = await this.capabilities();
    if (caps.sandbox.kind !== 'bubblewrap' || !caps.sandbox.runAs || !isRoot()) return;
    await chownTree(dir, caps.sandbox.runAs);
  }

  async start(spec: DeploymentRunSpec): Promise<RunningDeployment> {
    this.assertOpen();
    validateRunSpec(spec);
    const id = spec.deploymentId;
    if (this.deployments.has(id) || this.starting.has(id)) throw new Error(`deployment ${id} is already running`);
    this.starting.add(id);
    const ports: number[] = [];
    try {
      const caps = await this.capabilities();
      if (fs.existsSync(stateFile(this.stateDir, id))) {
        // Left by an earlier control plane and never adopted: its processes must not run twice.
        this.log(`Deployment ${id} was still recorded as running: stopping it before starting it again`);
        await this.stop(id);
      }
      const stat = await fs.promises.stat(spec.appDir).catch(() => null);
      if (!stat?.isDirectory()) throw new Error(`the app folder ${spec.appDir} does not exist`);
      if (caps.sandbox.kind === 'bubblewrap') await ensureOwner(spec.appDir, caps.sandbox.runAs);
      fs.mkdirSync(deploymentDir(this.stateDir, id), { recursive: true, mode: 0o700 });
      const deployment: Deployment = { spec: structuredClone(spec), instances: [], stopping: null, savedAt: 0 };
      for (const processSpec of spec.processes) {
        for (let index = 0; index < (processSpec.instances ?? 1); index++) {
          const fixed = processSpec.type === 'web' && index === 0 && spec.port ? spec.port : null;
          const port = processSpec.type !== 'web' ? null : fixed ? this.ports.reserve(fixed) : await this.ports.pick();
          if (port !== null) ports.push(port);
          const files = logFiles(this.stateDir, id, processSpec.type, index);
          const record: ProcessRecord = {
            type: processSpec.type,
            index,
            port,
            pid: null,
            processStart: null,
            sandboxed: false,
            sandboxPid: null,
            sandboxStart: null,
            state: 'starting',
            restarts: 0,
            restartTimes: [],
            backoffAttempt: 0,
            startedAt: null,
            cgroups: [],
            // Logs of an earlier run of the same deployment stay in the file; only new lines are read.
            logs: {
              stdout: { file: files.stdout, offset: fileSize(files.stdout) },
              stderr: { file: files.stderr, offset: fileSize(files.stderr) },
            },
          };
          deployment.instances.push(this.instanceFrom(deployment, record, 'now'));
        }
      }
      this.assertOpen();
      this.deployments.set(id, deployment);
      for (const instance of deployment.instances) {
        instance.tails.stdout.start();
        instance.tails.stderr.start();
        this.spawnInstance(deployment, instance);
      }
      this.persist(deployment);
      this.ensureTicker();
      return this.status(id)!;
    } catch (error) {
      for (const port of ports) this.ports.release(port);
      throw error;
    } finally {
      this.starting.delete(id);
    }
  }

  private instanceFrom(deployment: Deployment, record: ProcessRecord, backlogTime: 'now' | 'mtime'): Instance {
    const command = deployment.spec.processes.find((process) => process.type === record.type)?.command ?? 'exit 127';
    const tail = (stream: 'stdout' | 'stderr') =>
      new LogTail({
        file: record.logs[stream].file,
        offset: record.logs[stream].offset,
        maxLineBytes: this.options.maxLineBytes,
        maxFileBytes: this.options.maxLogBytes,
        backlogTime,
        onLine: (line, at) =>
          this.listeners.emitLog({
            deploymentId: deployment.spec.deploymentId,
            process: record.type,
            index: record.index,
            stream,
            at,
            line,
          }),
      });
    if (record.port !== null) this.ports.hold(record.port);
    return {
      ...record,
      restartTimes: [...record.restartTimes],
      cgroups: [...record.cgroups],
      logs: { stdout: { ...record.logs.stdout }, stderr: { ...record.logs.stderr } },
      command,
      child: null,
      stopping: false,
      timer: null,
      tails: { stdout: tail('stdout'), stderr: tail('stderr') },
      lingeringGroup: null,
    };
  }

  private reportOnce(key: string, message: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.log(message);
  }

  private environment(spec: DeploymentRunSpec, instance: Instance): Record<string, string> {
    const env: Record<string, string> = { ...spec.env };
    env.PATH ||= process.env.PATH || DEFAULT_PATH;
    env.HOME ||= spec.appDir;
    if (instance.port !== null) {
      env.PORT = String(instance.port);
      env.HOST = '127.0.0.1';
    }
    return env;
  }

  private label(deployment: Deployment, instance: Instance): string {
    return `deployment ${deployment.spec.deploymentId} ${instance.type}.${instance.index}`;
  }

  /** Runs (or runs again) one process: cgroup, sandbox, log files, then the exit watch. Never throws. */
  private spawnInstance(deployment: Deployment, instance: Instance): void {
    const caps = this.caps!;
    const spec = deployment.spec;
    this.killLeftovers(instance);
    let cgroups: string[] = [];
    if (caps.cgroups.kind !== 'none') {
      try {
        cgroups = createCgroup(
          caps.cgroups,
          `${this.cgroupPrefix}-d${spec.deploymentId}-${safeName(instance.type)}-${instance.index}`,
          spec.limits,
        );
      } catch (error) {
        this.reportOnce(
          `cgroup-${spec.deploymentId}`,
          `${this.label(deployment, instance)} runs without limits: ${String(error)}`,
        );
      }
    }
    instance.cgroups = cgroups;
    const sandboxed = caps.sandbox.kind === 'bubblewrap';
    let argv =
      caps.sandbox.kind === 'bubblewrap'
        ? sandboxArgv(caps.sandbox, {
            appDir: spec.appDir,
            dataDir: this.dataDir,
            stateDir: this.stateDir,
            command: instance.command,
          })
        : plainArgv(instance.command);
    if (cgroups.length > 0) argv = ['/bin/sh', '-c', JOIN_CGROUPS, 'launchbay-run', ...procsFiles(cgroups), '--', ...argv];

    let child: ChildProcess | null = null;
    let out: number | null = null;
    let err: number | null = null;
    try {
      out = fs.openSync(instance.logs.stdout.file, 'a', 0o600);
      err = fs.openSync(instance.logs.stderr.file, 'a', 0o600);
      child = spawn(argv[0]!, argv.slice(1), {
        cwd: spec.appDir,
        detached: true, // its own session and process group: it outlives the control plane, and is stopped as a group
        stdio: ['ignore', out, err],
        env: this.environment(spec, instance),
      });
    } catch (error) {
      this.log(`Could not start ${this.label(deployment, instance)}: ${String(error)}`);
    } finally {
      if (out !== null) fs.closeSync(out);
      if (err !== null) fs.closeSync(err);
    }
    instance.sandboxed = sandboxed;
    instance.sandboxPid = null;
    instance.sandboxStart = null;
    instance.startedAt = Date.now();
    if (!child || child.pid === undefined) {
      instance.pid = null;
      instance.processStart = null;
      instance.state = 'running';
      child?.once('error', (error) => this.log(`Could not start ${this.label(deployment, instance)}: ${error.message}`));
      setImmediate(() => {
        if (!this.closed && !instance.stopping && instance.state === 'running' && instance.pid === null) {
          this.processEnded(deployment, instance, null, null, false);
        }
      });
      return;
    }
    instance.child = child;
    instance.pid = child.pid;
    instance.processStart = processStartTime(child.pid);
    instance.state = 'running';
    child.once('exit', (code, signal) => {
      if (this.closed || instance.child !== child) return;
      instance.child = null;
      this.processEnded(deployment, instance, code, signal, true);
    });
    child.once('error', (error) => this.log(`${this.label(deployment, instance)}: ${error.message}`));
    child.unref();
  }

  /**
   * What is left of an earlier run of the process: the sandbox's init (which takes the whole
   * sandbox with it) and anything still in its cgroup.
   */
  private killLeftovers(instance: Instance): void {
    if (instance.sandboxPid !== null && isSameProcessAlive(instance.sandboxPid, instance.sandboxStart)) {
      trySignal(instance.sandboxPid, 'SIGKILL');
    }
    instance.sandboxPid = null;
    instance.sandboxStart = null;
    for (const pid of cgroupPids(instance.cgroups)) trySignal(pid, 'SIGKILL');
  }

  /** Finds the sandbox's init (the monitor's child, once it leads its own session). */
  private resolveSandbox(instance: Instance): boolean {
    if (!instance.sandboxed || instance.pid === null) return false;
    if (instance.sandboxPid !== null) return isSameProcessAlive(instance.sandboxPid, instance.sandboxStart);
    for (const child of childrenOf(instance.pid)) {
      if (processGroupOf(child) === child) {
        instance.sandboxPid = child;
        instance.sandboxStart = processStartTime(child);
        return true;
      }
    }
    return false;
  }

  /**
   * Signals the app: its process group (outside a sandbox), the sandbox init's process group (in
   * one; SIGKILL also takes the bwrap monitor). False when the app could not be reached yet.
   */
  private signal(instance: Instance, signal: NodeJS.Signals): boolean {
    if (instance.pid === null) {
      if (instance.lingeringGroup !== null) return trySignal(-instance.lingeringGroup, signal);
      return false;
    }
    if (!isSameProcessAlive(instance.pid, instance.processStart)) return false;
    if (!instance.sandboxed) return trySignal(-instance.pid, signal) || trySignal(instance.pid, signal);
    if (this.resolveSandbox(instance) && instance.sandboxPid !== null) {
      trySignal(-instance.sandboxPid, signal);
      if (signal === 'SIGKILL') trySignal(-instance.pid, signal);
      return true;
    }
    if (signal === 'SIGKILL') return trySignal(-instance.pid, signal);
    return false; // bwrap is still setting up the sandbox: try again in a moment
  }

  /**
   * A process ended: read its last output, say so, and restart it unless it is being stopped.
   * `fresh`: it ended just now (its process group id cannot have been reused yet).
   */
  private processEnded(
    deployment: Deployment,
    instance: Instance,
    code: number | null,
    signal: string | null,
    fresh: boolean,
  ): void {
    const leader = instance.pid;
    instance.pid = null;
    instance.processStart = null;
    if (leader !== null && fresh && !instance.sandboxed && groupAlive(leader)) {
      // The shell ended, something it started did not: wait for it in a stop, kill it otherwise.
      if (instance.stopping) instance.lingeringGroup = leader;
      else trySignal(-leader, 'SIGKILL');
    }
    instance.tails.stdout.poll();
    instance.tails.stderr.poll();
    instance.tails.stdout.flush();
    instance.tails.stderr.flush();
    this.listeners.emit({
      kind: 'exited',
      deploymentId: deployment.spec.deploymentId,
      type: instance.type,
      index: instance.index,
      code,
      signal,
      expected: instance.stopping,
    });
    if (instance.stopping || this.closed) return;
    // Whatever outlived it (a sandbox whose monitor was killed, strays in its cgroup) must not hold its port.
    this.killLeftovers(instance);
    this.log(
      `${this.label(deployment, instance)} exited unexpectedly (${signal ? `signal ${signal}` : code === null ? 'while unwatched' : `code ${code}`})`,
    );
    this.scheduleRestart(deployment, instance);
  }

  private scheduleRestart(deployment: Deployment, instance: Instance): void {
    const decision = announceUnexpectedExit(instance, {
      deploymentId: deployment.spec.deploymentId,
      policy: this.policy,
      label: this.label(deployment, instance),
      listeners: this.listeners,
      log: this.log,
    });
    if (decision.kind === 'crash_loop') {
      instance.state = 'crashed';
      this.killLeftovers(instance);
      this.persist(deployment);
      return;
    }
    const { delayMs } = decision;
    instance.state = 'restarting';
    this.persist(deployment);
    instance.timer = setTimeout(() => {
      instance.timer = null;
      if (this.closed || instance.stopping) return;
      this.spawnInstance(deployment, instance);
      this.persist(deployment);
    }, delayMs);
    instance.timer.unref();
  }

  /** Whether an adopted process (not our child: no exit event) ended; handles the end. */
  private checkAdopted(deployment: Deployment, instance: Instance): void {
    if (instance.pid === null || instance.child !== null) return;
    if (!isSameProcessAlive(instance.pid, instance.processStart)) this.processEnded(deployment, instance, null, null, true);
  }

  private ensureTicker(): void {
    if (this.ticker || this.closed) return;
    this.ticker = setInterval(() => this.tick(), this.pollMs);
    this.ticker.unref();
  }

  private tick(): void {
    for (const deployment of this.deployments.values()) {
      if (deployment.stopping) continue;
      let changed = false;
      for (const instance of deployment.instances) {
        this.checkAdopted(deployment, instance);
        if (instance.sandboxed && instance.pid !== null && instance.sandboxPid === null && this.resolveSandbox(instance))
          changed = true;
        instance.tails.stdout.poll();
        instance.tails.stderr.poll();
        if (
          instance.tails.stdout.offset !== instance.logs.stdout.offset ||
          instance.tails.stderr.offset !== instance.logs.stderr.offset
        ) {
          if (Date.now() - deployment.savedAt >= SAVE_OFFSETS_EVERY_MS) changed = true;
        }
      }
      if (changed) this.persist(deployment);
    }
  }

  private persist(deployment: Deployment): void {
    if (deployment.stopping) return; // its state file goes when the stop ends
    for (const instance of deployment.instances) {
      instance.logs.stdout.offset = instance.tails.stdout.offset;
      instance.logs.stderr.offset = instance.tails.stderr.offset;
    }
    const record: DeploymentRecord = {
      version: STATE_VERSION,
      deploymentId: deployment.spec.deploymentId,
      spec: deployment.spec,
      processes: deployment.instances.map(
        (instance): ProcessRecord => ({
          type: instance.type,
          index: instance.index,
          port: instance.port,
          pid: instance.pid,
          processStart: instance.processStart,
          sandboxed: instance.sandboxed,
          sandboxPid: instance.sandboxPid,
          sandboxStart: instance.sandboxStart,
          state: instance.state,
          restarts: instance.restarts,
          restartTimes: instance.restartTimes,
          backoffAttempt: instance.backoffAttempt,
          startedAt: instance.startedAt,
          cgroups: instance.cgroups,
          logs: instance.logs,
        }),
      ),
      updatedAt: new Date().toISOString(),
    };
    try {
      writeDeploymentRecord(this.stateDir, record);
      deployment.savedAt = Date.now();
    } catch (error) {
      this.reportOnce(
        `persist-${deployment.spec.deploymentId}`,
        `Could not save the runtime state of deployment ${deployment.spec.deploymentId}: ${String(error)}`,
      );
    }
  }

  async stop(deploymentId: number, options?: { graceMs?: number }): Promise<void> {
    this.assertOpen();
    let deployment = this.deployments.get(deploymentId);
    if (!deployment) {
      const record = readDeploymentRecord(stateFile(this.stateDir, deploymentId));
      if (!record) return;
      await this.capabilities();
      deployment = await this.load(record, false);
    }
    deployment.stopping ??= this.stopDeployment(deployment, options?.graceMs ?? this.graceMs);
    return deployment.stopping;
  }

  private async stopDeployment(deployment: Deployment, graceMs: number): Promise<void> {
    for (const instance of deployment.instances) {
      instance.stopping = true;
      if (instance.timer) clearTimeout(instance.timer);
      instance.timer = null;
    }
    const alive = (instance: Instance) => {
      this.checkAdopted(deployment, instance);
      if (instance.pid !== null) return true;
      if (instance.lingeringGroup !== null && groupAlive(instance.lingeringGroup)) return true;
      instance.lingeringGroup = null;
      return false;
    };
    const signalled = new Set<Instance>();
    const deadline = Date.now() + graceMs;
    for (;;) {
      const running = deployment.instances.filter(alive);
      if (running.length === 0) break;
      for (const instance of running) {
        if (!signalled.has(instance) && this.signal(instance, 'SIGTERM')) signalled.add(instance);
      }
      const left = deadline - Date.now();
      if (left <= 0) break;
      await sleep(Math.min(25, left));
    }
    if (deployment.instances.some(alive)) {
      this.log(`Deployment ${deployment.spec.deploymentId} did not stop within ${graceMs} ms of SIGTERM: killing it`);
      const killDeadline = Date.now() + KILL_WAIT_MS;
      for (;;) {
        const running = deployment.instances.filter(alive);
        if (running.length === 0 || Date.now() > killDeadline) break;
        for (const instance of running) this.signal(instance, 'SIGKILL');
        await sleep(20);
      }
    }
    for (const instance of deployment.instances) {
      this.killLeftovers(instance);
      if (!(await removeCgroup(instance.cgroups))) this.log(`Could not remove the cgroup of ${this.label(deployment, instance)}`);
      instance.tails.stdout.poll();
      instance.tails.stderr.poll();
      instance.tails.stdout.flush();
      instance.tails.stderr.flush();
      instance.tails.stdout.close();
      instance.tails.stderr.close();
      instance.state = 'stopped';
      instance.child = null;
      this.ports.release(instance.port);
    }
    // The log files stay (the pipeline decides how long); the state goes: nothing is left to adopt.
    fs.rmSync(stateFile(this.stateDir, deployment.spec.deploymentId), { force: true });
    this.deployments.delete(deployment.spec.deploymentId);
  }

  /** Takes a recorded deployment back under watch; `revive` restarts its dead processes like crashes. */
  private async load(record: DeploymentRecord, revive: boolean): Promise<Deployment> {
    const deployment: Deployment = { spec: record.spec, instances: [], stopping: null, savedAt: 0 };
    for (const process of record.processes) deployment.instances.push(this.instanceFrom(deployment, process, 'mtime'));
    this.deployments.set(record.deploymentId, deployment);
    const dead: Instance[] = [];
    for (const instance of deployment.instances) {
      instance.tails.stdout.start();
      instance.tails.stderr.start();
      if (instance.state === 'crashed' || instance.state === 'stopped') {
        instance.pid = null;
        continue;
      }
      if (instance.pid !== null && isSameProcessAlive(instance.pid, instance.processStart)) {
        instance.state = 'running';
        continue;
      }
      dead.push(instance);
    }
    if (revive && dead.length > 0) {
      const caps = this.caps!;
      if (caps.sandbox.kind === 'bubblewrap') {
        await ensureOwner(record.spec.appDir, caps.sandbox.runAs).catch((error) => this.log(String(error)));
      }
      for (const instance of dead) {
        if (instance.pid !== null) {
          // It died while no control plane watched (or with the machine): a crash like any other.
          this.processEnded(deployment, instance, null, null, false);
        } else {
          this.scheduleRestart(deployment, instance); // a restart was pending
        }
      }
    } else {
      for (const instance of dead) instance.pid = null;
    }
    this.persist(deployment);
    this.ensureTicker();
    return deployment;
  }

  async adopt(): Promise<RunningDeployment[]> {
    this.assertOpen();
    await this.capabilities();
    const adopted: RunningDeployment[] = [];
    for (const id of listDeploymentIds(this.stateDir)) {
      if (!this.deployments.has(id) && !this.starting.has(id)) {
        const file = stateFile(this.stateDir, id);
        if (!fs.existsSync(file)) continue; // stopped: only its logs are left
        const record = readDeploymentRecord(file);
        if (!record || record.deploymentId !== id) {
          this.log(`The runtime state of deployment ${id} is unreadable (${file}): not adopting it`);
          continue;
        }
        const deployment = await this.load(record, true);
        const running = deployment.instances.filter((instance) => instance.state === 'running').length;
        this.log(`Adopted deployment ${id}: ${running} of ${deployment.instances.length} processes still running`);
      }
      const status = this.status(id);
      if (status) adopted.push(status);
    }
    return adopted;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await Promise.allSettled([...this.deployments.values()].map((deployment) => deployment.stopping));
    this.closed = true;
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    for (const deployment of this.deployments.values()) {
      for (const instance of deployment.instances) {
        if (instance.timer) clearTimeout(instance.timer);
        instance.timer = null;
        instance.tails.stdout.close();
        instance.tails.stderr.close();
        instance.child = null; // the process keeps running; the next control plane adopts it
      }
      this.persist(deployment);
    }
    this.deployments.clear();
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

export function createProcessDriver(options: ProcessDriverOptions): ProcessDriver {
  return new ProcessDriver(options);
}
