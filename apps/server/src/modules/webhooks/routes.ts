import { dbIdSchema, projectGitResponseSchema, webhookDeliveryListResponseSchema } from '@launchbay/contract';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { conflict, HttpError } from '../../lib/errors';
import type { App } from '../../lib/http';
import { projectWebhookUrl, registerProjectWebhook, removeProjectWebhook } from '../git-providers/service';
import { getProjectRow } from '../projects/service';
import { handleDelivery, listDeliveries, recordRejected, verifyDelivery, webhookSecret } from './service';

/** GitHub sends up to 25 MB; a push of a few thousand commits stays far below this. */
const WEBHOOK_BODY_LIMIT = 10 * 1024 * 1024;

/**
 * The receiver git hosts post to: `POST /webhooks/git/{project_id}`, outside /api (a machine
 * endpoint, authenticated by the delivery's signature, not by a session or a key).
 */
export async function webhookReceiverRoutes(app: App, ctx: AppContext) {
  // The signature is over the exact bytes sent: the body is kept raw and parsed after the check.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  );

  app.post(
    '/git/:project_id',
    { bodyLimit: WEBHOOK_BODY_LIMIT, schema: { params: z.object({ project_id: dbIdSchema }) } },
    async (request, reply) => {
      const project = await getProjectRow(ctx, request.params.project_id);
      const secret = webhookSecret(ctx, project);
      const incoming = { headers: request.headers, rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0) };
      let verified: ReturnType<typeof verifyDelivery>;
      try {
        verified = verifyDelivery(project, secret, incoming);
      } catch (error) {
        if (error instanceof HttpError) await recordRejected(ctx, project.id, incoming, error.detail);
        throw error;
      }
      const result = await handleDelivery(ctx, project, verified);
      return reply.code(result.outcome === 'failed' ? 500 : 200).send({
        outcome: result.outcome,
        detail: result.detail,
        deployment_id: result.deploymentId ?? null,
      });
    },
  );
}

/** What the console shows of a project's webhook: the last deliveries and where they come to. */
export async function webhookRoutes(app: App, ctx: AppContext) {
  app.get(
    '/projects/:id/webhook-deliveries',
    {
      schema: {
        tags: ['git'],
        summary: "The project's last webhook deliveries with what came of each (newest first)",
        params: z.object({ id: dbIdSchema }),
        response: { 200: webhookDeliveryListResponseSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      return {
        deliveries: await listDeliveries(ctx, project.id),
        webhook_url: project.gitConnectionId === null ? null : await projectWebhookUrl(ctx, project.id),
        webhook_registered: project.webhookHookId !== null,
        automatic_deploy: project.automaticDeploy,
      };
    },
  );

  app.post(
    '/projects/:id/git',
    {
      // What the host was told stays told: a hook created there is recorded whatever the answer.
      config: { transaction: false, audit: 'projects.git.webhook' },
      schema: {
        tags: ['git'],
        summary:
          "Register the project's push webhook on the host again (after the external URL was set, or the host refused it); without a registered webhook the branch is polled",
        params: z.object({ id: dbIdSchema }),
        response: { 200: projectGitResponseSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      if (project.gitConnectionId === null)
        throw conflict(`${project.name} is not from a connected repository: there is no webhook to register`);
      const removal = await removeProjectWebhook(ctx, project);
      if (removal)
        request.log.warn({ projectId: project.id }, `The previous webhook of ${project.name} could not be removed: ${removal}`);
      const result = await registerProjectWebhook(ctx, { ...project, webhookHookId: null });
      return {
        webhook_registered: result.registered,
        webhook_url: await projectWebhookUrl(ctx, project.id),
        detail: result.reason,
      };
    },
  );
}
