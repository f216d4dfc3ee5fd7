import { eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sha256 } from '../../lib/crypto';
import { HttpError } from '../../lib/errors';
import { loginThrottle } from './schema';

/**
 * Failed sign-ins are counted per key, whether or not the email exists, so the answer never tells
 * an attacker which accounts are real:
 *
 * - per (email, ip): past 5 failures each further failure locks the pair (30 s doubling, at most
 *   15 min);
 * - per ip: the same from 30 failures, for an address that tries many accounts;
 * - per email alone (ACCOUNT_POLICY), which no rotation of addresses gets around: 9 free attempts
 *   an hour, then a progressive delay (from the 10th failure each one locks the account for 2 s,
 *   4 s, 8 s ... at most 60 s), and from the 20th failure each one locks it for 15 minutes (an
 *   audit row and an `account_locked` alert, once per lock). A successful sign-in clears it.
 */
const WINDOW_MS = 15 * 60_000;
const LIMITS = { account: 5, ip: 30 } as const;
const MAX_LOCK_MS = 15 * 60_000;

export const ACCOUNT_POLICY = {
  /** Failures are counted over this window; a lock outlasts no window, so counting goes on after one. */
  windowMs: 60 * 60_000,
  delayFrom: 10,
  firstDelayMs: 2_000,
  maxDelayMs: 60_000,
  lockAt: 20,
  lockMs: 15 * 60_000,
} as const;

// Hashed: the key's size stays fixed whatever the email (a long one cannot overflow the index).
export const throttleKeys = (email: string, ip: string) => ({
  /** Per (email, ip); named 'account' before the per-email key existed, kept for its stored rows. */
  account: `login:${sha256(`${email.toLowerCase()}|${ip}`)}`,
  ip: `login-ip:${sha256(ip)}`,
  email: `login-email:${sha256(email.toLowerCase())}`,
});

function tooManyAttempts(lockedUntilMs: number, now: number): HttpError {
  const seconds = Math.max(1, Math.ceil((lockedUntilMs - now) / 1000));
  return new HttpError(
    429,
    `Too many failed sign-in attempts. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
    undefined,
    { 'retry-after': String(seconds) },
    { retry_after: seconds },
  );
}

export async function assertNotThrottled(db: Db, keys: string[]): Promise<void> {
  const rows = await db.select().from(loginThrottle).where(inArray(loginThrottle.key, keys));
  const now = Date.now();
  const lockedUntil = Math.max(0, ...rows.map((r) => (r.lockedUntil ? new Date(r.lockedUntil).getTime() : 0)));
  if (lockedUntil > now) throw tooManyAttempts(lockedUntil, now);
}

/** How long the account is locked after its `failures`-th failure in the window (0: not at all). */
export function accountLockMs(failures: number): number {
  if (failures >= ACCOUNT_POLICY.lockAt) return ACCOUNT_POLICY.lockMs;
  if (failures < ACCOUNT_POLICY.delayFrom) return 0;
  return Math.min(ACCOUNT_POLICY.maxDelayMs, ACCOUNT_POLICY.firstDelayMs * 2 ** (failures - ACCOUNT_POLICY.delayFrom));
}

export type AccountAttempt = {
  /** Failures in the window, this attempt included (it counts as one until the password proves right). */
  failures: number;
  /** True when this attempt, should it fail, started a 15-minute lock: the moment to audit and alert. */
  startedLock: boolean;
  lockedUntil: Date | null;
};

/**
 * Counts a sign-in attempt against the email before its password is checked, or refuses it with
 * 429 while the account is locked. Counting first (under a row lock) is what makes the limit hold
 * for attempts sent in parallel: each one sees the count of those before it, and once the lock is
 * set the rest are refused uncounted. A right password clears the count afterwards.
 */
export async function reserveAccountAttempt(db: Db, key: string): Promise<AccountAttempt> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`
      INSERT INTO login_throttle (key, failures, window_started_at) VALUES (${key}, 0, now())
      ON CONFLICT (key) DO NOTHING
    `);
    const [row] = await tx.select().from(loginThrottle).where(eq(loginThrottle.key, key)).for('update');
    if (!row) throw new Error('the throttle row vanished under its lock');
    const now = Date.now();
    const lockedUntil = row.lockedUntil ? new Date(row.lockedUntil).getTime() : 0;
    if (lockedUntil > now) throw tooManyAttempts(lockedUntil, now);
    const windowOver = new Date(row.windowStartedAt).getTime() < now - ACCOUNT_POLICY.windowMs;
    const failures = windowOver ? 1 : row.failures + 1;
    const lockMs = accountLockMs(failures);
    const nextLockedUntil = lockMs > 0 ? new Date(now + lockMs) : null;
    await tx
      .update(loginThrottle)
      .set({ failures, windowStartedAt: windowOver ? new Date(now) : row.windowStartedAt, lockedUntil: nextLockedUntil })
      .where(eq(loginThrottle.key, key));
    return { failures, startedLock: failures >= ACCOUNT_POLICY.lockAt, lockedUntil: nextLockedUntil };
  });
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
