import type { RoleType } from '@launchbay/contract';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { afterCommit } from '../../db/request-transaction';
import { TtlCache } from '../../lib/cache';
import { randomToken, sha256 } from '../../lib/crypto';
import type { AppContext, Principal } from '../../lib/http';
import { forgetKeys } from '../api-keys/service';
import { userRoles, users } from '../users/schema';
import { sessions } from './schema';

export const SESSION_COOKIE = 'lb_session';
export const MFA_COOKIE = 'lb_mfa';
export const SESSION_TOKEN_PREFIX = 'lbs_';
const MFA_PENDING_TTL_MS = 10 * 60_000;
/**
 * Resolved sessions are cached briefly so the hot path (every API call) costs no query.
 * Revocations made on this node drop the entry at once; another node sharing the database
 * sees them within this bound.
 */
const CACHE_TTL_MS = 5_000;
const TOUCH_EVERY_MS = 5 * 60_000;

type SessionKind = 'session' | 'mfa_pending';
type Cached = { principal: Principal; kind: SessionKind; expiresAt: number };

export type SessionStore = ReturnType<typeof createSessionStore>;

export function createSessionStore(ctx: Pick<AppContext, 'db' | 'config'>) {
  const cache = new TtlCache<string, Cached>(CACHE_TTL_MS, 10_000);
  const lastTouched = new TtlCache<number, true>(TOUCH_EVERY_MS, 10_000);

  /** Drops cached sessions now, and again once the change commits (a concurrent call could re-cache the old rows in between). */
  function forget(matches: (entry: Cached) => boolean) {
    cache.deleteWhere(matches);
    afterCommit(() => cache.deleteWhere(matches));
  }

  async function load(tokenHash: string): Promise<Cached | null> {
    const rows = await ctx.db
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

  return {
    async create(userId: number, kind: SessionKind, meta: { ip: string; userAgent?: string }) {
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
    },

    /** The signed-in principal for a token, or null. Pending-MFA tokens only resolve with `kind`. */
    async resolve(token: string, kind: SessionKind = 'session'): Promise<Principal | null> {
      if (!token.startsWith(SESSION_TOKEN_PREFIX) || token.length > 100) return null;
      // Keyed by the token itself: a hit costs no hashing (the cache never leaves this process).
      const entry = await cache.getOrLoad(token, async () => (await load(sha256(token))) ?? undefined);
      if (!entry) return null;
      if (entry.kind !== kind || entry.expiresAt < Date.now()) return null;
      const { sessionId } = entry.principal;
      if (!lastTouched.get(sessionId)) {
        lastTouched.set(sessionId, true);
        void ctx.db
          .update(sessions)
          .set({ lastSeenAt: new Date() })
          .where(eq(sessions.id, sessionId))
          .catch(() => undefined);
      }
      return entry.principal;
    },

    async revoke(sessionId: number) {
      await ctx.db.update(sessions).set({ revokedAt: new Date() }).where(eq(sessions.id, sessionId));
      forget((e) => e.principal.sessionId === sessionId);
    },

    /** Ends every session of a user (disabled, deleted, password changed), except `keep`. */
    async revokeUser(userId: number, keep?: number) {
      await ctx.db
        .update(sessions)
        .set({ revokedAt: new Date() })
        .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), keep ? sql`${sessions.id} <> ${keep}` : undefined));
      forget((e) => e.principal.userId === userId);
      forgetKeys();
    },

    /** Drops cached copies after a change to the user (name, roles, MFA...). */
    forgetUser(userId: number) {
      forget((e) => e.principal.userId === userId);
      // Again once the change commits: a concurrent call could cache the old rows in between.
      forgetKeys();
    },
  };
}
