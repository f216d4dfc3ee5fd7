import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { type App, ROLE_LEVEL, roleLevel } from '../lib/http';
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
  return request.cookies[SESSION_COOKIE];
}

async function authorise(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const config = request.routeOptions.config;
  // Decide by the route that matched, never by the raw URL: the router decodes the path, so
  // '/%61pi/users' reaches the '/api/users' route while its raw URL does not start with '/api/'.
  const route = request.routeOptions.url;
  if (!route?.startsWith('/api/') || route === '/api/docs' || route.startsWith('/api/docs/') || !config || request.is404) return;
  const token = requestToken(request);
  const check = token ? await ctx.principals.resolve(token, request.ip) : { principal: null };
  request.principal = check.principal;
  const access = config.access ?? (request.method === 'GET' || request.method === 'HEAD' ? 'reader' : 'user');
  // A browser sends the session cookie by itself; a bearer token has to be put there by a program.
  if (!SAFE_METHODS.has(request.method) && !request.headers.authorization) {
    const settings = await getSettings(ctx);
    const refusal = crossSiteRefusal(request, [settings.external_url, ctx.config.publicUrl]);
    if (refusal) return sendError(reply, 403, { detail: refusal });
  }
  if (access === 'public') return;
  if (!request.principal) {
    return sendError(reply, 401, { detail: ('refusal' in check && check.refusal) || 'Authentication Required' });
  }
  if (roleLevel(request.principal.roles) < ROLE_LEVEL[access]) {
    const detail =
      access === 'admin'
        ? 'You need the admin role for this'
        : `Your role (${request.principal.roles.join(', ') || 'none'}) is read-only: you need the ${access} role for this`;
    return sendError(reply, 403, { detail });
  }
  const key = request.principal.apiKey;
  if (key) {
    const needed = requiredPermission(request.method, route);
    if (needed === 'session-only') {
      return sendError(reply, 403, { detail: 'API keys cannot change account security or sign out: use a signed-in session' });
    }
    if (needed === 'unmapped') return sendError(reply, 403, { detail: 'No API key permission covers this route' });
    if (needed && !key.permissions.includes(needed)) {
      return sendError(reply, 403, { detail: `This API key lacks the ${needed} permission`, missing_permission: needed });
    }
  }
}

export function registerAuthorisation(app: App, ctx: AppContext) {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', (request, reply) => authorise(ctx, request, reply));
}
