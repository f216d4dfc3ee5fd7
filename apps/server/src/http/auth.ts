import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { AppContext, CredentialCheck } from '../context';
import { readCookie } from '../lib/cookies';
import { type Access, type App, hookList, ROLE_LEVEL, roleLevel } from '../lib/http';
import { requiredPermission } from '../modules/api-keys/permissions';
import { SESSION_COOKIE } from '../modules/auth/service';
import { getSettings } from '../modules/settings/service';
import { sendError } from './errors';
import { crossSiteRefusal } from './security';

/**
 * Who may call a route, decided before its body is even read: the credential becomes a principal
 * (sessions and API keys alike, through ctx.principals), then 401 without one, 403 below the
 * route's role, for an API key without the route's permission, or for a cross-site browser change.
 */

export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The bearer token or session cookie of a request, whichever it carries. */
export function requestToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice(7).trim();
  return readCookie(request, SESSION_COOKIE);
}

type Refusal = { status: 401 | 403; body: { detail: string; missing_permission?: string } };

/** The route's verdict on a principal (null: let it through). */
function refusalFor(request: FastifyRequest, route: string, access: Access, check: CredentialCheck): Refusal | null {
  if (access === 'public') return null;
  const principal = check.principal;
  if (!principal) return { status: 401, body: { detail: ('refusal' in check && check.refusal) || 'Authentication Required' } };
  if (roleLevel(principal.roles) < ROLE_LEVEL[access]) {
    const detail =
      access === 'admin'
        ? 'You need the admin role for this'
        : `Your role (${principal.roles.join(', ') || 'none'}) is read-only: you need the ${access} role for this`;
    return { status: 403, body: { detail } };
  }
  const key = principal.apiKey;
  if (key) {
    const needed = requiredPermission(request.method, route);
    if (needed === 'session-only') {
      return { status: 403, body: { detail: 'API keys cannot change account security or sign out: use a signed-in session' } };
    }
    if (needed === 'unmapped') return { status: 403, body: { detail: 'No API key permission covers this route' } };
    if (needed && !key.permissions.includes(needed)) {
      return { status: 403, body: { detail: `This API key lacks the ${needed} permission`, missing_permission: needed } };
    }
  }
  return null;
}

/** Only a browser's cookie-borne change needs the settings (the cross-site check); a cached read needs no await at all. */
async function decideSlowly(
  ctx: AppContext,
  request: FastifyRequest,
  route: string,
  access: Access,
  checking: CredentialCheck | Promise<CredentialCheck>,
): Promise<Refusal | null> {
  const check = await checking;
  request.principal = check.principal;
  // A browser sends the session cookie by itself; a bearer token has to be put there by a program.
  if (!SAFE_METHODS.has(request.method) && !request.headers.authorization) {
    const settings = await getSettings(ctx);
    const refusal = crossSiteRefusal(request, [settings.external_url, ctx.config.publicUrl]);
    if (refusal) return { status: 403, body: { detail: refusal } };
  }
  return refusalFor(request, route, access, check);
}

/** Callback-style, so the common case (a cached credential reading a route) passes without a promise. */
function authorise(
  ctx: AppContext,
  route: string,
  access: Access,
  request: FastifyRequest,
  reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  const token = requestToken(request);
  const checking = token ? ctx.principals.resolve(token, request) : NO_CREDENTIAL;
  if (!(checking instanceof Promise) && SAFE_METHODS.has(request.method)) {
    request.principal = checking.principal;
    answer(reply, done, refusalFor(request, route, access, checking));
    return;
  }
  decideSlowly(ctx, request, route, access, checking).then((refusal) => answer(reply, done, refusal), done);
}

/**
 * Every API route gets its own gate as the first of its onRequest hooks, made once from the route
 * (its path and role), so a request reads nothing of its route to be judged. Decided by the route
 * that matched, never by the raw URL: the router decodes the path, so '/%61pi/users' reaches the
 * '/api/users' route while its raw URL does not start with '/api/'. A path no route matches (404)
 * and the API docs have no gate. Registered before any API route (app.ts), and the OpenAPI test
 * calls every documented route without credentials.
 */
export function registerAuthorisation(app: App, ctx: AppContext) {
  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route) => {
    const url = route.url ?? '';
    if (!url.startsWith('/api/') || url === '/api/docs' || url.startsWith('/api/docs/')) return;
    const configured: Access | undefined = route.config?.access;
    const gate: onRequestHookHandler = (request, reply, done) =>
      authorise(ctx, url, configured ?? defaultAccess(request.method), request, reply, done);
    route.onRequest = [gate, ...hookList(route.onRequest)];
  });
}

/** A route that does not say: reading takes the reader role, changing the user role. */
const defaultAccess = (method: string): Access => (method === 'GET' || method === 'HEAD' ? 'reader' : 'user');

const NO_CREDENTIAL: CredentialCheck = { principal: null };

/** A refusal is the answer: the hook then ends without done() (Fastify's rule for callback hooks). */
function answer(reply: FastifyReply, done: () => void, refusal: Refusal | null): void {
  if (refusal) sendError(reply, refusal.status, refusal.body);
  else done();
}
