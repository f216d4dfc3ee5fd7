import {
  CRON_JOB_DELETED_MESSAGE,
  createCronJobRequestSchema,
  cronExecutionListResponseSchema,
  cronExecutionSchema,
  cronJobListResponseSchema,
  cronJobSchema,
  dbIdSchema,
  messageSchema,
  paginationQuerySchema,
  updateCronJobRequestSchema,
} from '@launchbay/contract';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { outsideRequestTransaction } from '../../db/request-transaction';
import type { App } from '../../lib/http';
import { getProjectRow } from '../projects/service';
import {
  claimCronExecution,
  createCronJob,
  deleteCronJob,
  getCronJob,
  getCronJobRow,
  listCronExecutions,
  listCronJobs,
  runCronExecution,
  toCronExecution,
  updateCronJob,
} from './service';

const envParams = z.object({ id: dbIdSchema, env_id: dbIdSchema });
const cronParams = envParams.extend({ cron_id: dbIdSchema });

/** Cron jobs of an environment (spec section 7: GET crons, crons/{cron_id}, executions; the console adds, edits, deletes and runs them). */
export async function cronRoutes(app: App, ctx: AppContext) {
  const base = '/projects/:id/environments/:env_id/crons';

  app.get(
    base,
    {
      schema: {
        tags: ['crons'],
        summary: "An environment's cron jobs with their next run and last execution",
        params: envParams,
        response: { 200: cronJobListResponseSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      return { crons: await listCronJobs(ctx, project.id, request.params.env_id) };
    },
  );

  app.post(
    base,
    {
      schema: {
        tags: ['crons'],
        summary: 'Add a cron job: GET {path} on the live deployment on {schedule} (UTC)',
        params: envParams,
        body: createCronJobRequestSchema,
        response: { 201: cronJobSchema },
      },
    },
    async (request, reply) => {
      const project = await getProjectRow(ctx, request.params.id);
      return reply.code(201).send(await createCronJob(ctx, project.id, request.params.env_id, request.body));
    },
  );

  app.get(
    `${base}/:cron_id`,
    {
      schema: { tags: ['crons'], summary: 'One cron job', params: cronParams, response: { 200: cronJobSchema } },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const row = await getCronJobRow(ctx, project.id, request.params.env_id, request.params.cron_id);
      return getCronJob(ctx, project.id, row);
    },
  );

  app.patch(
    `${base}/:cron_id`,
    {
      schema: {
        tags: ['crons'],
        summary: "Change a cron job's path, schedule or enabled switch (launchbay.json ones: only the switch)",
        params: cronParams,
        body: updateCronJobRequestSchema,
        response: { 200: cronJobSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const row = await getCronJobRow(ctx, project.id, request.params.env_id, request.params.cron_id);
      return updateCronJob(ctx, project.id, row, request.body);
    },
  );

  app.delete(
    `${base}/:cron_id`,
    {
      schema: {
        tags: ['crons'],
        summary: 'Delete a cron job added in the console, with its executions',
        params: cronParams,
        response: { 200: messageSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const row = await getCronJobRow(ctx, project.id, request.params.env_id, request.params.cron_id);
      await deleteCronJob(ctx, row);
      return { message: CRON_JOB_DELETED_MESSAGE };
    },
  );

  app.post(
    `${base}/:cron_id/run`,
    {
      schema: {
        tags: ['crons'],
        summary: 'Run a cron job now; answers the finished execution',
        params: cronParams,
        response: { 200: cronExecutionSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const row = await getCronJobRow(ctx, project.id, request.params.env_id, request.params.cron_id);
      // Outside the request's transaction: the running execution is visible (and blocks a scheduled
      // tick) while the call is out, and its lock is not held for the call's duration.
      return outsideRequestTransaction(async () => {
        const execution = await claimCronExecution(ctx, row.id, new Date(), 'manual');
        if (!execution) throw new Error('The execution could not be recorded');
        return toCronExecution(execution.status === 'running' ? await runCronExecution(ctx, execution) : execution);
      });
    },
  );

  app.get(
    `${base}/:cron_id/executions`,
    {
      schema: {
        tags: ['crons'],
        summary: "A cron job's executions, newest first",
        params: cronParams,
        querystring: paginationQuerySchema,
        response: { 200: cronExecutionListResponseSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const row = await getCronJobRow(ctx, project.id, request.params.env_id, request.params.cron_id);
      const { page, per_page } = request.query;
      const { executions, total } = await listCronExecutions(ctx, row.id, page, per_page);
      return { executions, total, page, per_page };
    },
  );
}
