import { z } from 'zod';

/*
 * Git providers (spec section 7): a provider is how the platform talks to one git host (GitHub or
 * GitLab, github.com/gitlab.com or a self-hosted base URL) with one credential (a personal access
 * token, or GitLab OAuth); a connection is the account that credential acts as, with the
 * repositories it can reach (synced from the host's REST API). Tokens are never returned.
 */

export const GIT_PROVIDER_TYPES = ['github', 'gitlab'] as const;
export const gitProviderTypeSchema = z.enum(GIT_PROVIDER_TYPES);
export type GitProviderType = z.infer<typeof gitProviderTypeSchema>;

export const gitAuthMethodSchema = z.enum(['pat', 'oauth']);
export type GitAuthMethod = z.infer<typeof gitAuthMethodSchema>;

export const DEFAULT_BASE_URL: Record<GitProviderType, string> = {
  github: 'https://github.com',
  gitlab: 'https://gitlab.com',
};

/** The host's web address: http(s), no credentials, query or fragment; a trailing slash is dropped. */
export const gitBaseUrlSchema = z
  .string()
  .trim()
  .max(500, 'At most 500 characters')
  .refine((value) => {
    try {
      const url = new URL(value);
      return (
        (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && !url.search && !url.hash
      );
    } catch {
      return false;
    }
  }, 'Must be an http(s) address such as https://github.example.com, without credentials')
  .transform((value) => value.replace(/\/+$/, ''));

const providerName = z.string().trim().min(1, 'Name is required').max(100, 'At most 100 characters');
export const gitTokenSchema = z.string().trim().min(1, 'Token is required').max(1000, 'At most 1000 characters');

export const createPatProviderRequestSchema = z.object({
  name: providerName,
  token: gitTokenSchema,
  /** Default https://github.com or https://gitlab.com. */
  base_url: gitBaseUrlSchema.optional(),
});
export type CreatePatProviderRequest = z.input<typeof createPatProviderRequestSchema>;

export const createGitlabOauthProviderRequestSchema = z.object({
  name: providerName,
  base_url: gitBaseUrlSchema.optional(),
  /** The GitLab OAuth application's id and secret (its redirect URI is `oauth_callback_url` of the answer). */
  client_id: z.string().trim().min(1, 'Application ID is required').max(500, 'At most 500 characters'),
  client_secret: z.string().trim().min(1, 'Secret is required').max(500, 'At most 500 characters'),
});
export type CreateGitlabOauthProviderRequest = z.input<typeof createGitlabOauthProviderRequestSchema>;

export const gitProviderSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  provider_type: gitProviderTypeSchema,
  auth_method: gitAuthMethodSchema,
  base_url: z.string(),
  api_url: z.string(),
  /** False for an OAuth provider whose authorisation was not completed yet. */
  is_active: z.boolean(),
  /** The account the credential acts as (null until an OAuth provider is authorised). */
  account_login: z.string().nullable(),
  /** What the host says the credential may do. */
  scopes: z.array(z.string()),
  connection_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type GitProvider = z.infer<typeof gitProviderSchema>;

export const gitProviderListResponseSchema = z.object({ providers: z.array(gitProviderSchema) });

/** POST /git-providers/gitlab/oauth: the provider, and where to send the user's browser to authorise it. */
export const gitlabOauthStartResponseSchema = z.object({
  provider: gitProviderSchema,
  authorize_url: z.string(),
  oauth_callback_url: z.string(),
});

export const projectRefSchema = z.object({ id: z.number().int(), name: z.string(), slug: z.string() });
export type ProjectRef = z.infer<typeof projectRefSchema>;

export const gitProviderDeletionCheckSchema = z.object({
  can_delete: z.boolean(),
  /** The projects whose source is a repository reached through this provider. */
  projects: z.array(projectRefSchema),
});
export type GitProviderDeletionCheck = z.infer<typeof gitProviderDeletionCheckSchema>;

export const gitConnectionSchema = z.object({
  id: z.number().int(),
  provider_id: z.number().int(),
  provider_name: z.string(),
  provider_type: gitProviderTypeSchema,
  account_login: z.string(),
  /** `User`, `Organization` (GitHub) or `Group` (GitLab). */
  account_type: z.string(),
  repository_count: z.number().int(),
  last_synced_at: z.string().nullable(),
  /** Why the last sync failed (a revoked token, say); null when it worked. */
  sync_error: z.string().nullable(),
  created_at: z.string(),
});
export type GitConnection = z.infer<typeof gitConnectionSchema>;

export const gitConnectionListResponseSchema = z.object({ connections: z.array(gitConnectionSchema) });

export const updateGitTokenRequestSchema = z.object({ token: gitTokenSchema });

export const repositorySchema = z.object({
  id: z.number().int(),
  connection_id: z.number().int(),
  /** The host's own id of the repository (GitHub repository id, GitLab project id). */
  external_id: z.string(),
  owner: z.string(),
  name: z.string(),
  full_name: z.string(),
  description: z.string().nullable(),
  default_branch: z.string(),
  private: z.boolean(),
  clone_url: z.string(),
  html_url: z.string(),
  pushed_at: z.string().nullable(),
});
export type Repository = z.infer<typeof repositorySchema>;

export const REPOSITORIES_PER_PAGE = 30;
export const repositoryListQuerySchema = z.object({
  search: z.string().trim().max(200).optional(),
  page: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(100).default(REPOSITORIES_PER_PAGE),
});
export const repositoryListResponseSchema = z.object({
  repositories: z.array(repositorySchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});
export type RepositoryListResponse = z.infer<typeof repositoryListResponseSchema>;

export const gitSyncResponseSchema = z.object({ repository_count: z.number().int(), synced_at: z.string() });

export const branchSchema = z.object({ name: z.string(), commit_sha: z.string(), protected: z.boolean() });
export type Branch = z.infer<typeof branchSchema>;
export const branchListResponseSchema = z.object({ branches: z.array(branchSchema), default_branch: z.string() });

/** What the build would be for a repository's branch, read from the host before the project exists. */
export const livePresetSchema = z.object({
  repository_id: z.number().int(),
  branch: z.string(),
  commit_sha: z.string(),
  /** The detected framework preset's slug and name, or null when nothing matched. */
  preset: z.string().nullable(),
  preset_name: z.string().nullable(),
  install_command: z.string().nullable(),
  build_command: z.string().nullable(),
  start_command: z.string().nullable(),
  output_directory: z.string().nullable(),
  port: z.number().int().nullable(),
  /** Whether a launchbay.json decides (it wins over settings), or a Procfile names the processes. */
  has_launchbay_json: z.boolean(),
  has_procfile: z.boolean(),
  /** Configuration errors found (a launchbay.json that does not validate, say). */
  errors: z.array(z.object({ path: z.string(), message: z.string() })),
});
export type LivePreset = z.infer<typeof livePresetSchema>;

export const WEBHOOK_OUTCOMES = [
  'deployed',
  'ignored',
  'rejected',
  'duplicate',
  'failed',
  'awaiting_approval',
  'removed',
] as const;
export const webhookDeliverySchema = z.object({
  id: z.number().int(),
  provider_type: z.string(),
  delivery_id: z.string().nullable(),
  /** `push`, `pull_request` (GitHub); `Push Hook`, `Merge Request Hook` (GitLab). */
  event: z.string(),
  action: z.string().nullable(),
  ref: z.string().nullable(),
  commit_sha: z.string().nullable(),
  outcome: z.enum(WEBHOOK_OUTCOMES),
  /** What the platform did and why, in words. */
  detail: z.string(),
  deployment_id: z.number().int().nullable(),
  received_at: z.string(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;
export const webhookDeliveryListResponseSchema = z.object({
  deliveries: z.array(webhookDeliverySchema),
  /** Where the host sends this project's events (null for a project not from a git provider). */
  webhook_url: z.string().nullable(),
  /** Whether the platform registered the hook on the host; when not, it polls the branch (local access mode). */
  webhook_registered: z.boolean(),
  automatic_deploy: z.boolean(),
});

export const automaticDeployRequestSchema = z.object({ enabled: z.boolean({ error: 'enabled must be true or false' }) });

export const previewStateSchema = z.enum(['awaiting_approval', 'active', 'closed']);
export type PreviewState = z.infer<typeof previewStateSchema>;

/** A pull request's preview environment, with the deployment that serves (or builds) it. */
export const previewSchema = z.object({
  environment_id: z.number().int(),
  pr_number: z.number().int(),
  title: z.string(),
  /** The pull request on the host. */
  pr_url: z.string().nullable(),
  author: z.string().nullable(),
  branch: z.string(),
  /** The commit the pull request is at. */
  head_sha: z.string().nullable(),
  from_fork: z.boolean(),
  /** The repository the pull request comes from (a fork's, or the project's own); null when the fork is gone. */
  head_repo: z.string().nullable(),
  /** `awaiting_approval`: from a fork, nothing builds until someone approves it. */
  state: previewStateSchema,
  /** The preview's address. */
  url: z.string(),
  /** Its latest deployment's id, status and commit, if it has one. */
  deployment_id: z.number().int().nullable(),
  deployment_status: z.string().nullable(),
  deployment_commit_sha: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Preview = z.infer<typeof previewSchema>;
export const previewListResponseSchema = z.object({
  previews: z.array(previewSchema),
  /** The project's switch and the platform's (settings): both must be on for pull requests to get previews. */
  previews_enabled: z.boolean(),
  platform_previews_enabled: z.boolean(),
});
export const previewsSwitchRequestSchema = z.object({ enabled: z.boolean({ error: 'enabled must be true or false' }) });

/** POST /projects/{id}/git: what became of registering the project's webhook on the host again. */
export const projectGitResponseSchema = z.object({
  webhook_registered: z.boolean(),
  webhook_url: z.string().nullable(),
  /** Why it is not registered (no external URL, or what the host answered); null when it is. */
  detail: z.string().nullable(),
});
