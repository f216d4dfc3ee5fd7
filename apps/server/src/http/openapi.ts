import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import { apiErrorSchema } from '@launchbay/contract';
import { createJsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { App } from '../lib/http';
import { SAFE_METHODS } from './auth';

/** The OpenAPI document at /api/docs/json, generated from the routes' zod schemas, and its reference page. */

/** Routes anyone may call: the OpenAPI document marks them with `security: []`. */
export const PUBLIC_ROUTES = [
  'POST /api/auth/login',
  'POST /api/auth/verify-mfa',
  'GET /api/platform/access-info',
  'GET /api/health',
];

const ERROR_BODY = { ...z.toJSONSchema(apiErrorSchema), $schema: undefined };
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ERROR_BODY } } });

/** The error answers a route really gives (they all share the `{ detail, errors? }` body). */
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

export async function registerOpenApi(app: App) {
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
      // The reference is the API's: the git remote (/git) and the console are not part of it.
      if (!input.url.startsWith('/api/')) return { schema: { ...input.schema, hide: true }, url: input.url };
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
}
