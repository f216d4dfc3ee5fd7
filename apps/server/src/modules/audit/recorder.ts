import type { FastifyReply, FastifyRequest, onResponseHookHandler, onSendHookHandler } from 'fastify';
import type { AppContext } from '../../context';
import {
  openRequestTransaction,
  type RequestTransaction,
  runInRequestTransaction,
  unscopedDb,
} from '../../db/request-transaction';
import { type App, hookList } from '../../lib/http';
import { type AuditEvent, recordAuditEvent } from './service';

/**
 * The one audit mechanism: a hook on every /api request records each successful mutation, in the
 * same transaction as the mutation (one commits only with the other), sign-in attempts whether
 * they succeed or not, and refused (403) attempts to change something. Routes declare nothing;
 * the action comes from the route's path and method (a route may name it with `config.audit`).
 */

const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Failed calls (besides 403 refusals) still worth a row: someone tried to get in. */
const RECORD_FAILURES = new Set(['/api/auth/login', '/api/auth/verify-mfa']);
const VERB_SEGMENTS = new Set([
  'login',
  'logout',
  'verify-mfa',
  'setup',
  'verify',
  'activate',
  'deactivate',
  'test',
  'run',
  'enable',
  'disable',
  'start',
  'stop',
  'cancel',
  'pause',
  'resume',
  'sync',
  'provision',
  'renew',
  'finalize',
  'trigger-pipeline',
  'rollback',
  'update-token',
  'approve',
  'authorize',
  'detect',
  'provision',
  'renew',
  'finalize',
]);
const SECRET_KEY = /pass(word)?|secret|token|api_?key|^code$|webhook|credential|private|authorization|cookie/i;
/** Singular names for the target of a route, by its first path segment. */
const TARGET_TYPES: Record<string, string> = {
  users: 'user',
  'api-keys': 'api_key',
  projects: 'project',
  settings: 'settings',
  'notification-providers': 'notification_provider',
  'notification-preferences': 'notification_preferences',
  'git-providers': 'git_provider',
  'git-connections': 'git_connection',
  lb: 'lb_route',
  domains: 'domain',
};

/** Replaces every value under a secret-looking key (or one of `alsoSecret`), at any depth, with '[redacted]'. */
export function redact(value: unknown, depth = 0, alsoSecret: readonly string[] = []): unknown {
  if (depth > 6) return '[truncated]';
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, depth + 1, alsoSecret));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [
        k,
        SECRET_KEY.test(k) || alsoSecret.includes(k) ? '[redacted]' : redact(v, depth + 1, alsoSecret),
      ]),
    );
  }
  if (typeof value === 'string' && value.length > 500) return `${value.slice(0, 500)}…`;
  return value;
}

/** 'POST /api/users/:user_id/roles' -> 'users.roles.create'; 'POST /api/api-keys/:id/activate' -> 'api_keys.activate'. */
export function actionFor(method: string, routeUrl: string): string {
  const segments = routeUrl
    .replace(/^\/api\//, '')
    .split('/')
    .filter((s) => s && !s.startsWith(':'));
  const last = segments[segments.length - 1] ?? '';
  const name = segments.map((s) => s.replace(/-/g, '_')).join('.');
  if (method === 'POST' && VERB_SEGMENTS.has(last)) return name;
  const verb = method === 'POST' ? 'create' : method === 'DELETE' ? 'delete' : 'update';
  return `${name}.${verb}`;
}

function targetOf(request: FastifyRequest, responseId: unknown): { type: string | null; id: string | null } {
  const routeUrl = request.routeOptions.url ?? '';
  const first = routeUrl.replace(/^\/api\//, '').split('/')[0] ?? '';
  const params = (request.params ?? {}) as Record<string, unknown>;
  if (routeUrl.startsWith('/api/auth/')) {
    // A sign-in concerns the account it names, whatever session the request happens to carry.
    return { type: 'user', id: request.auditUserId ? String(request.auditUserId) : null };
  }
  if (routeUrl.startsWith('/api/users/me') || routeUrl === '/api/logout') {
    const userId = request.principal?.userId ?? request.auditUserId;
    return { type: 'user', id: userId ? String(userId) : null };
  }
  const paramId = Object.entries(params).find(([key]) => key === 'id' || key.endsWith('_id') || key === 'domain')?.[1];
  const id = paramId ?? responseId;
  return { type: TARGET_TYPES[first] ?? first.replace(/-/g, '_'), id: id === undefined || id === null ? null : String(id) };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The user a sign-in attempt concerned, set by the auth routes for the audit row. */
    auditUserId?: number;
    /** The transaction a mutating request runs in (see db/request-transaction.ts). */
    requestTransaction?: RequestTransaction;
  }
  interface FastifyContextConfig {
    audit?: string;
    /** Body fields that hold secrets under names the recorder cannot guess (an env var's `value`). */
    auditRedact?: readonly string[];
    /**
     * false: the route runs outside a request transaction, because what it writes must persist
     * whatever the answer (a failed sign-in's count, a failed test send's record). Its audit row
     * is still written before the answer leaves, and a failure to write it fails the request.
     */
    transaction?: boolean;
  }
}

/** A route option's hooks as a list (Fastify takes one function or several). */
const isMutatingApiRoute = (method: string | string[], url: string) =>
  url.startsWith('/api/') && (Array.isArray(method) ? method : [method]).some((m) => MUTATIONS.has(m));

function auditEvent(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  outcome: 'ok' | 'failed' | 'denied',
): AuditEvent {
  const routeUrl = request.routeOptions.url ?? '';
  let responseId: unknown;
  if (outcome === 'ok' && typeof payload === 'string' && payload.startsWith('{')) {
    try {
      responseId = (JSON.parse(payload) as { id?: unknown }).id;
    } catch {
      // not JSON: no id to record
    }
  }
  let action = request.routeOptions.config.audit ?? actionFor(request.method, routeUrl);
  if (outcome !== 'ok') action = `${action}_${outcome}`;
  // Sign-ins are public: their actor is the account signing in, never a token sent along by the way.
  const principal = routeUrl.startsWith('/api/auth/') ? null : request.principal;
  const body =
    request.body && typeof request.body === 'object'
      ? redact(request.body, 0, request.routeOptions.config.auditRedact)
      : undefined;
  const target = targetOf(request, responseId);
  const attemptedEmail = (request.body as { email?: unknown } | undefined)?.email;
  const actorLabel = principal
    ? principal.apiKey
      ? `${principal.apiKey.name} (${principal.email})`
      : principal.email
    : typeof attemptedEmail === 'string'
      ? attemptedEmail.slice(0, 200)
      : null;
  return {
    actorType: principal ? (principal.apiKey ? 'api_key' : 'user') : request.auditUserId ? 'user' : 'anonymous',
    actorUserId: principal?.userId ?? request.auditUserId ?? null,
    actorApiKeyId: principal?.apiKey?.id ?? null,
    actorLabel,
    action,
    targetType: target.type,
    targetId: target.id,
    summary: {
      ...(body ? { body } : {}),
      ...(Object.keys(request.params ?? {}).length ? { params: request.params } : {}),
      ...(outcome !== 'ok' ? { error: reply.statusCode } : {}),
    },
    statusCode: reply.statusCode,
    method: request.method,
    path: request.url.split('?')[0] ?? request.url,
    ip: request.ip,
    userAgent: request.headers['user-agent']?.slice(0, 512) ?? null,
  };
}

export function registerAuditHooks(app: App, ctx: AppContext) {
  // Every mutating API route gets the audit hooks (as its own hooks: reads, most requests, run none)
  // and runs in one transaction with its audit row (unless it opts out).
  app.addHook('onRoute', (route) => {
    if (!isMutatingApiRoute(route.method, route.url)) return;
    route.onSend = [...hookList(route.onSend), auditOnSend];
    route.onResponse = [...hookList(route.onResponse), rollBackLeftover];
    if (route.config?.transaction === false) return;
    const handler = route.handler;
    route.handler = async function transactional(this: unknown, request, reply) {
      const transaction = await openRequestTransaction(ctx.db);
      request.requestTransaction = transaction;
      try {
        const result = await runInRequestTransaction(transaction, () => handler.call(this as never, request, reply));
        // The caller is gone and will never see an answer: nothing may change on its behalf.
        if (request.socket?.destroyed !== false && !reply.sent) await transaction.rollback();
        return result;
      } catch (error) {
        await transaction.rollback();
        throw error;
      }
    };
  });

  /** What happens to a mutation's answer before it leaves: commit with its audit row, or roll back (and record a refusal). */
  async function settle(request: FastifyRequest, reply: FastifyReply, payload: unknown, routeUrl: string): Promise<void> {
    const failed = reply.statusCode >= 400;
    const transaction = request.requestTransaction;
    if (transaction?.tx) {
      if (failed) await transaction.rollback();
      // Throws when the audit row or the commit fails: the answer becomes a 500 and nothing changed.
      else return transaction.commit((tx) => recordAuditEvent(tx, auditEvent(request, reply, payload, 'ok')));
    }
    const db = unscopedDb(ctx.db);
    if (!failed) {
      if (!transaction) await recordAuditEvent(db, auditEvent(request, reply, payload, 'ok'));
      return;
    }
    // Refused attempts are worth a row too: someone tried to get in, or to do what their role does not allow.
    const outcome = reply.statusCode === 403 ? 'denied' : RECORD_FAILURES.has(routeUrl) ? 'failed' : undefined;
    if (outcome) {
      await recordAuditEvent(db, auditEvent(request, reply, payload, outcome)).catch((error: unknown) =>
        request.log.error({ err: error }, 'could not write the audit row of a refused request'),
      );
    }
  }

  // Written before the answer leaves, so a client that sees a success can always find its row.
  // Callback-style: a route with several methods passes its reads straight through without a promise.
  const auditOnSend: onSendHookHandler = (request, reply, payload, done) => {
    const routeUrl = request.routeOptions.url;
    if (!routeUrl || request.is404 || !isMutatingApiRoute(request.method, routeUrl)) return done(null, payload);
    settle(request, reply, payload, routeUrl).then(
      () => done(null, payload),
      (error: Error) => done(error),
    );
  };

  // Should never find work: every answer passes onSend. A safety net so a connection is never kept.
  const rollBackLeftover: onResponseHookHandler = (request, _reply, done) => {
    const transaction = request.requestTransaction;
    if (!transaction?.tx) return done();
    request.log.warn({ url: request.url }, 'request transaction still open after the answer: rolled back');
    transaction.rollback().then(() => done());
  };
}
