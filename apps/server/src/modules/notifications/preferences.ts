import {
  DEFAULT_NOTIFICATION_PREFERENCES,
  type NotificationPreferences,
  notificationPreferencesSchema,
} from '@launchbay/contract';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { notificationPreferences } from './schema';

/**
 * The dispatcher reads preferences on every published alert, so they are cached briefly; a save
 * on this node applies at once, on other nodes sharing the database within CACHE_MS.
 */
const CACHE_MS = 3_000;
const cache = new WeakMap<object, { value: NotificationPreferences; at: number }>();

export async function getNotificationPreferences(ctx: Pick<AppContext, 'db'>): Promise<NotificationPreferences> {
  const hit = cache.get(ctx.db);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.value;
  const [row] = await ctx.db.select().from(notificationPreferences).limit(1);
  let value: NotificationPreferences = { ...DEFAULT_NOTIFICATION_PREFERENCES };
  if (row) {
    // Field by field: a field added by a later version (or one that no longer validates) takes its default.
    const stored = row.preferences;
    const merged: Record<string, unknown> = { ...DEFAULT_NOTIFICATION_PREFERENCES };
    for (const key of Object.keys(merged)) {
      const field = notificationPreferencesSchema.shape[key as keyof NotificationPreferences];
      if (key in stored && field.safeParse(stored[key]).success) merged[key] = stored[key];
    }
    value = notificationPreferencesSchema.parse(merged);
  }
  cache.set(ctx.db, { value, at: Date.now() });
  return value;
}

export async function updateNotificationPreferences(
  ctx: Pick<AppContext, 'db'>,
  preferences: NotificationPreferences,
  userId: number | null,
): Promise<NotificationPreferences> {
  await ctx.db
    .insert(notificationPreferences)
    .values({ id: 1, preferences, updatedBy: userId })
    .onConflictDoUpdate({
      target: notificationPreferences.id,
      set: { preferences: sql`excluded.preferences`, updatedAt: sql`now()`, updatedBy: userId },
    });
  cache.delete(ctx.db);
  return getNotificationPreferences(ctx);
}
