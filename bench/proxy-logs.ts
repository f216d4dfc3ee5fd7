/**
 * Proxy-log benchmark (`npm run bench`, or `node bench/build-and-run.mjs --only proxy-logs`), in one run:
 *  - what logging costs the edge: two platforms, one with PROXY_LOG=off, each with one edge process
 *    (EDGE_PROCESSES=1, see main) and deploying the same tiny Node
 *    HTTP server as bench/edge.ts; autocannon at the same 200 connections through each edge (Host
 *    `{slug}.localhost`), a warm-up of each, then interleaved runs (on, off, on, off, ...) and medians of
 *    throughput on / off and p99 of both, with the CPU each side spent per request (/proc); then rounds
 *    with both edges under load at the same time (concurrentRound), whose median throughput ratio is the
 *    target's figure (>= 0.95: logging costs at most 5 %), the machine's drift weighing on both sides
 *    alike. Then the logging platform's proxy_logs must have grown by the
 *    requests autocannon sent (once the edge's batches are flushed), the other one's not at all;
 *  - GET /api/proxy-logs on one million rows: 1,000,000 synthetic rows (one INSERT ... SELECT FROM
 *    generate_series: ~50 hosts with a skew, ~2000 client addresses, mostly 200 with some 3xx/4xx/5xx,
 *    paths under /, /api/ and /assets/, a few projects, spread over the last 7 days) in the logging
 *    platform's embedded database, VACUUM ANALYZE, then each filter of the list (and a keyset page 20
 *    pages deep, and the live tail) through the real API as the admin: p50 / p95 of 50 sequential
 *    requests after 5 warm-ups (target p95 < 100 ms). Each query's SQL is the service's own
 *    (listProxyLogs run against a pool that only records), so its EXPLAIN (ANALYZE, BUFFERS) is the plan
 *    the API gets: it is printed for every query over the target.
 * Results: bench/results/deploy-latest.json (key `proxy_logs`). Options: --quick (3 s load runs, 20
 * requests per query).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { processTree } from '../apps/server/src/engine/runtime/process/proc';
import { readDeploymentRecord, stateFile } from '../apps/server/src/engine/runtime/process/state';
import { listProxyLogs } from '../apps/server/src/modules/proxy-logs/service';
import { edgePaths, readEdgeState } from '../packages/edge-protocol/src/index';
import {
  ALL_CPUS,
  autocannonTogether,
  type BenchPlatform,
  type ChildLoad,
  cpuTicks,
  loadAverage,
  median,
  NODE_PACKAGE_JSON,
  nodeServerJs,
  percentile,
  pinToCpus,
  printTable,
  quick,
  RESULTS_FILE,
  type Row,
  sleep,
  startBenchPlatform,
  TICKS_PER_SECOND,
  TOGETHER_CPUS,
  untilServed,
  waitForDeployment,
  waitSettled,
  writeResults,
} from './deploy';

/** As bench/edge.ts. */
const CONNECTIONS = 200;
const LOAD_SECONDS = quick ? 3 : 8;
const WARMUP_SECONDS = quick ? 2 : 3;
const ROUNDS = quick ? 3 : 5;
const BODY = 'hello from the upstream\n';
/** Logging may cost at most 5 % of the edge's throughput. */
const MIN_RATIO = 0.95;

const ROWS = 1_000_000;
const HOSTS = 50;
const CLIENTS = 2000;
const WARMUP_REQUESTS = 5;
const TIMED_REQUESTS = quick ? 20 : 50;
/** A query slower than the target stops after this long (with at least MIN_TIMED_REQUESTS): the run stays short. */
const QUERY_BUDGET_MS = quick ? 4000 : 6000;
const MIN_TIMED_REQUESTS = 10;
const TARGET_P95_MS = 100;
const DEEP_PAGES = 20;

type Query = Parameters<typeof listProxyLogs>[1];
type ListAnswer = { logs: { id: number }[]; next_cursor: string | null; latest_id: number };

/* ------------------------------------------------------------------------------------------------ */
/* the platforms' databases                                                                          */
/* ------------------------------------------------------------------------------------------------ */

/**
 * The embedded database of a bench platform (apps/server/src/db/embedded.ts): its password is in
 * DATA_DIR/postgres.password, where it listens in PostgreSQL's own postmaster.pid (line 4 the port,
 * line 5 the socket folder, line 6 the TCP address; a long DATA_DIR falls back to a loopback port).
 */
async function connectDatabase(dataDir: string): Promise<pg.Client> {
  const password = fs.readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
  const [, , , port = '', socketDir = '', address = ''] = fs
    .readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')
    .split('\n')
    .map((line) => line.trim());
  const host = socketDir || (address && address !== '*' ? address : '127.0.0.1');
  const db = new pg.Client({ host, port: Number(port), user: 'postgres', password, database: 'launchbay' });
  // A database stopped under it (its platform's close) ends the connection: not this process.
  db.on('error', (error) => console.warn(`  (database connection of ${dataDir}: ${error.message})`));
  await db.connect();
  return db;
}

async function countRows(db: pg.Client): Promise<{ rows: number; dropped: number }> {
  const { rows } = await db.query<{ rows: string; dropped: string }>(
    'SELECT (SELECT count(*) FROM proxy_logs) AS rows, (SELECT coalesce(sum(count), 0) FROM proxy_log_drops) AS dropped',
  );
  return { rows: Number(rows[0]?.rows ?? 0), dropped: Number(rows[0]?.dropped ?? 0) };
}

/**
 * Waits for the edge's buffered rows to reach the table: until `expected` rows are there, or the count
 * has not moved for 4 s (the edge flushes every second, once a burst is over), at most `timeoutMs`.
 */
async function settledCount(
  db: pg.Client,
  expected: number,
  timeoutMs = 10_000,
): Promise<{ rows: number; dropped: number; waitedMs: number }> {
  const t0 = performance.now();
  let last = await countRows(db);
  let since = performance.now();
  while (performance.now() - t0 < timeoutMs && last.rows + last.dropped < expected && performance.now() - since < 4000) {
    await sleep(200);
    const now = await countRows(db);
    if (now.rows !== last.rows || now.dropped !== last.dropped) since = performance.now();
    last = now;
  }
  return { ...last, waitedMs: Math.round(performance.now() - t0) };
}

/* ------------------------------------------------------------------------------------------------ */
/* part 1: the edge with and without logging                                                         */
/* ------------------------------------------------------------------------------------------------ */

type Side = {
  name: 'on' | 'off';
  platform: BenchPlatform;
  db: pg.Client;
  host: string;
  edgeTree: () => number[];
  appTree: () => number[];
};

/** `cpuUsPerRequest`: CPU µs per answered request: the edge's process, the platform's (control plane + PostgreSQL), the app's, autocannon's, their total. */
type Run = ChildLoad & { cpuUsPerRequest: Record<string, number> };

async function deployUpstream(side: Omit<Side, 'host' | 'edgeTree' | 'appTree'>): Promise<Side> {
  const { platform } = side;
  const app = await platform.createProject('Upstream', { 'package.json': NODE_PACKAGE_JSON, 'server.js': nodeServerJs(BODY) });
  await waitForDeployment(platform, app.project.id, app.deploymentId);
  await waitSettled(platform, app.project.id, app.deploymentId);
  await untilServed(platform.edgePort, app.host, BODY);
  const record = readDeploymentRecord(stateFile(path.join(platform.dataDir, 'runtime'), app.deploymentId));
  const appPid = record?.processes.find((x) => x.type === 'web')?.pid;
  const edgePid = readEdgeState(edgePaths(platform.dataDir).state)?.pid;
  return {
    ...side,
    host: app.host,
    edgeTree: () => (edgePid ? processTree(edgePid) : []),
    appTree: () => (appPid ? processTree(appPid) : []),
  };
}

/** The platform's processes (Node and PostgreSQL) but for the edge and the app. */
function platformTreeOf(side: Side): number[] {
  const others = new Set([...side.appTree(), ...side.edgeTree()]);
  return processTree(side.platform.process.pid).filter((pid) => !others.has(pid));
}

async function load(side: Side, seconds: number): Promise<Run> {
  const platformTree = () => platformTreeOf(side);
  const parts: Record<string, () => number[]> = { edge: side.edgeTree, platform: platformTree, app: side.appTree };
  const before = Object.fromEntries(Object.entries(parts).map(([name, pids]) => [name, cpuTicks(pids())]));
  const self = process.cpuUsage();
  const result = await autocannon({
    url: `http://127.0.0.1:${side.platform.edgePort}/`,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { host: side.host },
  });
  const own = process.cpuUsage(self);
  const answered = result.requests.total;
  const cpuUsPerRequest: Record<string, number> = Object.fromEntries(
    Object.entries(parts).map(([name, pids]) => [
      name,
      // A process that ended during the run (a database backend) left its ticks to its parent (cpuTicks).
      Math.round((((cpuTicks(pids()) - (before[name] as number)) / TICKS_PER_SECOND) * 1e6) / Math.max(1, answered)),
    ]),
  );
  cpuUsPerRequest.autocannon = Math.round((own.user + own.system) / Math.max(1, answered));
  // What one request costs the machine: on a saturated machine throughput goes with its inverse.
  cpuUsPerRequest.total = Object.values(cpuUsPerRequest).reduce((a, b) => a + b, 0);
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    sent: result.requests.sent,
    answered,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    cpuUsPerRequest,
  };
}

/** `edgeCpuUs`: CPU µs per answered request of the side's edge processes. */
type ConcurrentRun = ChildLoad & { edgeCpuUs: number };

/**
 * Both edges under load at the same time, each from its own autocannon process: they share the
 * machine at every moment, so what the machine does meanwhile (another VM on the host, a CPU that
 * slows down) weighs on both alike, where back-to-back runs see it on one side only. On this kind of
 * machine consecutive runs of the same edge differ by up to 2x; paired this way, a few percent
 * between the sides is measurable. The two edges share one CPU (TOGETHER_CPUS, pinned by the
 * caller), so each serves in proportion to what a request costs it: the throughput ratio is what
 * logging costs the edge (the rows' writing, which the pacer holds back under such a load, is counted
 * after the round by the interleaved runs).
 */
async function concurrentRound(on: Side, off: Side, seconds: number): Promise<Record<'on' | 'off', ConcurrentRun>> {
  const before = { on: 0, off: 0 };
  const spec = (side: Side) => ({
    url: `http://127.0.0.1:${side.platform.edgePort}/`,
    connections: CONNECTIONS,
    seconds,
    headers: { host: side.host },
  });
  const [onRun, offRun] = (await autocannonTogether([spec(on), spec(off)], {
    atStart: () => {
      before.on = cpuTicks(on.edgeTree());
      before.off = cpuTicks(off.edgeTree());
    },
    cpus: TOGETHER_CPUS?.rest,
  })) as [ChildLoad, ChildLoad];
  const edgeCpuUs = (side: Side, run: { answered: number }) =>
    Math.round((((cpuTicks(side.edgeTree()) - before[side.name]) / TICKS_PER_SECOND) * 1e6) / Math.max(1, run.answered));
  return { on: { ...onRun, edgeCpuUs: edgeCpuUs(on, onRun) }, off: { ...offRun, edgeCpuUs: edgeCpuUs(off, offRun) } };
}

async function edgeThroughput(on: Side, off: Side) {
  const sides = [on, off];
  // The rows of the deployment checks are written before the count starts.
  const start = await settledCount(on.db, Number.POSITIVE_INFINITY, 3000);
  const totals = { on: { sent: 0, answered: 0 }, off: { sent: 0, answered: 0 } };
  console.log(
    `Load: ${CONNECTIONS} connections through each edge, logging on / off interleaved, ${ROUNDS} rounds of ${LOAD_SECONDS} s after a ${WARMUP_SECONDS} s warm-up...`,
  );
  const afterRun = async (side: Side, run: Run) => {
    totals[side.name].sent += run.sent;
    totals[side.name].answered += run.answered;
    if (side.name === 'on') {
      // The logging edge's backlog is written before the next run: its inserts would load the other side's
      // run. Under a saturating burst the edge's pacer keeps the rows back until the burst is over, so what
      // writing them costs is measured here, after the run, and counted in the run's CPU per request.
      const writers = () => [...side.edgeTree(), ...platformTreeOf(side)];
      const before = cpuTicks(writers());
      await settledCount(on.db, start.rows + start.dropped + totals.on.answered, 20_000);
      const afterUs = (((cpuTicks(writers()) - before) / TICKS_PER_SECOND) * 1e6) / Math.max(1, run.answered);
      run.cpuUsPerRequest.afterRun = Math.round(afterUs);
      run.cpuUsPerRequest.total = (run.cpuUsPerRequest.total ?? 0) + Math.round(afterUs);
    } else {
      await sleep(500);
    }
  };
  for (const side of sides) await afterRun(side, await load(side, WARMUP_SECONDS));
  const runs: Record<'on' | 'off', Run[]> = { on: [], off: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of sides) {
      const run = await load(side, LOAD_SECONDS);
      runs[side.name].push(run);
      console.log(
        `  round ${round + 1} logging ${side.name.padEnd(3)} ${run.requestsPerSecond} req/s, p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms, errors ${run.errors}, non-2xx ${run.non2xx}, CPU µs/request ${JSON.stringify(run.cpuUsPerRequest)}`,
      );
      await afterRun(side, run);
    }
  }
  console.log(`Then both edges at the same time, ${CONNECTIONS} connections each, ${ROUNDS} rounds of ${LOAD_SECONDS} s...`);
  const concurrentRuns: Record<'on' | 'off', ConcurrentRun>[] = [];
  // The two edges share one CPU, the rest runs on the others (TOGETHER_CPUS).
  const edges = () => [...on.edgeTree(), ...off.edgeTree()];
  const rest = () => sides.flatMap((side) => [...platformTreeOf(side), ...side.appTree()]);
  if (TOGETHER_CPUS) {
    pinToCpus(edges(), TOGETHER_CPUS.servers);
    pinToCpus(rest(), TOGETHER_CPUS.rest);
  }
  for (let round = 0; round < ROUNDS; round++) {
    const pair = await concurrentRound(on, off, LOAD_SECONDS);
    concurrentRuns.push(pair);
    for (const side of sides) {
      totals[side.name].sent += pair[side.name].sent;
      totals[side.name].answered += pair[side.name].answered;
    }
    console.log(
      `  round ${round + 1} together: logging on ${pair.on.requestsPerSecond} req/s (edge ${pair.on.edgeCpuUs} µs/request, p99 ${pair.on.p99Ms} ms), off ${pair.off.requestsPerSecond} req/s (edge ${pair.off.edgeCpuUs} µs/request, p99 ${pair.off.p99Ms} ms): on / off ${(pair.on.requestsPerSecond / Math.max(1, pair.off.requestsPerSecond)).toFixed(3)}`,
    );
    // The backlog the pacer held during the round goes in before the next one, as above.
    await settledCount(on.db, start.rows + start.dropped + totals.on.answered, 20_000);
  }
  pinToCpus([...edges(), ...rest()], ALL_CPUS);
  const concurrent = {
    runs: concurrentRuns,
    /** Median of the rounds' throughput ratios, on / off. */
    ratio: median(concurrentRuns.map((pair) => pair.on.requestsPerSecond / Math.max(1, pair.off.requestsPerSecond))),
    /** Median of the rounds' edge CPU per request, off / on: the same cost seen from the CPU. */
    cpuRatio: median(concurrentRuns.map((pair) => pair.off.edgeCpuUs / Math.max(1, pair.on.edgeCpuUs))),
    edgeCpuUs: {
      on: median(concurrentRuns.map((pair) => pair.on.edgeCpuUs)),
      off: median(concurrentRuns.map((pair) => pair.off.edgeCpuUs)),
    },
    p99Ms: { on: median(concurrentRuns.map((pair) => pair.on.p99Ms)), off: median(concurrentRuns.map((pair) => pair.off.p99Ms)) },
    errors: concurrentRuns.reduce((sum, pair) => sum + pair.on.errors + pair.on.non2xx + pair.off.errors + pair.off.non2xx, 0),
  };

  const summary = (list: Run[]) => ({
    requestsPerSecond: median(list.map((r) => r.requestsPerSecond)),
    p50Ms: median(list.map((r) => r.p50Ms)),
    p99Ms: median(list.map((r) => r.p99Ms)),
    errors: list.reduce((s, r) => s + r.errors, 0),
    non2xx: list.reduce((s, r) => s + r.non2xx, 0),
    cpuUsPerRequest: Object.fromEntries(
      Object.keys(list[0]?.cpuUsPerRequest ?? {}).map((k) => [k, median(list.map((r) => r.cpuUsPerRequest[k] ?? 0))]),
    ),
    runs: list,
  });

  // Every request the logging edge answered (and those cut at the end of a run, which it logs as 499 or
  // as answered) is a row: between the answered and the sent count, warm-ups included.
  const end = await settledCount(on.db, start.rows + start.dropped + totals.on.sent, 10_000);
  const offEnd = await countRows(off.db);
  const written = end.rows - start.rows;
  const dropped = end.dropped - start.dropped;
  const rowCheck = {
    sent: totals.on.sent,
    answered: totals.on.answered,
    written,
    dropped,
    flushWaitMs: end.waitedMs,
    offSideRows: offEnd.rows,
    offSideDropped: offEnd.dropped,
    offSideRequestsSent: totals.off.sent,
    pass:
      dropped === 0 &&
      written >= totals.on.answered * 0.999 &&
      written <= totals.on.sent + 10 &&
      offEnd.rows === 0 &&
      offEnd.dropped === 0,
  };
  // Each round's on / off pair ran back to back: the median of their ratios shrugs off a machine that got
  // busier or quieter during the run (the ratio of the medians is the target's figure).
  const pairedRatio = median(runs.on.map((run, i) => run.requestsPerSecond / Math.max(1, runs.off[i]?.requestsPerSecond ?? 0)));
  return { on: summary(runs.on), off: summary(runs.off), pairedRatio, concurrent, rowCheck };
}

/* ------------------------------------------------------------------------------------------------ */
/* part 2: the list on a million rows                                                                */
/* ------------------------------------------------------------------------------------------------ */

/**
 * One statement: `now` ($1) is the newest row's time; rows go in time order (ids grow with time, as the
 * edge's batches do), each up to 2 s early. Host h = floor(50 * r^3): app-00 has ~27 % of the rows, the
 * rarest ~0.7 %; client c = floor(2000 * r^2), skewed too; hosts app-45..49 have no project (the edge
 * answered itself), the others belong to projects 1..6.
 */
const INSERT_SQL = `INSERT INTO proxy_logs
  (created_at, method, host, path, query, status, duration_ms, bytes_in, bytes_out, client_ip, user_agent, referrer,
   route, project_id, environment_id, deployment_id, upstream, tls_version)
SELECT
  $1::timestamptz - interval '7 days' * (1 - g::float8 / ${ROWS}) - interval '2 seconds' * r_jitter,
  CASE WHEN r_kind >= 0.25 AND r_kind < 0.65 AND r_sub < 0.2 THEN 'POST' WHEN r_sub > 0.99 THEN 'HEAD' ELSE 'GET' END,
  'app-' || lpad(h::text, 2, '0') || '.example.com',
  CASE
    WHEN r_kind < 0.25 THEN '/'
    WHEN r_kind < 0.65 THEN '/api/' || (ARRAY['users', 'projects', 'orders', 'search', 'items', 'session'])[1 + floor(r_sub * 6)::int]
      || '/' || floor(r_id * 5000)::int
    WHEN r_kind < 0.95 THEN '/assets/' || (ARRAY['index', 'vendor', 'app', 'chunk'])[1 + floor(r_sub * 4)::int] || '-'
      || substr(md5(h::text || floor(r_id * 8)::int), 1, 8) || CASE WHEN r_id < 0.7 THEN '.js' ELSE '.css' END
    ELSE '/' || (ARRAY['about', 'pricing', 'login', 'docs/getting-started', 'blog/launch', 'contact'])[1 + floor(r_sub * 6)::int]
  END,
  CASE WHEN r_kind >= 0.25 AND r_kind < 0.65 AND r_id < 0.3 THEN 'page=' || (1 + floor(r_sub * 10)::int) END,
  status,
  (-ln(1 - random()) * CASE WHEN status >= 500 THEN 200 ELSE 15 END)::real,
  200 + floor(random() * 600)::int,
  CASE WHEN r_kind >= 0.65 AND r_kind < 0.95 THEN 5000 + floor(random() * 200000)::int ELSE 150 + floor(random() * 4000)::int END,
  (30 + c % 180) || '.' || (1 + c / 180) || '.' || (c % 13 * 17) || '.' || (1 + c % 251),
  (ARRAY['Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0', 'Mozilla/5.0 (Macintosh) Safari/605.1.15',
         'Mozilla/5.0 (Windows NT 10.0) Chrome/126.0', 'curl/8.5.0'])[1 + floor(r_ua * 4)::int],
  CASE WHEN r_ua < 0.3 THEN 'https://example.org/' END,
  'app-' || lpad(h::text, 2, '0') || '.example.com/',
  project,
  project,
  project * 100 + 1,
  CASE WHEN project IS NOT NULL THEN '127.0.0.1:' || (40000 + h) END,
  CASE WHEN r_ua < 0.8 THEN 'TLSv1.3' END
FROM (
  SELECT g, h, c, r_jitter, r_kind, r_sub, r_id, r_ua,
    CASE WHEN h >= 45 THEN NULL ELSE 1 + h % 6 END AS project,
    CASE
      WHEN r_status < 0.86 THEN 200 WHEN r_status < 0.88 THEN 204
      WHEN r_status < 0.90 THEN 304 WHEN r_status < 0.905 THEN 301 WHEN r_status < 0.92 THEN 302
      WHEN r_status < 0.95 THEN 404 WHEN r_status < 0.955 THEN 400 WHEN r_status < 0.962 THEN 401 WHEN r_status < 0.97 THEN 403
      WHEN r_status < 0.985 THEN 429
      WHEN r_status < 0.992 THEN 500 WHEN r_status < 0.997 THEN 502 ELSE 503
    END AS status
  FROM (
    SELECT g, floor(${HOSTS} * power(random(), 3))::int AS h, floor(${CLIENTS} * power(random(), 2))::int AS c,
      random() AS r_jitter, random() AS r_kind, random() AS r_sub, random() AS r_id, random() AS r_ua, random() AS r_status
    FROM generate_series(1, ${ROWS}) AS g
    OFFSET 0
  ) random_values
  OFFSET 0
) s`;

/** A host, client, path and status no synthetic row has, on three rows spread over the week. */
const RARE = { host: 'rare.example.net', clientIp: '203.0.113.77', path: '/rare/', status: 418 };
const RARE_INSERT_SQL = `INSERT INTO proxy_logs
  (created_at, method, host, path, status, duration_ms, bytes_in, bytes_out, client_ip, route, project_id, environment_id, deployment_id)
SELECT $1::timestamptz - age, 'GET', '${RARE.host}', '${RARE.path}' || n, ${RARE.status}, 1, 200, 300, '${RARE.clientIp}', '${RARE.host}/', 6, 6, 601
FROM (VALUES (1, interval '6 days 23 hours'), (2, interval '3 days'), (3, interval '1 minute')) AS rare (n, age)`;

/** Client c's address, as INSERT_SQL writes it. */
const clientIp = (c: number) => `${30 + (c % 180)}.${1 + Math.floor(c / 180)}.${(c % 13) * 17}.${1 + (c % 251)}`;

/** The statement listProxyLogs sends for a query (run against a pool that records and answers nothing). */
async function listSql(q: Query): Promise<{ sql: string; params: unknown[] }> {
  const seen: { sql: string; params: unknown[] }[] = [];
  const pool = {
    query: async (sql: string, params: unknown[] = []) => {
      seen.push({ sql, params });
      return { rows: [] };
    },
  };
  await listProxyLogs({ pool } as unknown as Parameters<typeof listProxyLogs>[0], q);
  const list = seen.find((s) => s.sql.includes('ORDER BY'));
  if (!list) throw new Error('listProxyLogs sent no list query');
  return list;
}

const queryString = (q: Query) =>
  new URLSearchParams(
    Object.entries(q)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();

async function getList(p: BenchPlatform, q: Query): Promise<{ ms: number; body: ListAnswer }> {
  const t0 = performance.now();
  const response = await fetch(`${p.url}/api/proxy-logs?${queryString(q)}`, { headers: { authorization: `Bearer ${p.token}` } });
  const text = await response.text();
  const ms = performance.now() - t0;
  if (response.status !== 200) throw new Error(`GET /api/proxy-logs?${queryString(q)}: ${response.status} ${text.slice(0, 300)}`);
  return { ms, body: JSON.parse(text) as ListAnswer };
}

/** The indexes a plan reads, in plan order (what the table shows). */
const indexesOf = (plan: string) => [
  ...new Set(
    [...plan.matchAll(/(Index Only Scan|Index Scan|Bitmap Index Scan)(?: Backward)? (?:using|on) (\w+)/g)].map(
      (m) => m[2] as string,
    ),
  ),
];

async function listQueries(p: BenchPlatform, db: pg.Client) {
  console.log(`Proxy-log list: inserting ${ROWS.toLocaleString('en')} synthetic rows (one INSERT ... SELECT)...`);
  // Only the synthetic rows: the load runs' rows (one host, one client, the last minutes) would skew the spread.
  await db.query('TRUNCATE proxy_logs');
  const now = new Date();
  let t0 = performance.now();
  await db.query(INSERT_SQL, [now.toISOString()]);
  const insertSeconds = (performance.now() - t0) / 1000;
  // Three rare rows (a week, three days and a minute old): a filter that matches almost nothing must find
  // them through its index, not by walking the million rows in time order.
  await db.query(RARE_INSERT_SQL, [now.toISOString()]);
  t0 = performance.now();
  // VACUUM too: autovacuum would otherwise visit the new million rows during the timings.
  await db.query('VACUUM (ANALYZE) proxy_logs');
  const analyzeSeconds = (performance.now() - t0) / 1000;
  const sizes = (
    await db.query<{ table_mb: string; indexes_mb: string; rows: string }>(
      `SELECT round(pg_table_size('proxy_logs') / 1048576.0) AS table_mb, round(pg_indexes_size('proxy_logs') / 1048576.0) AS indexes_mb,
              (SELECT count(*) FROM proxy_logs) AS rows`,
    )
  ).rows[0];
  console.log(
    `  ${Number(sizes?.rows).toLocaleString('en')} rows in ${insertSeconds.toFixed(1)} s, VACUUM ANALYZE ${analyzeSeconds.toFixed(1)} s; table ${sizes?.table_mb} MB, indexes ${sizes?.indexes_mb} MB`,
  );

  const hour = 3_600_000;
  const host = 'app-10.example.com';
  const client = clientIp(100);
  const first = await getList(p, { limit: 50 });
  // Following next_cursor, as the console's "older" button does, DEEP_PAGES times.
  let cursor: string | null = first.body.next_cursor;
  for (let page = 1; page < DEEP_PAGES && cursor; page++) cursor = (await getList(p, { limit: 50, cursor })).body.next_cursor;
  if (!cursor) throw new Error(`fewer than ${DEEP_PAGES} pages`);
  const queries: { name: string; q: Query }[] = [
    { name: 'no filter', q: { limit: 50 } },
    { name: `host (${host})`, q: { limit: 50, host } },
    { name: 'status_class=5xx', q: { limit: 50, status_class: '5xx' } },
    { name: 'status_code=404', q: { limit: 50, status_code: 404 } },
    { name: `client_ip (${client})`, q: { limit: 50, client_ip: client } },
    { name: 'project_id=3', q: { limit: 50, project_id: 3 } },
    { name: 'path prefix /api/', q: { limit: 50, path: '/api/' } },
    {
      name: 'time range (1 h, 2 days ago)',
      q: {
        limit: 50,
        from: new Date(now.getTime() - 48 * hour).toISOString(),
        to: new Date(now.getTime() - 47 * hour).toISOString(),
      },
    },
    { name: `host + status_class=5xx`, q: { limit: 50, host, status_class: '5xx' } },
    { name: `rare host (3 rows)`, q: { limit: 50, host: RARE.host } },
    { name: `rare client_ip (3 rows)`, q: { limit: 50, client_ip: RARE.clientIp } },
    { name: `rare status_code=${RARE.status} (3 rows)`, q: { limit: 50, status_code: RARE.status } },
    { name: `rare path prefix ${RARE.path} (3 rows)`, q: { limit: 50, path: RARE.path } },
    { name: 'host nobody asked (0 rows)', q: { limit: 50, host: 'nobody.example.net' } },
    { name: `keyset page ${DEEP_PAGES} pages deep`, q: { limit: 50, cursor } },
    { name: 'live tail (after_id, 10 new)', q: { limit: 50, after_id: first.body.latest_id - 10 } },
  ];

  console.log(
    `  ${queries.length} queries, ${TIMED_REQUESTS} sequential requests each after ${WARMUP_REQUESTS} warm-ups (a slow one stops after ${QUERY_BUDGET_MS / 1000} s, ${MIN_TIMED_REQUESTS} at least)...`,
  );
  const results = [];
  for (const { name, q } of queries) {
    for (let i = 0; i < WARMUP_REQUESTS; i++) await getList(p, q);
    const times: number[] = [];
    let returned = 0;
    const budgetEnd = performance.now() + QUERY_BUDGET_MS;
    for (let i = 0; i < TIMED_REQUESTS && (i < MIN_TIMED_REQUESTS || performance.now() < budgetEnd); i++) {
      const answer = await getList(p, q);
      times.push(answer.ms);
      returned = answer.body.logs.length;
    }
    const { sql, params } = await listSql(q);
    const matching = Number(
      (
        await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM (${sql.slice(0, sql.lastIndexOf(' ORDER BY '))}) matching`,
          params.slice(0, -1), // the LIMIT is the last parameter
        )
      ).rows[0]?.n,
    );
    const plan = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params)).rows
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    const p95Ms = percentile(times, 95);
    const row = {
      name,
      query: queryString(q),
      matching,
      returned,
      requests: times.length,
      p50Ms: Math.round(percentile(times, 50) * 10) / 10,
      p95Ms: Math.round(p95Ms * 10) / 10,
      maxMs: Math.round(Math.max(...times) * 10) / 10,
      indexes: indexesOf(plan),
      executionMs: Number(plan.match(/Execution Time: ([\d.]+) ms/)?.[1] ?? Number.NaN),
      pass: p95Ms < TARGET_P95_MS,
      sql,
      params,
      plan,
    };
    console.log(
      `    ${name.padEnd(34)} p50 ${row.p50Ms} ms, p95 ${row.p95Ms} ms of ${times.length} (${matching} matching, ${returned} returned; SQL ${row.executionMs} ms via ${row.indexes.join(', ') || 'no index'})`,
    );
    results.push(row);
  }
  return {
    rows: Number(sizes?.rows),
    insertSeconds: Math.round(insertSeconds * 10) / 10,
    vacuumAnalyzeSeconds: Math.round(analyzeSeconds * 10) / 10,
    tableMb: Number(sizes?.table_mb),
    indexesMb: Number(sizes?.indexes_mb),
    warmupRequests: WARMUP_REQUESTS,
    timedRequests: TIMED_REQUESTS,
    queries: results,
  };
}

/* ------------------------------------------------------------------------------------------------ */

async function main() {
  const started = performance.now();
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    cpus: os.cpus().length,
    node: process.version,
    quick,
    loadAverageAtStart: os.loadavg(),
  };
  let on: BenchPlatform | undefined;
  let off: BenchPlatform | undefined;
  const clients: pg.Client[] = [];
  try {
    console.log('Proxy logs: two platforms (PROXY_LOG on / off), each deploying the upstream (a tiny Node HTTP server)...');
    // One edge process each. An embedded edge grows to a process per CPU under a saturating load, and
    // each edge decides that on its own: under the same load one side ran on two processes while the
    // other still had one, and the together rounds' ratio swung from 0.83 to 1.29. Logging is work per
    // request, the same in every process (each writes its own rows), so one process per side measures it
    // with no such coin toss.
    [on, off] = await Promise.all([
      startBenchPlatform('proxy-logs-on', { PROXY_LOG: 'on', EDGE_PROCESSES: '1' }),
      startBenchPlatform('proxy-logs-off', { PROXY_LOG: 'off', EDGE_PROCESSES: '1' }),
    ]);
    const [onDb, offDb] = await Promise.all([connectDatabase(on.dataDir), connectDatabase(off.dataDir)]);
    clients.push(onDb, offDb);
    const [onSide, offSide] = await Promise.all([
      deployUpstream({ name: 'on', platform: on, db: onDb }),
      deployUpstream({ name: 'off', platform: off, db: offDb }),
    ]);
    const edge = await edgeThroughput(onSide, offSide);
    const { concurrent } = edge;
    const ratio = edge.on.requestsPerSecond / edge.off.requestsPerSecond;
    const cpu = (k: string) => (edge.on.cpuUsPerRequest[k] ?? 0) - (edge.off.cpuUsPerRequest[k] ?? 0);
    // Where autocannon, the edge, the app and PostgreSQL share the cores, throughput goes as 1 / CPU per request.
    const cpuBoundRatio = (edge.off.cpuUsPerRequest.total ?? 0) / Math.max(1, edge.on.cpuUsPerRequest.total ?? 0);
    results.edge = {
      connections: CONNECTIONS,
      loadSeconds: LOAD_SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      rounds: ROUNDS,
      ...edge,
      ratio,
      cpuBoundRatio,
    };
    // The other platform is done: stopped now, so it takes nothing from the list timings.
    clients.splice(clients.indexOf(offDb), 1);
    await offDb.end();
    await off.close();
    off = undefined;

    const list = await listQueries(on, onDb);
    results.list = list;
    results.loadAverageAtEnd = os.loadavg();
    results.totalSeconds = Math.round((performance.now() - started) / 1000);
    writeResults('proxy_logs', results);

    const { rowCheck } = edge;
    const line = (s: typeof edge.on) =>
      `${s.requestsPerSecond} req/s, p50 ${s.p50Ms} ms, p99 ${s.p99Ms} ms${s.errors || s.non2xx ? `, errors ${s.errors}, non-2xx ${s.non2xx}` : ''}; CPU µs/request: edge ${s.cpuUsPerRequest.edge}, platform ${s.cpuUsPerRequest.platform}${s.cpuUsPerRequest.afterRun !== undefined ? `, writing the rows after the run ${s.cpuUsPerRequest.afterRun}` : ''}, all ${s.cpuUsPerRequest.total}`;
    const rows: Row[] = [
      { name: `edge, logging on, c=${CONNECTIONS}`, value: line(edge.on), target: '-', pass: null },
      { name: 'edge, logging off (PROXY_LOG=off)', value: line(edge.off), target: '-', pass: null },
      {
        name: 'throughput on / off, one after the other',
        // The rounds' own ratios first, as everywhere: the ratio of each side's median run may pair rounds
        // the edge served with one process and with two (152 against 93 µs a request in one run).
        value: `${edge.pairedRatio.toFixed(3)} (median of the rounds' ratios; of each side's median run ${ratio.toFixed(3)}; p99 ${edge.on.p99Ms} vs ${edge.off.p99Ms} ms)`,
        target: '-',
        pass: null,
      },
      {
        name: 'throughput on / off, at the same time',
        value: `${concurrent.ratio.toFixed(3)} (median of ${ROUNDS} rounds: ${concurrent.runs.map((pair) => (pair.on.requestsPerSecond / Math.max(1, pair.off.requestsPerSecond)).toFixed(2)).join('/')}; edge CPU per request ${concurrent.edgeCpuUs.on} vs ${concurrent.edgeCpuUs.off} µs, off / on ${concurrent.cpuRatio.toFixed(3)}; p99 ${concurrent.p99Ms.on} vs ${concurrent.p99Ms.off} ms)`,
        target: `>= ${MIN_RATIO}`,
        pass: concurrent.ratio >= MIN_RATIO && concurrent.errors === 0 && edge.on.errors === 0 && edge.on.non2xx === 0,
      },
      {
        name: 'CPU per request, logging on - off',
        value: `edge +${cpu('edge')} µs, platform (PostgreSQL) +${cpu('platform')} µs, all +${cpu('total')} µs (${edge.off.cpuUsPerRequest.total} -> ${edge.on.cpuUsPerRequest.total}: CPU-bound, on / off ~ ${cpuBoundRatio.toFixed(2)})`,
        target: '-',
        pass: null,
      },
      {
        name: 'rows written (logging on)',
        value: `${rowCheck.written} for ${rowCheck.sent} sent / ${rowCheck.answered} answered, ${rowCheck.dropped} dropped (flushed after ${rowCheck.flushWaitMs} ms)`,
        target: 'answered..sent',
        pass: rowCheck.pass,
      },
      {
        name: 'rows written (PROXY_LOG=off)',
        value: `${rowCheck.offSideRows} for ${rowCheck.offSideRequestsSent} sent`,
        target: '0',
        pass: rowCheck.offSideRows === 0 && rowCheck.offSideDropped === 0,
      },
      {
        name: `${list.rows.toLocaleString('en')} rows inserted`,
        value: `${list.insertSeconds} s, VACUUM ANALYZE ${list.vacuumAnalyzeSeconds} s (table ${list.tableMb} MB, indexes ${list.indexesMb} MB)`,
        target: '-',
        pass: null,
      },
      ...list.queries.map((q) => ({
        name: `GET /proxy-logs ${q.name}`,
        value: `p50 ${q.p50Ms} ms, p95 ${q.p95Ms} ms${q.requests < TIMED_REQUESTS ? ` of ${q.requests}` : ''} (SQL ${q.executionMs} ms, ${q.indexes.join(', ') || 'no index'}; ${q.matching} matching)`,
        target: `p95 < ${TARGET_P95_MS} ms`,
        pass: q.pass,
      })),
    ];
    printTable(
      `Launchbay proxy-log benchmark (${os.cpus().length} CPUs; median of ${ROUNDS} interleaved ${LOAD_SECONDS} s runs; ${TIMED_REQUESTS} requests per query; load average ${loadAverage(results.loadAverageAtStart)} at start, ${loadAverage(results.loadAverageAtEnd)} at the end)`,
      rows,
    );
    for (const q of list.queries.filter((x) => !x.pass)) {
      console.log(
        `\n  ${q.name} is over ${TARGET_P95_MS} ms at p95: its plan\n    ${q.sql.replace(/\n/g, '\n    ')}\n    -- ${JSON.stringify(q.params)}`,
      );
      console.log(`    ${q.plan.replace(/\n/g, '\n    ')}`);
    }
    console.log(`\n  full figures (plans too): ${RESULTS_FILE} (${results.totalSeconds} s)`);
  } finally {
    for (const client of clients) await client.end().catch(() => undefined);
    await Promise.all([on?.close(), off?.close()]);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
