import { z } from 'zod';
import { paginationQuerySchema } from './common';
import { livePresetSchema } from './git-providers';

export const projectSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  created_at: z.string(),
});
export type Project = z.infer<typeof projectSchema>;

/** A slug: what addresses are made of (`{slug}.localhost`), so DNS-label rules. */
export const SLUG_PATTERN = /^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/;

const optionalCommand = z
  .string()
  .trim()
  .max(2000, 'At most 2000 characters')
  .transform((value) => value || null)
  .nullish();

const relativeFolder = (label: string) =>
  z
    .string()
    .trim()
    .max(500, 'At most 500 characters')
    .refine(
      (value) => !value.startsWith('/') && !value.split('/').includes('..'),
      `${label} must be a folder inside the repository`,
    )
    .transform((value) => value.replace(/^(\.\/)+/, '').replace(/\/+$/, '') || '.')
    .nullish();

export const branchNameSchema = z
  .string()
  .trim()
  .min(1, 'Branch is required')
  .max(255, 'At most 255 characters')
  .regex(/^(?!-)(?!.*\.\.)(?!.*\/\/)[A-Za-z0-9._/-]+(?<![./])$/, 'Not a valid branch name');

export const ENV_VAR_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const envVarKeySchema = z
  .string()
  .trim()
  .min(1, 'Key is required')
  .max(255, 'At most 255 characters')
  .regex(ENV_VAR_KEY_PATTERN, 'Letters, digits and underscores, not starting with a digit');

const envVarValueSchema = z.string().max(65_536, 'At most 64 KB');

/** The build settings a user may override (launchbay.json in the repository wins over them). */
export const buildSettingsSchema = z.object({
  root_directory: relativeFolder('The root directory'),
  preset: z
    .string()
    .trim()
    .max(100)
    .transform((value) => value || null)
    .nullish(),
  install_command: optionalCommand,
  build_command: optionalCommand,
  start_command: optionalCommand,
  output_directory: relativeFolder('The output directory'),
  port: z.number().int().min(1, 'Port is 1 to 65535').max(65535, 'Port is 1 to 65535').nullish(),
});

export const gitUrlSchema = z.string().trim().min(1, 'Git URL is required').max(2000, 'At most 2000 characters');

export const createProjectRequestSchema = buildSettingsSchema.extend({
  name: z.string().trim().min(1, 'Name is required').max(100, 'At most 100 characters'),
  /**
   * Absent (and no repository_id): the project's source is the platform's own git remote
   * (`git push {platform}/git/{slug}.git`).
   */
  git_url: gitUrlSchema.optional(),
  /** A repository of a connected git provider (GET /git-connections/{id}/repositories): fetched with the provider's token. */
  repository_id: z.number().int().positive().optional(),
  git_token: z
    .string()
    .trim()
    .max(1000)
    .transform((value) => value || null)
    .nullish(),
  branch: branchNameSchema,
  /** Set for the production environment before the first build starts (a pasted .env, say). */
  env_vars: z
    .array(z.object({ key: envVarKeySchema, value: envVarValueSchema }))
    .max(500, 'At most 500 variables')
    .superRefine((vars, check) => {
      const seen = new Set<string>();
      vars.forEach((v, index) => {
        if (seen.has(v.key)) check.addIssue({ code: 'custom', path: [index, 'key'], message: `${v.key} is set twice` });
        seen.add(v.key);
      });
    })
    .optional(),
});
export type CreateProjectRequest = z.input<typeof createProjectRequestSchema>;

/** POST /projects/detect: how a git URL's branch would build, read from its head commit now (before a project exists). */
export const detectSettingsRequestSchema = z.object({
  git_url: z.string({ error: 'Git URL is required' }).pipe(gitUrlSchema),
  git_token: createProjectRequestSchema.shape.git_token,
  branch: branchNameSchema,
  root_directory: buildSettingsSchema.shape.root_directory,
});
export type DetectSettingsRequest = z.input<typeof detectSettingsRequestSchema>;
export const detectedSettingsSchema = livePresetSchema.omit({ repository_id: true });
export type DetectedSettings = z.infer<typeof detectedSettingsSchema>;

export const DEPLOYMENT_STATUSES = [
  'queued',
  'building',
  'deploying',
  'ready',
  'failed',
  'crashed',
  'cancelled',
  'paused',
] as const;
export const deploymentStatusSchema = z.enum(DEPLOYMENT_STATUSES);
export type DeploymentStatus = z.infer<typeof deploymentStatusSchema>;

export const deploymentSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  environment_id: z.number().int(),
  environment_name: z.string(),
  status: deploymentStatusSchema,
  trigger: z.string(),
  branch: z.string(),
  commit_sha: z.string().nullable(),
  commit_message: z.string().nullable(),
  commit_author: z.string().nullable(),
  /** Where the environment is served while this deployment is current. */
  url: z.string(),
  is_current: z.boolean(),
  /** For a rollback: the deployment whose build it serves again. */
  source_deployment_id: z.number().int().nullable(),
  preset: z.string().nullable(),
  artifact_bytes: z.number().int().nullable(),
  /** Whether its build output is still on disk: a rollback to it needs it (older builds are pruned). */
  build_kept: z.boolean(),
  /** The user who started it; null for automatic ones and for users deleted since. */
  created_by: z.object({ id: z.number().int(), email: z.string() }).nullable(),
  error: z.string().nullable(),
  queued_at: z.string(),
  building_at: z.string().nullable(),
  deploying_at: z.string().nullable(),
  ready_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  stopped_at: z.string().nullable(),
});
export type Deployment = z.infer<typeof deploymentSchema>;

/**
 * One project of the list, with what its card shows: the production address, the latest
 * deployment (of any environment, as GET /projects/{id}/last-deployment answers it) and the one
 * the production address serves now (null when nothing serves it).
 */
export const projectListItemSchema = projectSchema.extend({
  /** The production address ('' for a project without a production environment). */
  url: z.string(),
  last_deployment: deploymentSchema.nullable(),
  current_deployment: deploymentSchema.nullable(),
});
export type ProjectListItem = z.infer<typeof projectListItemSchema>;

/** GET /projects: by name (the default), or the most recently deployed first (the dashboard). */
export const PROJECT_LIST_SORTS = ['name', 'last_deployment'] as const;
export const projectListQuerySchema = paginationQuerySchema.extend({
  sort: z.enum(PROJECT_LIST_SORTS, { message: 'Sort is name or last_deployment' }).default('name'),
});
export type ProjectListSort = (typeof PROJECT_LIST_SORTS)[number];

export const projectListResponseSchema = z.object({
  projects: z.array(projectListItemSchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});
export type ProjectListResponse = z.infer<typeof projectListResponseSchema>;

export const deploymentListResponseSchema = z.object({
  deployments: z.array(deploymentSchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});

/**
 * A step of a deployment's pipeline. When a deployment fails or is cancelled, the step running
 * then ends 'failed' or 'cancelled' and the steps it never reached end 'skipped', with a detail
 * that starts with 'not reached: ' and no finished_at (they never ran).
 */
export const deploymentStepSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.enum(['pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled']),
  detail: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});
export const deploymentJobsResponseSchema = z.object({ jobs: z.array(deploymentStepSchema) });

export const environmentSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  branch: z.string(),
  is_production: z.boolean(),
  url: z.string(),
  current_deployment_id: z.number().int().nullable(),
  memory_mb: z.number().int().nullable(),
  cpu_percent: z.number().int().nullable(),
  instances: z.number().int(),
  /** Set for a pull request's preview (GET previews lists them): not a lasting environment. */
  pr_number: z.number().int().nullable(),
  created_at: z.string(),
});
export type Environment = z.infer<typeof environmentSchema>;

export const projectDetailSchema = projectSchema.extend({
  git_url: z.string().nullable(),
  has_git_token: z.boolean(),
  /** The SSH deploy key to add to the repository (read-only), for ssh URLs. */
  deploy_key_public: z.string().nullable(),
  branch: z.string(),
  root_directory: z.string(),
  preset: z.string().nullable(),
  install_command: z.string().nullable(),
  build_command: z.string().nullable(),
  start_command: z.string().nullable(),
  output_directory: z.string().nullable(),
  port: z.number().int().nullable(),
  automatic_deploy: z.boolean(),
  /** Whether pull requests get preview environments (the platform's setting must be on too). */
  previews_enabled: z.boolean(),
  /** For a repository from a git provider: which one, on which connection. */
  repository: z
    .object({
      id: z.number().int().nullable(),
      full_name: z.string(),
      /** The repository's page on the host. */
      html_url: z.string().nullable(),
      connection_id: z.number().int(),
      provider_type: z.enum(['github', 'gitlab']),
      /** Whether the platform's push webhook is registered on the host (else it polls in the local access mode). */
      webhook_registered: z.boolean(),
    })
    .nullable(),
  /** The production address. */
  url: z.string(),
  /** The lasting environments (production, staging...); pull-request previews are listed by GET previews. */
  environments: z.array(environmentSchema),
  last_deployment: deploymentSchema.nullable(),
  updated_at: z.string(),
});
export type ProjectDetail = z.infer<typeof projectDetailSchema>;

export const triggerPipelineRequestSchema = z.preprocess(
  // No body, or JSON null: deploy the head of the production branch.
  (body) => body ?? {},
  z.object({
    branch: branchNameSchema.optional(),
    commit: z
      .string()
      .trim()
      .regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i, 'A commit is a full sha (40 hexadecimal characters)')
      .optional(),
    environment_id: z.number().int().positive().optional(),
  }),
);
export const triggerPipelineResponseSchema = z.object({ deployment_id: z.number().int() });

export const envVarSchema = z.object({
  id: z.number().int(),
  key: z.string(),
  /** Masked in lists; GET env-vars/{key}/value reads one. */
  value: z.string(),
  environment_ids: z.array(z.number().int()),
  /** Given to pull-request previews too (previews get no other variable of the project). */
  include_in_previews: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export const envVarListResponseSchema = z.object({ env_vars: z.array(envVarSchema) });
export const createEnvVarRequestSchema = z.object({
  key: envVarKeySchema,
  value: envVarValueSchema,
  /** Omitted: every environment of the project (previews excepted). */
  environment_ids: z.array(z.number().int().positive()).max(100).optional(),
  include_in_previews: z.boolean().optional(),
});
export const updateEnvVarRequestSchema = createEnvVarRequestSchema
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'Nothing to update');
