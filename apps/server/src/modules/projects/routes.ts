import {
  automaticDeployRequestSchema,
  buildSettingsSchema,
  createProjectRequestSchema,
  detectedSettingsSchema,
  detectSettingsRequestSchema,
  idParamSchema,
  projectDetailSchema,
  projectListQuerySchema,
  projectListResponseSchema,
  SLUG_PATTERN,
} from '@launchbay/contract';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { launchbayJsonSchema } from '../../engine/pipeline/config/launchbay-json';
import { listPresets } from '../../engine/pipeline/config/presets';
import { notFound, unauthorized } from '../../lib/errors';
import type { App } from '../../lib/http';
import { publishRoutes, releaseProjectDeployments } from '../deployments/service';
import { removeProjectWebhook } from '../git-providers/service';
import { createProject, detectProjectSettings, projectDetail, renameProject } from './create';
import { listProjects } from './list';
import { projects } from './schema';
import { assertKnownPreset, getProjectBySlug, getProjectRow } from './service';

const slugParamSchema = z.object({ slug: z.string().regex(SLUG_PATTERN, 'Not a project slug') });
const projectSettingsSchema = z
  .object({ name: z.string().trim().min(1, 'Name is required').max(100, 'At most 100 characters').optional() })
  .refine((body) => Object.keys(body).length > 0, 'Nothing to update');
const deploymentConfigSchema = buildSettingsSchema
  .extend({ automatic_deploy: z.boolean().optional(), previews_enabled: z.boolean().optional() })
  .refine((body) => Object.keys(body).length > 0, 'Nothing to update');
const presetSchema = z.object({
  slug: z.string(),
  name: z.string(),
  kind: z.string(),
  install_command: z.string().nullable(),
  build_command: z.string().nullable(),
  start_command: z.string().nullable(),
  output_directory: z.string().nullable(),
});

export async function projectRoutes(app: App, ctx: AppContext) {
  app.get(
    '/projects',
    {
      schema: {
        tags: ['projects'],
        summary: 'List projects, each with its production address, latest deployment and the deployment production serves',
        querystring: projectListQuerySchema,
        response: { 200: projectListResponseSchema },
      },
    },
    async (request) => listProjects(ctx, request.query.page, request.query.per_page, request.query.sort),
  );

  app.post(
    '/projects',
    {
      schema: {
        tags: ['projects'],
        summary: 'Create a project from a git repository: checks the address and branch, then starts its first deployment',
        body: createProjectRequestSchema,
        response: { 201: projectDetailSchema },
      },
      config: { auditRedact: ['value'] },
    },
    async (request, reply) => {
      if (!request.principal) throw unauthorized();
      const project = await createProject(ctx, request.principal, request.body);
      return reply.code(201).send(await projectDetail(ctx, project));
    },
  );

  app.post(
    '/projects/detect',
    {
      schema: {
        tags: ['projects'],
        summary:
          "How a git URL's branch would build (framework, commands, port), read from its head commit now, before a project exists",
        body: detectSettingsRequestSchema,
        response: { 200: detectedSettingsSchema },
      },
      // It reads a repository with the token given and changes nothing here: no transaction to hold open meanwhile.
      config: { transaction: false },
    },
    async (request) => {
      if (!request.principal) throw unauthorized();
      return detectProjectSettings(ctx, request.principal, request.body);
    },
  );

  app.get(
    '/projects/by-slug/:slug',
    {
      schema: {
        tags: ['projects'],
        summary: 'A project by its slug',
        params: slugParamSchema,
        response: { 200: projectDetailSchema },
      },
    },
    async (request) => projectDetail(ctx, await getProjectBySlug(ctx, request.params.slug)),
  );

  app.get(
    '/projects/:id',
    { schema: { tags: ['projects'], summary: 'A project', params: idParamSchema, response: { 200: projectDetailSchema } } },
    async (request) => projectDetail(ctx, await getProjectRow(ctx, request.params.id)),
  );

  app.delete(
    '/projects/:id',
    {
      // Stopping builds and removing folders cannot roll back: it runs step by step, then the rows go.
      config: { transaction: false },
      schema: {
        tags: ['projects'],
        summary: 'Delete a project: its processes stop, its builds, caches, logs and settings go (answers 204)',
        params: idParamSchema,
      },
    },
    async (request, reply) => {
      const project = await getProjectRow(ctx, request.params.id);
      await releaseProjectDeployments(ctx, project.id);
      // The host stops sending its pushes: a webhook left behind would fail on every push.
      const hookFailure = await removeProjectWebhook(ctx, project);
      if (hookFailure)
        request.log.warn({ projectId: project.id }, `The webhook of ${project.name} could not be removed: ${hookFailure}`);
      await ctx.db.delete(projects).where(eq(projects.id, project.id));
      await publishRoutes(ctx, { waitMs: 2000 });
      return reply.code(204).send();
    },
  );

  app.post(
    '/projects/:id/automatic-deploy',
    {
      config: { audit: 'projects.automatic_deploy.update' },
      schema: {
        tags: ['projects'],
        summary: 'Turn deploying on push (webhooks, and polling where no webhook can reach the platform) on or off',
        params: idParamSchema,
        body: automaticDeployRequestSchema,
        response: { 200: projectDetailSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const [updated] = await ctx.db
        .update(projects)
        .set({ automaticDeploy: request.body.enabled, updatedAt: new Date() })
        .where(eq(projects.id, project.id))
        .returning();
      return projectDetail(ctx, updated ?? project);
    },
  );

  app.post(
    '/projects/:id/settings',
    {
      config: { audit: 'projects.settings.update' },
      schema: {
        tags: ['projects'],
        summary: "The project's general settings (its name)",
        params: idParamSchema,
        body: projectSettingsSchema,
        response: { 200: projectDetailSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      return projectDetail(ctx, await renameProject(ctx, project, request.body));
    },
  );

  app.patch(
    '/projects/:id/deployment-config',
    {
      schema: {
        tags: ['projects'],
        summary:
          'Build settings (preset, commands, folders, port): used from the next deployment; launchbay.json in the repository wins',
        params: idParamSchema,
        body: deploymentConfigSchema,
        response: { 200: projectDetailSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const b = request.body;
      await assertKnownPreset(b.preset);
      const [updated] = await ctx.db
        .update(projects)
        .set({
          ...(b.root_directory !== undefined ? { rootDirectory: b.root_directory ?? '.' } : {}),
          ...(b.preset !== undefined ? { preset: b.preset } : {}),
          ...(b.install_command !== undefined ? { installCommand: b.install_command } : {}),
          ...(b.build_command !== undefined ? { buildCommand: b.build_command } : {}),
          ...(b.start_command !== undefined ? { startCommand: b.start_command } : {}),
          ...(b.output_directory !== undefined ? { outputDirectory: b.output_directory } : {}),
          ...(b.port !== undefined ? { port: b.port } : {}),
          ...(b.automatic_deploy !== undefined ? { automaticDeploy: b.automatic_deploy } : {}),
          ...(b.previews_enabled !== undefined ? { previewsEnabled: b.previews_enabled } : {}),
          updatedAt: new Date(),
        })
        .where(eq(projects.id, project.id))
        .returning();
      return projectDetail(ctx, updated ?? project);
    },
  );

  app.get(
    '/presets',
    {
      schema: {
        tags: ['projects'],
        summary: 'The frameworks the platform detects, with their default commands',
        response: { 200: z.object({ presets: z.array(presetSchema) }) },
      },
    },
    async () => ({
      presets: (await listPresets()).map((preset) => ({
        slug: preset.slug,
        name: preset.name,
        kind: preset.kind,
        install_command: preset.installCommand,
        build_command: preset.buildCommand,
        start_command: preset.startCommand,
        output_directory: preset.outputDirectory,
      })),
    }),
  );

  app.get(
    '/launchbay-json/schema',
    { config: { access: 'reader' }, schema: { tags: ['projects'], summary: 'The JSON Schema of launchbay.json' } },
    async () => launchbayJsonSchema(),
  );

  app.get(
    '/projects/:id/favicon',
    { schema: { tags: ['projects'], summary: "The project's favicon (404 when it has none)", params: idParamSchema } },
    async (request, reply) => {
      const [project] = await ctx.db.select().from(projects).where(eq(projects.id, request.params.id)).limit(1);
      if (!project) throw notFound(`Project ${request.params.id} not found`);
      if (!project.faviconUrl) throw notFound('This project has no favicon yet');
      return reply.redirect(project.faviconUrl);
    },
  );
}
