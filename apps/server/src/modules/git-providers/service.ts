/**
 * Git providers and their connections: adding one checks the credential against the host at once
 * (nothing is stored for a token the host refuses or a host that does not answer), a connection's
 * repositories are synced from the host's REST API into `repositories` (what the picker searches),
 * and projects created from one fetch with the provider's current token.
 */
import crypto from 'node:crypto';
import {
  DEFAULT_BASE_URL,
  type GitConnection,
  type GitProvider,
  type GitProviderDeletionCheck,
  type GitProviderType,
  type ProjectRef,
  type Repository,
} from '@launchbay/contract';
import { and, asc, count, eq, ilike, inArray, or, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import {
  type GitHostClient,
  GitHostError,
  githubApiUrl,
  githubClient,
  gitlabApiUrl,
  gitlabClient,
  type HostRepository,
  missingGithubScopes,
  missingGitlabScopes,
  type RepositoryRef,
} from '../../engine/git-hosts';
import { badRequest, conflict, HttpError, notFound } from '../../lib/errors';
import { projects } from '../projects/schema';
import { getSettings } from '../settings/service';
import { refreshGitlabToken, tokenRequest } from './oauth';
import { gitConnections, gitProviders, repositories } from './schema';

export type GitProviderRow = typeof gitProviders.$inferSelect;
export type GitConnectionRow = typeof gitConnections.$inferSelect;
export type RepositoryRow = typeof repositories.$inferSelect;

const OAUTH_REFRESH_MARGIN_MS = 60_000;

export function apiUrlFor(type: GitProviderType, baseUrl: string): string {
  return type === 'github' ? githubApiUrl(baseUrl) : gitlabApiUrl(baseUrl);
}

/** The HTTP Basic user name a host expects beside a token when git fetches over https. */
export function tokenUserFor(type: GitProviderType): string {
  return type === 'github' ? 'x-access-token' : 'oauth2';
}

/**
 * A GitHostError as the API's answer: the host's refusal is the user's 400; a host that does not
 * answer is a 400 on the base URL while it is being entered (`asInput`), a 502 for one already saved.
 */
export function hostFailure(error: unknown, field = 'token', asInput = false): HttpError {
  if (!(error instanceof GitHostError)) throw error;
  if (error.kind === 'unreachable' || error.kind === 'host')
    return new HttpError(asInput ? 400 : 502, error.message, [{ path: 'base_url', message: error.message }]);
  if (error.kind === 'refused') return badRequest(error.message, [{ path: 'base_url', message: error.message }]);
  if (error.kind === 'not_found') return notFound(error.message);
  return badRequest(error.message, [{ path: field, message: error.message }]);
}

async function outboundPolicy(ctx: AppContext, savedByAdmin: boolean) {
  const settings = await getSettings(ctx);
  return { allowPrivateNetworks: savedByAdmin || settings.allow_private_network_targets };
}

function clientFor(
  type: GitProviderType,
  authMethod: 'pat' | 'oauth',
  apiUrl: string,
  token: string,
  policy: { allowPrivateNetworks: boolean },
) {
  return type === 'github' ? githubClient(apiUrl, token, policy) : gitlabClient(apiUrl, { kind: authMethod, token }, policy);
}

/** The provider's token, refreshed first when it is an OAuth token about to expire. */
export async function providerToken(ctx: AppContext, provider: GitProviderRow): Promise<string> {
  if (!provider.tokenSealed)
    throw badRequest(`The git provider ${provider.name} is not authorised yet: finish its OAuth sign-in`);
  const expiring = provider.tokenExpiresAt && provider.tokenExpiresAt.getTime() - Date.now() < OAUTH_REFRESH_MARGIN_MS;
  if (provider.authMethod === 'oauth' && expiring && provider.refreshTokenSealed) {
    return refreshGitlabToken(ctx, provider);
  }
  return ctx.box.open(provider.tokenSealed);
}

export async function hostClient(ctx: AppContext, provider: GitProviderRow): Promise<GitHostClient> {
  const token = await providerToken(ctx, provider);
  return clientFor(
    provider.providerType as GitProviderType,
    provider.authMethod as 'pat' | 'oauth',
    provider.apiUrl,
    token,
    await outboundPolicy(ctx, provider.savedByAdmin),
  );
}

/**
 * Asks the host who a token is and whether it may do what the platform needs: a token the host
 * refuses, a host that does not answer and a token without the scopes are each a clear 4xx.
 */
export async function verifyToken(
  ctx: AppContext,
  input: { type: GitProviderType; authMethod: 'pat' | 'oauth'; apiUrl: string; token: string; savedByAdmin: boolean },
) {
  const client = clientFor(
    input.type,
    input.authMethod,
    input.apiUrl,
    input.token,
    await outboundPolicy(ctx, input.savedByAdmin),
  );
  let who: Awaited<ReturnType<GitHostClient['whoami']>>;
  try {
    who = await client.whoami();
  } catch (error) {
    throw hostFailure(error, 'token', true);
  }
  // A GitHub fine-grained token reports no scopes: its repository access is checked when used.
  const missing =
    input.type === 'github' ? (who.scopes.length > 0 ? missingGithubScopes(who.scopes) : []) : missingGitlabScopes(who.scopes);
  if (missing.length > 0) {
    const message = `The token lacks the ${missing.join(' and ')} scope${missing.length > 1 ? 's' : ''} (it has: ${who.scopes.join(', ') || 'none'})`;
    throw badRequest(message, [{ path: 'token', message }]);
  }
  return { client, ...who };
}

export async function getProviderRow(ctx: AppContext, id: number): Promise<GitProviderRow> {
  const [row] = await ctx.db.select().from(gitProviders).where(eq(gitProviders.id, id)).limit(1);
  if (!row) throw notFound(`Git provider ${id} not found`);
  return row;
}

export async function toProvider(ctx: AppContext, row: GitProviderRow): Promise<GitProvider> {
  const [counted] = await ctx.db.select({ n: count() }).from(gitConnections).where(eq(gitConnections.providerId, row.id));
  return {
    id: row.id,
    name: row.name,
    provider_type: row.providerType as GitProviderType,
    auth_method: row.authMethod as 'pat' | 'oauth',
    base_url: row.baseUrl,
    api_url: row.apiUrl,
    is_active: row.tokenSealed !== null,
    account_login: row.accountLogin,
    scopes: row.scopes,
    connection_count: counted?.n ?? 0,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function listProviders(ctx: AppContext): Promise<GitProvider[]> {
  const rows = await ctx.db.select().from(gitProviders).orderBy(asc(gitProviders.id));
  return Promise.all(rows.map((row) => toProvider(ctx, row)));
}

/** Adds a provider by personal access token: verified against the host, then its account's repositories synced. */
export async function createPatProvider(
  ctx: AppContext,
  input: { type: GitProviderType; name: string; token: string; baseUrl?: string; createdBy: number | null; isAdmin: boolean },
): Promise<GitProviderRow> {
  const baseUrl = input.baseUrl ?? DEFAULT_BASE_URL[input.type];
  const apiUrl = apiUrlFor(input.type, baseUrl);
  const who = await verifyToken(ctx, {
    type: input.type,
    authMethod: 'pat',
    apiUrl,
    token: input.token,
    savedByAdmin: input.isAdmin,
  });
  const [provider] = await ctx.db
    .insert(gitProviders)
    .values({
      name: input.name,
      providerType: input.type,
      authMethod: 'pat',
      baseUrl,
      apiUrl,
      tokenSealed: ctx.box.seal(input.token),
      accountLogin: who.account.login,
      scopes: who.scopes,
      savedByAdmin: input.isAdmin,
      createdBy: input.createdBy,
    })
    .returning();
  if (!provider) throw new Error('the git provider was not created');
  await connectAccount(ctx, provider, who.account, who.client);
  return provider;
}

/** The connection for the account a provider's token acts as (created once), with a first sync. */
export async function connectAccount(
  ctx: AppContext,
  provider: GitProviderRow,
  account: { login: string; id: string; type: string },
  client: GitHostClient,
): Promise<GitConnectionRow> {
  const [connection] = await ctx.db
    .insert(gitConnections)
    .values({ providerId: provider.id, accountLogin: account.login, accountType: account.type, externalAccountId: account.id })
    .onConflictDoUpdate({
      target: [gitConnections.providerId, gitConnections.externalAccountId],
      set: { accountLogin: account.login, accountType: account.type },
    })
    .returning();
  if (!connection) throw new Error('the git connection was not created');
  await syncRepositories(ctx, connection, client);
  return connection;
}

/**
 * Replaces a connection's repository list with what the host answers now. Repositories that are
 * gone are removed (projects keep their address and lose only the link); a failure is kept on the
 * connection and thrown.
 */
export async function syncRepositories(ctx: AppContext, connection: GitConnectionRow, client?: GitHostClient) {
  const host = client ?? (await hostClient(ctx, await getProviderRow(ctx, connection.providerId)));
  let found: HostRepository[];
  try {
    found = await host.listRepositories();
  } catch (error) {
    const failure = hostFailure(error);
    await ctx.db.update(gitConnections).set({ syncError: failure.detail }).where(eq(gitConnections.id, connection.id));
    throw failure;
  }
  const syncedAt = new Date();
  for (let start = 0; start < found.length; start += 500) {
    const batch = found.slice(start, start + 500).map((repo) => ({
      connectionId: connection.id,
      externalId: repo.externalId,
      owner: repo.owner,
      name: repo.name,
      fullName: repo.fullName,
      description: repo.description,
      defaultBranch: repo.defaultBranch,
      private: repo.private,
      cloneUrl: repo.cloneUrl,
      htmlUrl: repo.htmlUrl,
      pushedAt: repo.pushedAt,
      syncedAt,
    }));
    await ctx.db
      .insert(repositories)
      .values(batch)
      .onConflictDoUpdate({
        target: [repositories.connectionId, repositories.externalId],
        set: {
          owner: sql`excluded.owner`,
          name: sql`excluded.name`,
          fullName: sql`excluded.full_name`,
          description: sql`excluded.description`,
          defaultBranch: sql`excluded.default_branch`,
          private: sql`excluded.private`,
          cloneUrl: sql`excluded.clone_url`,
          htmlUrl: sql`excluded.html_url`,
          pushedAt: sql`excluded.pushed_at`,
          syncedAt: sql`excluded.synced_at`,
        },
      });
  }
  await ctx.db
    .delete(repositories)
    .where(and(eq(repositories.connectionId, connection.id), sql`${repositories.syncedAt} < ${syncedAt.toISOString()}`));
  await ctx.db
    .update(gitConnections)
    .set({ lastSyncedAt: syncedAt, syncError: null })
    .where(eq(gitConnections.id, connection.id));
  return { repository_count: found.length, synced_at: syncedAt.toISOString() };
}

/** The projects whose source comes through a provider (or one of its connections). */
async function projectsUsing(ctx: AppContext, where: { providerId?: number; connectionId?: number }): Promise<ProjectRef[]> {
  const connectionIds = where.connectionId
    ? [where.connectionId]
    : (
        await ctx.db
          .select({ id: gitConnections.id })
          .from(gitConnections)
          .where(eq(gitConnections.providerId, where.providerId ?? -1))
      ).map((c) => c.id);
  if (connectionIds.length === 0) return [];
  return ctx.db
    .select({ id: projects.id, name: projects.name, slug: projects.slug })
    .from(projects)
    .where(inArray(projects.gitConnectionId, connectionIds))
    .orderBy(asc(projects.name));
}

export async function deletionCheck(ctx: AppContext, provider: GitProviderRow): Promise<GitProviderDeletionCheck> {
  const using = await projectsUsing(ctx, { providerId: provider.id });
  return { can_delete: using.length === 0, projects: using };
}

function inUse(what: string, using: ProjectRef[]): HttpError {
  const names = using.map((p) => p.name);
  return conflict(
    `${what} is used by ${names.length === 1 ? 'the project' : 'the projects'} ${names.join(', ')}: delete ${names.length === 1 ? 'it' : 'them'} first`,
    [{ path: 'projects', message: names.join(', ') }],
  );
}

/** Deletes a provider with its connections and synced repositories; refused (409, with the names) while projects use it. */
export async function deleteProvider(ctx: AppContext, provider: GitProviderRow): Promise<void> {
  const check = await deletionCheck(ctx, provider);
  if (!check.can_delete) throw inUse(`The git provider ${provider.name}`, check.projects);
  await ctx.db.delete(gitProviders).where(eq(gitProviders.id, provider.id));
}

// ---------------------------------------------------------------------------------------------
// Connections

export async function getConnectionRow(ctx: AppContext, id: number): Promise<GitConnectionRow> {
  const [row] = await ctx.db.select().from(gitConnections).where(eq(gitConnections.id, id)).limit(1);
  if (!row) throw notFound(`Git connection ${id} not found`);
  return row;
}

export async function listConnections(ctx: AppContext, providerId?: number): Promise<GitConnection[]> {
  const rows = await ctx.db
    .select({
      connection: gitConnections,
      provider: gitProviders,
      repositoryCount: sql<number>`(select count(*)::int from ${repositories} where ${repositories.connectionId} = ${gitConnections.id})`,
    })
    .from(gitConnections)
    .innerJoin(gitProviders, eq(gitProviders.id, gitConnections.providerId))
    .where(providerId === undefined ? undefined : eq(gitConnections.providerId, providerId))
    .orderBy(asc(gitConnections.id));
  return rows.map(({ connection, provider, repositoryCount }) => ({
    id: connection.id,
    provider_id: provider.id,
    provider_name: provider.name,
    provider_type: provider.providerType as GitProviderType,
    account_login: connection.accountLogin,
    account_type: connection.accountType,
    repository_count: repositoryCount,
    last_synced_at: connection.lastSyncedAt?.toISOString() ?? null,
    sync_error: connection.syncError,
    created_at: connection.createdAt.toISOString(),
  }));
}

export async function getConnection(ctx: AppContext, id: number): Promise<GitConnection> {
  const row = await getConnectionRow(ctx, id);
  const found = (await listConnections(ctx, row.providerId)).find((c) => c.id === id);
  if (!found) throw notFound(`Git connection ${id} not found`);
  return found;
}

export async function deleteConnection(ctx: AppContext, connection: GitConnectionRow): Promise<void> {
  const using = await projectsUsing(ctx, { connectionId: connection.id });
  if (using.length > 0) throw inUse(`The git connection ${connection.accountLogin}`, using);
  await ctx.db.delete(gitConnections).where(eq(gitConnections.id, connection.id));
}

/**
 * A new token for a connection (the old one expired or was revoked): it must belong to the same
 * account, since the projects fetched through it stay as they are. Then a fresh sync.
 */
export async function updateConnectionToken(ctx: AppContext, connection: GitConnectionRow, token: string) {
  const provider = await getProviderRow(ctx, connection.providerId);
  if (provider.authMethod !== 'pat') {
    throw badRequest('An OAuth connection gets its token from GitLab: authorise the provider again', [
      { path: 'token', message: 'Not for an OAuth provider' },
    ]);
  }
  const who = await verifyToken(ctx, {
    type: provider.providerType as GitProviderType,
    authMethod: 'pat',
    apiUrl: provider.apiUrl,
    token,
    savedByAdmin: provider.savedByAdmin,
  });
  if (who.account.id !== connection.externalAccountId) {
    const message = `The token belongs to ${who.account.login}, not to ${connection.accountLogin}`;
    throw badRequest(message, [{ path: 'token', message }]);
  }
  await ctx.db
    .update(gitProviders)
    .set({ tokenSealed: ctx.box.seal(token), scopes: who.scopes, updatedAt: new Date() })
    .where(eq(gitProviders.id, provider.id));
  await syncRepositories(ctx, connection, who.client);
  return getConnection(ctx, connection.id);
}

// ---------------------------------------------------------------------------------------------
// Repositories

export function toRepository(row: RepositoryRow): Repository {
  return {
    id: row.id,
    connection_id: row.connectionId,
    external_id: row.externalId,
    owner: row.owner,
    name: row.name,
    full_name: row.fullName,
    description: row.description,
    default_branch: row.defaultBranch,
    private: row.private,
    clone_url: row.cloneUrl,
    html_url: row.htmlUrl,
    pushed_at: row.pushedAt?.toISOString() ?? null,
  };
}

export async function listRepositories(
  ctx: AppContext,
  connectionId: number,
  query: { search?: string; page: number; per_page: number },
) {
  const term = query.search?.trim();
  const pattern = term ? `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const where = and(
    eq(repositories.connectionId, connectionId),
    pattern ? or(ilike(repositories.fullName, pattern), ilike(repositories.description, pattern)) : undefined,
  );
  const [total] = await ctx.db.select({ n: count() }).from(repositories).where(where);
  const rows = await ctx.db
    .select()
    .from(repositories)
    .where(where)
    .orderBy(sql`${repositories.pushedAt} DESC NULLS LAST`, asc(repositories.fullName))
    .limit(query.per_page)
    .offset((query.page - 1) * query.per_page);
  return { repositories: rows.map(toRepository), total: total?.n ?? 0, page: query.page, per_page: query.per_page };
}

export async function getRepositoryRow(ctx: AppContext, id: number): Promise<RepositoryRow> {
  const [row] = await ctx.db.select().from(repositories).where(eq(repositories.id, id)).limit(1);
  if (!row) throw notFound(`Repository ${id} not found`);
  return row;
}

/** A synced repository by its host name (`owner/name`; GitLab owners may have subgroups), from one connection or the first that has it. */
export async function findRepositoryRow(ctx: AppContext, fullName: string, connectionId?: number): Promise<RepositoryRow> {
  const [row] = await ctx.db
    .select()
    .from(repositories)
    .where(
      and(
        sql`lower(${repositories.fullName}) = lower(${fullName})`,
        connectionId === undefined ? undefined : eq(repositories.connectionId, connectionId),
      ),
    )
    .orderBy(asc(repositories.connectionId))
    .limit(1);
  if (!row) throw notFound(`Repository ${fullName} not found in the connected git providers (sync the connection if it is new)`);
  return row;
}

export async function repositoryHost(ctx: AppContext, repository: RepositoryRow) {
  const connection = await getConnectionRow(ctx, repository.connectionId);
  const provider = await getProviderRow(ctx, connection.providerId);
  return { connection, provider, client: await hostClient(ctx, provider) };
}

export const repositoryRef = (row: { externalId: string; fullName: string }): RepositoryRef => ({
  externalId: row.externalId,
  fullName: row.fullName,
});

export async function listBranches(ctx: AppContext, repository: RepositoryRow) {
  const { client } = await repositoryHost(ctx, repository);
  try {
    const branches = await client.listBranches(repositoryRef(repository));
    const ordered = [...branches].sort((a, b) =>
      a.name === repository.defaultBranch ? -1 : b.name === repository.defaultBranch ? 1 : a.name.localeCompare(b.name),
    );
    return {
      default_branch: repository.defaultBranch,
      branches: ordered.map((b) => ({ name: b.name, commit_sha: b.commitSha, protected: b.protected })),
    };
  } catch (error) {
    throw hostFailure(error);
  }
}

/** What git needs to fetch a project whose repository comes through a provider: the current token. */
export async function projectFetchCredentials(
  ctx: AppContext,
  project: { gitConnectionId: number | null },
): Promise<{ token: string; tokenUser: string; savedByAdmin: boolean } | null> {
  if (project.gitConnectionId === null) return null;
  const connection = await getConnectionRow(ctx, project.gitConnectionId);
  const provider = await getProviderRow(ctx, connection.providerId);
  return {
    token: await providerToken(ctx, provider),
    tokenUser: tokenUserFor(provider.providerType as GitProviderType),
    savedByAdmin: provider.savedByAdmin,
  };
}

// ---------------------------------------------------------------------------------------------
// GitLab OAuth

const newOauthState = () => crypto.randomBytes(24).toString('base64url');

export async function createGitlabOauthProvider(
  ctx: AppContext,
  input: { name: string; baseUrl: string; clientId: string; clientSecret: string; createdBy: number | null; isAdmin: boolean },
): Promise<GitProviderRow> {
  const [provider] = await ctx.db
    .insert(gitProviders)
    .values({
      name: input.name,
      providerType: 'gitlab',
      authMethod: 'oauth',
      baseUrl: input.baseUrl,
      apiUrl: apiUrlFor('gitlab', input.baseUrl),
      oauthClientId: input.clientId,
      oauthClientSecretSealed: ctx.box.seal(input.clientSecret),
      oauthState: newOauthState(),
      savedByAdmin: input.isAdmin,
      createdBy: input.createdBy,
    })
    .returning();
  if (!provider) throw new Error('the git provider was not created');
  return provider;
}

/** The callback: the code for the provider whose state came back becomes its token and connection. */
export async function completeGitlabOauth(ctx: AppContext, state: string, code: string, callbackUrl: string) {
  const [provider] = await ctx.db.select().from(gitProviders).where(eq(gitProviders.oauthState, state)).limit(1);
  if (!provider) throw badRequest('This authorisation is unknown or was already used: start it again from the git provider');
  const answer = await tokenRequest(ctx, provider, { grant_type: 'authorization_code', code, redirect_uri: callbackUrl });
  const who = await verifyToken(ctx, {
    type: 'gitlab',
    authMethod: 'oauth',
    apiUrl: provider.apiUrl,
    token: answer.accessToken,
    savedByAdmin: provider.savedByAdmin,
  });
  const [updated] = await ctx.db
    .update(gitProviders)
    .set({
      tokenSealed: ctx.box.seal(answer.accessToken),
      refreshTokenSealed: answer.refreshToken ? ctx.box.seal(answer.refreshToken) : null,
      tokenExpiresAt: answer.expiresAt,
      oauthState: null,
      accountLogin: who.account.login,
      scopes: who.scopes,
      updatedAt: new Date(),
    })
    .where(eq(gitProviders.id, provider.id))
    .returning();
  if (!updated) throw new Error('the git provider went away during its OAuth sign-in');
  try {
    await connectAccount(ctx, updated, who.account, who.client);
  } catch (error) {
    throw hostFailure(error);
  }
  return updated;
}

// ---------------------------------------------------------------------------------------------
// Projects from a provider's repository

/** The repository a new project is created from, with what git needs to check and fetch it. */
export async function repositoryForProject(ctx: AppContext, repositoryId: number) {
  const [repository] = await ctx.db.select().from(repositories).where(eq(repositories.id, repositoryId)).limit(1);
  if (!repository) {
    const message = `Repository ${repositoryId} not found in the connected git providers`;
    throw badRequest(message, [{ path: 'repository_id', message }]);
  }
  const credentials = await projectFetchCredentials(ctx, { gitConnectionId: repository.connectionId });
  if (!credentials) throw new Error('a synced repository always has a connection');
  return { repository, ...credentials };
}

/** How the project detail shows a provider's repository. */
export async function projectRepository(
  ctx: AppContext,
  project: {
    gitConnectionId: number | null;
    repositoryId: number | null;
    repositoryFullName: string | null;
    webhookHookId: string | null;
  },
) {
  if (project.gitConnectionId === null || project.repositoryFullName === null) return null;
  const [row] = await ctx.db
    .select({ type: gitProviders.providerType })
    .from(gitConnections)
    .innerJoin(gitProviders, eq(gitProviders.id, gitConnections.providerId))
    .where(eq(gitConnections.id, project.gitConnectionId))
    .limit(1);
  const [repository] =
    project.repositoryId === null
      ? []
      : await ctx.db
          .select({ htmlUrl: repositories.htmlUrl })
          .from(repositories)
          .where(eq(repositories.id, project.repositoryId));
  return {
    id: project.repositoryId,
    full_name: project.repositoryFullName,
    html_url: repository?.htmlUrl || null,
    connection_id: project.gitConnectionId,
    provider_type: (row?.type ?? 'github') as GitProviderType,
    webhook_registered: project.webhookHookId !== null,
  };
}

// ---------------------------------------------------------------------------------------------
// Push webhooks on the host

/** Where a project's webhook is reached from outside: the platform's external URL, or none (then it polls). */
export async function projectWebhookUrl(ctx: AppContext, projectId: number): Promise<string | null> {
  const settings = await getSettings(ctx);
  const base = settings.external_url ?? ctx.config.publicUrl ?? null;
  return base ? `${base.replace(/\/+$/, '')}/webhooks/git/${projectId}` : null;
}

type WebhookProject = {
  id: number;
  gitConnectionId: number | null;
  repositoryExternalId: string | null;
  repositoryFullName: string | null;
  webhookHookId: string | null;
};

async function projectHost(ctx: AppContext, project: WebhookProject) {
  if (project.gitConnectionId === null || !project.repositoryExternalId || !project.repositoryFullName) return null;
  const connection = await getConnectionRow(ctx, project.gitConnectionId);
  const provider = await getProviderRow(ctx, connection.providerId);
  return {
    client: await hostClient(ctx, provider),
    ref: { externalId: project.repositoryExternalId, fullName: project.repositoryFullName },
  };
}

/**
 * Registers the push and pull-request webhook for a project from a provider's repository, signed
 * with a secret of its own. Without an external URL nothing could reach it: the platform polls
 * instead. A host that refuses (no admin rights on the repository) leaves polling too; the reason
 * is answered so the caller can log it.
 */
export async function registerProjectWebhook(
  ctx: AppContext,
  project: WebhookProject,
): Promise<{ registered: boolean; reason: string | null }> {
  const unregistered = async (reason: string) => {
    await ctx.db.update(projects).set({ webhookHookId: null }).where(eq(projects.id, project.id));
    return { registered: false, reason };
  };
  const url = await projectWebhookUrl(ctx, project.id);
  if (!url) return unregistered('No external URL is set (Settings): the branch is polled instead');
  const host = await projectHost(ctx, project);
  if (!host) return unregistered('The project is not from a git provider');
  const secret = crypto.randomBytes(32).toString('hex');
  try {
    const hookId = await host.client.createHook(host.ref, { url, secret });
    await ctx.db
      .update(projects)
      .set({ webhookSecretSealed: ctx.box.seal(secret), webhookHookId: hookId })
      .where(eq(projects.id, project.id));
    return { registered: true, reason: null };
  } catch (error) {
    if (error instanceof GitHostError) return unregistered(`${error.message}: the branch is polled instead`);
    throw error;
  }
}

/** Removes the project's webhook from the host (when the project goes); a host that fails is logged, not fatal. */
export async function removeProjectWebhook(ctx: AppContext, project: WebhookProject): Promise<string | null> {
  if (!project.webhookHookId) return null;
  try {
    const host = await projectHost(ctx, project);
    if (host) await host.client.deleteHook(host.ref, project.webhookHookId);
    return null;
  } catch (error) {
    if (error instanceof GitHostError || error instanceof HttpError) return (error as Error).message;
    throw error;
  }
}

/**
 * Posts a commit status on the project's repository (a preview's state and address on its pull
 * request). Best effort: a host that refuses (a token without the scope) never fails the deploy.
 */
export async function reportCommitStatus(
  ctx: AppContext,
  project: WebhookProject,
  sha: string,
  status: { state: 'pending' | 'success' | 'failure' | 'error'; description: string; targetUrl?: string },
): Promise<boolean> {
  try {
    const host = await projectHost(ctx, project);
    if (!host) return false;
    await host.client.setCommitStatus(host.ref, sha, { ...status, context: 'launchbay/preview' });
    return true;
  } catch (error) {
    if (error instanceof GitHostError || error instanceof HttpError) return false;
    throw error;
  }
}

/**
 * A repository as the host describes it now (default branch, visibility, description), kept in the
 * synced list too. A host that is down answers the last synced copy; one that no longer has it, 404.
 */
export async function refreshRepository(ctx: AppContext, row: RepositoryRow): Promise<RepositoryRow> {
  const { client } = await repositoryHost(ctx, row);
  let fresh: HostRepository;
  try {
    fresh = await client.getRepository(row.fullName);
  } catch (error) {
    if (error instanceof GitHostError && error.kind === 'not_found')
      throw notFound(`${row.fullName} is not on the host any more`);
    if (error instanceof GitHostError && (error.kind === 'unreachable' || error.kind === 'host')) return row;
    throw hostFailure(error);
  }
  const [updated] = await ctx.db
    .update(repositories)
    .set({
      owner: fresh.owner,
      name: fresh.name,
      fullName: fresh.fullName,
      description: fresh.description,
      defaultBranch: fresh.defaultBranch,
      private: fresh.private,
      cloneUrl: fresh.cloneUrl,
      htmlUrl: fresh.htmlUrl,
      pushedAt: fresh.pushedAt,
    })
    .where(eq(repositories.id, row.id))
    .returning();
  return updated ?? row;
}

/**
 * A new authorisation for an OAuth provider (one whose sign-in was abandoned, or whose refresh
 * token GitLab revoked): a fresh single-use state; the previous state no longer completes.
 */
export async function restartGitlabOauth(ctx: AppContext, provider: GitProviderRow): Promise<GitProviderRow> {
  if (provider.authMethod !== 'oauth')
    throw conflict(`${provider.name} signs in with a token: give it a new one (update-token) instead`);
  const [updated] = await ctx.db
    .update(gitProviders)
    .set({ oauthState: newOauthState(), updatedAt: new Date() })
    .where(eq(gitProviders.id, provider.id))
    .returning();
  return updated ?? provider;
}
