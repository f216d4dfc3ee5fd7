import { randomBytes } from 'node:crypto';
import {
  API_KEY_PREFIX,
  type ApiKey,
  PERMISSION_AREAS,
  PERMISSIONS,
  type Permission,
  type PermissionArea,
  type RoleType,
} from '@launchbay/contract';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { Db } from '../../db/client';
import { sha256 } from '../../lib/crypto';
import { forbidden, notFound } from '../../lib/errors';
import type { Principal } from '../../lib/http';
import { toIso, toIsoOrNull } from '../../lib/time';
import { WriteThrottle } from '../../lib/write-throttle';
import { userRoles, users } from '../users/schema';
import { apiKeys } from './schema';

type ApiKeyRow = typeof apiKeys.$inferSelect;

const AREA_LABELS: Record<PermissionArea, string> = {
  projects: 'projects',
  deployments: 'deployments and pipelines',
  domains: 'domains and certificates',
  env_vars: 'environment variables',
  services: 'external services (databases, storage)',
  backups: 'backups and S3 sources',
  monitors: 'uptime monitors',
  analytics: 'analytics, funnels and replays',
  errors: 'error tracking',
  notifications: 'notification providers and alert preferences',
  git: 'git providers and connections',
  load_balancer: 'load balancer routes and proxy logs',
  users: 'users and roles',
  api_keys: 'API keys',
  settings: 'platform settings',
  audit: 'the audit log',
  platform: 'platform information',
};

const READ_ONLY = PERMISSIONS.filter((p) => p.endsWith(':read')) as Permission[];
const ADMIN_ONLY_AREAS: PermissionArea[] = ['users', 'settings'];

export function permissionCatalogue() {
  return {
    permissions: PERMISSION_AREAS.flatMap((area) =>
      (['read', 'write'] as const).map((access) => ({
        name: `${area}:${access}` as Permission,
        area,
        access,
        description: `${access === 'read' ? 'Read' : 'Create, change and delete'} ${AREA_LABELS[area]}`,
      })),
    ),
    presets: [
      { role: 'admin' as RoleType, label: 'Admin: everything', permissions: [...PERMISSIONS] as Permission[] },
      {
        role: 'user' as RoleType,
        label: 'User: deploy and manage projects',
        permissions: PERMISSIONS.filter(
          (p) => p.endsWith(':read') || !ADMIN_ONLY_AREAS.some((a) => p.startsWith(`${a}:`)),
        ) as Permission[],
      },
      { role: 'reader' as RoleType, label: 'Reader: read-only', permissions: READ_ONLY },
    ],
  };
}

export function toApiKeyDto(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.keyPrefix,
    permissions: row.permissions as Permission[],
    is_active: row.isActive,
    expires_at: toIsoOrNull(row.expiresAt),
    created_at: toIso(row.createdAt),
    last_used_at: toIsoOrNull(row.lastUsedAt),
    last_used_ip: row.lastUsedIp,
    user_id: row.userId,
  };
}

/** Admins see every key; others see and manage their own. */
function ownerScope(principal: Principal) {
  return principal.roles.includes('admin') ? undefined : eq(apiKeys.userId, principal.userId);
}

async function requireKey(ctx: AppContext, principal: Principal, id: number): Promise<ApiKeyRow> {
  const [row] = await ctx.db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), ownerScope(principal)))
    .limit(1);
  if (!row) throw notFound(`API key ${id} not found`);
  return row;
}

/**
 * The API key a call is made with, read fresh (the principal's copy may be cached), or null for a
 * session. A key acts only within what it holds and how long it lives: it cannot lend a key more
 * permissions or more time than it has itself. People (sessions) are not limited this way.
 */
async function actingKey(ctx: AppContext, principal: Principal): Promise<ApiKeyRow | null> {
  if (!principal.apiKey) return null;
  const [row] = await ctx.db.select().from(apiKeys).where(eq(apiKeys.id, principal.apiKey.id)).limit(1);
  // Deleted between its authentication and now: it holds nothing any more.
  if (!row) throw forbidden('This API key no longer exists');
  return row;
}

const permissionsOf = (row: ApiKeyRow) => row.permissions as Permission[];

/** A key may only hand out what it holds itself: no escalation through a key. */
function assertGrantable(actor: ApiKeyRow | null, permissions: readonly Permission[]) {
  if (!actor) return;
  const missing = permissions.filter((p) => !permissionsOf(actor).includes(p));
  if (missing.length > 0) throw forbidden(`This API key cannot grant permissions it does not have: ${missing.join(', ')}`);
}

/** A key may only update, activate, deactivate or delete keys holding no more than it does. */
function assertManageable(actor: ApiKeyRow | null, target: ApiKeyRow) {
  if (!actor) return;
  const missing = permissionsOf(target).filter((p) => !permissionsOf(actor).includes(p));
  if (missing.length > 0) {
    throw forbidden(
      `This API key cannot manage API key ${target.id}: that key holds permissions this one does not have: ${missing.join(', ')}`,
    );
  }
}

const timeOf = (value: Date | string | null) => (value === null ? null : new Date(value).getTime());

/**
 * An expiring key may only set expiries no later than its own: no key without an expiry, and no
 * pushing its own expiry out. `targetId` is the key being changed (undefined when creating one).
 */
function assertLifetimeWithin(actor: ApiKeyRow | null, expiresAt: string | null, targetId?: number) {
  const actorExpiry = actor ? timeOf(actor.expiresAt) : null;
  if (!actor || actorExpiry === null) return;
  const wanted = timeOf(expiresAt);
  if (wanted !== null && wanted <= actorExpiry) return;
  const until = new Date(actorExpiry).toISOString();
  if (targetId === actor.id) throw forbidden(`An API key cannot extend its own expiry (it expires at ${until})`);
  throw forbidden(
    wanted === null
      ? `This API key expires at ${until}: a key it creates or changes must expire too, no later than that`
      : `This API key expires at ${until}: it cannot set an expiry later than its own`,
  );
}

/** Bringing a key back must not outlive the key that does it either. */
function assertActivationWithin(actor: ApiKeyRow | null, target: ApiKeyRow) {
  const actorExpiry = actor ? timeOf(actor.expiresAt) : null;
  if (!actor || actorExpiry === null || target.id === actor.id) return;
  const targetExpiry = timeOf(target.expiresAt);
  if (targetExpiry !== null && targetExpiry <= actorExpiry) return;
  throw forbidden(
    `This API key expires at ${new Date(actorExpiry).toISOString()}: it cannot activate API key ${target.id}, which outlives it`,
  );
}

export async function listKeys(ctx: AppContext, principal: Principal) {
  const rows = await ctx.db
    .select()
    .from(apiKeys)
    .where(ownerScope(principal))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  return rows.map(toApiKeyDto);
}

export const getKey = async (ctx: AppContext, principal: Principal, id: number) =>
  toApiKeyDto(await requireKey(ctx, principal, id));

export async function createKey(
  ctx: AppContext,
  principal: Principal,
  input: { name: string; permissions: Permission[]; expires_at: string | null },
) {
  const permissions = [...new Set(input.permissions)].sort() as Permission[];
  const actor = await actingKey(ctx, principal);
  assertGrantable(actor, permissions);
  assertLifetimeWithin(actor, input.expires_at);
  const secret = `${API_KEY_PREFIX}${randomBytes(30).toString('base64url')}`;
  const [row] = await ctx.db
    .insert(apiKeys)
    .values({
      userId: principal.userId,
      name: input.name,
      keyPrefix: secret.slice(0, 11),
      secretHash: sha256(secret),
      permissions,
      expiresAt: input.expires_at ? new Date(input.expires_at) : null,
    })
    .returning();
  if (!row) throw new Error('insert returned nothing');
  return { ...toApiKeyDto(row), secret };
}

export async function updateKey(
  ctx: AppContext,
  principal: Principal,
  id: number,
  patch: { name?: string; permissions?: Permission[]; expires_at?: string | null },
) {
  const target = await requireKey(ctx, principal, id);
  const actor = await actingKey(ctx, principal);
  assertManageable(actor, target);
  if (patch.permissions) assertGrantable(actor, patch.permissions);
  if (patch.expires_at !== undefined) assertLifetimeWithin(actor, patch.expires_at, id);
  const values: Partial<typeof apiKeys.$inferInsert> = {};
  if (patch.name !== undefined) values.name = patch.name;
  if (patch.permissions !== undefined) values.permissions = [...new Set(patch.permissions)].sort();
  if (patch.expires_at !== undefined) values.expiresAt = patch.expires_at ? new Date(patch.expires_at) : null;
  const [row] = await ctx.db.update(apiKeys).set(values).where(eq(apiKeys.id, id)).returning();
  ctx.principals.forgetApiKey(id);
  return toApiKeyDto(row as ApiKeyRow);
}

export async function setKeyActive(ctx: AppContext, principal: Principal, id: number, isActive: boolean) {
  const target = await requireKey(ctx, principal, id);
  const actor = await actingKey(ctx, principal);
  assertManageable(actor, target);
  if (isActive) assertActivationWithin(actor, target);
  const [row] = await ctx.db.update(apiKeys).set({ isActive }).where(eq(apiKeys.id, id)).returning();
  ctx.principals.forgetApiKey(id);
  return toApiKeyDto(row as ApiKeyRow);
}

export async function deleteKey(ctx: AppContext, principal: Principal, id: number) {
  const target = await requireKey(ctx, principal, id);
  assertManageable(await actingKey(ctx, principal), target);
  await ctx.db.delete(apiKeys).where(eq(apiKeys.id, id));
  ctx.principals.forgetApiKey(id);
}

/** An API key as the principal resolver needs it: who it acts for, and whether it may be used now. */
export type LoadedApiKey = {
  principal: Principal;
  isActive: boolean;
  /** ms since the epoch, or null for a key that never expires. */
  expiresAt: number | null;
};

/** The key behind a secret's hash with its owner, or null (unknown key, or its owner is disabled). */
export async function loadApiKey(db: Db, secretHash: string): Promise<LoadedApiKey | null> {
  const [found] = await db
    .select({
      key: apiKeys,
      username: users.username,
      email: users.email,
      avatarUrl: users.avatarUrl,
      disabled: users.disabled,
      mfaSecret: users.mfaSecret,
      roles: sql<
        RoleType[]
      >`coalesce((select array_agg(${userRoles.role} order by ${userRoles.role}) from ${userRoles} where ${userRoles.userId} = ${users.id}), '{}')`,
    })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(eq(apiKeys.secretHash, secretHash))
    .limit(1);
  if (!found || found.disabled) return null;
  return {
    isActive: found.key.isActive,
    expiresAt: found.key.expiresAt ? new Date(found.key.expiresAt).getTime() : null,
    principal: {
      userId: found.key.userId,
      sessionId: 0,
      username: found.username,
      email: found.email,
      avatarUrl: found.avatarUrl,
      roles: found.roles,
      mfaEnabled: found.mfaSecret !== null,
      apiKey: { id: found.key.id, name: found.key.name, permissions: found.key.permissions as Permission[] },
    },
  };
}

const keyUses = new WriteThrottle<number>(60_000);

/** Records when and from where a key was last used (at most once a minute per key). */
export function recordApiKeyUse(db: Db, keyId: number, client: { readonly ip: string }): void {
  keyUses.run(keyId, () =>
    db.update(apiKeys).set({ lastUsedAt: new Date(), lastUsedIp: client.ip }).where(eq(apiKeys.id, keyId)),
  );
}
