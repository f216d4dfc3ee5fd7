import {
  currentUserSchema,
  loginRequestSchema,
  loginResponseSchema,
  verifyMfaRequestSchema,
  verifyMfaResponseSchema,
} from '@launchbay/contract';
import { eq, sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError, unauthorized } from '../../lib/errors';
import type { App, AppContext } from '../../lib/http';
import { users } from '../users/schema';
import { findUserByEmail, toCurrentUser } from '../users/service';
import { checkSecondFactor } from './mfa';
import { verifyPassword } from './passwords';
import { MFA_COOKIE, SESSION_COOKIE } from './sessions';
import {
  assertNotThrottled,
  clearThrottle,
  MFA_ATTEMPT_LIMIT,
  recordFailure,
  recordLoginFailure,
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
  const session = await ctx.sessions.create(userId, 'session', { ip: request.ip, userAgent: request.headers['user-agent'] });
  await ctx.db.update(users).set({ lastLoginAt: new Date() }).where(eq(users.id, userId));
  reply.setCookie(SESSION_COOKIE, session.token, cookieOptions(request, session.maxAgeSeconds));
  return session.token;
}

/** The bearer token or session cookie of a request, whichever it carries. */
export function requestToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice(7).trim();
  return request.cookies[SESSION_COOKIE];
}

export async function authRoutes(app: App, ctx: AppContext) {
  app.post(
    '/auth/login',
    {
      config: { access: 'public' },
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
      const passwordOk = await verifyPassword(user?.passwordHash ?? null, request.body.password);
      if (!user || !passwordOk) {
        await recordLoginFailure(ctx.db, email, request.ip);
        throw unauthorized(INVALID_CREDENTIALS);
      }
      if (user.disabled) throw new HttpError(403, 'This account has been disabled. Ask an admin to enable it.');
      await clearThrottle(ctx.db, keys.account);
      if (user.mfaSecret) {
        const pending = await ctx.sessions.create(user.id, 'mfa_pending', {
          ip: request.ip,
          userAgent: request.headers['user-agent'],
        });
        reply.setCookie(MFA_COOKIE, pending.token, cookieOptions(request, pending.maxAgeSeconds, '/api/auth'));
        return { mfa_required: true, mfa_token: pending.token };
      }
      const token = await startSession(ctx, request, reply, user.id);
      return { mfa_required: false, token };
    },
  );

  app.post(
    '/auth/verify-mfa',
    {
      config: { access: 'public' },
      schema: {
        tags: ['auth'],
        summary: 'Complete sign-in with a TOTP code or a recovery code',
        body: verifyMfaRequestSchema,
        response: { 200: verifyMfaResponseSchema },
      },
    },
    async (request, reply) => {
      const pendingToken = request.body.mfa_token ?? request.cookies[MFA_COOKIE];
      const pending = pendingToken ? await ctx.sessions.resolve(pendingToken, 'mfa_pending') : null;
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
      await ctx.sessions.revoke(pending.sessionId);
      await clearThrottle(ctx.db, throttleKey);
      reply.clearCookie(MFA_COOKIE, { path: '/api/auth' });
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
      if (request.principal) await ctx.sessions.revoke(request.principal.sessionId);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return reply.code(204).send();
    },
  );

  app.get(
    '/user/me',
    {
      config: { access: 'reader' },
      schema: { tags: ['auth'], summary: 'The signed-in user', response: { 200: currentUserSchema } },
    },
    async (request) => {
      if (!request.principal) throw unauthorized();
      return toCurrentUser(request.principal);
    },
  );

  // Housekeeping: expired sessions are useless; drop them hourly so the table stays small.
  const sweep = setInterval(() => {
    void ctx.db.execute(sql`DELETE FROM sessions WHERE expires_at < now() - interval '1 day'`).catch(() => undefined);
  }, 3600_000);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));
}
