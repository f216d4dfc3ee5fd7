import { eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sha256 } from '../../lib/crypto';
import { HttpError } from '../../lib/errors';
import { loginThrottle } from './schema';

/**
 * Failed sign-ins are counted per (email, ip) and per ip, whether or not the email exists, so
 * the answer never tells an attacker which accounts are real. Past the free attempts each
 * further failure locks the key for longer (30 s doubling, at most 15 min).
 */
const WINDOW_MS = 15 * 60_000;
const LIMITS = { account: 5, ip: 30 } as const;
const MAX_LOCK_MS = 15 * 60_000;

// Hashed: the key's size stays fixed whatever the email (a long one cannot overflow the index).
export const throttleKeys = (email: string, ip: string) => ({
  account: `login:${sha256(`${email.toLowerCase()}|${ip}`)}`,
  ip: `login-ip:${sha256(ip)}`,
});

export async function assertNotThrottled(db: Db, keys: string[]): Promise<void> {
  const rows = await db.select().from(loginThrottle).where(inArray(loginThrottle.key, keys));
  const now = Date.now();
  const lockedUntil = Math.max(0, ...rows.map((r) => (r.lockedUntil ? new Date(r.lockedUntil).getTime() : 0)));
  if (lockedUntil > now) {
    const seconds = Math.ceil((lockedUntil - now) / 1000);
    throw new HttpError(
      429,
      `Too many failed sign-in attempts. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
      undefined,
      { 'retry-after': String(seconds) },
      { retry_after: seconds },
    );
  }
}

export async function recordFailure(db: Db, key: string, limit: number): Promise<void> {
  // One statement: the count, the window reset and the lock are decided atomically in the database.
  await db.execute(sql`
    INSERT INTO login_throttle (key, failures, window_started_at)
    VALUES (${key}, 1, now())
    ON CONFLICT (key) DO UPDATE SET
      failures = CASE WHEN login_throttle.window_started_at < now() - make_interval(secs => ${WINDOW_MS / 1000})
                      THEN 1 ELSE login_throttle.failures + 1 END,
      window_started_at = CASE WHEN login_throttle.window_started_at < now() - make_interval(secs => ${WINDOW_MS / 1000})
                      THEN now() ELSE login_throttle.window_started_at END
  `);
  await db.execute(sql`
    UPDATE login_throttle
    SET locked_until = now() + make_interval(secs => least(${MAX_LOCK_MS / 1000}, 30 * power(2, failures - ${limit})))
    WHERE key = ${key} AND failures >= ${limit}
  `);
}

export async function recordLoginFailure(db: Db, email: string, ip: string) {
  const keys = throttleKeys(email, ip);
  await recordFailure(db, keys.account, LIMITS.account);
  await recordFailure(db, keys.ip, LIMITS.ip);
}

export async function clearThrottle(db: Db, key: string) {
  await db.delete(loginThrottle).where(eq(loginThrottle.key, key));
}

export const MFA_ATTEMPT_LIMIT = LIMITS.account;
