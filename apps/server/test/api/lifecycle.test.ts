import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ExternalPostgres, startExternalPostgres } from '@launchbay/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { MigrationError, runMigrations } from '../../src/db/migrate';
import { apiClient } from '../helpers/api';
import {
  type ChildPlatform,
  cleanUpChildren,
  ensureBuilt,
  MAIN_JS,
  SERVER_DIR,
  spawnPlatform,
  startChildPlatform,
} from '../helpers/child-platform';
import { freshExternalDatabase } from '../helpers/platform';

/**
 * The platform as a separate process (dist/main.js): first start, restarts, kill -9, a failed
 * upgrade. In the external mode every data folder gets a fresh database on the external server.
 */
const externalMode = inject('externalPostgresUrl') !== null;
const EMAIL = 'owner@example.com';
const PASSWORD = 'first-start-password';
const quiet = { info() {}, warn() {}, debug() {} };

const dataDirs: string[] = [];
const tempDirs: string[] = [];

beforeAll(() => ensureBuilt(), 120_000);
afterAll(async () => {
  await cleanUpChildren(dataDirs);
  for (const dir of [...dataDirs, ...tempDirs]) fs.rmSync(dir, { recursive: true, force: true });
  // The folder for build copies, once no other copy is in it.
  try {
    fs.rmdirSync(path.join(SERVER_DIR, '.tmp'));
  } catch {
    // Not there, or something else is in it: leave it.
  }
});

/** A data folder (and, in the external mode, a database) for one platform installation. */
async function installation(extra: Record<string, string> = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-life-'));
  dataDirs.push(dataDir);
  const databaseUrl = await freshExternalDatabase();
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...extra,
  };
  return { dataDir, databaseUrl, env };
}

/** A pool on the installation's database, for looking at what a stopped platform left behind. */
async function inspect<T>(dataDir: string, databaseUrl: string | undefined, look: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const embedded = databaseUrl ? undefined : await startEmbeddedPostgres(dataDir, quiet);
  const pool = new pg.Pool(embedded ? embedded.connection : { connectionString: databaseUrl });
  // A connection still closing when the embedded server stops reports 57P01 as an 'error' event: expected.
  pool.on('error', () => undefined);
  try {
    return await look(pool);
  } finally {
    await pool.end();
    await embedded?.stop();
  }
}

/** The pids whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        // The command may contain spaces and parentheses: the parent pid is the 2nd field after the last ')'.
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false; // the process ended while we looked
      }
    })
    .map(Number);
}

async function signIn(platform: ChildPlatform, email: string, password: string) {
  return apiClient(platform.url).call<{ token?: string; detail?: string }>('POST', '/auth/login', { body: { email, password } });
}

describe('first start and restarts', () => {
  it('the first start creates the admin from ADMIN_EMAIL/ADMIN_PASSWORD and prints the URL; a restart resets nothing', async () => {
    const { env } = await installation({ ADMIN_EMAIL: EMAIL, ADMIN_PASSWORD: PASSWORD });
    const first = await startChildPlatform(env);
    const out = first.output();
    expect(out).toContain(`Launchbay v1.0.0 is ready at http://localhost:${first.port}`);
    expect(out).toContain(`First admin account created: ${EMAIL}`);
    expect(out).toContain('Password: the one you gave in ADMIN_PASSWORD');
    expect(out).toContain(`Open http://localhost:${first.port} to sign in.`);
    expect(out).not.toContain(PASSWORD);
    expect(out).toContain(externalMode ? '(PostgreSQL from DATABASE_URL' : '(embedded PostgreSQL in ');
    const token = (await signIn(first, EMAIL, PASSWORD)).body.token;
    expect(token).toMatch(/^lbs_/);
    // The admin changes the password in the console; a restart must keep that change.
    const changed = await apiClient(first.url).call('PATCH', '/users/me', {
      token,
      body: { current_password: PASSWORD, new_password: 'changed-in-console' },
    });
    expect(changed.status).toBe(200);
    expect(await first.stop()).toEqual({ code: 0, signal: null });
    expect(first.output()).toContain('SIGTERM received: stopping Launchbay');

    // Same environment (ADMIN_PASSWORD still set) and a different one: neither resets the password.
    for (const restartEnv of [env, { ...env, ADMIN_PASSWORD: 'another-password-entirely' }]) {
      const again = await startChildPlatform(restartEnv);
      expect(again.output()).toContain('is ready at');
      expect(again.output()).not.toContain('First admin account created');
      expect(again.output()).not.toMatch(/Password/);
      expect((await signIn(again, EMAIL, 'changed-in-console')).status).toBe(200);
      expect((await signIn(again, EMAIL, PASSWORD)).status).toBe(401);
      expect((await signIn(again, EMAIL, 'another-password-entirely')).status).toBe(401);
      expect((await again.stop()).code).toBe(0);
    }
  }, 120_000);

  it('without ADMIN_PASSWORD the generated password is printed once, and it works', async () => {
    const { env } = await installation();
    const first = await startChildPlatform(env);
    expect(first.output()).toContain('First admin account created: admin@launchbay.local');
    const password = first.output().match(/Password \(shown only this once, change it under Account\): (\S+)/)?.[1];
    expect(password).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect((await signIn(first, 'admin@launchbay.local', password ?? '')).status).toBe(200);
    await first.stop();

    const again = await startChildPlatform(env);
    expect(again.output()).not.toContain(password ?? '');
    expect(again.output()).not.toContain('First admin account created');
    expect((await signIn(again, 'admin@launchbay.local', password ?? '')).status).toBe(200);
    await again.stop();
  }, 120_000);

  it('a DATA_DIR inside a private folder: a clear message when the database user cannot reach it, else a normal start', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-private-'));
    tempDirs.push(parent);
    fs.chmodSync(parent, 0o700); // like /root
    const databaseUrl = await freshExternalDatabase();
    const env: Record<string, string> = {
      DATA_DIR: path.join(parent, 'data'),
      ADMIN_EMAIL: EMAIL,
      ADMIN_PASSWORD: PASSWORD,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    };
    if (!databaseUrl && process.getuid?.() === 0) {
      // As root the embedded server runs as "postgres", which cannot enter the private folder.
      const platform = await spawnPlatform(env);
      expect((await platform.exited).code).toBe(1);
      const out = platform.output();
      expect(out).toContain('Launchbay could not start: The embedded PostgreSQL server runs as the "postgres" user');
      expect(out).toContain(`cannot enter ${parent} on the way to ${env.DATA_DIR}`);
      expect(out).toContain('set DATABASE_URL');
      expect(fs.existsSync(path.join(parent, 'data', 'postgres'))).toBe(false);
    } else {
      // With DATABASE_URL (or as an ordinary user) nothing else needs to reach the folder.
      const platform = await startChildPlatform(env);
      expect(await apiClient(platform.url).login(EMAIL, PASSWORD)).toMatch(/^lbs_/);
      expect((await platform.stop()).code).toBe(0);
    }
  }, 60_000);

  it('a bad configuration stops the start with a message naming the variable', async () => {
    const { env } = await installation({ ACCESS_MODE: 'sideways' });
    const platform = await spawnPlatform(env);
    const exit = await platform.exited;
    expect(exit.code).toBe(1);
    expect(platform.output()).toMatch(/Invalid configuration:\n\s+ACCESS_MODE: /);
  }, 60_000);
});

describe('kill -9 in the middle of requests', () => {
  type UserRow = { email: string; roles: string[] };

  /** Creates users from 8 concurrent clients, and kills the platform with SIGKILL once 25 were answered 201. */
  async function writeThenKill(platform: ChildPlatform, admin: string, prefix: string) {
    const api = apiClient(platform.url);
    const created: string[] = [];
    const failedInFlight: string[] = [];
    let killed = false;
    let sequence = 0;
    const worker = async () => {
      while (!killed) {
        const email = `${prefix}-${++sequence}@example.com`;
        try {
          const response = await api.call('POST', '/users', {
            token: admin,
            body: { username: `Crash ${sequence}`, email, password: 'crash-test-password', roles: ['user', 'reader'] },
          });
          if (response.status === 201) created.push(email);
          else throw new Error(`unexpected ${response.status} ${JSON.stringify(response.body)}`);
        } catch (error) {
          if (!killed) throw error;
          failedInFlight.push(email);
        }
      }
    };
    let failure: unknown;
    const workers = Array.from({ length: 8 }, () =>
      worker().catch((error: unknown) => {
        failure ??= error;
      }),
    );
    const deadline = Date.now() + 60_000;
    while (created.length < 25 && failure === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(failure).toBeUndefined();
    expect(created.length).toBeGreaterThanOrEqual(25);
    killed = true;
    platform.child.kill('SIGKILL');
    await Promise.all(workers);
    expect(await platform.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // Requests were in flight when the process died.
    expect(failedInFlight.length).toBeGreaterThan(0);
    return { created, failedInFlight };
  }

  /** Every user answered 201 is there, whole (both roles: one transaction per user), and can sign in. */
  async function expectIntact(platform: ChildPlatform, prefix: string, run: { created: string[]; failedInFlight: string[] }) {
    const api = apiClient(platform.url);
    const token = await api.login(EMAIL, PASSWORD);
    const list = await api.call<{ users: UserRow[] }>('GET', '/users', { token });
    expect(list.status).toBe(200);
    const emails = new Set(list.body.users.map((u) => u.email));
    expect(run.created.filter((email) => !emails.has(email))).toEqual([]);
    const crashUsers = list.body.users.filter((u) => u.email.startsWith(`${prefix}-`));
    expect(crashUsers.length).toBeGreaterThanOrEqual(run.created.length);
    expect(crashUsers.length).toBeLessThanOrEqual(run.created.length + run.failedInFlight.length);
    for (const user of crashUsers) expect(user.roles, user.email).toEqual(['reader', 'user']);
    expect(await api.login(run.created[run.created.length - 1] ?? '', 'crash-test-password')).toMatch(/^lbs_/);
    return list.body.users.length;
  }

  it('the next start comes up on the same data with every row that was answered 201', async () => {
    const { dataDir, env } = await installation({ ADMIN_EMAIL: EMAIL, ADMIN_PASSWORD: PASSWORD });
    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    const first = await startChildPlatform(env);
    const admin = await apiClient(first.url).login(EMAIL, PASSWORD);

    // 1. Only the platform dies: its embedded database lives on as an orphan.
    const one = await writeThenKill(first, admin, 'crash-one');
    let orphan: number | undefined;
    if (!externalMode) {
      orphan = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
      expect(() => process.kill(orphan ?? 0, 0)).not.toThrow();
    }
    const second = await startChildPlatform(env);
    if (!externalMode) {
      expect(second.output()).toContain(`Found the embedded database still running from an earlier start (pid ${orphan})`);
      expect(() => process.kill(orphan ?? 0, 0)).toThrow();
    }
    const countAfterOne = await expectIntact(second, 'crash-one', one);
    // The session from before the crash survived too: sessions are rows like any other.
    expect((await apiClient(second.url).call('GET', '/user/me', { token: admin })).status).toBe(200);

    // 2. A power cut: the platform and its database both die at once.
    const two = await writeThenKill(second, admin, 'crash-two');
    if (!externalMode) {
      const postmaster = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
      process.kill(postmaster, 'SIGKILL');
      while (fs.existsSync(`/proc/${postmaster}`)) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(fs.existsSync(pidFile)).toBe(true);
    }
    const third = await startChildPlatform(env);
    if (!externalMode) expect(third.output()).toContain('Removing a stale postmaster.pid left by an earlier start');
    const countAfterTwo = await expectIntact(third, 'crash-two', two);
    expect(countAfterTwo).toBeGreaterThanOrEqual(countAfterOne + two.created.length);
    await expectIntact(third, 'crash-one', one);
    expect((await third.stop()).code).toBe(0);
  }, 120_000);
});

describe('a failing migration', () => {
  function writeMigrations(dir: string, migrations: [string, string][]) {
    fs.mkdirSync(path.join(dir, 'meta'), { recursive: true });
    const entries = migrations.map(([tag], idx) => ({
      idx,
      version: '7',
      when: 1_700_000_000_000 + idx,
      tag,
      breakpoints: true,
    }));
    fs.writeFileSync(path.join(dir, 'meta', '_journal.json'), JSON.stringify({ version: '7', dialect: 'postgresql', entries }));
    for (const [tag, sql] of migrations) fs.writeFileSync(path.join(dir, `${tag}.sql`), sql);
  }

  /** A fresh, empty database of the mode: a new database on the external server, or a new embedded server. */
  async function freshPool(): Promise<{ pool: pg.Pool; close(): Promise<void> }> {
    const url = await freshExternalDatabase();
    if (url) {
      const pool = new pg.Pool({ connectionString: url });
      return { pool, close: () => pool.end() };
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-migrate-'));
    dataDirs.push(dir);
    const embedded = await startEmbeddedPostgres(dir, quiet);
    const pool = new pg.Pool(embedded.connection);
    // A connection still closing when the server stops reports 57P01 as an 'error' event: expected here.
    pool.on('error', () => undefined);
    return {
      pool,
      async close() {
        await pool.end();
        await embedded.stop();
      },
    };
  }

  const tables = async (pool: pg.Pool) =>
    (await pool.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map(
      (r) => r.t,
    );

  it('runMigrations rolls the failing migration back whole and names it', async () => {
    const { pool, close } = await freshPool();
    try {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-migrations-'));
      tempDirs.push(dir);
      const good = 'CREATE TABLE second_table (id integer);\n--> statement-breakpoint\nINSERT INTO first_table VALUES (1);';
      writeMigrations(dir, [
        ['0000_first', 'CREATE TABLE first_table (id integer);'],
        ['0001_second', `${good}\n--> statement-breakpoint\nSELECT * FROM table_that_does_not_exist;`],
      ]);
      const failure = await runMigrations(pool, dir).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(MigrationError);
      expect((failure as Error).message).toMatch(
        /^Database migration 0001_second failed: relation "table_that_does_not_exist" does not exist\. It was rolled back/,
      );
      // The first migration stays applied; the second left nothing behind, not even its good statements.
      expect(await tables(pool)).toEqual(['first_table', 'launchbay_migrations']);
      expect((await pool.query('SELECT count(*)::int AS n FROM first_table')).rows[0].n).toBe(0);
      expect((await pool.query('SELECT tag FROM launchbay_migrations')).rows).toEqual([{ tag: '0000_first' }]);

      // Once fixed, the next start applies it, and a start after that applies nothing.
      fs.writeFileSync(path.join(dir, '0001_second.sql'), good);
      expect(await runMigrations(pool, dir)).toEqual(['0001_second']);
      expect(await tables(pool)).toEqual(['first_table', 'launchbay_migrations', 'second_table']);
      expect(await runMigrations(pool, dir)).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);

  it('two nodes starting at once apply each migration exactly once', async () => {
    const { pool, close } = await freshPool();
    const other = new pg.Pool(pool.options);
    // pg-pool's end() resolves before its connections have closed: one still closing when the server
    // stops reports 57P01 as an 'error' event (seen on Node 24). Expected here.
    other.on('error', () => undefined);
    try {
      const [a, b] = await Promise.all([runMigrations(pool), runMigrations(other)]);
      const all = [...a, ...b].sort();
      expect(new Set(all).size).toBe(all.length);
      const journal = JSON.parse(fs.readFileSync(path.join(SERVER_DIR, 'src/db/migrations/meta/_journal.json'), 'utf8'));
      expect(all).toEqual(journal.entries.map((e: { tag: string }) => e.tag).sort());
      expect(await tables(pool)).toContain('users');
    } finally {
      await other.end();
      await close();
    }
  }, 60_000);

  it('the platform stops with a clear message and leaves the data as it was', async () => {
    // A copy of the build whose migrations folder has one more, broken migration (beside the
    // server so that its npm packages resolve as they do for dist/main.js).
    const copy = path.join(SERVER_DIR, '.tmp', `lifecycle-${randomBytes(4).toString('hex')}`);
    tempDirs.push(copy);
    fs.mkdirSync(copy, { recursive: true });
    // main.js and its chunks (the build splits the platform's code off main.js).
    for (const file of fs.readdirSync(path.dirname(MAIN_JS)).filter((name) => name.endsWith('.js'))) {
      fs.copyFileSync(path.join(path.dirname(MAIN_JS), file), path.join(copy, file));
    }
    fs.cpSync(path.join(path.dirname(MAIN_JS), 'migrations'), path.join(copy, 'migrations'), { recursive: true });
    const journalPath = path.join(copy, 'migrations', 'meta', '_journal.json');
    const journal = JSON.parse(fs.readFileSync(journalPath, 'utf8')) as { entries: { idx: number; tag: string }[] };
    const tag = '9999_broken_upgrade';
    journal.entries.push({ ...journal.entries[0], idx: journal.entries.length, tag } as { idx: number; tag: string });
    fs.writeFileSync(journalPath, JSON.stringify(journal));
    fs.writeFileSync(
      path.join(copy, 'migrations', `${tag}.sql`),
      [
        'CREATE TABLE "upgrade_canary" ("id" integer);',
        'ALTER TABLE "users" ADD COLUMN "canary" text;',
        'UPDATE "users" SET "username" = \'overwritten\';',
        'SELECT * FROM "table_that_does_not_exist";',
      ].join('\n--> statement-breakpoint\n'),
    );

    const { dataDir, databaseUrl, env } = await installation({ ADMIN_EMAIL: EMAIL, ADMIN_PASSWORD: PASSWORD });
    const before = await startChildPlatform(env);
    const admin = await apiClient(before.url).login(EMAIL, PASSWORD);
    await apiClient(before.url).userWithRole(admin, 'reader', 'before-upgrade@example.com');
    expect((await before.stop()).code).toBe(0);

    const upgrade = await spawnPlatform(env, { mainJs: path.join(copy, 'main.js') });
    const exit = await upgrade.exited;
    expect(exit.code).toBe(1);
    const out = upgrade.output();
    expect(out).toContain(`Launchbay could not start: Database migration ${tag} failed: relation "table_that_does_not_exist"`);
    expect(out).toContain('It was rolled back: the database is exactly as it was before this start. Launchbay did not start.');
    expect(out).not.toContain('is ready at');

    const state = await inspect(dataDir, databaseUrl, async (pool) => ({
      tables: await tables(pool),
      columns: (
        await pool.query<{ c: string }>("SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'users'")
      ).rows.map((r) => r.c),
      names: (await pool.query<{ username: string }>('SELECT username FROM users ORDER BY id')).rows.map((r) => r.username),
      applied: (await pool.query<{ tag: string }>('SELECT tag FROM launchbay_migrations')).rows.map((r) => r.tag),
    }));
    expect(state.tables).not.toContain('upgrade_canary');
    expect(state.columns).not.toContain('canary');
    expect(state.columns).toContain('email');
    expect(state.names).toEqual(['Admin', 'reader person']);
    expect(state.applied).not.toContain(tag);

    // The previous version starts as before, with every row.
    const after = await startChildPlatform(env);
    const token = await apiClient(after.url).login(EMAIL, PASSWORD);
    const list = await apiClient(after.url).call<{ users: { email: string }[] }>('GET', '/users', { token });
    expect(list.body.users.map((u) => u.email)).toEqual([EMAIL, 'before-upgrade@example.com']);
    await after.stop();
  }, 120_000);
});

describe('with DATABASE_URL', () => {
  let ownServer: ExternalPostgres | undefined;
  afterAll(() => ownServer?.stop());

  it('no embedded server starts: nothing of PostgreSQL in DATA_DIR, and health says external', async () => {
    let databaseUrl = await freshExternalDatabase();
    if (!databaseUrl) {
      // The embedded run has no external server: start a PostgreSQL 15 of its own.
      ownServer = await startExternalPostgres();
      databaseUrl = ownServer.url('postgres');
    }
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-life-'));
    dataDirs.push(dataDir);
    const platform = await startChildPlatform({
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      ADMIN_EMAIL: EMAIL,
      ADMIN_PASSWORD: PASSWORD,
    });
    try {
      expect(platform.output()).toContain('(PostgreSQL from DATABASE_URL');
      const health = await apiClient(platform.url).call('GET', '/health');
      expect(health.body).toMatchObject({ status: 'ok', database: 'external', database_ok: true });
      const entries = fs.readdirSync(dataDir);
      expect(entries).not.toContain('postgres');
      expect(entries).not.toContain('postgres.password');
      expect(entries).not.toContain('run');
      // No process is a child of the platform (the embedded database would be one).
      expect(childrenOf(platform.pid)).toEqual([]);
      expect(await apiClient(platform.url).login(EMAIL, PASSWORD)).toMatch(/^lbs_/);
      // The rows are in the server DATABASE_URL names.
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      const { rows } = await client.query('SELECT email FROM users');
      await client.end();
      expect(rows).toEqual([{ email: EMAIL }]);
    } finally {
      await platform.stop();
    }
  }, 120_000);
});
