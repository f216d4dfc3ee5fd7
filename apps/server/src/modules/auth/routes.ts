import {
  currentUserSchema,
  loginRequestSchema,
  loginResponseSchema,
  verifyMfaRequestSchema,
  verifyMfaResponseSchema,
} from '@launchbay/contract';
import { eq } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context';
import { clearCookie, readCookie, setCookie } from '../../lib/cookies';
import { HttpError, unauthorized } from '../../lib/errors';
import type { App } from '../../lib/http';
import { recordAuditEvent } from '../audit/service';
import { publishAlert } from '../notifications/service';
import { users } from '../users/schema';
import { findUserByEmail, toCurrentUser } from '../users/service';
import { checkSecondFactor } from './mfa';
import { verifyPassword } from './passwords';
import { createSession, MFA_COOKIE, revokeSession, SESSION_COOKIE } from './sessions';
import {
  ACCOUNT_POLICY,
  type AccountAttempt,
  assertNotThrottled,
  clearThrottle,
  MFA_ATTEMPT_LIMIT,
  recordFailure,
  recordLoginFailure,
  reserveAccountAttempt,
  throttleKeys,
} from './throttle';

const INVALID_CREDENTIALS = 'Invalid email or password';

function cookieOptions(request: FastifyRequest, maxAgeSeconds: number, path = '/') {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: request.protocol === 'https',
    path,
    maxAge: maxAgeSeconds,
  };
}

async function startSession(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, userId: number) {
  const session = await createSession(ctx, userId, 'session', { ip: request.ip, userAgent: request.headers['user-agent'] });
  await ctx.db.update(users).set({ lastLoginAt: new Date() }).where(eq(users.id, userId));
  setCookie(reply, SESSION_COOKIE, session.token, cookieOptions(request, session.maxAgeSeconds));
  return session.token;
}

/**
 * An account just got locked for repeated failed sign-ins: one audit row and one alert per lock.
 * Done alike whether or not the account exists, so the answer's timing tells nothing; neither
 * side effect may turn the refusal into a 500, so failures are logged.
 */
async function reportAccountLocked(
  ctx: AppContext,
  request: FastifyRequest,
  email: string,
  userId: number | undefined,
  attempt: AccountAttempt,
) {
  const lockedMinutes = ACCOUNT_POLICY.lockMs / 60_000;
  const lockedUntil = attempt.lockedUntil?.toISOString() ?? null;
  try {
    await recordAuditEvent(ctx.db, {
      actorType: 'anonymous',
      actorLabel: email.slice(0, 200),
      action: 'auth.account_locked',
      targetType: 'user',
      targetId: userId === undefined ? null : String(userId),
      summary: { email, failed_attempts: attempt.failures, locked_until: lockedUntil },
      statusCode: 401,
      method: request.method,
      path: request.url.split('?')[0] ?? request.url,
      ip: request.ip,
      userAgent: request.headers['user-agent']?.slice(0, 512) ?? null,
    });
  } catch (error) {
    request.log.error({ err: error }, 'could not record the account lock in the audit log');
  }
  try {
    await publishAlert(ctx, {
      type: 'account_locked',
      severity: 'warning',
      title: `Sign-in locked for ${email}`,
      message: `${attempt.failures} failed sign-in attempts for ${email} within an hour: sign-in is locked for ${lockedMinutes} minutes. The last attempt came from ${request.ip}.`,
      group_key: email,
      data: { email, failed_attempts: attempt.failures, last_ip: request.ip, locked_until: lockedUntil },
    });
  } catch (error) {
    request.log.error({ err: error }, 'could not publish the account-locked alert');
  }
}

export async function authRoutes(app: App, ctx: AppContext) {
  app.post(
    '/auth/login',
    {
      config: { access: 'public', transaction: false },
      schema: {
        tags: ['auth'],
        summary: 'Sign in with email and password',
        body: loginRequestSchema,
        response: { 200: loginResponseSchema },
      },
    },
    async (request, reply) => {
      const email = request.body.email.toLowerCase();
      const keys = throttleKeys(email, request.ip);
      await assertNotThrottled(ctx.db, [keys.account, keys.ip]);
      const user = await findUserByEmail(ctx.db, email);
      if (user) request.auditUserId = user.id;
      // Counted before the password is checked, so parallel guesses cannot outrun the lock.
      const attempt = await reserveAccountAttempt(ctx.db, keys.email);
      const passwordOk = await verifyPassword(user?.passwordHash ?? null, request.body.password);
      if (!user || !passwordOk) {
        await recordLoginFailure(ctx.db, email, request.ip);
        if (attempt.startedLock) await reportAccountLocked(ctx, request, email, user?.id, attempt);
        throw unauthorized(INVALID_CREDENTIALS);
      }
      if (user.disabled) throw new HttpError(403, 'This account has been disabled. Ask an admin to enable it.');
      await clearThrottle(ctx.db, keys.account);
      await clearThrottle(ctx.db, keys.email);
      if (user.mfaSecret) {
        const pending = await createSession(ctx, user.id, 'mfa_pending', {
          ip: request.ip,
          userAgent: request.headers['user-agent'],
        });
        setCookie(reply, MFA_COOKIE, pending.token, cookieOptions(request, pending.maxAgeSeconds, '/api/auth'));
        return { mfa_required: true, mfa_token: pending.token };
      }
      const token = await startSession(ctx, request, reply, user.id);
      return { mfa_required: false, token };
    },
  );

  app.post(
    '/auth/verify-mfa',
    {
      config: { access: 'public', transaction: false },
      schema: {
        tags: ['auth'],
        summary: 'Complete sign-in with a TOTP code or a recovery code',
        body: verifyMfaRequestSchema,
        response: { 200: verifyMfaResponseSchema },
      },
    },
    async (request, reply) => {
      const pendingToken = request.body.mfa_token ?? readCookie(request, MFA_COOKIE);
      const pending = pendingToken ? await ctx.principals.resolvePendingMfa(pendingToken) : null;
      if (!pending) throw unauthorized('Your sign-in expired. Sign in again with your email and password.');
      request.auditUserId = pending.userId;
      // Per user, not per pending sign-in: signing in again must not buy another round of guesses.
      const throttleKey = `mfa:user:${pending.userId}`;
      await assertNotThrottled(ctx.db, [throttleKey]);
      const [user] = await ctx.db.select().from(users).where(eq(users.id, pending.userId)).limit(1);
      if (!user || !(await checkSecondFactor(ctx, user, request.body.code))) {
        await recordFailure(ctx.db, throttleKey, MFA_ATTEMPT_LIMIT);
        throw unauthorized('Invalid verification code');
      }
      await revokeSession(ctx, pending.sessionId);
      await clearThrottle(ctx.db, throttleKey);
      clearCookie(reply, MFA_COOKIE, { path: '/api/auth' });
      return { token: await startSession(ctx, request, reply, user.id) };
    },
  );

  app.post(
    '/logout',
    {
      config: { access: 'reader' },
      schema: { tags: ['auth'], summary: 'End the current session (answers 204)' },
    },
    async (request, reply) => {
      if (request.principal) await revokeSession(ctx, request.principal.sessionId);
      clearCookie(reply, SESSION_COOKIE, { path: '/' });
      return reply.code(204).send();
    },
  );

  app.get(
    '/user/me',
    {
      config: { access: 'reader' },
      schema: { tags: ['auth'], summary: 'The signed-in user', response: { 200: currentUserSchema } },
    },
    // Not async: a value returned as it is goes straight to the answer, with no promise to wait
    // for (the console asks this on every page).
    (request) => {
      if (!request.principal) throw unauthorized();
      return toCurrentUser(request.principal);
    },
  );
}
