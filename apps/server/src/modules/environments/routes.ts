import { branchNameSchema, dbIdSchema, environmentSchema, idParamSchema, SLUG_PATTERN } from '@launchbay/contract';
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { conflict } from '../../lib/errors';
import type { App } from '../../lib/http';
import { getProjectRow, setProjectBranch, takenHostLabels } from '../projects/service';
import { environments } from './schema';
import { createEnvironmentRow, getEnvironmentRow, listEnvironmentRows, toEnvironment } from './service';

const envParamsSchema = z.object({ id: dbIdSchema, env_id: dbIdSchema });

const createEnvironmentRequestSchema = z.object({
  name: z
    .string()
    .trim()
    .toLowerCase()
    .min(1, 'Name is required')
    .max(30, 'At most 30 characters')
    .regex(SLUG_PATTERN, 'Lowercase letters, digits and dashes (it becomes part of the address)')
    .refine((name) => name !== 'production', 'The project already has its production environment'),
  branch: branchNameSchema,
});

const containerSchema = z.object({
  name: z.string(),
  type: z.string(),
  index: z.number().int(),
  pid: z.number().int().nullable(),
  port: z.number().int().nullable(),
  state: z.string(),
  restarts: z.number().int(),
});

const environmentSettingsSchema = z
  .object({
    branch: branchNameSchema.optional(),
    memory_mb: z.number().int().min(64, 'At least 64 MB').max(262_144, 'At most 256 GB').nullable().optional(),
    cpu_percent: z.number().int().min(5, 'At least 5 (%)').max(6_400, 'At most 6400 (64 cores)').nullable().optional(),
    instances: z.number().int().min(1, 'At least 1').max(16, 'At most 16').optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'Nothing to update');

/** A project's environments: production (created with the project) and any others. */
export async function environmentRoutes(app: App, ctx: AppContext) {
  app.get(
    '/projects/:id/environments',
    {
      schema: {
        tags: ['environments'],
        summary: "A project's environments, production first",
        params: idParamSchema,
        response: { 200: z.object({ environments: z.array(environmentSchema) }) },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const rows = await listEnvironmentRows(ctx, project.id);
      return { environments: await Promise.all(rows.map((row) => toEnvironment(ctx, project.slug, row))) };
    },
  );

  app.post(
    '/projects/:id/environments',
    {
      schema: {
        tags: ['environments'],
        summary: 'Add an environment that deploys a branch (served at {project}-{name})',
        params: idParamSchema,
        body: createEnvironmentRequestSchema,
        response: { 201: environmentSchema },
      },
    },
    async (request, reply) => {
      const project = await getProjectRow(ctx, request.params.id);
      const existing = await listEnvironmentRows(ctx, project.id);
      if (existing.some((env) => env.slug === request.body.name)) {
        throw conflict(`The project already has an environment named ${request.body.name}`, [
          { path: 'name', message: 'An environment with this name exists' },
        ]);
      }
      if ((await takenHostLabels(ctx, `${project.slug}-${request.body.name}`)).has(`${project.slug}-${request.body.name}`)) {
        throw conflict(`${project.slug}-${request.body.name} is already the address of another project: choose another name`, [
          { path: 'name', message: 'This address is taken by another project' },
        ]);
      }
      const row = await createEnvironmentRow(ctx, {
        projectId: project.id,
        name: request.body.name,
        slug: request.body.name,
        branch: request.body.branch,
        isProduction: false,
      });
      return reply.code(201).send(await toEnvironment(ctx, project.slug, row));
    },
  );

  app.get(
    '/projects/:id/environments/:env_id',
    {
      schema: {
        tags: ['environments'],
        summary: 'One environment',
        params: envParamsSchema,
        response: { 200: environmentSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      return toEnvironment(ctx, project.slug, await getEnvironmentRow(ctx, project.id, request.params.env_id));
    },
  );

  app.get(
    '/projects/:id/environments/:env_id/containers',
    {
      schema: {
        tags: ['environments'],
        summary: "The processes of the environment's current deployment (type, pid, port, state, restarts)",
        params: envParamsSchema,
        response: { 200: z.object({ deployment_id: z.number().int().nullable(), containers: z.array(containerSchema) }) },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const env = await getEnvironmentRow(ctx, project.id, request.params.env_id);
      const running = env.currentDeploymentId ? ctx.runtime.status(env.currentDeploymentId) : null;
      return {
        deployment_id: env.currentDeploymentId,
        containers: (running?.processes ?? []).map((p) => ({
          name: `${p.type}.${p.index}`,
          type: p.type,
          index: p.index,
          pid: p.pid,
          port: p.port,
          state: p.state,
          restarts: p.restarts,
        })),
      };
    },
  );

  app.put(
    '/projects/:id/environments/:env_id/settings',
    {
      schema: {
        tags: ['environments'],
        summary: "An environment's branch and resource limits (applied at its next deployment)",
        params: envParamsSchema,
        body: environmentSettingsSchema,
        response: { 200: environmentSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const row = await getEnvironmentRow(ctx, project.id, request.params.env_id);
      const body = request.body;
      const [updated] = await ctx.db
        .update(environments)
        .set({
          ...(body.branch !== undefined ? { branch: body.branch } : {}),
          ...(body.memory_mb !== undefined ? { memoryMb: body.memory_mb } : {}),
          ...(body.cpu_percent !== undefined ? { cpuPercent: body.cpu_percent } : {}),
          ...(body.instances !== undefined ? { instances: body.instances } : {}),
          updatedAt: new Date(),
        })
        .where(eq(environments.id, row.id))
        .returning();
      if (row.isProduction && body.branch !== undefined) await setProjectBranch(ctx, project.id, body.branch);
      return toEnvironment(ctx, project.slug, updated ?? row);
    },
  );
}
