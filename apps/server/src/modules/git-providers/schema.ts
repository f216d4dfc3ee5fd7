import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from '../users/schema';

/**
 * How the platform talks to one git host with one credential: a personal access token, or a
 * GitLab OAuth application whose authorisation gives the token. Secrets are sealed (SecretBox).
 */
export const gitProviders = pgTable(
  'git_providers',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    providerType: text('provider_type').notNull(),
    authMethod: text('auth_method').notNull(),
    baseUrl: text('base_url').notNull(),
    apiUrl: text('api_url').notNull(),
    /** Null for an OAuth provider until it is authorised. */
    tokenSealed: text('token_sealed'),
    refreshTokenSealed: text('refresh_token_sealed'),
    tokenExpiresAt: timestamp('token_expires_at', { withTimezone: true }),
    oauthClientId: text('oauth_client_id'),
    oauthClientSecretSealed: text('oauth_client_secret_sealed'),
    /** The pending authorisation's state parameter (one use). */
    oauthState: text('oauth_state'),
    accountLogin: text('account_login'),
    scopes: jsonb('scopes').$type<string[]>().notNull().default([]),
    /** Added by an admin: only then may its host be on a private network (the outbound guard's rule). */
    savedByAdmin: boolean('saved_by_admin').notNull().default(false),
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    check('git_providers_type_check', sql`${t.providerType} IN ('github', 'gitlab')`),
    check('git_providers_auth_check', sql`${t.authMethod} IN ('pat', 'oauth')`),
  ],
);

/** The account a provider's credential acts as, and when its repositories were last synced. */
export const gitConnections = pgTable(
  'git_connections',
  {
    id: serial('id').primaryKey(),
    providerId: integer('provider_id')
      .notNull()
      .references(() => gitProviders.id, { onDelete: 'cascade' }),
    accountLogin: text('account_login').notNull(),
    accountType: text('account_type').notNull().default('User'),
    externalAccountId: text('external_account_id').notNull(),
    lastSyncedAt: timestamp('last_synced_at', { withTimezone: true }),
    syncError: text('sync_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('git_connections_account').on(t.providerId, t.externalAccountId)],
);

/** A repository a connection reaches, as its last sync saw it (the picker searches these). */
export const repositories = pgTable(
  'repositories',
  {
    id: serial('id').primaryKey(),
    connectionId: integer('connection_id')
      .notNull()
      .references(() => gitConnections.id, { onDelete: 'cascade' }),
    externalId: text('external_id').notNull(),
    owner: text('owner').notNull(),
    name: text('name').notNull(),
    fullName: text('full_name').notNull(),
    description: text('description'),
    defaultBranch: text('default_branch').notNull(),
    private: boolean('private').notNull(),
    cloneUrl: text('clone_url').notNull(),
    htmlUrl: text('html_url').notNull(),
    pushedAt: timestamp('pushed_at', { withTimezone: true }),
    syncedAt: timestamp('synced_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('repositories_external').on(t.connectionId, t.externalId), index('repositories_full_name').on(t.fullName)],
);
