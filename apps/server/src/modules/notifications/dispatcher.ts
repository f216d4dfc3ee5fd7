import { randomBytes } from 'node:crypto';
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
import { afterCommit } from '../../db/request-transaction';
import { HttpError } from '../../lib/errors';
import type { AppContext } from '../../lib/http';
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
const POLL_MS = 500;
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
      await tx.insert(notificationDeliveries).values(
        providers.map((p) => ({
          notificationId: row.id,
          providerId: p.id,
          providerName: p.name,
          providerType: p.providerType,
          maxAttempts: MAX_ATTEMPTS,
          // A batched notification waits for its window to close, so the one message carries the count.
          nextAttemptAt: row.batchUntil ?? sql`clock_timestamp()`,
        })),
      );
    }
    return { status: 'queued', notification_id: row.id, deliveries: providers.length, send_at: new Date(sendAt) };
  });
  if (result.status === 'queued' && result.deliveries > 0) {
    const worker = workers.get(ctx.pool);
    // Published inside a request, the rows exist for the worker only once that request commits.
    afterCommit(() => {
      if (!batchKey) worker?.kick();
      else worker?.wakeAt(result.send_at);
    });
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

export type NotificationWorker = {
  /** Look for due deliveries now (after a publish). */
  kick(): void;
  /** Look again at `at` (when a batching window closes), besides the regular polling. */
  wakeAt(at: Date): void;
  stop(): Promise<void>;
};

const workers = new WeakMap<object, NotificationWorker>();

type Claimed = {
  id: number;
  notification_id: number;
  provider_id: number | null;
  attempts: number;
  max_attempts: number;
};

export function startNotificationWorker(ctx: AppContext, logger: Pick<Logger, 'warn' | 'error'>): NotificationWorker {
  const nodeId = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const abort = new AbortController();
  const inflight = new Set<Promise<void>>();
  let stopped = false;
  let ticking: Promise<void> | undefined;
  let again = false;
  let pollTimer: NodeJS.Timeout | undefined;
  const wakeTimers = new Set<NodeJS.Timeout>();
  let lastSweep = 0;

  /** Claims up to `limit` due deliveries and reads their notifications, in one short transaction. */
  async function claim(limit: number): Promise<{ jobs: Claimed[]; rows: Map<number, NotificationRow> }> {
    const client = await ctx.pool.connect();
    try {
      await client.query('BEGIN');
      // Held by a node that died, with no attempt left: record the failure instead of trying again.
      const dead = await client.query<{ provider_id: number | null; last_error: string }>(
        `WITH dead AS (
           SELECT id FROM notification_deliveries
           WHERE status = 'sending' AND lease_until < clock_timestamp() AND attempts >= max_attempts
           FOR UPDATE SKIP LOCKED
         )
         UPDATE notification_deliveries d
         SET status = 'failed', lease_until = NULL, locked_by = NULL, updated_at = clock_timestamp(),
             last_error = coalesce(d.last_error || ' / ', '') || 'the node sending it stopped, and no attempt is left'
         FROM dead WHERE d.id = dead.id
         RETURNING d.provider_id, d.last_error`,
      );
      const claimed = await client.query<Claimed>(
        `WITH due AS (
           SELECT id FROM notification_deliveries
           WHERE (status = 'pending' AND next_attempt_at <= clock_timestamp())
              OR (status = 'sending' AND lease_until < clock_timestamp())
           ORDER BY next_attempt_at, id
           LIMIT $1
           FOR UPDATE SKIP LOCKED
         )
         UPDATE notification_deliveries d
         SET status = 'sending', attempts = d.attempts + 1, locked_by = $3,
             lease_until = clock_timestamp() + make_interval(secs => $2::double precision),
             last_attempt_at = clock_timestamp(), updated_at = clock_timestamp()
         FROM due WHERE d.id = due.id
         RETURNING d.id, d.notification_id, d.provider_id, d.attempts, d.max_attempts`,
        [limit, ctx.config.notificationLeaseMs / 1000, nodeId],
      );
      const ids = [...new Set(claimed.rows.map((r) => Number(r.notification_id)))];
      const rows = new Map<number, NotificationRow>();
      if (ids.length > 0) {
        // FOR SHARE waits for a publisher still folding a repeat into one of these (see publishAlert).
        const found = await client.query<NotificationRow>(
          `SELECT id, type, severity, title, message, project_id, data, occurrences, first_at, last_at
           FROM notifications WHERE id = ANY($1::bigint[]) FOR SHARE`,
          [ids],
        );
        for (const row of found.rows) rows.set(Number(row.id), row);
      }
      await client.query('COMMIT');
      for (const row of dead.rows) {
        if (row.provider_id !== null) await recordLastDelivery(ctx, row.provider_id, new Date(), 'failed', row.last_error);
      }
      return { jobs: claimed.rows.map((r) => ({ ...r, id: Number(r.id), notification_id: Number(r.notification_id) })), rows };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Writes an attempt's outcome, if this node still holds the delivery (its lease may have been taken over). */
  async function finish(
    job: Claimed,
    outcome: Outcome,
    entry: HistoryEntry,
    nextAttemptAt: Date | null,
    attempts = job.attempts,
  ) {
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
        ...(outcome.status === 'sent' ? { sentAt: now } : {}),
        ...(nextAttemptAt ? { nextAttemptAt } : {}),
        history: sql`${notificationDeliveries.history} || ${JSON.stringify([entry])}::jsonb`,
      })
      .where(
        and(
          eq(notificationDeliveries.id, job.id),
          eq(notificationDeliveries.status, 'sending'),
          eq(notificationDeliveries.lockedBy, nodeId),
          eq(notificationDeliveries.attempts, job.attempts),
        ),
      )
      .returning({ id: notificationDeliveries.id });
    if (updated.length === 0) {
      logger.warn({ delivery: job.id }, 'notification delivery was taken over by another node before its outcome was written');
      return;
    }
    // A cancelled or interrupted delivery says nothing about the provider: its last outcome stays.
    if (job.provider_id !== null && entry.outcome !== 'interrupted' && outcome.status !== 'cancelled') {
      await recordLastDelivery(ctx, job.provider_id, now, outcome.status, outcome.error);
    }
  }

  async function processJob(job: Claimed, row: NotificationRow | undefined) {
    const started = Date.now();
    const entry = (outcome: HistoryEntry['outcome'], error: string | null): HistoryEntry => ({
      at: new Date().toISOString(),
      outcome,
      error,
      duration_ms: Date.now() - started,
      node: nodeId,
    });
    const provider =
      job.provider_id === null
        ? undefined
        : (await ctx.db.select().from(notificationProviders).where(eq(notificationProviders.id, job.provider_id)).limit(1))[0];
    if (!row || !provider?.enabled) {
      const error = !row
        ? 'The notification was deleted'
        : !provider
          ? 'The provider was deleted before delivery'
          : 'The provider was disabled before delivery';
      await finish(job, { status: 'cancelled', error }, entry('failed', error), null, job.attempts - 1);
      return;
    }
    try {
      const result = await deliver(ctx, provider, contentOf(row), { signal: abort.signal, timeoutMs: sendTimeout(ctx) });
      await finish(job, { status: 'sent', error: result.warning }, entry('sent', result.warning), null);
    } catch (caught) {
      const error =
        caught instanceof DeliveryError ? caught : new DeliveryError(String((caught as Error)?.message ?? caught), false);
      if (error.interrupted) {
        // Stopped mid-send: the outcome is unknown, so it goes back to the queue and is not counted.
        await finish(
          job,
          { status: 'pending', error: error.message },
          entry('interrupted', error.message),
          new Date(),
          job.attempts - 1,
        );
        return;
      }
      if (error.permanent || job.attempts >= job.max_attempts) {
        const message = error.permanent ? error.message : `${error.message} (gave up after ${job.attempts} attempts)`;
        await finish(job, { status: 'failed', error: message }, entry('failed', error.message), null);
        return;
      }
      const backoff = Math.min(MAX_BACKOFF_MS, ctx.config.notificationRetryBaseMs * 2 ** (job.attempts - 1));
      const wait = Math.max(backoff, Math.min(MAX_BACKOFF_MS, error.retryAfterMs ?? 0));
      await finish(job, { status: 'pending', error: error.message }, entry('retry', error.message), new Date(Date.now() + wait));
      wakeAt(new Date(Date.now() + wait));
    }
  }

  async function sweep() {
    if (Date.now() - lastSweep < 3600_000) return;
    lastSweep = Date.now();
    await ctx.db.execute(
      sql`DELETE FROM notifications n WHERE n.created_at < now() - make_interval(days => ${RETENTION_DAYS})
          AND NOT EXISTS (SELECT 1 FROM notification_deliveries d WHERE d.notification_id = n.id AND d.status IN ('pending', 'sending'))`,
    );
  }

  async function runTick() {
    await sweep();
    while (!stopped) {
      const free = CONCURRENCY - inflight.size;
      if (free <= 0) return;
      const { jobs, rows } = await claim(free);
      if (jobs.length === 0) return;
      for (const job of jobs) {
        const task: Promise<void> = processJob(job, rows.get(job.notification_id))
          .catch((error: unknown) => logger.error({ err: error, delivery: job.id }, 'notification delivery failed unexpectedly'))
          .finally(() => {
            inflight.delete(task);
            kick();
          });
        inflight.add(task);
      }
    }
  }

  function tick() {
    if (stopped) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = runTick()
      .catch((error: unknown) => {
        if (!stopped) logger.error({ err: error }, 'notification worker could not claim deliveries');
      })
      .finally(() => {
        ticking = undefined;
        if (again && !stopped) {
          again = false;
          setImmediate(tick);
        }
      });
  }

  function kick() {
    if (!stopped) setImmediate(tick);
  }

  function wakeAt(at: Date) {
    if (stopped) return;
    const delay = Math.max(0, at.getTime() - Date.now()) + 5;
    if (delay > 10 * 60_000) return; // the poll loop covers it
    const timer = setTimeout(() => {
      wakeTimers.delete(timer);
      tick();
    }, delay);
    timer.unref();
    wakeTimers.add(timer);
  }

  function poll() {
    tick();
    if (!stopped) {
      pollTimer = setTimeout(poll, POLL_MS);
      pollTimer.unref();
    }
  }
  poll();

  const worker: NotificationWorker = {
    kick,
    wakeAt,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(pollTimer);
      for (const timer of wakeTimers) clearTimeout(timer);
      await ticking;
      if (inflight.size > 0) {
        // Let sends in progress finish briefly; then cut them short (they go back to the queue).
        const grace = new Promise((resolve) => setTimeout(resolve, 3_000).unref());
        await Promise.race([Promise.allSettled([...inflight]), grace]);
        abort.abort(new Error('the platform is stopping'));
        await Promise.allSettled([...inflight]);
      }
      if (workers.get(ctx.pool) === worker) workers.delete(ctx.pool);
    },
  };
  workers.set(ctx.pool, worker);
  return worker;
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
