import { dbIdSchema, previewListResponseSchema, previewSchema } from '@launchbay/contract';
import { z } from 'zod';
import type { AppContext } from '../../context';
import type { App } from '../../lib/http';
import { getProjectRow } from '../projects/service';
import { getSettings } from '../settings/service';
import { approvePreview, listPreviews, toPreview } from './service';

const projectParams = z.object({ id: dbIdSchema });

/** A project's pull-request previews (its overview lists them) and the approval of a fork's one. */
export async function previewRoutes(app: App, ctx: AppContext) {
  app.get(
    '/projects/:id/previews',
    {
      schema: {
        tags: ['projects'],
        summary: "The project's pull-request previews, newest pull request first",
        params: projectParams,
        response: { 200: previewListResponseSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const settings = await getSettings(ctx);
      return {
        previews: await listPreviews(ctx, project),
        previews_enabled: project.previewsEnabled,
        platform_previews_enabled: settings.preview_environments_enabled,
      };
    },
  );

  app.post(
    '/projects/:id/previews/:environment_id/approve',
    {
      config: { access: 'user' },
      schema: {
        tags: ['projects'],
        summary: "Let a fork's pull request build its preview (its current commit; a new commit asks again)",
        params: projectParams.extend({ environment_id: dbIdSchema }),
        response: { 200: previewSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const { preview } = await approvePreview(ctx, project, request.params.environment_id, request.principal?.userId ?? 0);
      return toPreview(ctx, project, preview);
    },
  );
}
