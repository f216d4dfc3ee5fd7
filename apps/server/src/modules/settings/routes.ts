import { platformSettingsSchema, updateSettingsRequestSchema } from '@launchbay/contract';
import type { AppContext } from '../../context';
import type { App } from '../../lib/http';
import { getSettings, updateSettings } from './service';

export async function settingsRoutes(app: App, ctx: AppContext) {
  app.get(
    '/settings',
    {
      config: { access: 'reader' },
      schema: { tags: ['settings'], summary: 'Platform settings', response: { 200: platformSettingsSchema } },
    },
    async () => getSettings(ctx),
  );

  app.put(
    '/settings',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['settings'],
        summary: 'Change platform settings (any subset); applied at once, no restart',
        body: updateSettingsRequestSchema,
        response: { 200: platformSettingsSchema },
      },
    },
    async (request) => updateSettings(ctx, request.body, request.principal?.userId ?? null),
  );
}
