import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, check, index, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

/** The platform's alert preferences: one row (id 1); a missing row or field means the default. */
export const notificationPreferences = pgTable(
  'notification_preferences',
  {
    id: integer('id').primaryKey().default(1),
    preferences: jsonb('preferences').$type<Record<string, unknown>>().notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    updatedBy: integer('updated_by'),
  },
  (t) => [check('notification_preferences_single_row', sql`${t.id} = 1`)],
);

/**
 * Email (SMTP) and Slack providers. `config` holds the non-secret settings; the secret (the SMTP
 * password or the Slack webhook URL) is sealed with the platform's SecretBox in `secret`. The
 * latest delivery attempt is kept on the row so lists show it without scanning deliveries.
 */
export const notificationProviders = pgTable(
  'notification_providers',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    providerType: text('provider_type').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    config: jsonb('config').$type<Record<string, unknown>>().notNull(),
    secret: text('secret'),
    /**
     * Whether the last create or update was made by an admin: only then may the provider reach
     * private and loopback addresses (unless the allow_private_network_targets setting is on).
     */
    savedByAdmin: boolean('saved_by_admin').notNull().default(false),
    lastDeliveryAt: timestamp('last_delivery_at', { withTimezone: true }),
    lastDeliveryStatus: text('last_delivery_status'),
    lastDeliveryError: text('last_delivery_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('notification_providers_type_check', sql`${t.providerType} IN ('email', 'slack')`)],
);

/**
 * One row per notification: an alert a capability published (or a provider test). Repeats of
 * the same alert (same batch_key) within the batching window fold into one row: `occurrences`
 * counts them and the deliveries wait until `batch_until`.
 */
export const notifications = pgTable(
  'notifications',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    type: text('type').notNull(),
    severity: text('severity').notNull(),
    title: text('title').notNull(),
    message: text('message').notNull(),
    groupKey: text('group_key'),
    batchKey: text('batch_key'),
    projectId: integer('project_id'),
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    occurrences: integer('occurrences').notNull().default(1),
    firstAt: timestamp('first_at', { withTimezone: true }).notNull().defaultNow(),
    lastAt: timestamp('last_at', { withTimezone: true }).notNull().defaultNow(),
    batchUntil: timestamp('batch_until', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('notifications_severity_check', sql`${t.severity} IN ('critical', 'warning', 'info')`),
    index('notifications_created_idx').on(t.createdAt),
    index('notifications_type_created_idx').on(t.type, t.createdAt),
    index('notifications_batch_idx').on(t.batchKey, t.batchUntil).where(sql`${t.batchUntil} IS NOT NULL`),
  ],
);

/**
 * One row per notification and provider: the durable queue and the record in one. Workers claim
 * due rows with SELECT ... FOR UPDATE SKIP LOCKED, so several nodes share the work; a claimed
 * row is 'sending' under a lease, and a row whose lease ran out (its node died) is claimed again.
 */
export const notificationDeliveries = pgTable(
  'notification_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    notificationId: bigint('notification_id', { mode: 'number' })
      .notNull()
      .references(() => notifications.id, { onDelete: 'cascade' }),
    providerId: integer('provider_id').references(() => notificationProviders.id, { onDelete: 'set null' }),
    providerName: text('provider_name').notNull(),
    providerType: text('provider_type').notNull(),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(5),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    lockedBy: text('locked_by'),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    lastError: text('last_error'),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    /** One entry per attempt: { at, outcome, error, duration_ms }. */
    history: jsonb('history').$type<Record<string, unknown>[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('notification_deliveries_status_check', sql`${t.status} IN ('pending', 'sending', 'sent', 'failed', 'cancelled')`),
    index('notification_deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('notification_deliveries_lease_idx').on(t.leaseUntil).where(sql`${t.status} = 'sending'`),
    index('notification_deliveries_notification_idx').on(t.notificationId),
    index('notification_deliveries_provider_idx').on(t.providerId),
  ],
);
