import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { loopbackFor, type Route, type RouteTable, type RouteUpstream, type TlsCertificate } from '@launchbay/edge-protocol';
import { GENERATION_PATH, type NginxPaths, renderNginxConfig } from './render';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Changes that come together (a deploy switches several routes) make one reload. */
const DEBOUNCE_MS = 30;
const READY_TIMEOUT_MS = 10_000;
/** How often the driver looks that nginx's master is still there. */
const WATCH_MS = 1000;

export type NginxDriverOptions = {
  /** The nginx program (`nginx` on the PATH unless NGINX_BINARY says otherwise). */
  binary: string;
  /** DATA_DIR/edge/nginx: the configuration, pid file, logs and temp folders. */
  dir: string;
  listenHost: string;
  httpPort: number;
  httpsPort: number | null;
  fallbackPort: number;
  accessLog: boolean;
  table: () => RouteTable;
  certificates: () => TlsCertificate[];
  usable: (route: Route, upstream: RouteUpstream) => boolean;
  log: (message: string) => void;
  /** nginx's worker processes (`auto`: one per core). */
  workerProcesses?: number | 'auto';
};

export function nginxPaths(dir: string): NginxPaths & { config: string; next: string; position: string } {
  return {
    prefix: dir,
    config: path.join(dir, 'nginx.conf'),
    next: path.join(dir, 'nginx.conf.next'),
    pid: path.join(dir, 'nginx.pid'),
    errorLog: path.join(dir, 'error.log'),
    accessLog: path.join(dir, 'access.log'),
    position: path.join(dir, 'access.position'),
    temp: path.join(dir, 'temp'),
  };
}

function run(binary: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(binary, args, { timeout: 30_000 }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`.trim();
      resolve({ ok: !error, output: output || (error ? error.message : '') });
    });
  });
}

/** The nginx master this folder's pid file names, when it is alive and really nginx with this prefix. */
export function runningNginxMaster(dir: string, known: number | null = null): number | null {
  const paths = nginxPaths(dir);
  let pid: number;
  try {
    pid = Number.parseInt(fs.readFileSync(paths.pid, 'utf8'), 10);
  } catch {
    // The folder is gone (deleted under a running edge): the master this edge last knew, if it still is one.
    if (known === null) return null;
    pid = known;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    return command.includes('nginx: master') && command.includes(dir) ? pid : null;
  } catch {
    return null;
  }
}

/** The worker processes of an nginx master (by /proc: their parent is the master). */
function workersOf(master: number): number[] {
  const workers: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === master) workers.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return workers;
}

/** Waits (at most a few seconds) until each of these workers has ended or says it is shutting down. */
async function awaitLeaving(workers: number[]): Promise<void> {
  const leaving = (pid: number) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('shutting down');
    } catch {
      return true;
    }
  };
  for (const deadline = Date.now() + 5000; Date.now() < deadline && !workers.every(leaving); ) await sleep(5);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Stops the nginx of this folder: gracefully (requests in flight finish) for up to `graceMs`, then at once. */
export async function stopNginx(dir: string, graceMs = 3000, known: number | null = null): Promise<void> {
  const pid = runningNginxMaster(dir, known);
  if (!pid) return;
  process.kill(pid, 'SIGQUIT');
  for (const deadline = Date.now() + graceMs; Date.now() < deadline && alive(pid); ) await sleep(20);
  if (alive(pid)) process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && alive(pid); i++) await sleep(20);
}

/**
 * The nginx edge driver: nginx serves the traffic, and this keeps its configuration in step with the
 * route table. Every change is rendered, checked with `nginx -t`, and only then put in place and
 * loaded with a reload (SIGHUP: new workers take new connections, the old ones finish what they
 * have, so no request is dropped). A configuration nginx refuses is never loaded: the last good one
 * keeps serving and the reason is kept for the identity answer. nginx runs as a daemon of its own,
 * so it keeps serving while the edge process restarts, and the next edge adopts it by its pid file.
 */
export class NginxDriver {
  readonly paths: ReturnType<typeof nginxPaths>;
  #generation = 0;
  /** The route table version nginx serves (its reload is confirmed). */
  #servedVersion = 0;
  #error: string | null = null;
  #timer: NodeJS.Timeout | undefined;
  #applying: Promise<void> | null = null;
  #again = false;
  #waiters: { version: number; resolve: () => void }[] = [];
  #stopped = false;
  /** The master and workers as last seen: to stop nginx when its folder is gone, and to clear workers a killed master left. */
  #master: number | null = null;
  #workers: number[] = [];
  #watchdog: NodeJS.Timeout | undefined;

  constructor(private readonly options: NginxDriverOptions) {
    this.paths = nginxPaths(options.dir);
  }

  get servedVersion(): number {
    return this.#servedVersion;
  }

  /** Why the last configuration was not loaded, null when it was. */
  get error(): string | null {
    return this.#error;
  }

  /** nginx's version line, or null when it is not installed. */
  static async version(binary: string): Promise<string | null> {
    const answer = await run(binary, ['-v']);
    return answer.ok ? (answer.output.match(/nginx\/[\d.]+/)?.[0] ?? answer.output) : null;
  }

  /**
   * Writes the first configuration and starts nginx with it, or adopts the nginx a previous edge left
   * running. An adopted nginx keeps the configuration it runs until the route table has been loaded
   * (`keepRunningConfig`): reloading it with the empty table the edge starts with would take every
   * app offline for a moment.
   */
  start(options: { keepRunningConfig?: boolean } = {}): Promise<void> {
    return this.#oneAtATime(() => this.#start(options));
  }

  async #start({ keepRunningConfig = false }: { keepRunningConfig?: boolean }): Promise<void> {
    fs.mkdirSync(this.paths.temp, { recursive: true, mode: 0o700 });
    const adopted = runningNginxMaster(this.options.dir);
    if (adopted && keepRunningConfig && this.options.table().version === 0) {
      this.options.log(`adopting the running nginx (pid ${adopted}); its configuration stays until the route table is loaded`);
      this.#seen();
      return;
    }
    const generation = await this.#render();
    if (generation === null) throw new Error(`nginx refuses its configuration: ${this.#error}`);
    if (adopted) {
      this.options.log(`adopting the running nginx (pid ${adopted})`);
      process.kill(adopted, 'SIGHUP');
    } else {
      const started = await run(this.options.binary, this.#args());
      if (!started.ok) throw new Error(`nginx did not start: ${started.output}`);
    }
    await this.#awaitGeneration(generation);
    this.#seen();
    this.#served(this.options.table().version);
  }

  /** Notes the running master and its workers. */
  #seen(): void {
    this.#master = runningNginxMaster(this.options.dir, this.#master);
    this.#workers = this.#master ? workersOf(this.#master) : [];
  }

  /**
   * Brings nginx back when its master is gone (killed by hand or by the OOM killer): workers it left
   * behind still hold the ports with the old configuration, so they are ended first.
   */
  watch(): void {
    this.#watchdog = setInterval(() => {
      if (this.#stopped || this.#applying) return;
      if (runningNginxMaster(this.options.dir, this.#master)) return;
      if (this.#master !== null) this.options.log(`nginx (pid ${this.#master}) is gone; starting it again`);
      for (const worker of this.#workers) {
        try {
          if (fs.readFileSync(`/proc/${worker}/cmdline`, 'utf8').startsWith('nginx: worker')) process.kill(worker, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      this.#master = null;
      this.schedule();
    }, WATCH_MS);
    this.#watchdog.unref();
  }

  #args(): string[] {
    return ['-p', this.paths.prefix, '-c', this.paths.config, '-e', this.paths.errorLog];
  }

  /** Renders and checks the configuration; puts it in place and answers its generation, or null (the reason in `error`). */
  async #render(): Promise<number | null> {
    // With the clock in it, a generation never repeats one an earlier edge gave the nginx it adopts.
    const generation = Date.now() * 1000 + (++this.#generation % 1000);
    const text = renderNginxConfig({
      table: this.options.table(),
      generation,
      listenHost: this.options.listenHost,
      httpPort: this.options.httpPort,
      httpsPort: this.options.httpsPort,
      fallbackPort: this.options.fallbackPort,
      certificates: this.options.certificates(),
      usable: this.options.usable,
      paths: this.paths,
      accessLog: this.options.accessLog,
      ...(this.options.workerProcesses ? { workerProcesses: this.options.workerProcesses } : {}),
      user: process.getuid?.() === 0 ? 'root root' : null,
    });
    fs.writeFileSync(this.paths.next, text, { mode: 0o600 });
    const test = await run(this.options.binary, [
      '-t',
      '-q',
      '-p',
      this.paths.prefix,
      '-c',
      this.paths.next,
      '-e',
      this.paths.errorLog,
    ]);
    if (!test.ok) {
      const reason = test.output.split('\n').find((line) => /\[emerg\]|\[crit\]|failed/.test(line)) ?? test.output;
      if (reason !== this.#error)
        this.options.log(`nginx refuses the new configuration; the last good one keeps serving: ${reason}`);
      this.#error = reason;
      return null;
    }
    fs.renameSync(this.paths.next, this.paths.config);
    this.#error = null;
    return generation;
  }

  /** Applies the current table (and health) soon; changes that come together make one reload. */
  schedule(): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      if (this.#applying) {
        this.#again = true;
        return;
      }
      void this.#oneAtATime(() => this.#apply());
    }, DEBOUNCE_MS);
  }

  /**
   * The start and each apply render into the same files and signal the same nginx: one at a time.
   * A table that changed while the start rendered (the edge loads it meanwhile) once had its apply
   * rename the checked file away under the start's `nginx -t` ("open() failed"), so the edge never
   * started. A change that comes during either is applied right after. Work asked for while other
   * work runs waits for it, whoever asks.
   */
  #oneAtATime(work: () => Promise<void>): Promise<void> {
    const running = (this.#applying ?? Promise.resolve()).then(work).finally(() => {
      if (this.#applying === settled) this.#applying = null;
      if (this.#again) {
        this.#again = false;
        this.schedule();
      }
    });
    const settled = running.catch(() => undefined);
    this.#applying = settled;
    return running;
  }

  async #apply(): Promise<void> {
    const version = this.options.table().version;
    try {
      const generation = await this.#render();
      if (generation === null) return;
      const master = runningNginxMaster(this.options.dir);
      const oldWorkers = master ? workersOf(master) : [];
      if (master) process.kill(master, 'SIGHUP');
      else {
        // nginx went away under the edge (the watchdog said so): bring it back with the new configuration.
        const started = await run(this.options.binary, this.#args());
        if (!started.ok) throw new Error(`nginx did not start: ${started.output}`);
      }
      await this.#awaitGeneration(generation);
      // Until the old workers leave, they still take requests on the connections they hold.
      await awaitLeaving(oldWorkers);
      this.#seen();
      this.#served(version);
    } catch (error) {
      const reason = (error as Error).message;
      // Said once per reason: the watchdog tries again every second while nginx cannot start.
      if (reason !== this.#error) this.options.log(`could not load the new nginx configuration: ${reason}`);
      this.#error = reason;
    }
  }

  #served(version: number): void {
    this.#servedVersion = Math.max(this.#servedVersion, version);
    for (const waiter of [...this.#waiters]) {
      if (waiter.version > this.#servedVersion) continue;
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  /** Resolves once nginx serves route table `version` (or a later one). */
  served(version: number): Promise<void> {
    if (version <= this.#servedVersion) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ version, resolve }));
  }

  /** New connections are taken by workers of the new configuration once nginx answers its generation. */
  async #awaitGeneration(generation: number): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if ((await this.#askGeneration()) === generation) return;
      await sleep(10);
    }
    throw new Error(`nginx did not load its new configuration within ${READY_TIMEOUT_MS / 1000} s; see ${this.paths.errorLog}`);
  }

  #askGeneration(): Promise<number | null> {
    return new Promise((resolve) => {
      const request = http.get(
        {
          host: loopbackFor(this.options.listenHost),
          port: this.options.httpPort,
          path: GENERATION_PATH,
          headers: { host: 'launchbay-edge.invalid' },
          agent: false,
          timeout: 1000,
        },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            body += chunk;
          });
          response.on('end', () => resolve(response.statusCode === 200 ? Number(body) : null));
        },
      );
      request.on('timeout', () => request.destroy());
      request.on('error', () => resolve(null));
    });
  }

  /** Has nginx open its logs again (after the access log was moved aside). */
  reopenLogs(): void {
    const master = runningNginxMaster(this.options.dir);
    if (master) process.kill(master, 'SIGUSR1');
  }

  /** Stops applying changes; with `nginx`, nginx too (gracefully). */
  async stop({ nginx = false } = {}): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#watchdog);
    await this.#applying;
    if (nginx) await stopNginx(this.options.dir, 3000, this.#master);
  }
}
