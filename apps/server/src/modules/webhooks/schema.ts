import { sql } from 'drizzle-orm';
import { bigserial, check, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { projects } from '../projects/schema';

/**
 * Every webhook delivery a project received and what came of it: the console lists the last ones,
 * and (project, delivery id) being unique makes a delivery sent twice deploy once.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    providerType: text('provider_type').notNull(),
    /** The host's delivery id (X-GitHub-Delivery, X-Gitlab-Event-UUID); null when it sent none. */
    deliveryId: text('delivery_id'),
    event: text('event').notNull(),
    action: text('action'),
    ref: text('ref'),
    commitSha: text('commit_sha'),
    outcome: text('outcome').notNull(),
    detail: text('detail').notNull(),
    deploymentId: integer('deployment_id'),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_delivery').on(t.projectId, t.deliveryId),
    index('webhook_deliveries_project').on(t.projectId, t.id),
    check(
      'webhook_deliveries_outcome_check',
      sql`${t.outcome} IN ('deployed', 'ignored', 'rejected', 'duplicate', 'failed', 'awaiting_approval', 'removed')`,
    ),
  ],
);
