import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema';

export type Db = NodePgDatabase<typeof schema>;

// Timestamps travel as ISO strings; bigint counts as JS numbers (they stay well under 2^53).
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** How long an idle connection stays open while the pool is in use, and while it is not. */
export const POOL_KEEP_IDLE_MS = 1_000;
export const POOL_QUIET_IDLE_MS = 50;
/** In use: this many queries over the last few seconds (an exponentially decaying count). */
const IN_USE_QUERIES = 20;
const USE_DECAY_MS = 5_000;

export function createPool(config: pg.PoolConfig): pg.Pool {
  // Named for pg_stat_activity: which node holds which connection.
  const pool = new pg.Pool({
    max: 20,
    idleTimeoutMillis: POOL_KEEP_IDLE_MS,
    application_name: `launchbay (pid ${process.pid})`,
    ...config,
  });
  closeIdleConnectionsWhenQuiet(pool);
  // An idle client losing its server (database restart) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * Each connection is a database process of 14-20 MB. A console or API in use keeps its idle
 * connections for a second (a new one costs about 5 ms); an idle platform's background looks (a
 * job poll, a cron reload: one or two queries seconds apart) close theirs right after, so no
 * database process waits between looks. With one second for all, an idle minute held an extra
 * process a quarter of the time. pg-pool reads the timeout at each release.
 */
function closeIdleConnectionsWhenQuiet(pool: pg.Pool) {
  const keepMs = pool.options.idleTimeoutMillis ?? POOL_KEEP_IDLE_MS;
  // A new pool counts as in use: the platform's start runs its queries back to back, and keeps its
  // connection for a second after them, as before; the count falls below in-use within 300 ms of quiet.
  let recentQueries = IN_USE_QUERIES;
  let lastRelease = performance.now();
  pool.on('release', () => {
    const now = performance.now();
    recentQueries = recentQueries * Math.exp((lastRelease - now) / USE_DECAY_MS) + 1;
    lastRelease = now;
    pool.options.idleTimeoutMillis = recentQueries >= IN_USE_QUERIES ? keepMs : Math.min(keepMs, POOL_QUIET_IDLE_MS);
  });
}

export function createDb(pool: pg.Pool): Db {
  return drizzle(pool, { schema });
}
