import {
  type DeliveryStatus,
  type EmailConfig,
  type EmailProvider,
  emailConfigSchema,
  type NotificationProvider,
  type ProviderType,
  SECRET_MASK,
  type SlackConfig,
  slackConfigSchema,
} from '@launchbay/contract';
import { and, asc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { AppContext } from '../../context';
import { badRequest, type FieldError, notFound } from '../../lib/errors';
import { decideMaskedSecret } from '../../lib/masked-secret';
import { notificationDeliveries, notificationProviders } from './schema';

export type ProviderRow = typeof notificationProviders.$inferSelect;
/** A provider with its secret opened: only ever held in memory to send. */
export type ResolvedProvider =
  | { id: number; name: string; type: 'email'; enabled: boolean; config: EmailConfig }
  | { id: number; name: string; type: 'slack'; enabled: boolean; config: SlackConfig };

const WITH_ARTICLE: Record<ProviderType, string> = { email: 'an email', slack: 'a Slack' };

const iso = (value: Date | string) => new Date(value).toISOString();

/** Scheme and host stay readable; the path (where the secret of a webhook lives) is hidden. */
export function maskWebhookUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/${SECRET_MASK}`;
  } catch {
    return SECRET_MASK;
  }
}

/** A webhook URL as reads show it (its path replaced by the mask), whatever its scheme and host. */
const isMaskedWebhookUrl = (url: string) => url === SECRET_MASK || url.endsWith(`/${SECRET_MASK}`);

/** Who saved a provider: an admin's providers may reach private and loopback addresses. */
export type SavedBy = { admin: boolean };

function openSecret(ctx: Pick<AppContext, 'box'>, row: ProviderRow): string {
  return row.secret ? ctx.box.open(row.secret) : '';
}

export function toProviderDto(ctx: Pick<AppContext, 'box'>, row: ProviderRow): NotificationProvider {
  const base = {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    saved_by_admin: row.savedByAdmin,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    last_delivery: row.lastDeliveryAt
      ? {
          at: iso(row.lastDeliveryAt),
          status: row.lastDeliveryStatus as DeliveryStatus,
          error: row.lastDeliveryError,
        }
      : null,
  };
  if (row.providerType === 'slack') {
    const stored = row.config as { channel?: string | null };
    return {
      ...base,
      provider_type: 'slack',
      config: { webhook_url: maskWebhookUrl(openSecret(ctx, row)), channel: stored.channel ?? null },
    };
  }
  const stored = row.config as Omit<EmailConfig, 'password'>;
  const config: EmailProvider['config'] = {
    smtp_host: stored.smtp_host,
    smtp_port: stored.smtp_port,
    username: stored.username ?? '',
    password: row.secret ? SECRET_MASK : '',
    from_address: stored.from_address,
    to_addresses: stored.to_addresses ?? [],
    from_name: stored.from_name ?? null,
    tls_mode: stored.tls_mode ?? 'Starttls',
    starttls_required: stored.starttls_required ?? false,
    accept_invalid_certs: stored.accept_invalid_certs ?? false,
  };
  return { ...base, provider_type: 'email', config };
}

export function resolveProvider(ctx: Pick<AppContext, 'box'>, row: ProviderRow): ResolvedProvider {
  const secret = openSecret(ctx, row);
  if (row.providerType === 'slack') {
    const stored = row.config as { channel?: string | null };
    return {
      id: row.id,
      name: row.name,
      type: 'slack',
      enabled: row.enabled,
      config: { webhook_url: secret, channel: stored.channel ?? null },
    };
  }
  const dto = toProviderDto(ctx, row) as EmailProvider;
  return { id: row.id, name: row.name, type: 'email', enabled: row.enabled, config: { ...dto.config, password: secret } };
}

/**
 * Whether an email config still authenticates to the same place, the same way, as the stored one.
 * Weakening TLS counts as a change: without certificate checks or with STARTTLS optional, whoever
 * sits on the path could be the server that receives the password.
 */
function sameEmailDestination(config: Omit<EmailConfig, 'password'>, stored: Record<string, unknown>): boolean {
  return (
    config.smtp_host.toLowerCase() === String(stored.smtp_host ?? '').toLowerCase() &&
    config.smtp_port === stored.smtp_port &&
    config.username === (stored.username ?? '') &&
    config.tls_mode === (stored.tls_mode ?? 'Starttls') &&
    (!config.accept_invalid_certs || stored.accept_invalid_certs === true) &&
    (config.starttls_required || stored.starttls_required !== true)
  );
}

/**
 * Splits a validated config into what is stored in the clear and the sealed secret. A masked
 * secret keeps the stored one only for an unchanged destination (see lib/masked-secret.ts).
 */
function storedParts(
  ctx: Pick<AppContext, 'box'>,
  type: ProviderType,
  config: EmailConfig | SlackConfig,
  existing: ProviderRow | undefined,
): { config: Record<string, unknown>; secret: string | null } {
  if (type === 'slack') {
    const slack = config as SlackConfig;
    const decision = decideMaskedSecret({
      sent: slack.webhook_url,
      mask: isMaskedWebhookUrl,
      storedSealed: existing?.secret,
      // The mask shows scheme and host: it stands for the stored URL only when those are the stored ones.
      destinationUnchanged: existing?.secret ? slack.webhook_url === maskWebhookUrl(openSecret(ctx, existing)) : false,
      field: 'config.webhook_url',
      label: 'webhook URL',
      destination: 'its scheme or host',
    });
    if (decision.action === 'ask_again') throw validationError([decision.error]);
    return {
      config: { channel: slack.channel },
      secret: decision.action === 'keep_stored' ? decision.sealed : ctx.box.seal(slack.webhook_url),
    };
  }
  const { password, ...rest } = config as EmailConfig;
  // Authentication is used only with a username: without one no password is kept.
  if (!rest.username) return { config: rest, secret: null };
  const decision = decideMaskedSecret({
    sent: password,
    mask: SECRET_MASK,
    storedSealed: existing?.secret,
    destinationUnchanged: existing ? sameEmailDestination(rest, existing.config) : false,
    field: 'config.password',
    label: 'password',
    destination: 'the server, port, username or TLS settings',
  });
  if (decision.action === 'ask_again') throw validationError([decision.error]);
  if (decision.action === 'keep_stored') return { config: rest, secret: decision.sealed };
  return { config: rest, secret: password ? ctx.box.seal(password) : null };
}

/** Zod issues as the API's field errors, under a path prefix ('config.smtp_port'). */
function fieldErrors(error: z.ZodError, prefix: string): FieldError[] {
  return error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || '(root)',
    message: issue.message,
  }));
}

function validationError(errors: FieldError[]) {
  const detail = [...new Set(errors.map((e) => (e.path === '(root)' ? e.message : `${e.path}: ${e.message}`)))].join('; ');
  return badRequest(detail, errors);
}

export async function listProviders(ctx: AppContext): Promise<NotificationProvider[]> {
  const rows = await ctx.db.select().from(notificationProviders).orderBy(asc(notificationProviders.id));
  return rows.map((row) => toProviderDto(ctx, row));
}

export async function requireProvider(ctx: AppContext, id: number, type?: ProviderType): Promise<ProviderRow> {
  const [row] = await ctx.db.select().from(notificationProviders).where(eq(notificationProviders.id, id)).limit(1);
  if (!row) throw notFound(`Notification provider ${id} not found`);
  if (type && row.providerType !== type) {
    throw notFound(`Notification provider ${id} is not ${WITH_ARTICLE[type]} provider`);
  }
  return row;
}

export async function createProvider(
  ctx: AppContext,
  type: ProviderType,
  input: { name: string; enabled: boolean; config: EmailConfig | SlackConfig },
  savedBy: SavedBy,
): Promise<NotificationProvider> {
  const parts = storedParts(ctx, type, input.config, undefined);
  const [row] = await ctx.db
    .insert(notificationProviders)
    .values({
      name: input.name,
      providerType: type,
      enabled: input.enabled,
      config: parts.config,
      secret: parts.secret,
      savedByAdmin: savedBy.admin,
    })
    .returning();
  if (!row) throw new Error('insert returned nothing');
  return toProviderDto(ctx, row);
}

/**
 * Replaces a provider's name, config and (when given) enabled flag. `type` is set by the typed
 * routes (/email/{id}, /slack/{id}); the generic route checks the config against the stored type.
 * Whoever saves it last decides whether it is trusted with private addresses: an admin's
 * provider re-saved by a user is a user's provider.
 */
export async function updateProvider(
  ctx: AppContext,
  id: number,
  input: { name: string; enabled?: boolean; config: unknown },
  savedBy: SavedBy,
  type?: ProviderType,
): Promise<NotificationProvider> {
  const existing = await requireProvider(ctx, id, type);
  const providerType = existing.providerType as ProviderType;
  const parsed = (providerType === 'email' ? emailConfigSchema : slackConfigSchema).safeParse(input.config);
  if (!parsed.success) throw validationError(fieldErrors(parsed.error, 'config'));
  const parts = storedParts(ctx, providerType, parsed.data, existing);
  const [row] = await ctx.db
    .update(notificationProviders)
    .set({
      name: input.name,
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      config: parts.config,
      secret: parts.secret,
      savedByAdmin: savedBy.admin,
      updatedAt: sql`now()`,
    })
    .where(eq(notificationProviders.id, id))
    .returning();
  if (!row) throw notFound(`Notification provider ${id} not found`);
  return toProviderDto(ctx, row);
}

/** Deletes a provider; its queued deliveries are cancelled, its delivery record stays. */
export async function deleteProvider(ctx: AppContext, id: number): Promise<void> {
  await requireProvider(ctx, id);
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(notificationDeliveries)
      .set({
        status: 'cancelled',
        lastError: 'The provider was deleted before delivery',
        leaseUntil: null,
        updatedAt: sql`now()`,
      })
      .where(and(eq(notificationDeliveries.providerId, id), inArray(notificationDeliveries.status, ['pending', 'sending'])));
    await tx.delete(notificationProviders).where(eq(notificationProviders.id, id));
  });
}

/** Keeps the provider's latest delivery outcome; an older outcome never overwrites a newer one. */
export async function recordLastDelivery(
  ctx: Pick<AppContext, 'db'>,
  providerId: number,
  at: Date,
  status: DeliveryStatus,
  error: string | null,
): Promise<void> {
  await ctx.db
    .update(notificationProviders)
    .set({ lastDeliveryAt: at, lastDeliveryStatus: status, lastDeliveryError: error })
    .where(
      and(
        eq(notificationProviders.id, providerId),
        or(isNull(notificationProviders.lastDeliveryAt), lte(notificationProviders.lastDeliveryAt, at)),
      ),
    );
}
