import { bigserial, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** One row per mutation (and sign-in event), written by the audit hook in modules/audit/recorder.ts. */
export const auditLogs = pgTable(
  'audit_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    actorType: text('actor_type').notNull(),
    actorUserId: integer('actor_user_id'),
    actorApiKeyId: integer('actor_api_key_id'),
    actorLabel: text('actor_label'),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    summary: jsonb('summary').$type<Record<string, unknown>>().notNull(),
    statusCode: integer('status_code').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
  },
  (t) => [
    index('audit_logs_created_idx').on(t.createdAt),
    index('audit_logs_action_idx').on(t.action, t.createdAt),
    index('audit_logs_actor_idx').on(t.actorUserId, t.createdAt),
    index('audit_logs_target_idx').on(t.targetType, t.targetId),
  ],
);
