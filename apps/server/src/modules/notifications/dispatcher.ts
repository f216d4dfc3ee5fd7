import os from 'node:os';
import {
  ALERT_TYPE_PREFERENCE,
  type AlertType,
  alertTypeSchema,
  type DeliveryStatus,
  type NotificationPreferences,
  type NotificationSeverity,
  notificationSeveritySchema,
  TEST_NOTIFICATION_FAILED_MESSAGE,
} from '@launchbay/contract';
import { and, eq, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { AppContext } from '../../context';
import {
  definePeriodicTask,
  defineQueue,
  enqueue,
  type JobRuntime,
  RetryJob,
  type RunningJob,
  startJobRuntime,
  wakeQueue,
} from '../../jobs';
import { HttpError } from '../../lib/errors';
import type { OutboundPolicy } from '../../lib/outbound';
import { getSettings } from '../settings/service';
import { type AlertContent, renderAlert } from './message';
import { getNotificationPreferences } from './preferences';
import { type ProviderRow, recordLastDelivery, requireProvider, resolveProvider } from './providers';
import { notificationDeliveries, notificationProviders, notifications } from './schema';
import { DeliveryError, type SendResult, sendEmail, sendSlack } from './senders';

/*
 * The alert dispatcher. Capabilities call publishAlert(); it applies the alert preferences, folds
 * repeats into one notification while the batching window is open, and queues one delivery row
 * per provider. The worker (one per platform process, started from platform.ts) claims due rows
 * with FOR UPDATE SKIP LOCKED, sends them, and records the true outcome with retries and backoff.
 */

export type AlertInput = {
  type: AlertType;
  severity: NotificationSeverity;
  title: string;
  message: string;
  /** Alerts with the same type and group_key are "similar": batching folds them. Default: the title. */
  group_key?: string;
  project_id?: number;
  data?: Record<string, unknown>;
};

export type PublishResult =
  | { status: 'suppressed'; reason: string }
  | { status: 'queued'; notification_id: number; deliveries: number; send_at: Date }
  | { status: 'batched'; notification_id: number; occurrences: number };

const alertInputSchema = z.object({
  type: alertTypeSchema,
  severity: notificationSeveritySchema,
  title: z.string().trim().min(1).max(300),
  message: z.string().max(10_000),
  group_key: z.string().max(500).optional(),
  project_id: z.number().int().positive().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

export const MAX_ATTEMPTS = 5;
const CONCURRENCY = 4;
const MAX_BACKOFF_MS = 3600_000;
const RETENTION_DAYS = 90;
const BATCH_LOCK_NAMESPACE = 7226352;
const SEVERITY_RANK: Record<NotificationSeverity, number> = { info: 0, warning: 1, critical: 2 };

/** Why preferences drop an alert, or null when it goes out. */
export function suppressionReason(alert: AlertInput, preferences: NotificationPreferences): string | null {
  const flag = ALERT_TYPE_PREFERENCE[alert.type];
  if (!preferences[flag]) return `${flag} is off`;
  if (SEVERITY_RANK[alert.severity] < SEVERITY_RANK[preferences.minimum_severity]) {
    return `severity ${alert.severity} is below the minimum (${preferences.minimum_severity})`;
  }
  const data = alert.data ?? {};
  if (alert.type === 'runtime_errors' && typeof data.error_count === 'number') {
    // error_threshold is errors per minute, counted over error_time_window minutes.
    const needed = preferences.error_threshold * preferences.error_time_window;
    if (data.error_count < needed)
      return `${data.error_count} errors is under the threshold (${needed} in ${preferences.error_time_window} min)`;
  }
  if (alert.type === 'ssl_expiring' && typeof data.days_remaining === 'number') {
    if (data.days_remaining > preferences.ssl_days_before_expiration) {
      return `the certificate expires in ${data.days_remaining} days, later than the ${preferences.ssl_days_before_expiration}-day warning`;
    }
  }
  return null;
}

function providerTypeAllowed(type: string, preferences: NotificationPreferences): boolean {
  return type === 'email' ? preferences.email_enabled : type === 'slack' ? preferences.slack_enabled : false;
}

/**
 * Publishes an alert. Resolves once it is durably queued (or folded, or dropped by the
 * preferences); sending happens in the background, with retries.
 */
export async function publishAlert(ctx: AppContext, alert: AlertInput): Promise<PublishResult> {
  const input = alertInputSchema.parse(alert);
  const preferences = await getNotificationPreferences(ctx);
  const reason = suppressionReason(input, preferences);
  if (reason) return { status: 'suppressed', reason };
  const windowMs = preferences.batch_similar_notifications ? ctx.config.notificationBatchWindowMs : 0;
  const batchKey = windowMs > 0 ? `${input.type}:${input.group_key ?? input.title}` : null;

  const result = await ctx.db.transaction(async (tx): Promise<PublishResult> => {
    if (batchKey) {
      // One publisher at a time per batch key (on every node): the fold-or-insert decision is atomic.
      await tx.execute(sql`SELECT pg_advisory_xact_lock(${BATCH_LOCK_NAMESPACE}, hashtext(${batchKey}))`);
      // FOR UPDATE holds off a worker rendering this notification until the count is committed
      // (the worker reads it FOR SHARE). The window is checked again once the lock is held, with
      // clock_timestamp(), so a repeat never folds into a message a worker already rendered.
      const candidate = await tx.execute<{ id: number }>(
        sql`SELECT id FROM notifications WHERE batch_key = ${batchKey} AND batch_until > clock_timestamp()
            ORDER BY id DESC LIMIT 1 FOR UPDATE`,
      );
      const lockedId = candidate.rows[0]?.id;
      const stillOpen =
        lockedId === undefined
          ? undefined
          : await tx.execute<{ id: number }>(
              sql`SELECT id FROM notifications WHERE id = ${lockedId} AND batch_until > clock_timestamp()`,
            );
      const found = stillOpen?.rows[0];
      if (found) {
        const [updated] = await tx
          .update(notifications)
          .set({
            occurrences: sql`${notifications.occurrences} + 1`,
            lastAt: sql`clock_timestamp()`,
            severity: sql`CASE WHEN ${SEVERITY_RANK[input.severity]} > (CASE ${notifications.severity} WHEN 'critical' THEN 2 WHEN 'warning' THEN 1 ELSE 0 END) THEN ${input.severity} ELSE ${notifications.severity} END`,
          })
          .where(eq(notifications.id, Number(found.id)))
          .returning({ id: notifications.id, occurrences: notifications.occurrences });
        if (updated) return { status: 'batched', notification_id: updated.id, occurrences: updated.occurrences };
      }
    }
    const providers = (await tx.select().from(notificationProviders).where(eq(notificationProviders.enabled, true))).filter((p) =>
      providerTypeAllowed(p.providerType, preferences),
    );
    const [row] = await tx
      .insert(notifications)
      .values({
        type: input.type,
        severity: input.severity,
        title: input.title,
        message: input.message,
        groupKey: input.group_key ?? null,
        batchKey,
        projectId: input.project_id ?? null,
        data: input.data ?? {},
        batchUntil: batchKey ? sql`clock_timestamp() + make_interval(secs => ${windowMs / 1000})` : null,
      })
      .returning({ id: notifications.id, batchUntil: notifications.batchUntil, createdAt: notifications.createdAt });
    if (!row) throw new Error('insert returned nothing');
    const sendAt = row.batchUntil ?? row.createdAt;
    if (providers.length > 0) {
      const deliveries = await tx
        .insert(notificationDeliveries)
        .values(
          providers.map((p) => ({
            notificationId: row.id,
            providerId: p.id,
            providerName: p.name,
            providerType: p.providerType,
            maxAttempts: MAX_ATTEMPTS,
            // A batched notification waits for its window to close, so the one message carries the count.
            nextAttemptAt: row.batchUntil ?? sql`clock_timestamp()`,
          })),
        )
        .returning({ id: notificationDeliveries.id });
      for (const delivery of deliveries) {
        await enqueue(
          ctx,
          notificationDeliveryQueue,
          { delivery_id: delivery.id },
          {
            tx,
            // The window's end in ms, rounded up (Postgres keeps microseconds): not a moment before it.
            runAt: row.batchUntil ? new Date(new Date(row.batchUntil).getTime() + 1) : undefined,
            singletonKey: `delivery:${delivery.id}`,
            wake: false,
          },
        );
      }
    }
    return { status: 'queued', notification_id: row.id, deliveries: providers.length, send_at: new Date(sendAt) };
  });
  if (result.status === 'queued' && result.deliveries > 0) {
    // Published inside a request, the rows exist for the workers only once that request commits.
    wakeQueue(ctx, notificationDeliveryQueue, batchKey ? result.send_at : undefined);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Sending

type Outcome = { status: DeliveryStatus; error: string | null; permanent?: boolean };
type HistoryEntry = {
  at: string;
  outcome: 'sent' | 'retry' | 'failed' | 'interrupted';
  error: string | null;
  duration_ms: number;
  node: string;
};

type NotificationRow = {
  id: number;
  type: string;
  severity: NotificationSeverity;
  title: string;
  message: string;
  project_id: number | null;
  data: Record<string, unknown>;
  occurrences: number;
  first_at: Date;
  last_at: Date;
};

const contentOf = (row: NotificationRow): AlertContent => ({
  type: row.type,
  severity: row.severity,
  title: row.title,
  message: row.message,
  occurrences: row.occurrences,
  firstAt: new Date(row.first_at),
  lastAt: new Date(row.last_at),
  projectId: row.project_id,
  data: row.data ?? {},
});

/** Private and loopback addresses: for providers an admin saved, or for all once an admin allowed them in Settings. */
async function providerPolicy(ctx: AppContext, row: ProviderRow): Promise<OutboundPolicy> {
  if (row.savedByAdmin) return { allowPrivateNetworks: true };
  return { allowPrivateNetworks: (await getSettings(ctx)).allow_private_network_targets };
}

/** Sends one message through one provider, with its secret opened only here, through the outbound guard. */
async function deliver(
  ctx: AppContext,
  row: ProviderRow,
  content: AlertContent,
  sendOptions: { signal?: AbortSignal; timeoutMs: number },
): Promise<SendResult> {
  let provider: ReturnType<typeof resolveProvider>;
  try {
    provider = resolveProvider(ctx, row);
  } catch {
    throw new DeliveryError("The provider's stored secret cannot be decrypted (was ENCRYPTION_KEY changed?)", true);
  }
  const message = renderAlert(content, ctx.config.publicUrl);
  const options = { ...sendOptions, policy: await providerPolicy(ctx, row) };
  return provider.type === 'email' ? sendEmail(provider.config, message, options) : sendSlack(provider.config, message, options);
}

const sendTimeout = (ctx: AppContext) => Math.min(30_000, Math.max(1_000, Math.floor(ctx.config.notificationLeaseMs / 2)));

type Claimed = {
  id: number;
  notification_id: number;
  provider_id: number | null;
  attempts: number;
  max_attempts: number;
};

/**
 * Sends one delivery: the job runtime's first user. The delivery row stays the record the console
 * shows (status, attempts, history, lease): the handler mirrors each attempt into it, and decides
 * retries itself (handing the runtime an uncounted RetryJob), so the job's own attempt count only
 * guards against a handler that keeps crashing.
 */
export const notificationDeliveryQueue = defineQueue({
  name: 'notifications.deliver',
  payload: z.object({ delivery_id: z.number().int().positive() }),
  maxAttempts: 100,
  concurrency: CONCURRENCY,
  leaseMs: (ctx) => ctx.config.notificationLeaseMs,
  handler: (payload, job) => sendDelivery(payload.delivery_id, job),
});

/** Takes the delivery row for this run (like a worker's claim), or says when to look again. */
async function claimDelivery(
  job: RunningJob,
  deliveryId: number,
): Promise<{ claimed: Claimed; row: NotificationRow | undefined } | { retryAt: Date } | null> {
  const { ctx } = job;
  const client = await ctx.pool.connect();
  try {
    await client.query('BEGIN');
    const found = await client.query<{
      status: DeliveryStatus;
      attempts: number;
      max_attempts: number;
      provider_id: number | null;
      last_error: string | null;
      locked_by: string | null;
      held_until: Date | null;
      due_at: Date | null;
    }>(
      `SELECT status, attempts, max_attempts, provider_id, last_error, locked_by,
              CASE WHEN status = 'sending' AND lease_until > clock_timestamp() THEN lease_until END AS held_until,
              CASE WHEN status = 'pending' AND next_attempt_at > clock_timestamp() THEN next_attempt_at END AS due_at
       FROM notification_deliveries WHERE id = $1 FOR UPDATE`,
      [deliveryId],
    );
    const delivery = found.rows[0];
    if (!delivery || !['pending', 'sending'].includes(delivery.status)) {
      await client.query('COMMIT');
      return null;
    }
    // Held by another sender whose lease still runs: look again when it ends.
    if (delivery.held_until) {
      await client.query('COMMIT');
      return { retryAt: new Date(delivery.held_until) };
    }
    if (delivery.due_at) {
      await client.query('COMMIT');
      return { retryAt: new Date(delivery.due_at) };
    }
    if (delivery.status === 'sending' && delivery.attempts >= delivery.max_attempts) {
      // Held by a node that died, with no attempt left: record the failure instead of trying again.
      const failed = await client.query<{ last_error: string }>(
        `UPDATE notification_deliveries
         SET status = 'failed', lease_until = NULL, locked_by = NULL, updated_at = clock_timestamp(),
             last_error = coalesce(last_error || ' / ', '') || 'the node sending it stopped, and no attempt is left'
         WHERE id = $1 RETURNING last_error`,
        [deliveryId],
      );
      await client.query('COMMIT');
      const lastError = failed.rows[0]?.last_error ?? null;
      if (delivery.provider_id !== null) await recordLastDelivery(ctx, delivery.provider_id, new Date(), 'failed', lastError);
      return null;
    }
    const claimed = await client.query<Claimed>(
      `UPDATE notification_deliveries
       SET status = 'sending', attempts = attempts + 1, locked_by = $2,
           lease_until = clock_timestamp() + make_interval(secs => $3::double precision),
           last_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
       WHERE id = $1
       RETURNING id, notification_id, provider_id, attempts, max_attempts`,
      [deliveryId, job.nodeId, ctx.config.notificationLeaseMs / 1000],
    );
    const taken = claimed.rows[0];
    if (!taken) throw new Error('the delivery row vanished while locked');
    // FOR SHARE waits for a publisher still folding a repeat into this notification (see publishAlert).
    const note = await client.query<NotificationRow>(
      `SELECT id, type, severity, title, message, project_id, data, occurrences, first_at, last_at
       FROM notifications WHERE id = $1 FOR SHARE`,
      [taken.notification_id],
    );
    await client.query('COMMIT');
    return {
      claimed: { ...taken, id: Number(taken.id), notification_id: Number(taken.notification_id) },
      row: note.rows[0],
    };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

async function sendDelivery(deliveryId: number, job: RunningJob): Promise<void> {
  const { ctx, nodeId } = job;
  const taken = await claimDelivery(job, deliveryId);
  if (!taken) return;
  if ('retryAt' in taken) throw new RetryJob(taken.retryAt, false, 'the delivery is not due yet');
  const { claimed, row } = taken;

  /** Writes an attempt's outcome, if this node still holds the delivery (its lease may have been taken over). */
  async function finish(outcome: Outcome, entry: HistoryEntry, nextAttemptAt: Date | null, attempts = claimed.attempts) {
    const now = new Date();
    const updated = await ctx.db
      .update(notificationDeliveries)
      .set({
        status: outcome.status,
        attempts,
        lastError: outcome.error,
        leaseUntil: null,
        lockedBy: null,
        updatedAt: now,
        ...(nextAttemptAt ? { nextAttemptAt } : {}),
        ...(outcome.status === 'sent' ? { sentAt: now } : {}),
        history: sql`${notificationDeliveries.history} || ${JSON.stringify([entry])}::jsonb`,
      })
      .where(
        and(
          eq(notificationDeliveries.id, claimed.id),
          eq(notificationDeliveries.status, 'sending'),
          eq(notificationDeliveries.lockedBy, nodeId),
          eq(notificationDeliveries.attempts, claimed.attempts),
        ),
      )
      .returning({ id: notificationDeliveries.id });
    if (updated.length === 0) {
      await job.log('The delivery was taken over by another node before its outcome was written', 'warn');
      return false;
    }
    // A cancelled or interrupted delivery says nothing about the provider: its last outcome stays.
    if (claimed.provider_id !== null && entry.outcome !== 'interrupted' && outcome.status !== 'cancelled') {
      await recordLastDelivery(ctx, claimed.provider_id, now, outcome.status, outcome.error);
    }
    return true;
  }

  const started = Date.now();
  const entry = (outcome: HistoryEntry['outcome'], error: string | null): HistoryEntry => ({
    at: new Date().toISOString(),
    outcome,
    error,
    duration_ms: Date.now() - started,
    node: nodeId,
  });
  const provider =
    claimed.provider_id === null
      ? undefined
      : (await ctx.db.select().from(notificationProviders).where(eq(notificationProviders.id, claimed.provider_id)).limit(1))[0];
  if (!row || !provider?.enabled) {
    const error = !row
      ? 'The notification was deleted'
      : !provider
        ? 'The provider was deleted before delivery'
        : 'The provider was disabled before delivery';
    await finish({ status: 'cancelled', error }, entry('failed', error), null, claimed.attempts - 1);
    return;
  }
  await job.log(`Sending through ${provider.name} (attempt ${claimed.attempts} of ${claimed.max_attempts})`);
  try {
    const result = await deliver(ctx, provider, contentOf(row), { signal: job.signal, timeoutMs: sendTimeout(ctx) });
    await finish({ status: 'sent', error: result.warning }, entry('sent', result.warning), null);
    await job.log('Sent');
  } catch (caught) {
    const error =
      caught instanceof DeliveryError ? caught : new DeliveryError(String((caught as Error)?.message ?? caught), false);
    if (job.cancelled) {
      await finish({ status: 'cancelled', error: 'Cancelled' }, entry('failed', 'Cancelled'), null, claimed.attempts - 1);
      return;
    }
    if (error.interrupted) {
      // Stopped mid-send: the outcome is unknown, so it goes back to the queue and is not counted.
      const now = new Date();
      await finish({ status: 'pending', error: error.message }, entry('interrupted', error.message), now, claimed.attempts - 1);
      throw new RetryJob(now, false, error.message);
    }
    if (error.permanent || claimed.attempts >= claimed.max_attempts) {
      const message = error.permanent ? error.message : `${error.message} (gave up after ${claimed.attempts} attempts)`;
      await finish({ status: 'failed', error: message }, entry('failed', error.message), null);
      await job.log(`Failed: ${message}`, 'error');
      return;
    }
    const backoff = Math.min(MAX_BACKOFF_MS, ctx.config.notificationRetryBaseMs * 2 ** (claimed.attempts - 1));
    const wait = Math.max(backoff, Math.min(MAX_BACKOFF_MS, error.retryAfterMs ?? 0));
    const at = new Date(Date.now() + wait);
    await job.log(`Failed: ${error.message}; retrying in ${wait} ms`, 'warn');
    if (await finish({ status: 'pending', error: error.message }, entry('retry', error.message), at)) {
      throw new RetryJob(at, false, error.message);
    }
  }
}

/** Old notifications (and their deliveries) are removed hourly, unless still being sent. */
export const notificationRetention = definePeriodicTask({
  name: 'notifications.retention',
  cron: '23 * * * *',
  async run(job) {
    const removed = await job.ctx.pool.query(
      `DELETE FROM notifications n WHERE n.created_at < now() - make_interval(days => $1)
       AND NOT EXISTS (SELECT 1 FROM notification_deliveries d WHERE d.notification_id = n.id AND d.status IN ('pending', 'sending'))`,
      [RETENTION_DAYS],
    );
    return `Removed ${removed.rowCount ?? 0} notifications older than ${RETENTION_DAYS} days`;
  },
});

/**
 * A worker for deliveries only: a second "node" in one process (tests), or a node that sends
 * alerts and nothing else. The platform's own runtime runs this queue with all the others.
 */
export function startNotificationWorker(ctx: AppContext, logger: Pick<Logger, 'warn' | 'error'>): JobRuntime {
  return startJobRuntime(ctx, logger, { queues: [notificationDeliveryQueue] });
}

// ---------------------------------------------------------------------------------------------
// Provider test

/**
 * Sends a test message through one provider, now, and records it like any notification.
 * Answers the receiving server's refusal as a 400 (permanent: fix the settings) or 502.
 */
export async function sendTestNotification(ctx: AppContext, providerId: number): Promise<void> {
  const provider = await requireProvider(ctx, providerId);
  const content: AlertContent = {
    type: 'test',
    severity: 'info',
    title: 'Test notification',
    message: `This is a test notification from the provider "${provider.name}". If you can read it, alerts will reach you here.`,
    occurrences: 1,
    firstAt: new Date(),
    lastAt: new Date(),
    projectId: null,
    data: {},
  };
  const [note] = await ctx.db
    .insert(notifications)
    .values({ type: 'test', severity: 'info', title: content.title, message: content.message })
    .returning({ id: notifications.id });
  if (!note) throw new Error('insert returned nothing');
  const started = Date.now();
  const [delivery] = await ctx.db
    .insert(notificationDeliveries)
    .values({
      notificationId: note.id,
      providerId: provider.id,
      providerName: provider.name,
      providerType: provider.providerType,
      status: 'sending',
      attempts: 1,
      maxAttempts: 1,
      lockedBy: 'test',
      leaseUntil: new Date(Date.now() + ctx.config.notificationLeaseMs),
      lastAttemptAt: new Date(),
    })
    .returning({ id: notificationDeliveries.id });
  if (!delivery) throw new Error('insert returned nothing');

  let failure: DeliveryError | undefined;
  let warning: string | null = null;
  try {
    warning = (await deliver(ctx, provider, content, { timeoutMs: 20_000 })).warning;
  } catch (caught) {
    failure = caught instanceof DeliveryError ? caught : new DeliveryError(String((caught as Error)?.message ?? caught), false);
  }
  const now = new Date();
  const status: DeliveryStatus = failure ? 'failed' : 'sent';
  const error = failure ? failure.message : warning;
  const entry: HistoryEntry = {
    at: now.toISOString(),
    outcome: failure ? 'failed' : 'sent',
    error,
    duration_ms: Date.now() - started,
    node: `${os.hostname()}:${process.pid}`,
  };
  await ctx.db
    .update(notificationDeliveries)
    .set({
      status,
      lastError: error,
      leaseUntil: null,
      lockedBy: null,
      updatedAt: now,
      ...(failure ? {} : { sentAt: now }),
      history: [entry],
    })
    .where(eq(notificationDeliveries.id, delivery.id));
  await recordLastDelivery(ctx, provider.id, now, status, error);
  if (failure) throw new HttpError(failure.permanent ? 400 : 502, failure.message || TEST_NOTIFICATION_FAILED_MESSAGE);
}
