import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, integer, pgTable, real, smallint, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * One row per request the edge served, inserted by the edge in batches (packages/edge-protocol
 * PROXY_LOG_INSERT_SQL) and read newest first by keyset on (created_at, id). Each main filter of the
 * /proxy-logs list (time, host, status class, client IP, project, path prefix) has an index that leads with it and keeps that order, so a page costs the same
 * on the millionth row as on the first. No foreign keys: a deleted project must neither lose its
 * request history nor make the edge's batch fail.
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
    index('proxy_logs_host_idx').on(t.host, t.createdAt.desc(), t.id.desc()),
    index('proxy_logs_status_class_idx').on(t.statusClass, t.createdAt.desc(), t.id.desc()),
    index('proxy_logs_client_ip_idx').on(t.clientIp, t.createdAt.desc(), t.id.desc()),
    index('proxy_logs_project_idx').on(t.projectId, t.createdAt.desc(), t.id.desc()),
    index('proxy_logs_path_idx').on(sql`${t.path} text_pattern_ops`, t.createdAt.desc()),
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
