import { boolean, integer, jsonb, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { environments } from '../environments/schema';
import { projects } from '../projects/schema';

/**
 * Load-balancer routes, keyed by domain: a host name the edge sends to a project environment (its
 * live deployment, whichever that is) or to upstream addresses outside the platform, taking turns.
 */
export const lbRoutes = pgTable('lb_routes', {
  id: serial('id').primaryKey(),
  domain: text('domain').notNull().unique(),
  /** `environment` or `upstreams`. */
  targetKind: text('target_kind').notNull(),
  projectId: integer('project_id').references(() => projects.id, { onDelete: 'cascade' }),
  environmentId: integer('environment_id').references(() => environments.id, { onDelete: 'cascade' }),
  /** `host:port` addresses, for target_kind upstreams. */
  upstreams: jsonb('upstreams').$type<string[]>().notNull().default([]),
  healthCheckEnabled: boolean('health_check_enabled').notNull().default(true),
  healthCheckPath: text('health_check_path').notNull().default('/'),
  healthCheckIntervalSeconds: integer('health_check_interval_seconds').notNull().default(5),
  healthCheckTimeoutSeconds: integer('health_check_timeout_seconds').notNull().default(2),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * What the edge's health checks last found per route host and upstream (packages/edge-protocol
 * UPSTREAM_HEALTH_UPSERT_SQL): written by the edge when health changes.
 */
export const lbUpstreamHealth = pgTable(
  'lb_upstream_health',
  {
    host: text('host').notNull(),
    upstream: text('upstream').notNull(),
    healthy: boolean('healthy').notNull(),
    error: text('error'),
    since: timestamp('since', { withTimezone: true }).notNull(),
    checkedAt: timestamp('checked_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.host, t.upstream] })],
);
