/**
 * The `docker` runtime driver, for hosts with a Docker engine (or Podman's Docker-compatible
 * service): each process of a deployment runs in its own container from a Node image, with the
 * built app folder mounted at /app, `web` published on a loopback port the edge routes to, and the
 * environment's memory, CPU and pid limits given to the engine. Builds still run on the host
 * (`commandLine` and `handOver` come from the driver the platform builds with), so the build cache
 * and the pipeline are the same under both drivers.
 *
 * The engine restarts nothing by itself (restart policy `no`): this driver restarts crashed
 * containers with the platform's one restart policy, so a crash loop means the same as under the
 * process driver. Containers outlive the control plane; `DATA_DIR/runtime/docker/ID.json` records
 * them (container ids, ports, restart history, how far their logs were read) for the next control
 * plane to adopt. Stopping sends SIGTERM to every process in the container (as Heroku does to a
 * dyno), then SIGKILL after the grace period.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '@launchbay/edge-protocol';
import { execForm } from '../../../lib/shell';
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
import { DEFAULT_RESTART_POLICY, type RestartHistory, type RestartPolicy } from '../restart-policy';
import { type ContainerCreateBody, DockerApiError, DockerEngine } from './engine-api';
import { advanceCursor, type LogCursor, LogFrameReader } from './log-frames';

export type DockerDriverOptions = {
  /** The driver's own folder (e.g. DATA_DIR/runtime): one state file per deployment under `docker/`. */
  stateDir: string;
  /** `unix:///var/run/docker.sock` by default; `DOCKER_HOST`. */
  dockerHost?: string;
  /** The image apps run in: it must hold `sh` and the Node.js the app was built with. Pulled when missing. */
  image: string;
  /** Who runs installs and builds on the host (the process driver: bubblewrap, the apps' user). */
  builds: Pick<RuntimeDriver, 'commandLine' | 'handOver'>;
  log?: (message: string) => void;
  restart?: Partial<RestartPolicy>;
  /** Between SIGTERM and SIGKILL when stopping. Default 10 s. */
  graceMs?: number;
  /** How often containers are inspected besides the end of their log stream. Default 1000 ms. */
  pollMs?: number;
  /**
   * The containers' ulimits. Default: nofile and nproc as this process has them (Podman as root
   * asks for more than a host that lowered its own limits allows, and the OCI runtime refuses).
   */
  ulimits?: { Name: string; Soft: number; Hard: number }[];
  maxLineBytes?: number;
};

const STATE_VERSION = 1;
const KILL_WAIT_MS = 5000;
const SAVE_CURSORS_EVERY_MS = 2000;
const LABEL = 'dev.launchbay';

type ContainerRecord = RestartHistory & {
  type: string;
  index: number;
  port: number | null;
  name: string;
  containerId: string | null;
  state: RunningProcess['state'];
  log: LogCursor;
};

type DeploymentRecord = {
  version: number;
  deploymentId: number;
  spec: DeploymentRunSpec;
  containers: ContainerRecord[];
  updatedAt: string;
};

type Instance = ContainerRecord & {
  command: string;
  pid: number | null;
  stopping: boolean;
  timer: NodeJS.Timeout | null;
  logs: AbortController | null;
  checking: boolean;
};

type Deployment = {
  spec: DeploymentRunSpec;
  user: string;
  instances: Instance[];
  stopping: Promise<void> | null;
  savedAt: number;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class DockerDriver implements RuntimeDriver {
  readonly name = 'docker' as const;
  private readonly engine: DockerEngine;
  private readonly stateDir: string;
  private readonly owner: string;
  private readonly log: (message: string) => void;
  private readonly policy: RestartPolicy;
  private readonly graceMs: number;
  private readonly deployments = new Map<number, Deployment>();
  private readonly starting = new Set<number>();
  private readonly listeners: RuntimeListeners;
  private readonly ports = new PortReservations();
  private imageReady: Promise<void> | null = null;
  private ticker: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: DockerDriverOptions) {
    this.engine = new DockerEngine(options.dockerHost);
    this.stateDir = path.join(path.resolve(options.stateDir), 'docker');
    this.owner = ownerOf(options.stateDir);
    this.log = options.log ?? (() => {});
    this.listeners = new RuntimeListeners(this.log);
    this.policy = { ...DEFAULT_RESTART_POLICY, ...options.restart };
    this.graceMs = options.graceMs ?? 10_000;
  }

  /** Checks the engine answers and the image is there (pulling it once); said once in the log. */
  ready(): Promise<void> {
    this.imageReady ??= (async () => {
      await this.engine.ping();
      fs.mkdirSync(this.stateDir, { recursive: true, mode: 0o700 });
      if (!(await this.engine.hasImage(this.options.image))) {
        this.log(`Pulling ${this.options.image} for the apps' containers`);
        await this.engine.pull(this.options.image);
      }
      this.log(`Apps run in containers of ${this.options.image} on the Docker engine at ${this.engine.describe()}`);
    })().catch((error: Error) => {
      this.imageReady = null; // the next deploy tries again (the engine may be back)
      throw error;
    });
    return this.imageReady;
  }

  onEvent(listener: (event: RuntimeEvent) => void): () => void {
    return this.listeners.onEvent(listener);
  }

  onLog(listener: (line: LogLine) => void): () => void {
    return this.listeners.onLog(listener);
  }

  commandLine(dir: string, command: string): Promise<string[]> {
    return this.options.builds.commandLine(dir, command);
  }

  handOver(dir: string): Promise<void> {
    return this.options.builds.handOver(dir);
  }

  status(deploymentId: number): RunningDeployment | null {
    const deployment = this.deployments.get(deploymentId);
    if (!deployment) return null;
    return {
      deploymentId,
      processes: deployment.instances.map((instance) => ({
        type: instance.type,
        index: instance.index,
        pid: instance.pid,
        port: instance.port,
        state: instance.state,
        restarts: instance.restarts,
      })),
    };
  }

  async start(spec: DeploymentRunSpec): Promise<RunningDeployment> {
    this.assertOpen();
    validateRunSpec(spec);
    const id = spec.deploymentId;
    if (this.deployments.has(id) || this.starting.has(id)) throw new Error(`deployment ${id} is already running`);
    this.starting.add(id);
    const ports: number[] = [];
    try {
      await this.ready();
      if (fs.existsSync(this.stateFile(id))) {
        this.log(`Deployment ${id} was still recorded as running: stopping it before starting it again`);
        await this.stop(id);
      }
      const stat = await fs.promises.stat(spec.appDir).catch(() => null);
      if (!stat?.isDirectory()) throw new Error(`the app folder ${spec.appDir} does not exist`);
      // The app runs as the owner of its folder (never as root unless the folder is root's).
      const deployment: Deployment = {
        spec: structuredClone(spec),
        user: `${stat.uid}:${stat.gid}`,
        instances: [],
        stopping: null,
        savedAt: 0,
      };
      for (const processSpec of spec.processes) {
        for (let index = 0; index < (processSpec.instances ?? 1); index++) {
          const fixed = processSpec.type === 'web' && index === 0 && spec.port ? spec.port : null;
          const port = processSpec.type !== 'web' ? null : fixed ? this.ports.reserve(fixed) : await this.ports.pick();
          if (port !== null) ports.push(port);
          deployment.instances.push(
            this.instanceFrom(deployment, {
              type: processSpec.type,
              index,
              port,
              name: `launchbay-${this.owner}-d${id}-${processSpec.type.replace(/[^A-Za-z0-9_.-]/g, '_')}-${index}`,
              containerId: null,
              state: 'starting',
              restarts: 0,
              restartTimes: [],
              backoffAttempt: 0,
              startedAt: null,
              log: { timestamp: '', count: 0 },
            }),
          );
        }
      }
      this.deployments.set(id, deployment);
      try {
        for (const instance of deployment.instances) await this.run(deployment, instance);
      } catch (error) {
        this.deployments.delete(id);
        for (const instance of deployment.instances) {
          instance.logs?.abort();
          if (instance.containerId) await this.engine.remove(instance.containerId).catch(() => undefined);
        }
        throw error;
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

  async stop(deploymentId: number, options?: { graceMs?: number }): Promise<void> {
    this.assertOpen();
    let deployment = this.deployments.get(deploymentId);
    if (!deployment) {
      const record = this.readRecord(deploymentId);
      if (!record) {
        await this.removeStrays(deploymentId);
        return;
      }
      deployment = this.load(record);
    }
    deployment.stopping ??= this.stopDeployment(deployment, options?.graceMs ?? this.graceMs);
    return deployment.stopping;
  }

  async adopt(): Promise<RunningDeployment[]> {
    this.assertOpen();
    const adopted: RunningDeployment[] = [];
    for (const id of this.recordedIds()) {
      if (this.deployments.has(id) || this.starting.has(id)) continue;
      const record = this.readRecord(id);
      if (!record) {
        this.log(`The runtime state of deployment ${id} is unreadable: not adopting it`);
        continue;
      }
      await this.ready();
      const deployment = this.load(record);
      for (const instance of deployment.instances) {
        if (instance.state === 'crashed' || instance.state === 'stopped') continue;
        const inspected = instance.containerId ? await this.engine.inspect(instance.containerId) : null;
        if (inspected?.State.Running) {
          instance.state = 'running';
          instance.pid = inspected.State.Pid || null;
          this.followLogs(deployment, instance);
        } else if (instance.state === 'restarting') {
          this.scheduleRestart(deployment, instance);
        } else {
          // It ended while no control plane watched: read what it said, then a crash like any other.
          if (inspected) this.followLogs(deployment, instance);
          this.ended(deployment, instance, inspected ? inspected.State.ExitCode : null);
        }
      }
      const running = deployment.instances.filter((instance) => instance.state === 'running').length;
      this.log(`Adopted deployment ${id}: ${running} of ${deployment.instances.length} containers still running`);
      this.persist(deployment);
      this.ensureTicker();
      adopted.push(this.status(id)!);
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
        instance.logs?.abort();
        instance.logs = null;
      }
      this.persist(deployment); // the containers keep running; the next control plane adopts them
    }
    this.deployments.clear();
    this.engine.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the docker driver is closed');
  }

  private stateFile(deploymentId: number): string {
    return path.join(this.stateDir, `${deploymentId}.json`);
  }

  private recordedIds(): number[] {
    try {
      return fs
        .readdirSync(this.stateDir)
        .map((name) => /^(\d+)\.json$/.exec(name)?.[1])
        .filter((id): id is string => id !== undefined)
        .map(Number)
        .sort((a, b) => a - b);
    } catch {
      return [];
    }
  }

  private readRecord(deploymentId: number): DeploymentRecord | null {
    try {
      const record = JSON.parse(fs.readFileSync(this.stateFile(deploymentId), 'utf8')) as DeploymentRecord;
      if (record.version !== STATE_VERSION || record.deploymentId !== deploymentId || !Array.isArray(record.containers))
        return null;
      return record;
    } catch {
      return null;
    }
  }

  private persist(deployment: Deployment): void {
    if (deployment.stopping) return; // its state file goes when the stop ends
    const record: DeploymentRecord = {
      version: STATE_VERSION,
      deploymentId: deployment.spec.deploymentId,
      spec: deployment.spec,
      containers: deployment.instances.map(
        ({ command: _command, pid: _pid, stopping: _stopping, timer: _timer, logs: _logs, checking: _checking, ...record }) =>
          record,
      ),
      updatedAt: new Date().toISOString(),
    };
    try {
      // The spec holds the app's env vars (its secrets): the folder is 0700, the file the owner's alone.
      writeFileAtomic(this.stateFile(deployment.spec.deploymentId), `${JSON.stringify(record)}\n`);
      deployment.savedAt = Date.now();
    } catch (error) {
      this.log(`Could not save the runtime state of deployment ${deployment.spec.deploymentId}: ${String(error)}`);
    }
  }

  private load(record: DeploymentRecord): Deployment {
    const deployment: Deployment = { spec: record.spec, user: '', instances: [], stopping: null, savedAt: 0 };
    const stat = fs.statSync(record.spec.appDir, { throwIfNoEntry: false });
    deployment.user = stat ? `${stat.uid}:${stat.gid}` : '65534:65534';
    for (const container of record.containers) deployment.instances.push(this.instanceFrom(deployment, container));
    this.deployments.set(record.deploymentId, deployment);
    return deployment;
  }

  private instanceFrom(deployment: Deployment, record: ContainerRecord): Instance {
    if (record.port !== null) this.ports.hold(record.port);
    return {
      ...record,
      restartTimes: [...record.restartTimes],
      log: { ...record.log },
      command: deployment.spec.processes.find((process) => process.type === record.type)?.command ?? 'exit 127',
      pid: null,
      stopping: false,
      timer: null,
      logs: null,
      checking: false,
    };
  }

  private label(deployment: Deployment, instance: Instance): string {
    return `deployment ${deployment.spec.deploymentId} ${instance.type}.${instance.index}`;
  }

  private createBody(deployment: Deployment, instance: Instance): ContainerCreateBody {
    const { spec } = deployment;
    const env: Record<string, string> = { ...spec.env, HOME: '/app' };
    delete env.PATH; // the host's PATH means nothing in the image
    const exposed: ContainerCreateBody['ExposedPorts'] = {};
    const bindings: NonNullable<ContainerCreateBody['HostConfig']['PortBindings']> = {};
    if (instance.port !== null) {
      env.PORT = String(instance.port);
      env.HOST = '0.0.0.0'; // inside the container; the engine publishes it on the host's loopback only
      exposed[`${instance.port}/tcp`] = {};
      bindings[`${instance.port}/tcp`] = [{ HostIp: '127.0.0.1', HostPort: String(instance.port) }];
    }
    const { memoryMb, cpuPercent, pids } = spec.limits;
    return {
      Image: this.options.image,
      Cmd: ['/bin/sh', '-c', containerScript(instance.command)],
      Env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
      WorkingDir: '/app',
      User: deployment.user,
      Labels: {
        [`${LABEL}.owner`]: this.owner,
        [`${LABEL}.deployment`]: String(spec.deploymentId),
        [`${LABEL}.process`]: instance.type,
        [`${LABEL}.index`]: String(instance.index),
      },
      ExposedPorts: exposed,
      HostConfig: {
        Binds: [`${path.resolve(spec.appDir)}:/app`],
        PortBindings: bindings,
        ...(memoryMb ? { Memory: memoryMb * 1024 * 1024 } : {}),
        ...(cpuPercent ? { NanoCpus: Math.round((cpuPercent / 100) * 1e9) } : {}),
        ...(pids ? { PidsLimit: pids } : {}),
        Init: true, // an init as pid 1 reaps zombies and passes the engine's signals on
        RestartPolicy: { Name: 'no' },
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        Ulimits: this.options.ulimits ?? hostUlimits(),
      },
    };
  }

  /** Creates (when needed) and starts one container, then follows its log. */
  private async run(deployment: Deployment, instance: Instance): Promise<void> {
    let started = false;
    if (instance.containerId) {
      try {
        await this.engine.start(instance.containerId);
        started = true;
      } catch (error) {
        if (!(error instanceof DockerApiError && error.status === 404)) throw error;
        instance.containerId = null; // removed behind our back: make it again
      }
    }
    if (!started) {
      const body = this.createBody(deployment, instance);
      try {
        instance.containerId = await this.engine.create(instance.name, body);
      } catch (error) {
        if (!(error instanceof DockerApiError && error.status === 409)) throw error;
        await this.engine.remove(instance.name); // a leftover of this name from a run that was not recorded
        instance.containerId = await this.engine.create(instance.name, body);
      }
      await this.engine.start(instance.containerId);
    }
    instance.startedAt = Date.now();
    instance.state = 'running';
    const inspected = await this.engine.inspect(instance.containerId!);
    instance.pid = inspected?.State.Pid || null;
    this.followLogs(deployment, instance);
  }

  private followLogs(deployment: Deployment, instance: Instance): void {
    if (!instance.containerId || instance.logs) return;
    const controller = new AbortController();
    instance.logs = controller;
    const seen = { count: 0 };
    const reader = new LogFrameReader((framed) => {
      if (!advanceCursor(instance.log, framed.timestamp, seen)) return;
      this.listeners.emitLog({
        deploymentId: deployment.spec.deploymentId,
        process: instance.type,
        index: instance.index,
        stream: framed.stream,
        at: framed.at,
        line: framed.line,
      });
    }, this.options.maxLineBytes);
    const since = instance.log.timestamp ? new Date(instance.log.timestamp).getTime() / 1000 : 0;
    const done = () => {
      reader.flush();
      if (instance.logs === controller) instance.logs = null;
      // The stream ends when the container stops: look at once rather than at the next tick.
      if (!controller.signal.aborted) void this.check(deployment, instance);
    };
    this.engine.logs(instance.containerId, since, controller.signal).then(
      (res) => {
        res.on('data', (chunk: Buffer) => reader.push(chunk));
        res.on('end', done);
        res.on('error', done);
      },
      (error: Error) => {
        if (!controller.signal.aborted)
          this.log(`Could not read the log of ${this.label(deployment, instance)}: ${error.message}`);
        done();
      },
    );
  }

  /** Whether a running container ended; handles the end. */
  private async check(deployment: Deployment, instance: Instance): Promise<void> {
    if (instance.state !== 'running' || instance.stopping || !instance.containerId || instance.checking) return;
    instance.checking = true;
    try {
      const inspected = await this.engine.inspect(instance.containerId);
      if (instance.state !== 'running' || instance.stopping || this.closed) return;
      if (inspected?.State.Running) {
        if (!instance.logs) this.followLogs(deployment, instance);
        return;
      }
      this.ended(deployment, instance, inspected ? inspected.State.ExitCode : null);
    } catch (error) {
      this.log(`Could not inspect ${this.label(deployment, instance)}: ${(error as Error).message}`);
    } finally {
      instance.checking = false;
    }
  }

  private ended(deployment: Deployment, instance: Instance, code: number | null): void {
    instance.pid = null;
    this.listeners.emit({
      kind: 'exited',
      deploymentId: deployment.spec.deploymentId,
      type: instance.type,
      index: instance.index,
      code,
      signal: code !== null && code > 128 ? signalName(code - 128) : null,
      expected: instance.stopping,
    });
    if (instance.stopping || this.closed) return;
    this.log(
      `${this.label(deployment, instance)} exited unexpectedly (${code === null ? 'its container is gone' : `code ${code}`})`,
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
      this.persist(deployment);
      return;
    }
    instance.state = 'restarting';
    this.persist(deployment);
    instance.timer = setTimeout(() => {
      instance.timer = null;
      if (this.closed || instance.stopping) return;
      this.run(deployment, instance).then(
        () => this.persist(deployment),
        (error: Error) => {
          this.log(`Could not restart ${this.label(deployment, instance)}: ${error.message}`);
          instance.state = 'running'; // counts as a run that ended at once
          this.ended(deployment, instance, null);
        },
      );
    }, decision.delayMs);
    instance.timer.unref();
  }

  private ensureTicker(): void {
    if (this.ticker || this.closed) return;
    this.ticker = setInterval(() => {
      for (const deployment of this.deployments.values()) {
        if (deployment.stopping) continue;
        for (const instance of deployment.instances) void this.check(deployment, instance);
        if (Date.now() - deployment.savedAt >= SAVE_CURSORS_EVERY_MS) this.persist(deployment);
      }
    }, this.options.pollMs ?? 1000);
    this.ticker.unref();
  }

  private async stopDeployment(deployment: Deployment, graceMs: number): Promise<void> {
    for (const instance of deployment.instances) {
      instance.stopping = true;
      if (instance.timer) clearTimeout(instance.timer);
      instance.timer = null;
    }
    const running = async () => {
      const alive: Instance[] = [];
      for (const instance of deployment.instances) {
        if (!instance.containerId) continue;
        const inspected = await this.engine.inspect(instance.containerId).catch(() => null);
        if (inspected?.State.Running) alive.push(instance);
      }
      return alive;
    };
    await Promise.all(
      (await running()).map((instance) =>
        // Every process in the container, not only pid 1 (a `sh -c 'a && b'` would die and leave b unwarned).
        this.engine
          .exec(instance.containerId!, ['/bin/sh', '-c', 'kill -TERM -1'], deployment.user)
          .catch(() => this.engine.kill(instance.containerId!, 'SIGTERM')),
      ),
    );
    const deadline = Date.now() + graceMs;
    let alive = await running();
    while (alive.length > 0 && Date.now() < deadline) {
      await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
      alive = await running();
    }
    if (alive.length > 0) {
      this.log(`Deployment ${deployment.spec.deploymentId} did not stop within ${graceMs} ms of SIGTERM: killing it`);
      await Promise.all(alive.map((instance) => this.engine.kill(instance.containerId!, 'SIGKILL').catch(() => undefined)));
      const killDeadline = Date.now() + KILL_WAIT_MS;
      while ((await running()).length > 0 && Date.now() < killDeadline) await sleep(50);
    }
    for (const instance of deployment.instances) {
      if (instance.containerId) {
        const wasRunning = instance.state === 'running';
        const inspected = wasRunning ? await this.engine.inspect(instance.containerId).catch(() => null) : null;
        if (wasRunning) this.ended(deployment, instance, inspected ? inspected.State.ExitCode : null);
        // The rest of its log (the app's last words) before the container goes.
        const controller = instance.logs;
        if (controller) await sleep(50);
        controller?.abort();
        instance.logs = null;
        await this.engine
          .remove(instance.containerId)
          .catch((error: Error) =>
            this.log(`Could not remove the container of ${this.label(deployment, instance)}: ${error.message}`),
          );
      }
      instance.state = 'stopped';
      instance.pid = null;
      this.ports.release(instance.port);
    }
    fs.rmSync(this.stateFile(deployment.spec.deploymentId), { force: true });
    this.deployments.delete(deployment.spec.deploymentId);
  }

  /** Containers of this platform for a deployment it has no record of (a state file lost with a crash). */
  private async removeStrays(deploymentId: number): Promise<void> {
    const containers = await this.engine
      .list(`${LABEL}.owner=${this.owner}`, `${LABEL}.deployment=${deploymentId}`)
      .catch(() => []);
    for (const container of containers) await this.engine.remove(container.Id);
  }
}

/**
 * A simple command becomes the process itself (exec). Shell syntax keeps the shell as the app's
 * parent: a trap keeps it alive through the stop's SIGTERM until the app has ended, or the
 * container's init would see it die and take the app down before it could drain.
 */
function containerScript(command: string): string {
  const simple = execForm(command);
  return simple !== command ? simple : `trap : TERM INT\n${command}`;
}

/**
 * nofile and nproc for the containers: this process's own soft limits (/proc/self/limits), capped
 * (nofile 65536, nproc 16384). Left unset, Podman as root asks for 1048576 of each, which a host
 * that lowered its limits refuses ("error setting rlimits"); the cap stays under what Podman's
 * service gives itself (nproc 32768). RLIMIT_NPROC counts every thread of the apps' user.
 */
export function hostUlimits(limitsText?: string): { Name: string; Soft: number; Hard: number }[] {
  let text = limitsText;
  try {
    text ??= fs.readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return [];
  }
  const limits: { Name: string; Soft: number; Hard: number }[] = [];
  for (const [name, label, cap] of [
    ['nofile', 'Max open files', 65_536],
    ['nproc', 'Max processes', 16_384],
  ] as const) {
    const match = new RegExp(`^${label}\\s+(\\d+|unlimited)`, 'm').exec(text);
    const soft = !match || match[1] === 'unlimited' ? cap : Math.min(Number(match[1]), cap);
    limits.push({ Name: name, Soft: soft, Hard: soft });
  }
  return limits;
}

/** Two platforms on one engine must not take each other's containers: each labels its own with this. */
function ownerOf(stateDir: string): string {
  return createHash('sha256')
    .update(path.join(path.resolve(stateDir), 'docker'))
    .digest('hex')
    .slice(0, 10);
}

/** The label filter (`key=value`) that finds every container of the platform whose runtime state is in `stateDir`. */
export function dockerOwnerFilter(stateDir: string): string {
  return `${LABEL}.owner=${ownerOf(stateDir)}`;
}

const SIGNALS: Record<number, string> = { 1: 'SIGHUP', 2: 'SIGINT', 6: 'SIGABRT', 9: 'SIGKILL', 15: 'SIGTERM' };
function signalName(number: number): string | null {
  return SIGNALS[number] ?? null;
}

export function createDockerDriver(options: DockerDriverOptions): DockerDriver {
  return new DockerDriver(options);
}
