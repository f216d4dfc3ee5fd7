import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import * as schema from './schema';

export type Db = NodePgDatabase<typeof schema>;

// Timestamps travel as ISO strings; bigint counts as JS numbers (they stay well under 2^53).
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function createPool(config: pg.PoolConfig): pg.Pool {
  // Idle connections close after 5 s: a busy console or API keeps its connections, an idle platform
  // holds none between its job polls (each server process costs the database 15-20 MB).
  // Named for pg_stat_activity: which node holds which connection.
  const pool = new pg.Pool({ max: 20, idleTimeoutMillis: 5_000, application_name: `launchbay (pid ${process.pid})`, ...config });
  // An idle client losing its server (database restart) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

export function createDb(pool: pg.Pool): Db {
  return drizzle(pool, { schema });
}
