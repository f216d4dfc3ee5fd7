import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { API_KEY_PREFIX } from '@launchbay/contract';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import {
  createJsonSchemaTransform,
  hasZodFastifySchemaValidationErrors,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { HttpError } from './lib/errors';
import { type App, type AppContext, ROLE_LEVEL, roleLevel } from './lib/http';
import { requiredPermission } from './modules/api-keys/permissions';
import { apiKeyRoutes } from './modules/api-keys/routes';
import { resolveApiKey } from './modules/api-keys/service';
import { registerAuditHooks } from './modules/audit/recorder';
import { auditRoutes } from './modules/audit/routes';
import { authRoutes, requestToken } from './modules/auth/routes';
import { notificationRoutes } from './modules/notifications/routes';
import { platformRoutes } from './modules/platform/routes';
import { projectRoutes } from './modules/projects/routes';
import { settingsRoutes } from './modules/settings/routes';
import { accessModeNow } from './modules/settings/service';
import { userRoutes } from './modules/users/routes';

export const BODY_LIMIT_BYTES = 1024 * 1024;
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
/** Routes anyone may call: the OpenAPI document marks them with `security: []`. */
export const PUBLIC_ROUTES = [
  'POST /api/auth/login',
  'POST /api/auth/verify-mfa',
  'GET /api/platform/access-info',
  'GET /api/health',
];

function consoleDirectory(configured: string | undefined): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const dir = configured ?? path.resolve(here, '..', '..', 'console', 'dist');
  return fs.existsSync(path.join(dir, 'index.html')) ? dir : undefined;
}

function sendError(
  reply: FastifyReply,
  status: number,
  body: { detail: string; errors?: { path: string; message: string }[] } & Record<string, unknown>,
) {
  return reply.code(status).type('application/json').send(body);
}

/** The PostgreSQL error (SQLSTATE code and message) behind an error, whether drizzle wrapped it or not. */
function databaseError(error: unknown): { code: string; message: string } | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 3; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return { code, message: current.message };
  }
  return undefined;
}

/** Decides who may call a route before its body is even read: 401 without credentials, 403 below the role. */
async function authorise(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const config = request.routeOptions.config;
  // Decide by the route that matched, never by the raw URL: the router decodes the path, so
  // '/%61pi/users' reaches the '/api/users' route while its raw URL does not start with '/api/'.
  const route = request.routeOptions.url;
  if (!route?.startsWith('/api/') || route === '/api/docs' || route.startsWith('/api/docs/') || !config || request.is404) return;
  const token = requestToken(request);
  let keyRefusal: string | undefined;
  if (token?.startsWith(API_KEY_PREFIX)) {
    try {
      request.principal = await resolveApiKey(ctx, token, request.ip);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      keyRefusal = error.detail;
    }
  } else {
    request.principal = token ? await ctx.sessions.resolve(token) : null;
  }
  const access = config.access ?? (request.method === 'GET' || request.method === 'HEAD' ? 'reader' : 'user');
  if (access === 'public') return;
  if (!request.principal) return sendError(reply, 401, { detail: keyRefusal ?? 'Authentication Required' });
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

export async function buildApp(ctx: AppContext, logger: FastifyBaseLogger): Promise<App> {
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // Behind a local proxy or tunnel the client address comes from X-Forwarded-For; reached
    // directly, nobody is trusted to say it. Follows the access mode setting without a restart.
    trustProxy: (address) => LOOPBACK.has(address) && accessModeNow(ctx) !== 'direct',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('principal', null);

  // An empty body with a JSON content type is "no body" (zod then says what is missing), not a crash.
  const defaultJsonParser = app.getDefaultJsonParser('error', 'ignore');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (String(body).trim() === '') return done(null, undefined);
    defaultJsonParser(request, String(body), done);
  });

  await app.register(fastifyCookie);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Launchbay API',
        version: '1.0.0',
        description:
          'Every route needs a session (cookie `lb_session`) or a bearer token (`Authorization: Bearer ...`) unless it is marked public. ' +
          'Errors answer `{ "detail": "...", "errors": [{ "path": "...", "message": "..." }] }`.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          cookie: { type: 'apiKey', in: 'cookie', name: 'lb_session' },
        },
      },
      security: [{ bearer: [] }, { cookie: [] }],
    },
    transform: (input) => {
      const transformed = createJsonSchemaTransform({})(input);
      const key = `${input.route.method} ${input.url}`;
      if (PUBLIC_ROUTES.includes(key)) return { ...transformed, schema: { ...transformed.schema, security: [] } };
      return transformed;
    },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });

  app.addHook('onRequest', (request, reply) => authorise(ctx, request, reply));
  registerAuditHooks(app, ctx);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const where = error.validationContext === 'body' ? '' : `${error.validationContext}.`;
      const errors = error.validation.map((issue) => ({
        path: `${where}${issue.instancePath.replace(/^\//, '').replace(/\//g, '.')}`.replace(/\.$/, '') || '(root)',
        message: issue.message ?? 'Invalid value',
      }));
      const detail = [...new Set(errors.map((e) => (e.path === '(root)' ? e.message : `${e.path}: ${e.message}`)))].join('; ');
      return sendError(reply, 400, { detail, errors });
    }
    if (error instanceof HttpError) {
      if (error.headers) reply.headers(error.headers);
      return sendError(reply, error.statusCode, {
        detail: error.detail,
        ...(error.errors ? { errors: error.errors } : {}),
        ...error.extra,
      });
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendError(reply, 400, { detail: `Malformed JSON body: ${error.message}` });
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(reply, 413, { detail: `Request body is too large: the limit is ${BODY_LIMIT_BYTES / 1024} KB` });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendError(reply, 415, { detail: `Unsupported content type: send application/json` });
    }
    const database = databaseError(error);
    if (database && (database.code.startsWith('22') || database.code === '54000')) {
      // A data exception (a NUL character, a number past the column's range) or a value too large
      // to index: input the schemas let through, so a bad request rather than a server failure.
      request.log.warn({ err: error, url: request.url, method: request.method }, 'database refused a value');
      return sendError(reply, 400, { detail: `Invalid value: ${database.message}` });
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, error.statusCode, { detail: error.message });
    }
    request.log.error({ err: error, url: request.url, method: request.method }, 'request failed');
    return sendError(reply, 500, { detail: 'Internal server error: the failure was logged on the server' });
  });

  await app.register(
    async (api) => {
      await authRoutes(api, ctx);
      await userRoutes(api, ctx);
      await platformRoutes(api, ctx);
      await projectRoutes(api, ctx);
      await apiKeyRoutes(api, ctx);
      await settingsRoutes(api, ctx);
      await auditRoutes(api, ctx);
      await notificationRoutes(api, ctx);
    },
    { prefix: '/api' },
  );

  const consoleDir = consoleDirectory(ctx.config.consoleDir);
  if (consoleDir) {
    await app.register(fastifyStatic, {
      root: consoleDir,
      wildcard: false,
      index: false,
      setHeaders(res, filePath) {
        // Hashed assets never change; index.html must always be fresh to pick up a new build.
        res.header(
          'cache-control',
          filePath.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const url = request.url.split('?')[0] ?? '/';
    if (url === '/api' || url.startsWith('/api/')) {
      return sendError(reply, 404, { detail: `No API route ${request.method} ${url}` });
    }
    // A missing file (an old hashed asset after an upgrade) is a 404, never index.html served as script.
    const looksLikeFile = url.startsWith('/assets/') || /\.[a-z0-9]{1,8}$/i.test(url);
    if (consoleDir && !looksLikeFile && (request.method === 'GET' || request.method === 'HEAD')) {
      // The console is a single-page app: every other path is one of its routes.
      return reply.header('cache-control', 'no-cache').sendFile('index.html', consoleDir);
    }
    return sendError(reply, 404, {
      detail: consoleDir ? 'Not found' : 'Not found (the console is not built: run npm run build)',
    });
  });

  return app;
}
