import { sql } from 'drizzle-orm';
import { boolean, check, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { gitConnections, repositories } from '../git-providers/schema';

/**
 * A project: one git repository (and root directory inside it) deployed to its environments. The
 * build settings here are the user's overrides; `launchbay.json` in the repository wins over them.
 */
export const projects = pgTable(
  'projects',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    slug: text('slug').notNull().unique(),
    /** Where the project's favicon was found, if anywhere; served by GET /projects/{id}/favicon. */
    faviconUrl: text('favicon_url'),
    /** https://host/owner/repo(.git) or an ssh address; null when the platform itself is the remote (a later issue). */
    gitUrl: text('git_url'),
    /** The HTTPS token, sealed with the platform's SecretBox; never returned. */
    gitTokenSealed: text('git_token_sealed'),
    /** The generated SSH deploy key for ssh URLs: the private half sealed, the public half shown. */
    deployKeySealed: text('deploy_key_sealed'),
    deployKeyPublic: text('deploy_key_public'),
    /**
     * Whether the git address was last set by an admin: only then may it be a private or loopback
     * host, unless the allow_private_network_targets setting is on (the same rule as providers).
     */
    gitSavedByAdmin: boolean('git_saved_by_admin').notNull().default(false),
    /**
     * For a repository picked from a git provider: the connection whose token fetches it (so a new
     * token applies at once) and the repository as the host names it. A connection in use cannot go.
     */
    gitConnectionId: integer('git_connection_id').references(() => gitConnections.id),
    repositoryId: integer('repository_id').references(() => repositories.id, { onDelete: 'set null' }),
    repositoryExternalId: text('repository_external_id'),
    repositoryFullName: text('repository_full_name'),
    /** The push webhook the platform registered on the host (its id there), and the secret it signs with. */
    webhookSecretSealed: text('webhook_secret_sealed'),
    webhookHookId: text('webhook_hook_id'),
    /** When the branch heads were last read, for a project no webhook reaches (polled instead). */
    gitPolledAt: timestamp('git_polled_at', { withTimezone: true }),
    /** Whether pull requests get their own preview environment. */
    previewsEnabled: boolean('previews_enabled').notNull().default(false),
    /** The production environment's branch. */
    branch: text('branch').notNull().default('main'),
    rootDirectory: text('root_directory').notNull().default('.'),
    preset: text('preset'),
    installCommand: text('install_command'),
    buildCommand: text('build_command'),
    startCommand: text('start_command'),
    outputDirectory: text('output_directory'),
    port: integer('port'),
    automaticDeploy: boolean('automatic_deploy').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('projects_port_range', sql`${t.port} IS NULL OR ${t.port} BETWEEN 1 AND 65535`)],
);
