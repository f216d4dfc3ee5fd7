import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema';

export type Db = NodePgDatabase<typeof schema>;

// Timestamps travel as ISO strings; bigint counts as JS numbers (they stay well under 2^53).
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function createPool(config: pg.PoolConfig): pg.Pool {
  // Idle connections close after 1 s: a busy console or API keeps its connections, an idle platform
  // holds none between its background looks (each connection is a database process of 14-20 MB, and
  // with 5 s one was open more than half of an idle minute). A new one costs about 5 ms.
  // Named for pg_stat_activity: which node holds which connection.
  const pool = new pg.Pool({ max: 20, idleTimeoutMillis: 1_000, application_name: `launchbay (pid ${process.pid})`, ...config });
  // An idle client losing its server (database restart) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

export function createDb(pool: pg.Pool): Db {
  return drizzle(pool, { schema });
}
