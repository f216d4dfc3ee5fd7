import {
  dbIdSchema,
  deploymentJobsResponseSchema,
  deploymentListResponseSchema,
  deploymentSchema,
  idParamSchema,
  paginationQuerySchema,
  triggerPipelineRequestSchema,
  triggerPipelineResponseSchema,
} from '@launchbay/contract';
import { and, asc, desc, eq, gt, inArray } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { conflict, unauthorized } from '../../lib/errors';
import type { App } from '../../lib/http';
import { streamPolled } from '../../lib/sse';
import { toIso, toIsoOrNull } from '../../lib/time';
import { getEnvironmentRow, productionEnvironment } from '../environments/service';
import { getProjectRow } from '../projects/service';
import { pauseDeployment, resumeDeployment } from './actions';
import { deploymentLogWriter } from './logs';
import { deploymentLogs } from './schema';
import {
  cancelDeployment,
  getDeployment,
  getDeploymentRow,
  lastDeployment,
  listDeploymentSteps,
  listDeployments,
  manualTrigger,
  rollbackTo,
  startDeployment,
} from './service';

const deploymentParamsSchema = z.object({ id: dbIdSchema, deployment_id: dbIdSchema });
const listQuerySchema = paginationQuerySchema.extend({ environment_id: z.coerce.number().int().positive().optional() });
const logQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100_000).default(20_000),
  /** Only the build's lines (and the platform's notes) or only the app's output. */
  source: z.enum(['build', 'runtime']).optional(),
  /** For clients that cannot set the Last-Event-ID header on their first request (EventSource). */
  last_event_id: z.coerce.number().int().min(0).optional(),
});
const STREAMS_OF_SOURCE = { build: ['build', 'system'], runtime: ['stdout', 'stderr'] } as const;
const lastEventIdSchema = z.object({
  'last-event-id': z
    .string()
    .regex(/^\d{1,18}$/, 'Last-Event-ID must be the id of a log line')
    .optional(),
  accept: z.string().optional(),
});
const LOG_PAGE = 500;
const LOG_POLL_MS = 200;

export async function deploymentRoutes(app: App, ctx: AppContext) {
  const openStreams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of openStreams) end();
  });

  app.get(
    '/projects/:id/deployments',
    {
      schema: {
        tags: ['deployments'],
        summary: "A project's deployments, newest first",
        params: idParamSchema,
        querystring: listQuerySchema,
        response: { 200: deploymentListResponseSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const { page, per_page, environment_id } = request.query;
      return listDeployments(ctx, project, page, per_page, environment_id);
    },
  );

  app.get(
    '/projects/:id/last-deployment',
    {
      schema: {
        tags: ['deployments'],
        summary: "The project's latest deployment (null before the first)",
        params: idParamSchema,
        response: { 200: deploymentSchema.nullable() },
      },
    },
    async (request) => lastDeployment(ctx, await getProjectRow(ctx, request.params.id)),
  );

  app.post(
    '/projects/:id/trigger-pipeline',
    {
      schema: {
        tags: ['deployments'],
        summary: "Deploy the head of an environment's branch, or a given commit (answers 202 with the deployment's id)",
        params: idParamSchema,
        body: triggerPipelineRequestSchema,
        response: { 202: triggerPipelineResponseSchema },
      },
    },
    async (request, reply) => {
      if (!request.principal) throw unauthorized();
      const project = await getProjectRow(ctx, request.params.id);
      const body = request.body ?? {};
      const environment = body.environment_id
        ? await getEnvironmentRow(ctx, project.id, body.environment_id)
        : await productionEnvironment(ctx, project.id);
      if (!environment) throw conflict('The project has no production environment');
      const row = await startDeployment(ctx, {
        project,
        environment,
        // A commit an earlier deployment of the environment deployed is a redeploy of it.
        trigger: await manualTrigger(ctx, environment.id, body.commit),
        branch: body.branch ?? environment.branch,
        commit: body.commit ?? null,
        createdBy: request.principal.userId,
      });
      return reply.code(202).send({ deployment_id: row.id });
    },
  );

  app.get(
    '/projects/:id/deployments/:deployment_id',
    {
      schema: {
        tags: ['deployments'],
        summary: 'One deployment',
        params: deploymentParamsSchema,
        response: { 200: deploymentSchema },
      },
    },
    async (request) => getDeployment(ctx, await getProjectRow(ctx, request.params.id), request.params.deployment_id),
  );

  app.get(
    '/projects/:id/deployments/:deployment_id/jobs',
    {
      schema: {
        tags: ['deployments'],
        summary: "A deployment's pipeline steps, for its timeline",
        params: deploymentParamsSchema,
        response: { 200: deploymentJobsResponseSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const row = await getDeploymentRow(ctx, project.id, request.params.deployment_id);
      const steps = await listDeploymentSteps(ctx, row.id);
      return {
        jobs: steps.map((step) => ({
          id: step.id,
          name: step.name,
          status: step.status as 'pending',
          detail: step.detail,
          started_at: toIsoOrNull(step.startedAt),
          finished_at: toIsoOrNull(step.finishedAt),
        })),
      };
    },
  );

  app.get(
    '/projects/:id/deployments/:deployment_id/logs',
    {
      schema: {
        tags: ['deployments'],
        summary:
          'The build and runtime log: text, or Server-Sent Events with Accept: text/event-stream (resumes after Last-Event-ID)',
        description:
          'text/plain: one line per entry, `<time> <stream> <line>`. text/event-stream: `log` events (id = line id, data = { id, at, stream, process, line }); the stream stays open for runtime lines.',
        params: deploymentParamsSchema,
        querystring: logQuerySchema,
        headers: lastEventIdSchema,
      },
    },
    async (request, reply) => {
      const project = await getProjectRow(ctx, request.params.id);
      const row = await getDeploymentRow(ctx, project.id, request.params.deployment_id);
      const ofSource = request.query.source
        ? inArray(deploymentLogs.stream, [...STREAMS_OF_SOURCE[request.query.source]])
        : undefined;
      const linesAfter = (lastId: number, limit: number) =>
        ctx.db
          .select()
          .from(deploymentLogs)
          .where(and(eq(deploymentLogs.deploymentId, row.id), gt(deploymentLogs.id, lastId), ofSource))
          .orderBy(asc(deploymentLogs.id))
          .limit(limit);
      if (!(request.headers.accept ?? '').includes('text/event-stream')) {
        // The last `limit` lines: where a long log's failure is.
        const lines = (
          await ctx.db
            .select()
            .from(deploymentLogs)
            .where(and(eq(deploymentLogs.deploymentId, row.id), ofSource))
            .orderBy(desc(deploymentLogs.id))
            .limit(request.query.limit)
        ).reverse();
        reply.type('text/plain; charset=utf-8');
        return lines.map((l) => `${toIso(l.at)} ${l.process ?? l.stream} ${l.line}`).join('\n') + (lines.length ? '\n' : '');
      }
      await streamPolled(request, reply, {
        lastEventId: Number(request.headers['last-event-id'] ?? request.query.last_event_id ?? 0),
        pollMs: LOG_POLL_MS,
        shutdown: openStreams,
        subscribe: (wake) => deploymentLogWriter(ctx.pool).onStored((ids) => ids.has(row.id) && wake()),
        async next(lastId) {
          const lines = await linesAfter(lastId, LOG_PAGE);
          return {
            events: lines.map((l) => ({
              id: l.id,
              event: 'log',
              data: { id: l.id, at: toIso(l.at), stream: l.stream, process: l.process, line: l.line },
            })),
            more: lines.length === LOG_PAGE,
          };
        },
      });
    },
  );

  for (const action of ['cancel', 'pause', 'resume'] as const) {
    app.post(
      `/projects/:id/deployments/:deployment_id/${action}`,
      {
        schema: {
          tags: ['deployments'],
          summary:
            action === 'cancel'
              ? 'Stop a queued, building or deploying deployment'
              : action === 'pause'
                ? 'Stop serving: the processes stop, the edge answers a paused page'
                : 'Serve a paused deployment again',
          params: deploymentParamsSchema,
          response: { 200: deploymentSchema },
        },
      },
      async (request) => {
        const project = await getProjectRow(ctx, request.params.id);
        const id = request.params.deployment_id;
        if (action === 'cancel') return cancelDeployment(ctx, project, id);
        if (action === 'pause') await pauseDeployment(ctx, project, id);
        else await resumeDeployment(ctx, project, id);
        return getDeployment(ctx, project, id);
      },
    );
  }

  app.post(
    '/projects/:id/deployments/:deployment_id/rollback',
    {
      schema: {
        tags: ['deployments'],
        summary: 'Serve an earlier successful deployment again, from its kept build (no rebuild); answers 202',
        params: deploymentParamsSchema,
        response: { 202: triggerPipelineResponseSchema },
      },
    },
    async (request, reply) => {
      if (!request.principal) throw unauthorized();
      const project = await getProjectRow(ctx, request.params.id);
      const row = await rollbackTo(ctx, project, request.params.deployment_id, request.principal.userId);
      return reply.code(202).send({ deployment_id: row.id });
    },
  );
}
