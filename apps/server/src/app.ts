import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { API_KEY_PREFIX, apiErrorSchema, findUnsafeText, UNSAFE_TEXT_MESSAGE } from '@launchbay/contract';
import Fastify, { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import {
  createJsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BODY_LIMIT_BYTES, clientErrorHandler, frameworkErrors, registerErrorHandling, sendError } from './http/errors';
import { crossSiteRefusal, registerSecurityHeaders, sanitiseForwardedHeaders } from './http/security';
import { badRequest, HttpError } from './lib/errors';
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
import { accessModeNow, getSettings } from './modules/settings/service';
import { userRoutes } from './modules/users/routes';

export { BODY_LIMIT_BYTES };

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
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

const ERROR_BODY = { ...z.toJSONSchema(apiErrorSchema), $schema: undefined };
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ERROR_BODY } } });

/** The error answers a route really gives, for the OpenAPI document (they all share the `{ detail, errors? }` body). */
function errorResponses(route: { method: string | string[]; schema?: { params?: unknown; body?: unknown } }, isPublic: boolean) {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const mutating = methods.some((m) => !SAFE_METHODS.has(m));
  const schema = route.schema ?? {};
  const responses: Record<string, unknown> = {
    400: errorResponse('Bad input: `errors` lists each field and what is wrong with it'),
  };
  if (!isPublic) responses[401] = errorResponse('No valid session or API key');
  if (!isPublic || mutating) {
    responses[403] = errorResponse('Refused: the role or API key permission is missing, or a cross-site browser request');
  }
  if (schema.params) responses[404] = errorResponse('No such id');
  if (schema.body) {
    responses[413] = errorResponse('Body larger than 1 MB');
    responses[415] = errorResponse('Body not sent as application/json');
  }
  if (isPublic && mutating) responses[429] = errorResponse('Too many failed attempts: `retry_after` says when to try again');
  responses[500] = errorResponse('Unexpected failure (logged on the server)');
  return responses;
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
  // A browser sends the session cookie by itself; a bearer token has to be put there by a program.
  if (!SAFE_METHODS.has(request.method) && !request.headers.authorization) {
    const settings = await getSettings(ctx);
    const refusal = crossSiteRefusal(request, [settings.external_url, ctx.config.publicUrl]);
    if (refusal) return sendError(reply, 403, { detail: refusal });
  }
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
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();

  // First of all hooks: nothing may read a client address from a forwarded header that does not parse.
  app.addHook('onRequest', (request, _reply, done) => {
    sanitiseForwardedHeaders(request);
    done();
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('principal', null);

  // An empty body with a JSON content type is "no body" (zod then says what is missing), not a crash.
  const defaultJsonParser = app.getDefaultJsonParser('error', 'ignore');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (String(body).trim() === '') return done(null, undefined);
    defaultJsonParser(request, String(body), done);
  });

  const consoleDir = consoleDirectory(ctx.config.consoleDir);
  await registerSecurityHeaders(app, { consoleDir });
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
      const isPublic = PUBLIC_ROUTES.includes(key);
      const schema = {
        ...transformed.schema,
        response: { ...errorResponses(input.route, isPublic), ...(transformed.schema.response as object | undefined) },
      };
      return { ...transformed, schema: isPublic ? { ...schema, security: [] } : schema };
    },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });

  app.addHook('onRequest', (request, reply) => authorise(ctx, request, reply));
  registerAuditHooks(app, ctx);

  registerErrorHandling(app);
  // Before any schema: text that PostgreSQL or jsonb cannot hold is refused for every route at once.
  app.addHook('preValidation', (request, _reply, done) => {
    for (const [where, value] of [
      ['', request.body],
      ['query.', request.query],
      ['params.', request.params],
    ] as const) {
      const found = findUnsafeText(value);
      if (found) {
        const path = `${where}${found.join('.')}`.replace(/\.$/, '') || '(root)';
        return done(badRequest(`${path}: ${UNSAFE_TEXT_MESSAGE}`, [{ path, message: UNSAFE_TEXT_MESSAGE }]));
      }
    }
    done();
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
