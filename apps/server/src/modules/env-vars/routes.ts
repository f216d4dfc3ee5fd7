import {
  createEnvVarRequestSchema,
  dbIdSchema,
  envVarKeySchema,
  envVarListResponseSchema,
  envVarSchema,
  idParamSchema,
  updateEnvVarRequestSchema,
} from '@launchbay/contract';
import { z } from 'zod';
import type { AppContext } from '../../context';
import type { App } from '../../lib/http';
import { getProjectRow } from '../projects/service';
import { createEnvVar, deleteEnvVar, listEnvVars, readEnvVarValue, updateEnvVar } from './service';

const varParamsSchema = z.object({ id: dbIdSchema, var_id: dbIdSchema });
const keyParamsSchema = z.object({ id: dbIdSchema, key: envVarKeySchema });
const valueQuerySchema = z.object({ environment_id: z.coerce.number().int().positive().optional() });
const valueResponseSchema = z.object({ key: z.string(), value: z.string(), environment_ids: z.array(z.number().int()) });

/** A project's environment variables: sealed at rest, masked in lists, one value readable on request. */
export async function envVarRoutes(app: App, ctx: AppContext) {
  app.get(
    '/projects/:id/env-vars',
    {
      schema: {
        tags: ['env-vars'],
        summary: "A project's environment variables (values masked)",
        params: idParamSchema,
        response: { 200: envVarListResponseSchema },
      },
    },
    async (request) => {
      await getProjectRow(ctx, request.params.id);
      return { env_vars: await listEnvVars(ctx, request.params.id) };
    },
  );

  app.post(
    '/projects/:id/env-vars',
    {
      config: { auditRedact: ['value'] },
      schema: {
        tags: ['env-vars'],
        summary: 'Add a variable, for the environments named (all of them when none are)',
        params: idParamSchema,
        body: createEnvVarRequestSchema,
        response: { 201: envVarSchema },
      },
    },
    async (request, reply) => {
      await getProjectRow(ctx, request.params.id);
      return reply.code(201).send(await createEnvVar(ctx, request.params.id, request.body));
    },
  );

  app.get(
    '/projects/:id/env-vars/:key/value',
    {
      // A value in clear is a secret: readers see that a variable exists, never what it holds.
      config: { access: 'user' },
      schema: {
        tags: ['env-vars'],
        summary: "One variable's value in clear (for the environment given, when the key has several)",
        params: keyParamsSchema,
        querystring: valueQuerySchema,
        response: { 200: valueResponseSchema },
      },
    },
    async (request) => {
      await getProjectRow(ctx, request.params.id);
      return readEnvVarValue(ctx, request.params.id, request.params.key, request.query.environment_id);
    },
  );

  app.put(
    '/projects/:id/env-vars/:var_id',
    {
      config: { auditRedact: ['value'] },
      schema: {
        tags: ['env-vars'],
        summary: "Change a variable's key, value or environments",
        params: varParamsSchema,
        body: updateEnvVarRequestSchema,
        response: { 200: envVarSchema },
      },
    },
    async (request) => {
      await getProjectRow(ctx, request.params.id);
      return updateEnvVar(ctx, request.params.id, request.params.var_id, request.body);
    },
  );

  app.delete(
    '/projects/:id/env-vars/:var_id',
    { schema: { tags: ['env-vars'], summary: 'Remove a variable (answers 204)', params: varParamsSchema } },
    async (request, reply) => {
      await getProjectRow(ctx, request.params.id);
      await deleteEnvVar(ctx, request.params.id, request.params.var_id);
      return reply.code(204).send();
    },
  );
}
