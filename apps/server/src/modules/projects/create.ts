import type {
  createProjectRequestSchema,
  DetectedSettings,
  detectSettingsRequestSchema,
  ProjectDetail,
} from '@launchbay/contract';
import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { AppContext } from '../../context';
import { detectBuildSettings, MissingFolderError } from '../../engine/pipeline/detect';
import {
  checkRemote,
  GitSourceError,
  type GitUrl,
  generateDeployKey,
  knownHostsPath,
  parseGitUrl,
} from '../../engine/pipeline/source';
import { badRequest } from '../../lib/errors';
import type { Principal } from '../../lib/http';
import { lastDeployment, startDeployment } from '../deployments/service';
import { createEnvVar } from '../env-vars/service';
import { createEnvironmentRow, environmentUrl, listEnvironmentRows, toEnvironment } from '../environments/service';
import { projectRepository, registerProjectWebhook, repositoryForProject } from '../git-providers/service';
import { getSettings } from '../settings/service';
import { projects } from './schema';
import { assertKnownPreset, type ProjectRow, uniqueSlug } from './service';

type CreateInput = z.output<typeof createProjectRequestSchema>;

/** How long the repository check before creating may take: a host that does not answer is a clear 400, not a hang. */
const REMOTE_CHECK_MS = 15_000;
const FAILURE_FIELD: Record<string, string> = {
  url: 'git_url',
  token: 'git_token',
  branch: 'branch',
  sshKey: 'git_url',
  commit: 'branch',
};

/**
 * Creates a project from a git repository: the address and branch are checked against the host
 * first (nothing is created for an unreachable repository or a missing branch), then the project,
 * its production environment and its first deployment exist together.
 */
export async function createProject(ctx: AppContext, principal: Principal, input: CreateInput): Promise<ProjectRow> {
  if (input.repository_id !== undefined) {
    if (input.git_url !== undefined || input.git_token)
      throw badRequest('Give a git URL or a connected repository, not both', [
        { path: 'repository_id', message: 'Not with git_url' },
      ]);
    return createRepositoryProject(ctx, principal, input, input.repository_id);
  }
  if (input.git_url === undefined) return createPushProject(ctx, input);
  const parsed = parseGitUrlField(input.git_url);
  const isAdmin = principal.roles.includes('admin');
  const settings = await getSettings(ctx);
  const isSsh = parsed.protocol === 'ssh';
  if (isSsh && input.git_token) {
    throw badRequest('A token is for https addresses; an ssh address uses the deploy key the platform generates', [
      { path: 'git_token', message: 'Not used with an ssh address' },
    ]);
  }
  const deployKey = isSsh ? generateDeployKey() : null;
  const check = await checkRemote({
    url: parsed.remote,
    token: input.git_token ?? undefined,
    sshKey: deployKey?.privateKeyPem,
    knownHostsFile: knownHostsPath(ctx.config.dataDir),
    branch: input.branch,
    allowPrivateNetwork: isAdmin || settings.allow_private_network_targets,
    timeoutMs: REMOTE_CHECK_MS,
  });
  // A new deploy key cannot be known to the repository yet: the project is created and shows the key to add.
  if (!check.ok && !(deployKey && check.reason === 'auth_failed')) {
    const field = FAILURE_FIELD[check.field] ?? 'git_url';
    throw badRequest(check.message, [{ path: field, message: check.message }]);
  }
  const { project, production } = await insertProject(ctx, input, {
    gitUrl: parsed.remote,
    gitTokenSealed: input.git_token ? ctx.box.seal(input.git_token) : null,
    deployKeySealed: deployKey ? ctx.box.seal(deployKey.privateKeyPem) : null,
    deployKeyPublic: deployKey?.publicKey ?? null,
    gitSavedByAdmin: isAdmin,
  });
  if (check.ok) {
    await startDeployment(ctx, {
      project,
      environment: production,
      trigger: 'create',
      createdBy: principal.userId,
      commit: check.headSha,
    });
  }
  return project;
}

/** The `git_url` field parsed, or a 400 naming it with why it is not one the platform reads. */
function parseGitUrlField(gitUrl: string): GitUrl {
  try {
    return parseGitUrl(gitUrl);
  } catch (error) {
    const message = (error as Error).message;
    throw badRequest(message, [{ path: 'git_url', message }]);
  }
}

/**
 * How a git URL's branch would build (the new-project flow shows it before anything is created):
 * its head commit is read like a deployment reads it, with the same address checks as a create. An
 * ssh address has no key yet (the project gets one when it is created), so it cannot be read now.
 */
export async function detectProjectSettings(
  ctx: AppContext,
  principal: Principal,
  input: z.output<typeof detectSettingsRequestSchema>,
): Promise<DetectedSettings> {
  const parsed = parseGitUrlField(input.git_url);
  if (parsed.protocol === 'ssh') {
    const message =
      'An ssh address is read with the deploy key the project gets when it is created: its settings are detected at its first deployment';
    throw badRequest(message, [{ path: 'git_url', message }]);
  }
  const settings = await getSettings(ctx);
  try {
    return await detectBuildSettings({
      url: parsed.remote,
      token: input.git_token ?? undefined,
      branch: input.branch,
      rootDirectory: input.root_directory ?? '.',
      allowPrivateNetwork: principal.roles.includes('admin') || settings.allow_private_network_targets,
      knownHostsFile: knownHostsPath(ctx.config.dataDir),
    });
  } catch (error) {
    if (error instanceof MissingFolderError) {
      throw badRequest(error.message, [{ path: 'root_directory', message: error.message }]);
    }
    if (error instanceof GitSourceError) {
      const field = FAILURE_FIELD[error.field] ?? 'git_url';
      throw badRequest(error.message, [{ path: field, message: error.message }]);
    }
    throw error;
  }
}

/**
 * A project from a repository of a connected git provider: checked with the provider's token like
 * a git URL is, then fetched with whatever token the provider has at each deployment.
 */
async function createRepositoryProject(
  ctx: AppContext,
  principal: Principal,
  input: CreateInput,
  repositoryId: number,
): Promise<ProjectRow> {
  const source = await repositoryForProject(ctx, repositoryId);
  const settings = await getSettings(ctx);
  const check = await checkRemote({
    url: source.repository.cloneUrl,
    token: source.token,
    tokenUser: source.tokenUser,
    knownHostsFile: knownHostsPath(ctx.config.dataDir),
    branch: input.branch,
    allowPrivateNetwork: source.savedByAdmin || settings.allow_private_network_targets,
    timeoutMs: REMOTE_CHECK_MS,
  });
  if (!check.ok) {
    const field = check.field === 'branch' || check.field === 'commit' ? 'branch' : 'repository_id';
    throw badRequest(check.message, [{ path: field, message: check.message }]);
  }
  const { project, production } = await insertProject(ctx, input, {
    gitUrl: source.repository.cloneUrl,
    gitSavedByAdmin: source.savedByAdmin,
    gitConnectionId: source.repository.connectionId,
    repositoryId: source.repository.id,
    repositoryExternalId: source.repository.externalId,
    repositoryFullName: source.repository.fullName,
  });
  // Pushes deploy by themselves: through the host's webhook where it can reach the platform, by polling where not.
  await registerProjectWebhook(ctx, project);
  const [withHook] = await ctx.db.select().from(projects).where(eq(projects.id, project.id)).limit(1);
  await startDeployment(ctx, {
    project: withHook ?? project,
    environment: production,
    trigger: 'create',
    createdBy: principal.userId,
    commit: check.headSha,
  });
  return withHook ?? project;
}

/**
 * A project whose source is the platform's own git remote: nothing to check or clone yet; the
 * first `git push {platform}/git/{slug}.git {branch}` deploys it.
 */
async function createPushProject(ctx: AppContext, input: CreateInput): Promise<ProjectRow> {
  if (input.git_token) {
    throw badRequest('A token goes with a git URL', [{ path: 'git_token', message: 'Only with a git URL' }]);
  }
  return (await insertProject(ctx, input, { gitUrl: null })).project;
}

/** The project row, its production environment and the env vars given with it: one way for every source. */
async function insertProject(
  ctx: AppContext,
  input: CreateInput,
  source: Pick<
    typeof projects.$inferInsert,
    | 'gitUrl'
    | 'gitTokenSealed'
    | 'deployKeySealed'
    | 'deployKeyPublic'
    | 'gitSavedByAdmin'
    | 'gitConnectionId'
    | 'repositoryId'
    | 'repositoryExternalId'
    | 'repositoryFullName'
  >,
) {
  await assertKnownPreset(input.preset);
  const slug = await uniqueSlug(ctx, input.name);
  const [project] = await ctx.db
    .insert(projects)
    .values({
      ...source,
      name: input.name,
      slug,
      branch: input.branch,
      rootDirectory: input.root_directory ?? '.',
      preset: input.preset ?? null,
      installCommand: input.install_command ?? null,
      buildCommand: input.build_command ?? null,
      startCommand: input.start_command ?? null,
      outputDirectory: input.output_directory ?? null,
      port: input.port ?? null,
    })
    .returning();
  if (!project) throw new Error('the project was not created');
  const production = await createEnvironmentRow(ctx, {
    projectId: project.id,
    name: 'production',
    slug: 'production',
    branch: input.branch,
    isProduction: true,
  });
  for (const variable of input.env_vars ?? []) {
    await createEnvVar(ctx, project.id, { key: variable.key, value: variable.value, environment_ids: [production.id] });
  }
  return { project, production };
}

export async function projectDetail(ctx: AppContext, project: ProjectRow): Promise<ProjectDetail> {
  const envs = await listEnvironmentRows(ctx, project.id);
  const production = envs.find((env) => env.isProduction);
  return {
    id: project.id,
    name: project.name,
    slug: project.slug,
    created_at: project.createdAt.toISOString(),
    updated_at: project.updatedAt.toISOString(),
    git_url: project.gitUrl,
    has_git_token: project.gitTokenSealed !== null,
    deploy_key_public: project.deployKeyPublic,
    branch: project.branch,
    root_directory: project.rootDirectory,
    preset: project.preset,
    install_command: project.installCommand,
    build_command: project.buildCommand,
    start_command: project.startCommand,
    output_directory: project.outputDirectory,
    port: project.port,
    automatic_deploy: project.automaticDeploy,
    previews_enabled: project.previewsEnabled,
    repository: await projectRepository(ctx, project),
    url: production ? await environmentUrl(ctx, project.slug, production) : '',
    // The lasting environments: pull-request previews come and go, and GET previews lists them.
    environments: await Promise.all(
      envs.filter((env) => env.prNumber === null).map((env) => toEnvironment(ctx, project.slug, env)),
    ),
    last_deployment: await lastDeployment(ctx, project),
  };
}

export async function renameProject(ctx: AppContext, project: ProjectRow, input: { name?: string }) {
  const [updated] = await ctx.db
    .update(projects)
    .set({ ...(input.name ? { name: input.name } : {}), updatedAt: new Date() })
    .where(eq(projects.id, project.id))
    .returning();
  return updated ?? project;
}
