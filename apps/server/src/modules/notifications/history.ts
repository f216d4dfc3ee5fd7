import type { DeliveryStatus, NotificationDelivery, NotificationRecord, ProviderType } from '@launchbay/contract';
import { asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { notificationDeliveries, notifications } from './schema';

type Delivery = typeof notificationDeliveries.$inferSelect;
type Notification = typeof notifications.$inferSelect;

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

function overallStatus(deliveries: Delivery[]): NotificationRecord['status'] {
  if (deliveries.length === 0) return 'no_providers';
  const statuses = new Set<DeliveryStatus>(deliveries.map((d) => d.status as DeliveryStatus));
  if (statuses.has('pending') || statuses.has('sending')) return 'pending';
  if (statuses.has('sent')) return statuses.size === 1 ? 'sent' : 'partial';
  return 'failed';
}

function toDeliveryDto(row: Delivery): NotificationDelivery {
  const waiting = row.status === 'pending' || row.status === 'sending';
  return {
    id: row.id,
    provider_id: row.providerId,
    provider_name: row.providerName,
    provider_type: row.providerType as ProviderType,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    max_attempts: row.maxAttempts,
    next_attempt_at: waiting ? iso(row.nextAttemptAt) : null,
    last_attempt_at: iso(row.lastAttemptAt),
    last_error: row.lastError,
    sent_at: iso(row.sentAt),
    history: row.history as NotificationDelivery['history'],
  };
}

function toRecordDto(row: Notification, deliveries: Delivery[]): NotificationRecord {
  return {
    id: row.id,
    type: row.type as NotificationRecord['type'],
    severity: row.severity as NotificationRecord['severity'],
    title: row.title,
    message: row.message,
    group_key: row.groupKey,
    project_id: row.projectId,
    data: row.data,
    occurrences: row.occurrences,
    first_at: iso(row.firstAt) ?? '',
    last_at: iso(row.lastAt) ?? '',
    created_at: iso(row.createdAt) ?? '',
    status: overallStatus(deliveries),
    deliveries: deliveries.map(toDeliveryDto),
  };
}

export async function listNotifications(
  ctx: AppContext,
  query: { page: number; per_page: number; type?: NotificationRecord['type'] },
): Promise<{ notifications: NotificationRecord[]; total: number; page: number; per_page: number }> {
  const where = query.type ? eq(notifications.type, query.type) : undefined;
  const [rows, [count]] = await Promise.all([
    ctx.db
      .select()
      .from(notifications)
      .where(where)
      .orderBy(desc(notifications.createdAt), desc(notifications.id))
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page),
    ctx.db.select({ n: sql<number>`count(*)::int` }).from(notifications).where(where),
  ]);
  const ids = rows.map((r) => r.id);
  const deliveries =
    ids.length === 0
      ? []
      : await ctx.db
          .select()
          .from(notificationDeliveries)
          .where(inArray(notificationDeliveries.notificationId, ids))
          .orderBy(asc(notificationDeliveries.id));
  const byNotification = new Map<number, Delivery[]>();
  for (const d of deliveries) byNotification.set(d.notificationId, [...(byNotification.get(d.notificationId) ?? []), d]);
  return {
    notifications: rows.map((row) => toRecordDto(row, byNotification.get(row.id) ?? [])),
    total: count?.n ?? 0,
    page: query.page,
    per_page: query.per_page,
  };
}
