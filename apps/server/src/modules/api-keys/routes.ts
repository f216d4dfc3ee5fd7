import {
  apiKeyListResponseSchema,
  apiKeySchema,
  createApiKeyRequestSchema,
  createApiKeyResponseSchema,
  idParamSchema,
  permissionListResponseSchema,
  updateApiKeyRequestSchema,
} from '@launchbay/contract';
import type { AppContext } from '../../context';
import { unauthorized } from '../../lib/errors';
import type { App, Principal } from '../../lib/http';
import { createKey, deleteKey, getKey, listKeys, permissionCatalogue, setKeyActive, updateKey } from './service';

const who = (principal: Principal | null): Principal => {
  if (!principal) throw unauthorized();
  return principal;
};

export async function apiKeyRoutes(app: App, ctx: AppContext) {
  app.get(
    '/api-keys/permissions',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'Permissions a key can hold, and role presets',
        response: { 200: permissionListResponseSchema },
      },
    },
    async () => permissionCatalogue(),
  );

  app.get(
    '/api-keys',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'Your API keys (an admin sees every key)',
        response: { 200: apiKeyListResponseSchema },
      },
    },
    async (request) => ({ api_keys: await listKeys(ctx, who(request.principal)) }),
  );

  app.post(
    '/api-keys',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['api-keys'],
        summary: 'Create an API key; the secret is in this answer only',
        body: createApiKeyRequestSchema,
        response: { 201: createApiKeyResponseSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await createKey(ctx, who(request.principal), request.body)),
  );

  app.get(
    '/api-keys/:id',
    { schema: { tags: ['api-keys'], summary: 'One API key', params: idParamSchema, response: { 200: apiKeySchema } } },
    async (request) => getKey(ctx, who(request.principal), request.params.id),
  );

  app.put(
    '/api-keys/:id',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['api-keys'],
        summary: 'Rename a key or change its permissions or expiry',
        params: idParamSchema,
        body: updateApiKeyRequestSchema,
        response: { 200: apiKeySchema },
      },
    },
    async (request) => updateKey(ctx, who(request.principal), request.params.id, request.body),
  );

  app.delete(
    '/api-keys/:id',
    {
      config: { access: 'reader' },
      schema: { tags: ['api-keys'], summary: 'Delete a key (answers 204)', params: idParamSchema },
    },
    async (request, reply) => {
      await deleteKey(ctx, who(request.principal), request.params.id);
      return reply.code(204).send();
    },
  );

  for (const [action, active] of [
    ['activate', true],
    ['deactivate', false],
  ] as const) {
    app.post(
      `/api-keys/:id/${action}`,
      {
        config: { access: 'reader' },
        schema: {
          tags: ['api-keys'],
          summary: `${action === 'activate' ? 'Activate' : 'Deactivate'} a key`,
          params: idParamSchema,
          response: { 200: apiKeySchema },
        },
      },
      async (request) => setKeyActive(ctx, who(request.principal), request.params.id, active),
    );
  }
}
