import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, integer, pgTable, real, smallint, text, timestamp } from 'drizzle-orm/pg-core';
import { proxyLogFilterTokens } from './filter-tokens';

/**
 * One row per request the edge served, copied in by the edge in batches (packages/edge-protocol
 * PROXY_LOG_COPY_SQL) and read newest first by keyset on (created_at, id). The list's filters are
 * indexed: the time range by the time index, every equality filter by the GIN index of
 * proxyLogFilterTokens, the path prefix by its own b-tree; so a page costs about the same on the
 * millionth row as on the first. No foreign keys: a deleted project must neither lose its request
 * history nor make the edge's batch fail.
 */
export const proxyLogs = pgTable(
  'proxy_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull(),
    method: text('method').notNull(),
    host: text('host').notNull(),
    path: text('path').notNull(),
    query: text('query'),
    status: smallint('status').notNull(),
    statusClass: smallint('status_class').notNull().generatedAlwaysAs(sql`status / 100`),
    durationMs: real('duration_ms').notNull(),
    bytesIn: bigint('bytes_in', { mode: 'number' }).notNull(),
    bytesOut: bigint('bytes_out', { mode: 'number' }).notNull(),
    clientIp: text('client_ip').notNull(),
    userAgent: text('user_agent'),
    referrer: text('referrer'),
    route: text('route'),
    projectId: integer('project_id'),
    environmentId: integer('environment_id'),
    deploymentId: integer('deployment_id'),
    upstream: text('upstream'),
    tlsVersion: text('tls_version'),
  },
  (t) => [
    index('proxy_logs_time_idx').on(t.createdAt.desc(), t.id.desc()),
    index('proxy_logs_filter_idx').using('gin', sql.raw(proxyLogFilterTokens())).with({ fastupdate: true }),
    // The path alone: a prefix is a range of paths, never in time order whatever follows it in the index,
    // and the time column made every row's entry cost PostgreSQL twice as much to insert (1.2 µs more).
    index('proxy_logs_path_idx').on(sql`${t.path} text_pattern_ops`),
  ],
);

/** Requests the edge served but could not log (its bounded buffer was full): one row per episode. */
export const proxyLogDrops = pgTable(
  'proxy_log_drops',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    count: integer('count').notNull(),
    firstAt: timestamp('first_at', { withTimezone: true, precision: 3 }).notNull(),
    lastAt: timestamp('last_at', { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [index('proxy_log_drops_last_idx').on(t.lastAt)],
);
