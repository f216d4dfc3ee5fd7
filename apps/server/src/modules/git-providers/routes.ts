import {
  branchListResponseSchema,
  createGitlabOauthProviderRequestSchema,
  createPatProviderRequestSchema,
  DEFAULT_BASE_URL,
  dbIdSchema,
  gitConnectionListResponseSchema,
  gitConnectionSchema,
  gitlabOauthStartResponseSchema,
  gitProviderDeletionCheckSchema,
  gitProviderListResponseSchema,
  gitProviderSchema,
  gitSyncResponseSchema,
  livePresetSchema,
  messageSchema,
  repositoryListQuerySchema,
  repositoryListResponseSchema,
  repositorySchema,
  updateGitTokenRequestSchema,
} from '@launchbay/contract';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { outsideRequestTransaction } from '../../db/request-transaction';
import type { App } from '../../lib/http';
import { livePreset } from './live-preset';
import { authorizeUrl, OAUTH_CALLBACK_PATH, oauthCallbackUrl } from './oauth';
import {
  completeGitlabOauth,
  createGitlabOauthProvider,
  createPatProvider,
  deleteConnection,
  deleteProvider,
  deletionCheck,
  findRepositoryRow,
  getConnection,
  getConnectionRow,
  getProviderRow,
  getRepositoryRow,
  listBranches,
  listConnections,
  listProviders,
  listRepositories,
  refreshRepository,
  restartGitlabOauth,
  syncRepositories,
  toProvider,
  toRepository,
  updateConnectionToken,
} from './service';

const providerParams = z.object({ provider_id: dbIdSchema });
const connectionParams = z.object({ connection_id: dbIdSchema });
const repoParams = z.object({ owner: z.string().min(1).max(300), name: z.string().min(1).max(300) });
const connectionQuery = z.object({ connection_id: dbIdSchema.optional() });

const isAdmin = (request: FastifyRequest) => request.principal?.roles.includes('admin') ?? false;
const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

/** Git providers, their connections and repositories (spec section 7). Credentials are an admin's to add, change and remove. */
export async function gitProviderRoutes(app: App, ctx: AppContext) {
  app.get(
    '/git-providers',
    { schema: { tags: ['git'], summary: 'The git providers', response: { 200: gitProviderListResponseSchema } } },
    async () => ({ providers: await listProviders(ctx) }),
  );

  for (const type of ['github', 'gitlab'] as const) {
    app.post(
      `/git-providers/${type}/pat`,
      {
        config: { access: 'admin' },
        schema: {
          tags: ['git'],
          summary: `Add ${type === 'github' ? 'GitHub' : 'GitLab'} by personal access token (checked against the host first; ${DEFAULT_BASE_URL[type]} unless base_url is given)`,
          body: createPatProviderRequestSchema,
          response: { 201: gitProviderSchema },
        },
      },
      async (request, reply) => {
        const provider = await createPatProvider(ctx, {
          type,
          name: request.body.name,
          token: request.body.token,
          baseUrl: request.body.base_url,
          createdBy: request.principal?.userId ?? null,
          isAdmin: isAdmin(request),
        });
        return reply.code(201).send(await toProvider(ctx, provider));
      },
    );
  }

  app.post(
    '/git-providers/gitlab/oauth',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['git'],
        summary:
          "Add GitLab by OAuth: answers the authorisation address to send the browser to (the application's redirect URI is oauth_callback_url)",
        body: createGitlabOauthProviderRequestSchema,
        response: { 201: gitlabOauthStartResponseSchema },
      },
    },
    async (request, reply) => {
      const provider = await createGitlabOauthProvider(ctx, {
        name: request.body.name,
        baseUrl: request.body.base_url ?? DEFAULT_BASE_URL.gitlab,
        clientId: request.body.client_id,
        clientSecret: request.body.client_secret,
        createdBy: request.principal?.userId ?? null,
        isAdmin: isAdmin(request),
      });
      const callback = oauthCallbackUrl(origin(request));
      return reply.code(201).send({
        provider: await toProvider(ctx, provider),
        authorize_url: authorizeUrl(provider, callback),
        oauth_callback_url: callback,
      });
    },
  );

  app.get(
    OAUTH_CALLBACK_PATH.replace(/^\/api/, ''),
    {
      config: { access: 'admin' },
      schema: {
        tags: ['git'],
        summary:
          'Where GitLab sends the browser back: the code becomes the provider\u2019s token, then the console opens the provider',
        querystring: z.object({
          code: z.string().max(2000).optional(),
          state: z.string().max(200).optional(),
          error: z.string().max(200).optional(),
          error_description: z.string().max(1000).optional(),
        }),
      },
    },
    async (request, reply) => {
      const { code, state, error, error_description } = request.query;
      if (error || !code || !state) {
        const reason = error_description ?? error ?? 'GitLab sent no authorisation code';
        return reply.redirect(`/git-sources/add?error=${encodeURIComponent(reason)}`);
      }
      try {
        const provider = await completeGitlabOauth(ctx, state, code, oauthCallbackUrl(origin(request)));
        return reply.redirect(`/git-providers/${provider.id}`);
      } catch (failure) {
        const detail = (failure as { detail?: string }).detail ?? (failure as Error).message;
        return reply.redirect(`/git-sources/add?error=${encodeURIComponent(detail)}`);
      }
    },
  );

  app.post(
    '/git-providers/:provider_id/authorize',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['git'],
        summary: 'Authorise an OAuth provider again (an abandoned sign-in, a revoked token): answers where to send the browser',
        params: providerParams,
        response: { 200: gitlabOauthStartResponseSchema },
      },
    },
    async (request) => {
      const provider = await restartGitlabOauth(ctx, await getProviderRow(ctx, request.params.provider_id));
      const callback = oauthCallbackUrl(origin(request));
      return {
        provider: await toProvider(ctx, provider),
        authorize_url: authorizeUrl(provider, callback),
        oauth_callback_url: callback,
      };
    },
  );

  app.get(
    '/git-providers/:provider_id',
    { schema: { tags: ['git'], summary: 'One git provider', params: providerParams, response: { 200: gitProviderSchema } } },
    async (request) => toProvider(ctx, await getProviderRow(ctx, request.params.provider_id)),
  );

  app.get(
    '/git-providers/:provider_id/deletion-check',
    {
      schema: {
        tags: ['git'],
        summary: 'Which projects use the provider (it can be deleted only when none do)',
        params: providerParams,
        response: { 200: gitProviderDeletionCheckSchema },
      },
    },
    async (request) => deletionCheck(ctx, await getProviderRow(ctx, request.params.provider_id)),
  );

  for (const path of ['/git-providers/:provider_id', '/git-providers/:provider_id/safe-delete']) {
    app.delete(
      path,
      {
        // One action for both ways of deleting, so the audit log reads the same.
        config: { access: 'admin', audit: 'git_providers.delete' },
        schema: {
          tags: ['git'],
          summary: 'Delete the provider with its connections; 409 with the project names while projects use it',
          params: providerParams,
          response: { 200: messageSchema },
        },
      },
      async (request) => {
        const provider = await getProviderRow(ctx, request.params.provider_id);
        await deleteProvider(ctx, provider);
        return { message: `Git provider ${provider.name} deleted` };
      },
    );
  }

  app.get(
    '/git-connections',
    {
      schema: {
        tags: ['git'],
        summary: 'The accounts the providers act as, with their repository counts',
        querystring: z.object({ provider_id: dbIdSchema.optional() }),
        response: { 200: gitConnectionListResponseSchema },
      },
    },
    async (request) => ({ connections: await listConnections(ctx, request.query.provider_id) }),
  );

  app.delete(
    '/git-connections/:connection_id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['git'],
        summary: 'Remove a connection and its synced repositories; 409 while projects use it',
        params: connectionParams,
        response: { 200: messageSchema },
      },
    },
    async (request) => {
      const connection = await getConnectionRow(ctx, request.params.connection_id);
      await deleteConnection(ctx, connection);
      return { message: `Git connection ${connection.accountLogin} removed` };
    },
  );

  app.get(
    '/git-connections/:connection_id/repositories',
    {
      schema: {
        tags: ['git'],
        summary: "A connection's repositories as last synced, most recently pushed first (search matches name and description)",
        params: connectionParams,
        querystring: repositoryListQuerySchema,
        response: { 200: repositoryListResponseSchema },
      },
    },
    async (request) => {
      const connection = await getConnectionRow(ctx, request.params.connection_id);
      return listRepositories(ctx, connection.id, request.query);
    },
  );

  app.post(
    '/git-connections/:connection_id/sync',
    {
      // What the host answered is kept even when the answer to the user is an error (sync_error).
      config: { transaction: false },
      schema: {
        tags: ['git'],
        summary: "Read the connection's repositories from the host again",
        params: connectionParams,
        response: { 200: gitSyncResponseSchema },
      },
    },
    async (request) => {
      const connection = await getConnectionRow(ctx, request.params.connection_id);
      return outsideRequestTransaction(() => syncRepositories(ctx, connection));
    },
  );

  app.post(
    '/git-connections/:connection_id/update-token',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['git'],
        summary: "Give the connection a new token (checked against the host; it must be the same account's), then sync",
        params: connectionParams,
        body: updateGitTokenRequestSchema,
        response: { 200: gitConnectionSchema },
      },
    },
    async (request) => {
      const connection = await getConnectionRow(ctx, request.params.connection_id);
      return updateConnectionToken(ctx, connection, request.body.token);
    },
  );

  app.get(
    '/repositories/:owner/:name',
    {
      schema: {
        tags: ['git'],
        summary:
          'A connected repository by its name, as the host describes it now (a GitLab subgroup path is one URL-encoded owner)',
        params: repoParams,
        querystring: connectionQuery,
        response: { 200: repositorySchema },
      },
    },
    async (request) => {
      const { owner, name } = request.params;
      const row = await findRepositoryRow(ctx, `${owner}/${name}`, request.query.connection_id);
      return toRepository(await refreshRepository(ctx, row));
    },
  );

  app.get(
    '/repositories/:owner/:name/branches',
    {
      schema: {
        tags: ['git'],
        summary: "A connected repository's branches, read from the host now (the default branch first)",
        params: repoParams,
        querystring: connectionQuery,
        response: { 200: branchListResponseSchema },
      },
    },
    async (request) => {
      const { owner, name } = request.params;
      return listBranches(ctx, await findRepositoryRow(ctx, `${owner}/${name}`, request.query.connection_id));
    },
  );

  app.get(
    '/repositories/:repository_id/preset/live',
    {
      schema: {
        tags: ['git'],
        summary: "What a repository's branch would build as (framework, commands, port), read from its head commit now",
        params: z.object({ repository_id: dbIdSchema }),
        querystring: z.object({
          branch: z.string().trim().min(1).max(255).optional(),
          root_directory: z.string().trim().max(500).optional(),
        }),
        response: { 200: livePresetSchema },
      },
    },
    async (request) => {
      const repository = await getRepositoryRow(ctx, request.params.repository_id);
      return livePreset(ctx, repository, request.query.branch ?? repository.defaultBranch, request.query.root_directory || '.');
    },
  );

  app.get(
    '/git-connections/:connection_id',
    {
      schema: { tags: ['git'], summary: 'One git connection', params: connectionParams, response: { 200: gitConnectionSchema } },
    },
    async (request) => getConnection(ctx, request.params.connection_id),
  );
}
