import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  askEdgeIdentity,
  EDGE_INSTANCE_ENV,
  EDGE_PROTOCOL_VERSION,
  type EdgeDatabase,
  type EdgeDriver,
  type EdgeState,
  edgePaths,
  isRecordedEdgeAlive,
  isSameProcessAlive,
  processCarriesInstance,
  readEdgeState,
  stopEdgeProcess,
  writeFileAtomic,
} from '@launchbay/edge-protocol';
import type pg from 'pg';

type Log = { info(message: string): void; warn(message: string): void; error(message: string): void };

/**
 * The edge's Node flags (its workers inherit them):
 * - --expose-gc: it gives a burst's memory back once it is quiet again (apps/edge/src/memory.ts);
 * - --no-allocation-site-pretenuring: as for the control plane (src/v8-flags.ts), a first burst on a
 *   cold edge could make V8 allocate the proxy path's objects in the old generation for good, and
 *   young collections then copied what those dead objects pointed to. Six cold starts under 200
 *   connections: 50-65 us of CPU per proxied request without the flag, 50-54 with it.
 */
const EDGE_NODE_FLAGS = ['--expose-gc', '--no-allocation-site-pretenuring'];

export type EdgeSupervisorOptions = {
  dataDir: string;
  host: string;
  /** 0: any free port; the edge keeps the one it got across restarts when it can. */
  port: number;
  /** The HTTPS port (SNI); 0: any free port, kept across restarts when it can be. */
  tlsPort: number;
  /** false: the edge writes no proxy-log rows (taken by an edge when it starts). */
  proxyLog?: boolean;
  /** The embedded edge's processes at most under load (EDGE_PROCESSES); unset: one per CPU. */
  processes?: number;
  /** How long the load must be gone before an extra edge process retires. */
  scaleDownSeconds?: number;
  /** The event-loop utilization at which an edge process counts as saturated. */
  scaleUpAt?: number;
  database: pg.PoolConfig;
  log: Log;
  /** The built edge (apps/edge/dist/main.js) unless given. */
  edgeMain?: string;
  /** How often an adopted edge is looked at; a dead edge is replaced within this plus its start (150-350 ms here). */
  pollMs?: number;
  /** The nginx program for the nginx driver (NGINX_BINARY; `nginx` on the PATH). */
  nginxBinary?: string;
};

export type EdgeSupervisor = {
  /** The edge being watched: its pid, port and instance; null while there is none (not built, or failing). */
  current(): EdgeState | null;
  /**
   * Stops watching. The edge itself keeps running (apps keep serving while the control plane
   * restarts) unless `includeEdge`: for tests, and for taking the proxy down on purpose.
   */
  stop(options?: { includeEdge?: boolean }): Promise<void>;
  /** The driver edges are started with (kept in DATA_DIR/edge/driver, so a restart starts the same one). */
  driver(): EdgeDriver;
  /**
   * Serves with this driver from now on: the running edge is replaced by one with the new driver
   * (stopping it gracefully; nginx's or the embedded edge's ports are free again within a second).
   * Resolves with the new edge; when it cannot start (nginx refuses to), the previous driver is
   * started again and the promise rejects with the reason.
   */
  setDriver(driver: EdgeDriver): Promise<EdgeState>;
};

const READY_TIMEOUT_MS = 10_000;
const LOG_ROTATE_BYTES = 10 * 1024 * 1024;
/** Starts within the window before restarts slow down. */
const CRASH_LOOP_AFTER = 3;
const CRASH_LOOP_WINDOW_MS = 30_000;
const MAX_BACKOFF_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readDriver(file: string): EdgeDriver {
  try {
    return fs.readFileSync(file, 'utf8').trim() === 'nginx' ? 'nginx' : 'embedded';
  } catch {
    return 'embedded';
  }
}

export function defaultEdgeMain(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('@launchbay/edge/package.json')), 'dist', 'main.js');
}

/** The database connection as plain JSON for the edge (a pool config may hold functions). */
function edgeDatabase(config: pg.PoolConfig): EdgeDatabase {
  if (config.connectionString) return { connectionString: config.connectionString };
  return {
    host: config.host ?? '127.0.0.1',
    port: config.port ?? 5432,
    user: config.user ?? 'postgres',
    password: typeof config.password === 'string' ? config.password : '',
    database: config.database ?? 'postgres',
  };
}

/**
 * Starts the edge proxy, or adopts the one already serving this data folder (left running by the
 * control plane's last run), then keeps it alive: a dead edge is replaced within about 2 s.
 * Adoption needs the recorded pid, its start time, the instance id in its environment and its own
 * answer on the recorded port to agree, so a process that merely reuses the pid is never adopted.
 */
export async function startEdgeSupervisor(options: EdgeSupervisorOptions): Promise<EdgeSupervisor> {
  const { log } = options;
  const paths = edgePaths(options.dataDir);
  const pollMs = options.pollMs ?? 100;
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  // Rewritten at every start: a restarted embedded database may listen somewhere else.
  writeFileAtomic(paths.database, JSON.stringify(edgeDatabase(options.database)));

  const edgeMain = options.edgeMain ?? defaultEdgeMain();
  const driverFile = path.join(paths.dir, 'driver');
  let driver: EdgeDriver = readDriver(driverFile);
  let lastStartError = '';
  /** While the driver is being switched the watcher leaves the edge alone. */
  let switching = false;
  let current: EdgeState | null = null;
  let stopped = false;
  let ensuring: Promise<void> | undefined;
  let retryAt = 0;

  /** The recorded edge, when it is alive, ours, and answering. */
  async function adoptable(): Promise<EdgeState | null> {
    let state = readEdgeState(paths.state);
    if (!state || !isRecordedEdgeAlive(state)) return null;
    // Another control plane may be starting it right now: give it the time to listen.
    for (let i = 0; i < 100 && state?.status === 'starting'; i++) {
      await sleep(50);
      state = readEdgeState(paths.state);
    }
    if (!state || !isRecordedEdgeAlive(state)) return null;
    // A busy machine can be slow to answer: only three missed answers in a row mean the edge hangs.
    for (let attempt = 0; attempt < 3 && state.status === 'ready'; attempt++) {
      if (await askEdgeIdentity(state)) return state;
    }
    log.warn(`The edge proxy (pid ${state.pid}) does not answer on port ${state.port}; replacing it`);
    await stopEdgeProcess(state, 2000);
    return null;
  }

  function rotateLog(): void {
    try {
      if (fs.statSync(paths.log).size > LOG_ROTATE_BYTES) fs.renameSync(paths.log, `${paths.log}.1`);
    } catch {
      // no log yet
    }
  }

  /** The last lines of the edge's log, for an error message. */
  function logTail(): string {
    try {
      const text = fs.readFileSync(paths.log, 'utf8').slice(-2000).trim().split('\n');
      return text.slice(-3).join(' | ');
    } catch {
      return '';
    }
  }

  /**
   * Spawns an edge and resolves with its state once it listens and answers; null when another edge
   * won the folder. The edge is started through a shell that puts it in the background and exits
   * (with setsid): it is never this process's child, so it is not stopped, reaped or counted with
   * the control plane, and it keeps serving whatever happens to the control plane.
   */
  async function spawnEdge(previousPort: number | null, previousTlsPort: number | null): Promise<EdgeState | null> {
    const instanceId = randomBytes(12).toString('hex');
    rotateLog();
    const launcher = spawn(
      '/bin/sh',
      ['-c', `"$0" ${EDGE_NODE_FLAGS.join(' ')} "$1" </dev/null >>"$2" 2>&1 & echo $!`, process.execPath, edgeMain, paths.log],
      {
        cwd: paths.dir,
        detached: true, // its own session: a Ctrl-C in the control plane's terminal does not reach the edge
        stdio: ['ignore', 'pipe', 'ignore'],
        // Only what the edge needs: not the control plane's secrets (ENCRYPTION_KEY, ADMIN_PASSWORD...).
        env: {
          PATH: process.env.PATH ?? '',
          // glibc keeps what a burst malloc'd (socket buffers) unless told otherwise: with two arenas and
          // a fixed trim threshold the edge went back to 59-76 MB once quiet after a burst, against 90 MB
          // with the heap collection alone (118 MB with neither); its throughput did not move (41 us/request both).
          MALLOC_ARENA_MAX: '2',
          MALLOC_TRIM_THRESHOLD_: '131072',
          ...(process.env.TZ ? { TZ: process.env.TZ } : {}),
          DATA_DIR: options.dataDir,
          PROXY_HOST: options.host,
          PROXY_PORT: String(options.port),
          ...(options.proxyLog === false ? { PROXY_LOG: 'off' } : {}),
          ...(options.processes ? { EDGE_PROCESSES: String(options.processes) } : {}),
          ...(options.scaleDownSeconds ? { EDGE_SCALE_DOWN_SECONDS: String(options.scaleDownSeconds) } : {}),
          ...(options.scaleUpAt ? { EDGE_SCALE_UP_AT: String(options.scaleUpAt) } : {}),
          ...(options.port === 0 && previousPort ? { LAUNCHBAY_EDGE_PREFERRED_PORT: String(previousPort) } : {}),
          PROXY_TLS_PORT: String(options.tlsPort),
          EDGE_DRIVER: driver,
          ...(options.nginxBinary ? { NGINX_BINARY: options.nginxBinary } : {}),
          ...(options.tlsPort === 0 && previousTlsPort ? { LAUNCHBAY_EDGE_PREFERRED_TLS_PORT: String(previousTlsPort) } : {}),
          [EDGE_INSTANCE_ENV]: instanceId,
        },
      },
    );
    let printed = '';
    launcher.stdout?.on('data', (chunk: Buffer) => {
      printed += chunk.toString('utf8');
    });
    const launched = await new Promise<number | null>((resolve) => {
      launcher.once('error', () => resolve(null));
      launcher.once('close', () => resolve(Number.parseInt(printed, 10) || null));
    });
    if (!launched) throw new Error('could not launch the edge proxy through /bin/sh');
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const state = readEdgeState(paths.state);
      if (state?.instanceId === instanceId && state.status === 'ready' && (await askEdgeIdentity(state))) return state;
      if (!isSameProcessAlive(launched, null)) {
        // It ended before it listened: another edge holds the folder (adopt that one), or it failed.
        if (state && state.instanceId !== instanceId && isRecordedEdgeAlive(state)) return null;
        throw new Error(`the edge proxy stopped during its start: ${logTail() || `see ${paths.log}`}`);
      }
      await sleep(20);
    }
    if (isSameProcessAlive(launched, null) && processCarriesInstance(launched, instanceId) !== false)
      process.kill(launched, 'SIGKILL');
    throw new Error(`the edge proxy did not start within ${READY_TIMEOUT_MS / 1000} s; see ${paths.log}`);
  }

  /** `previous`: the ports of an edge stopped on purpose just now (its state file is gone with it). */
  async function ensureEdge(previous?: { port: number | null; tlsPort: number | null }): Promise<void> {
    const previousPort = readEdgeState(paths.state)?.port ?? current?.port ?? previous?.port ?? null;
    const previousTlsPort = readEdgeState(paths.state)?.tlsPort ?? current?.tlsPort ?? previous?.tlsPort ?? null;
    for (let attempt = 0; attempt < 3 && !stopped; attempt++) {
      const found = await adoptable();
      if (found && options.port !== 0 && found.port !== options.port) {
        log.info(`The edge proxy listens on port ${found.port}, PROXY_PORT is now ${options.port}: restarting it`);
        await stopEdgeProcess(found);
      } else if (found && options.tlsPort !== 0 && found.tlsPort !== options.tlsPort) {
        log.info(`The edge proxy serves HTTPS on port ${found.tlsPort}, PROXY_TLS_PORT is now ${options.tlsPort}: restarting it`);
        await stopEdgeProcess(found);
      } else if (found && (found.driver ?? 'embedded') !== driver) {
        log.info(
          `The running edge proxy serves with the ${found.driver ?? 'embedded'} driver, the setting says ${driver}: restarting it`,
        );
        await stopEdgeProcess(found);
      } else if (found && found.protocolVersion !== EDGE_PROTOCOL_VERSION) {
        // An edge from before an upgrade would refuse the route table's new shape and serve its last one forever.
        log.info(
          `The running edge proxy speaks protocol ${found.protocolVersion}, this platform ${EDGE_PROTOCOL_VERSION}: restarting it`,
        );
        await stopEdgeProcess(found);
      } else if (found) {
        if (current?.instanceId !== found.instanceId)
          log.info(`Adopted the running edge proxy (pid ${found.pid}) on port ${found.port}`);
        current = found;
        return;
      }
      const started = await spawnEdge(previousPort, previousTlsPort);
      if (started) {
        current = started;
        log.info(`Edge proxy started (pid ${started.pid}) on ${started.host}:${started.port}`);
        return;
      }
      // Another control plane's edge took the folder between our look and our start: adopt it.
    }
    throw new Error('could not start or adopt the edge proxy');
  }

  const recentStarts: number[] = [];

  function check(): void {
    if (stopped || switching || ensuring || Date.now() < retryAt) return;
    if (current && isRecordedEdgeAlive(current)) return;
    if (current) log.warn(`The edge proxy (pid ${current.pid}) is gone; starting a new one`);
    const now = Date.now();
    recentStarts.push(now);
    while ((recentStarts[0] ?? now) < now - CRASH_LOOP_WINDOW_MS) recentStarts.shift();
    ensuring = ensureEdge()
      .catch((error: unknown) => {
        current = null;
        lastStartError = (error as Error).message;
        log.error(`The edge proxy could not start: ${lastStartError}`);
      })
      .finally(() => {
        ensuring = undefined;
        // Dying over and over (a port taken by another program, a broken build): slow down.
        const extra = recentStarts.length - CRASH_LOOP_AFTER;
        retryAt = extra > 0 ? Date.now() + Math.min(1000 * 2 ** extra, MAX_BACKOFF_MS) : 0;
      });
  }

  if (!fs.existsSync(edgeMain)) {
    log.error(`The edge proxy is not built (${edgeMain} is missing): run \`npm run build\`. Apps are not reachable until it is.`);
    return {
      current: () => null,
      stop: async () => undefined,
      driver: () => driver,
      setDriver: async () => {
        throw new Error(`the edge proxy is not built (${edgeMain} is missing)`);
      },
    };
  }
  try {
    await ensureEdge();
  } catch (error) {
    log.error(`The edge proxy could not start: ${(error as Error).message}`);
  }
  const timer = setInterval(check, pollMs);
  timer.unref();

  /** Replaces the running edge by one with `next`; resolves with it, or throws why it could not start. */
  async function restartWith(next: EdgeDriver): Promise<EdgeState> {
    driver = next;
    writeFileAtomic(driverFile, next);
    const running = current ?? readEdgeState(paths.state);
    if (running && isRecordedEdgeAlive(running)) await stopEdgeProcess(running);
    current = null;
    lastStartError = '';
    // The same address with the new driver (with PROXY_PORT=0 the stopped edge's free port).
    await ensureEdge({ port: running?.port ?? null, tlsPort: running?.tlsPort ?? null });
    if (!current) throw new Error(lastStartError || 'the edge proxy did not start');
    return current;
  }

  return {
    current: () => current,
    driver: () => driver,
    async setDriver(next) {
      if (next === driver && current && (current.driver ?? 'embedded') === next) return current;
      const previous = driver;
      switching = true;
      try {
        await ensuring;
        try {
          const started = await restartWith(next);
          log.info(`The edge proxy serves with the ${next} driver now`);
          return started;
        } catch (error) {
          const reason = (error as Error).message;
          log.error(`The edge proxy could not serve with the ${next} driver: ${reason}; back to ${previous}`);
          await restartWith(previous).catch((again: Error) => log.error(`The edge proxy could not start: ${again.message}`));
          throw new Error(reason);
        }
      } finally {
        switching = false;
      }
    },
    async stop({ includeEdge = false } = {}) {
      stopped = true;
      clearInterval(timer);
      await ensuring;
      if (includeEdge && current && isRecordedEdgeAlive(current)) await stopEdgeProcess(current);
    },
  };
}
