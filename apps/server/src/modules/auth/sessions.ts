import type { RoleType } from '@launchbay/contract';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { Db } from '../../db/client';
import { randomToken, sha256 } from '../../lib/crypto';
import type { Principal } from '../../lib/http';
import { WriteThrottle } from '../../lib/write-throttle';
import { userRoles, users } from '../users/schema';
import { sessions } from './schema';

/**
 * Sign-in sessions: created at sign-in, revoked at sign-out or when the account changes. Reading
 * them on every call goes through the principal resolver (principals.ts), which caches.
 */

export const SESSION_COOKIE = 'lb_session';
export const MFA_COOKIE = 'lb_mfa';
export const SESSION_TOKEN_PREFIX = 'lbs_';
const MFA_PENDING_TTL_MS = 10 * 60_000;
const TOUCH_EVERY_MS = 5 * 60_000;

export type SessionKind = 'session' | 'mfa_pending';
export type LoadedSession = { principal: Principal; kind: SessionKind; expiresAt: number };

/** The live session behind a token hash (not revoked, not expired, its user enabled), or null. */
export async function loadSession(db: Db, tokenHash: string): Promise<LoadedSession | null> {
  const rows = await db
    .select({
      sessionId: sessions.id,
      kind: sessions.kind,
      expiresAt: sessions.expiresAt,
      userId: users.id,
      username: users.username,
      email: users.email,
      avatarUrl: users.avatarUrl,
      mfaSecret: users.mfaSecret,
      roles: sql<
        RoleType[]
      >`coalesce((select array_agg(${userRoles.role} order by ${userRoles.role}) from ${userRoles} where ${userRoles.userId} = ${users.id}), '{}')`,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(sessions.tokenHash, tokenHash),
        isNull(sessions.revokedAt),
        gt(sessions.expiresAt, sql`now()`),
        eq(users.disabled, false),
      ),
    )
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  return {
    kind: row.kind as SessionKind,
    expiresAt: new Date(row.expiresAt).getTime(),
    principal: {
      userId: row.userId,
      sessionId: row.sessionId,
      username: row.username,
      email: row.email,
      avatarUrl: row.avatarUrl,
      roles: row.roles,
      mfaEnabled: row.mfaSecret !== null,
    },
  };
}

const touches = new WriteThrottle<number>(TOUCH_EVERY_MS);

/** Records that a session was used (at most every few minutes per session). */
export function touchSession(db: Db, sessionId: number, now = Date.now()): void {
  touches.run(
    sessionId,
    () =>
      db
        .update(sessions)
        .set({ lastSeenAt: new Date(now) })
        .where(eq(sessions.id, sessionId)),
    now,
  );
}

export async function createSession(
  ctx: Pick<AppContext, 'db' | 'config'>,
  userId: number,
  kind: SessionKind,
  meta: { ip: string; userAgent?: string },
) {
  const token = randomToken(SESSION_TOKEN_PREFIX);
  const ttl = kind === 'session' ? ctx.config.sessionTtlMs : MFA_PENDING_TTL_MS;
  const [row] = await ctx.db
    .insert(sessions)
    .values({
      tokenHash: sha256(token),
      userId,
      kind,
      expiresAt: new Date(Date.now() + ttl),
      ip: meta.ip,
      userAgent: meta.userAgent?.slice(0, 512) ?? null,
    })
    .returning({ id: sessions.id });
  return { token, sessionId: row?.id ?? 0, maxAgeSeconds: Math.floor(ttl / 1000) };
}

export async function revokeSession(ctx: Pick<AppContext, 'db' | 'principals'>, sessionId: number): Promise<void> {
  await ctx.db.update(sessions).set({ revokedAt: new Date() }).where(eq(sessions.id, sessionId));
  ctx.principals.forgetSession(sessionId);
}

/** Ends every session of a user (disabled, deleted, password changed), except `keep`. */
export async function revokeUserSessions(
  ctx: Pick<AppContext, 'db' | 'principals'>,
  userId: number,
  keep?: number,
): Promise<void> {
  await ctx.db
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), keep ? sql`${sessions.id} <> ${keep}` : undefined));
  ctx.principals.forgetUser(userId);
}
