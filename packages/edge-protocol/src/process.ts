/**
 * How the control plane and the edge agree on which process owns a data folder's edge: the edge
 * records itself in a state file, the control plane adopts the process only when the pid, the
 * process's start time and an answer over HTTP all match, so a stranger that got the pid after a
 * reboot or a crash is never adopted (nor signalled).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

/** Files of the edge, all inside `DATA_DIR/edge/`. */
export function edgePaths(dataDir: string) {
  const dir = path.join(dataDir, 'edge');
  return {
    dir,
    /** Written by the edge: who it is, where it listens (EdgeState). Also the one-edge-per-folder lock. */
    state: path.join(dir, 'state.json'),
    /** Written by the control plane: how to reach the database (EdgeDatabase); re-read on every reconnect. */
    database: path.join(dir, 'database.json'),
    /** The edge's stdout and stderr: it outlives the control plane, so it cannot log through it. */
    log: path.join(dir, 'edge.log'),
  };
}

export type EdgeState = {
  pid: number;
  /** The process's start time in clock ticks since boot (/proc/PID/stat), null where there is no /proc. */
  processStart: string | null;
  /** A random id the control plane gave this edge when it spawned it; the identity answer repeats it. */
  instanceId: string;
  /** `starting` while the edge holds the lock but does not listen yet. */
  status: 'starting' | 'ready';
  host: string;
  port: number | null;
  /** The HTTPS port (SNI), null while not listening. */
  tlsPort?: number | null;
  startedAt: string;
  protocolVersion: number;
  /** Who serves the traffic: the edge itself, or nginx configured by it (absent: written before drivers, embedded). */
  driver?: EdgeDriver;
};

/** `embedded`: the Node proxy of apps/edge; `nginx`: nginx, configured and reloaded by the edge process. */
export type EdgeDriver = 'embedded' | 'nginx';
export const EDGE_DRIVERS: readonly EdgeDriver[] = ['embedded', 'nginx'];

/** 2: routes carry a target (upstreams or a static folder) and a state. 3: proxy-log rows, health checks. 4: drivers. */
export const EDGE_PROTOCOL_VERSION = 4;

/** The connection the edge uses for its route table and proxy-log rows (plain JSON: a URL, or a pg-style config whose host may be a Unix socket directory). */
export type EdgeDatabase =
  | { connectionString: string }
  | { host: string; port: number; user: string; password: string; database: string };

/**
 * The request a control plane sends to the edge's own port to learn who answers. Only a request
 * that carries the instance id in this header gets the identity; any other request is traffic.
 */
export const IDENTITY_PATH = '/.launchbay/edge';
/** The environment variable that carries the instance id into the edge (and shows it in /proc/PID/environ). */
export const EDGE_INSTANCE_ENV = 'LAUNCHBAY_EDGE_INSTANCE';
export const IDENTITY_HEADER = 'x-launchbay-edge-instance';

export type EdgeIdentity = {
  pid: number;
  instanceId: string;
  port: number;
  tlsPort?: number | null;
  /** Certificates the edge could load and serves (by fingerprint). */
  certificates?: string[];
  routes: number;
  routeTableVersion: number;
  database: 'connected' | 'disconnected';
  /** Proxy-log rows waiting for the database, dropped (buffer full) and written since the edge started. */
  /** `waiting`: rows are kept back while the edge is saturated (its pacer). */
  proxyLog?: { buffered: number; dropped: number; written: number; waiting?: boolean };
  driver?: EdgeDriver;
  /** With nginx: why its last configuration was not loaded (the previous one keeps serving); null when it was. */
  driverError?: string | null;
  /** The embedded edge's processes serving now: 1, or more while a load saturates one (its workers). */
  processes?: number;
};

/** Exit codes of the edge process (its log says why, too). */
export const EDGE_EXIT = {
  badConfig: 2,
  /** Another live edge holds this data folder: adopt that one instead. */
  alreadyRunning: 3,
  portInUse: 4,
} as const;

export function parseEdgeState(text: string): EdgeState | null {
  try {
    const raw = JSON.parse(text) as Partial<EdgeState>;
    if (!Number.isInteger(raw.pid) || (raw.pid ?? 0) <= 0 || typeof raw.instanceId !== 'string') return null;
    if (raw.status !== 'starting' && raw.status !== 'ready') return null;
    if (raw.port !== null && !(Number.isInteger(raw.port) && (raw.port ?? -1) >= 0)) return null;
    return {
      pid: raw.pid as number,
      processStart: typeof raw.processStart === 'string' ? raw.processStart : null,
      instanceId: raw.instanceId,
      status: raw.status,
      host: typeof raw.host === 'string' ? raw.host : '127.0.0.1',
      port: raw.port ?? null,
      ...(Number.isInteger(raw.tlsPort) ? { tlsPort: raw.tlsPort as number } : {}),
      startedAt: typeof raw.startedAt === 'string' ? raw.startedAt : '',
      protocolVersion: typeof raw.protocolVersion === 'number' ? raw.protocolVersion : 0,
      driver: raw.driver === 'nginx' ? 'nginx' : 'embedded',
    };
  } catch {
    return null;
  }
}

export function readEdgeState(file: string): EdgeState | null {
  try {
    return parseEdgeState(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** The fields of /proc/PID/stat after the command (which may hold spaces and parentheses). */
function procStat(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The start time of a process (field 22 of /proc/PID/stat), or null without /proc or without the process. */
export function processStartTime(pid: number): string | null {
  return procStat(pid)?.[19] ?? null;
}

/**
 * Whether `pid` is running and still the process that was recorded (same start time, where /proc
 * tells it). A zombie counts as gone: it no longer serves anything, its parent just did not reap it yet.
 */
export function isSameProcessAlive(pid: number, processStart: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(pid);
  if (!stat) return !fs.existsSync('/proc/self/stat'); // no /proc on this OS: the signal test is all there is
  if (stat[0] === 'Z' || stat[0] === 'X') return false;
  return processStart === null || stat[19] === processStart;
}

/** Writes a file whole or not at all (temp file, then rename), readable by the owner only. */
export function writeFileAtomic(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, text, { mode: 0o600 });
  fs.renameSync(temp, file);
}

/**
 * Whether the process was started with this instance id in its environment: true or false where
 * /proc tells it (a process of another user cannot be read, so it is not ours), null where there is no /proc.
 */
export function processCarriesInstance(pid: number, instanceId: string): boolean | null {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${EDGE_INSTANCE_ENV}=${instanceId}`);
  } catch {
    return fs.existsSync('/proc/self/environ') ? false : null;
  }
}

/** The edge recorded in the state file is alive and is that edge (not a stranger that got its pid). */
export function isRecordedEdgeAlive(state: EdgeState): boolean {
  return isSameProcessAlive(state.pid, state.processStart) && processCarriesInstance(state.pid, state.instanceId) !== false;
}

/** The loopback address to reach a listener bound to `host`. */
export function loopbackFor(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '::1';
  return host.replace(/^\[|\]$/g, '');
}

/** Asks whoever listens on the recorded port who it is; null when nothing (or something else) answers. */
export function askEdgeIdentity(state: EdgeState, timeoutMs = 1000): Promise<EdgeIdentity | null> {
  const port = state.port;
  if (!port) return Promise.resolve(null);
  return new Promise((resolve) => {
    const request = http.get(
      {
        host: loopbackFor(state.host),
        port,
        path: IDENTITY_PATH,
        headers: { [IDENTITY_HEADER]: state.instanceId, host: 'launchbay-edge.invalid' },
        timeout: timeoutMs,
        agent: false,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (body.length < 10_000) body += chunk;
        });
        response.on('end', () => {
          try {
            const identity = JSON.parse(body) as EdgeIdentity;
            resolve(
              response.statusCode === 200 && identity.pid === state.pid && identity.instanceId === state.instanceId
                ? identity
                : null,
            );
          } catch {
            resolve(null);
          }
        });
        response.on('error', () => resolve(null));
      },
    );
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(null));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Stops the edge of a data folder, found by its state file (SIGTERM, then SIGKILL after
 * `timeoutMs`). Never signals a process that is not that edge. Resolves to the pid it stopped, or null.
 */
export async function stopEdgeOf(dataDir: string, timeoutMs = 5000): Promise<number | null> {
  const state = readEdgeState(edgePaths(dataDir).state);
  if (!state || !isRecordedEdgeAlive(state)) return null;
  return stopEdgeProcess(state, timeoutMs);
}

export async function stopEdgeProcess(state: EdgeState, timeoutMs = 5000): Promise<number> {
  const gone = () => !isSameProcessAlive(state.pid, state.processStart);
  try {
    process.kill(state.pid, 'SIGTERM');
  } catch {
    return state.pid;
  }
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline && !gone(); ) await sleep(20);
  if (!gone()) {
    try {
      process.kill(state.pid, 'SIGKILL');
    } catch {
      // ended in between
    }
    for (let i = 0; i < 100 && !gone(); i++) await sleep(20);
  }
  return state.pid;
}
