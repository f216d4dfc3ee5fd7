import { type ChildProcess, fork } from 'node:child_process';
import type { EdgeIdentity } from '@launchbay/edge-protocol';
import type { HealthChecks } from '../health';
import type { ProxyServers } from '../proxy';
import type { ProxyLogWriterStats } from '../proxy-log-writer';
import type { RouteTableHolder } from '../route-table';
import type { ProcessLoad } from './load';
import { EDGE_WORKER_ENV, type FromWorker, type ToWorker, type WorkerLoad } from './messages';

/** How often the first process weighs the load of every process. */
const TICK_MS = 1000;
/** Every process saturated this many seconds in a row: one more worker. */
const BUSY_SECONDS = 2;
/** A gap in utilization this wide between the busiest and the idlest process moves connections. */
const IMBALANCE = 0.25;
/** The share of the busiest process's connections it closes per second while the gap lasts. */
const SHED_SHARE = 0.1;
/** How long a retiring worker has to finish what it serves before it exits (worker.ts). */
const CLOSE_WAIT_MS = 1000;

type Worker = {
  child: ChildProcess;
  listening: boolean;
  load: WorkerLoad | null;
  /** The route table version it serves (acknowledged), -1 before the first. */
  serving: number;
  retiring: boolean;
};

export type EdgeWorkersOptions = {
  /** Processes in all, this one included (EDGE_PROCESSES); 1: no workers. */
  maxProcesses: number;
  /** Calm this long (every process could go on with one fewer): the newest worker retires. */
  scaleDownSeconds: number;
  /** Event-loop utilization at which a process counts as saturated (EDGE_SCALE_UP_AT). */
  scaleUpAt: number;
  servers: ProxyServers;
  tlsPort: () => number | null;
  routes: RouteTableHolder;
  health: HealthChecks;
  load: ProcessLoad;
  /** The identity of the whole edge, asked by a worker that got the control plane's request. */
  identity: () => EdgeIdentity;
  /** The script the workers run (the edge's own bundle). */
  entry: string;
  log: (message: string) => void;
};

/**
 * The embedded edge on more than one core, on demand. One Node process proxies at most what one core
 * does; under a load that saturates it, it starts a worker (the same bundle, forked) and hands it its
 * listening sockets, so both accept on the same ports and the kernel gives each new connection to
 * whichever is waiting. Busier processes close some of their keep-alive connections after an answer
 * (`connection: close`) so the load spreads; when the load is gone for `scaleDownSeconds`, the worker
 * finishes what it serves and exits: an idle edge stays one process (idle memory is one process's).
 *
 * This process stays the edge the control plane knows: it holds the state file, the route table (sent
 * to the workers, whose served version counts in the identity's routeTableVersion, so a deployment is
 * drained only once every process serves its successor), the health checks (the workers follow them)
 * and answers the identity for all. Each worker writes its own proxy-log rows on a connection of its
 * own; their figures add up in the identity. Only the embedded driver has workers: nginx has its own.
 */
export class EdgeWorkers {
  readonly #workers = new Set<Worker>();
  /** What retired workers wrote and dropped, so the edge's totals never go back. */
  readonly #retired: ProxyLogWriterStats = { buffered: 0, dropped: 0, written: 0 };
  #busySeconds = 0;
  #calmSeconds = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopping = false;

  constructor(private readonly options: EdgeWorkersOptions) {}

  /** The processes accepting connections now, this one included. */
  get processes(): number {
    return 1 + [...this.#workers].filter((w) => w.listening && !w.retiring).length;
  }

  start(): void {
    if (this.options.maxProcesses <= 1) return;
    this.options.load.sampleEventLoop();
    this.#timer = setInterval(() => this.#tick(), TICK_MS);
    this.#timer.unref();
    this.options.routes.onChange((table) => this.#sendAll({ type: 'table', table }));
  }

  /** The oldest route table version any process still serves. */
  servingVersion(own: number): number {
    let version = own;
    for (const worker of this.#workers) if (worker.listening) version = Math.min(version, worker.serving);
    return version;
  }

  /** This process's proxy-log figures with the workers' added. */
  proxyLog(own: ProxyLogWriterStats & { waiting: boolean }): ProxyLogWriterStats & { waiting: boolean } {
    const total = { ...own };
    total.dropped += this.#retired.dropped;
    total.written += this.#retired.written;
    for (const { load } of this.#workers) {
      if (!load) continue;
      total.buffered += load.proxyLog.buffered;
      total.dropped += load.proxyLog.dropped;
      total.written += load.proxyLog.written;
      total.waiting ||= load.proxyLog.waiting;
    }
    return total;
  }

  /** Health changed: the workers follow. */
  healthChanged(): void {
    this.#sendAll({ type: 'health', unhealthy: this.options.health.unhealthy() });
  }

  /** The edge stops: every worker stops accepting at once (the port must be free for the next edge) and finishes. */
  async close(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#timer);
    const closed = [...this.#workers].map(
      (worker) =>
        new Promise<void>((resolve) => {
          if (!worker.listening || worker.child.exitCode !== null) return resolve();
          worker.child.on('message', (message: FromWorker) => message.type === 'closed' && resolve());
          worker.child.once('exit', () => resolve());
          setTimeout(resolve, CLOSE_WAIT_MS).unref();
          this.#send(worker, { type: 'retire' });
        }),
    );
    await Promise.all(closed);
  }

  #tick(): void {
    const own = this.options.load.sampleEventLoop();
    const loads = [{ eventLoop: own, connections: this.options.load.connections, worker: null as Worker | null }];
    for (const worker of this.#workers) {
      if (worker.listening && !worker.retiring && worker.load) loads.push({ ...worker.load, worker });
    }
    const active = loads.length;
    const starting = [...this.#workers].some((w) => !w.listening && !w.retiring);

    const busy = this.options.scaleUpAt;
    this.#busySeconds = loads.every((l) => l.eventLoop >= busy) ? this.#busySeconds + 1 : 0;
    if (this.#busySeconds >= BUSY_SECONDS && active < this.options.maxProcesses && !starting) {
      this.#busySeconds = 0;
      this.#spawn();
    }

    const total = loads.reduce((sum, l) => sum + l.eventLoop, 0);
    this.#calmSeconds = active > 1 && total < (active - 1) * 0.5 ? this.#calmSeconds + 1 : 0;
    if (this.#calmSeconds >= this.options.scaleDownSeconds) {
      this.#calmSeconds = 0;
      const newest = [...this.#workers].filter((w) => !w.retiring).pop();
      if (newest) this.#retire(newest, 'the load is gone');
      return;
    }

    if (active < 2) return;
    const sorted = [...loads].sort((a, b) => b.eventLoop - a.eventLoop);
    const busiest = sorted[0];
    const idlest = sorted[sorted.length - 1];
    if (!busiest || !idlest || busiest.eventLoop - idlest.eventLoop < IMBALANCE || busiest.eventLoop < busy - IMBALANCE) return;
    const connections = Math.ceil(busiest.connections * SHED_SHARE);
    if (busiest.worker) this.#send(busiest.worker, { type: 'shed', connections });
    else this.options.load.shed(connections);
  }

  #spawn(): void {
    const child = fork(this.options.entry, [], {
      env: { ...process.env, [EDGE_WORKER_ENV]: '1' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const worker: Worker = { child, listening: false, load: null, serving: -1, retiring: false };
    this.#workers.add(worker);
    this.options.log(`saturated: starting worker ${child.pid} (${this.#workers.size + 1} processes)`);
    child.on('message', (message: FromWorker) => this.#onMessage(worker, message));
    child.on('error', (error) => this.options.log(`worker ${child.pid}: ${error.message}`));
    child.once('exit', (code, signal) => {
      this.#workers.delete(worker);
      if (worker.load) {
        this.#retired.dropped += worker.load.proxyLog.dropped;
        this.#retired.written += worker.load.proxyLog.written;
      }
      if (!worker.retiring && !this.#stopping) this.options.log(`worker ${child.pid} ended (${signal ?? `exit ${code}`})`);
    });
  }

  #onMessage(worker: Worker, message: FromWorker): void {
    switch (message.type) {
      case 'ready': {
        if (this.#stopping) {
          this.#retire(worker, 'the edge is stopping');
          return;
        }
        this.#send(worker, { type: 'table', table: this.options.routes.table });
        this.#send(worker, { type: 'health', unhealthy: this.options.health.unhealthy() });
        return;
      }
      case 'serving': {
        worker.serving = message.version;
        if (worker.listening || worker.retiring) return;
        // Serving the current table: it may take connections now.
        const tlsPort = this.options.tlsPort();
        const { http, https } = this.options.servers;
        worker.child.send({ type: 'listen', server: 'http', tlsPort } satisfies ToWorker, http);
        if (https?.listening) worker.child.send({ type: 'listen', server: 'https', tlsPort } satisfies ToWorker, https);
        worker.listening = true;
        // Connections this process holds move over as their clients reconnect.
        this.options.load.shed(this.options.load.connections / this.processes);
        this.options.log(`worker ${worker.child.pid} accepts connections`);
        return;
      }
      case 'load':
        worker.load = message.load;
        return;
      case 'identity?':
        this.#send(worker, { type: 'identity', id: message.id, identity: this.options.identity() });
        return;
      case 'closed':
        worker.listening = false;
        return;
    }
  }

  #retire(worker: Worker, why: string): void {
    worker.retiring = true;
    this.options.log(`worker ${worker.child.pid} retires: ${why}`);
    this.#send(worker, { type: 'retire' });
  }

  #send(worker: Worker, message: ToWorker): void {
    if (worker.child.connected) worker.child.send(message);
  }

  #sendAll(message: ToWorker): void {
    for (const worker of this.#workers) this.#send(worker, message);
  }
}
