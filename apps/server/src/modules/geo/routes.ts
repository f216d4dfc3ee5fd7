import { apiErrorSchema, geoIpParamSchema, geoLocationSchema } from '@launchbay/contract';
import type { AppContext } from '../../context';
import type { App } from '../../lib/http';
import { GeoDatabaseUnavailable, lookupGeo } from './service';

export async function geoRoutes(app: App, _ctx: AppContext) {
  app.get(
    '/geo/:ip',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['geo'],
        summary: 'Where an IP address is, from the offline city database (non-public addresses say what they are instead)',
        params: geoIpParamSchema,
        response: {
          200: geoLocationSchema,
          503: apiErrorSchema.describe('The offline city database could not be opened (the next call tries again)'),
        },
      },
    },
    async (request) => {
      try {
        return await lookupGeo(request.params.ip);
      } catch (error) {
        if (error instanceof GeoDatabaseUnavailable) request.log.error({ err: error.reason }, 'geo database unavailable');
        throw error;
      }
    },
  );
}
