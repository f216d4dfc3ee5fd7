import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { AppContext } from './context';
import { API_AREAS } from './http/areas';
import { registerAuthorisation } from './http/auth';
import { consoleDirectory, registerConsole } from './http/console';
import { BODY_LIMIT_BYTES, clientErrorHandler, frameworkErrors, registerErrorHandling } from './http/errors';
import { registerInputHandling } from './http/input';
import { registerOpenApi } from './http/openapi';
import { registerSecurity, secureResponseClass } from './http/security';
import type { App } from './lib/http';
import { lazyChildLogger } from './lib/logger';
import { registerAuditHooks } from './modules/audit/recorder';
import { gitRemoteRoutes } from './modules/git-remote/routes';
import { accessModeNow } from './modules/settings/service';
import { webhookReceiverRoutes } from './modules/webhooks/routes';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** The HTTP app: each cross-cutting concern is one `register` below (src/http/), each area one line in http/areas.ts. */
export async function buildApp(ctx: AppContext, logger: FastifyBaseLogger): Promise<App> {
  const consoleDir = consoleDirectory(ctx.config.consoleDir);
  const app = Fastify({
    // Every answer's head carries the security headers (http/security.ts).
    http: { ServerResponse: secureResponseClass({ consoleDir }) },
    // No logger instance for Fastify itself: with one, Fastify times every answer and listens for
    // its end (two listeners, two timestamps and a closure per request) only to log its completion,
    // which the platform does not log. Each request still logs through the platform's logger, lazily.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (_fastifyNullLogger, bindings, options) => lazyChildLogger(logger as Logger, bindings, options),
    bodyLimit: BODY_LIMIT_BYTES,
    // Behind a local proxy or tunnel the client address comes from X-Forwarded-For; reached
    // directly, nobody is trusted to say it. Follows the access mode setting without a restart.
    trustProxy: (address) => LOOPBACK.has(address) && accessModeNow(ctx) !== 'direct',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();

  registerSecurity(app);
  // Before any route: each API route gets its gate as it is added.
  registerAuthorisation(app, ctx);
  registerInputHandling(app);
  registerErrorHandling(app);
  await registerOpenApi(app);
  registerAuditHooks(app, ctx);

  await app.register(
    async (api) => {
      for (const registerArea of API_AREAS) await registerArea(api, ctx);
    },
    { prefix: '/api' },
  );
  // The platform's own git remote (`git push .../git/{slug}.git`): git is its client, not the console.
  await app.register(async (remote) => gitRemoteRoutes(remote, ctx), { prefix: '/git' });
  // Git hosts' push and pull-request deliveries, signed with each project's secret.
  await app.register(async (receiver) => webhookReceiverRoutes(receiver, ctx), { prefix: '/webhooks' });
  await registerConsole(app, consoleDir);
  return app;
}
