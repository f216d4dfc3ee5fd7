import { proxyLogIdParamSchema, proxyLogListResponseSchema, proxyLogQuerySchema, proxyLogSchema } from '@launchbay/contract';
import type { AppContext } from '../../context';
import { notFound } from '../../lib/errors';
import type { App } from '../../lib/http';
import { getProxyLog, listProxyLogs, proxyLogsWaiting } from './service';

export async function proxyLogRoutes(app: App, ctx: AppContext) {
  app.get(
    '/proxy-logs',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['proxy-logs'],
        summary: 'Requests the edge served, newest first, with filters (keyset pages, live tail with after_id)',
        querystring: proxyLogQuerySchema,
        response: { 200: proxyLogListResponseSchema },
      },
    },
    async (request) => {
      const [list, waiting] = await Promise.all([listProxyLogs(ctx, request.query), proxyLogsWaiting(ctx)]);
      return { ...list, waiting_rows: waiting };
    },
  );

  app.get(
    '/proxy-logs/:id',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['proxy-logs'],
        summary: 'One request the edge served, with every field',
        params: proxyLogIdParamSchema,
        response: { 200: proxyLogSchema },
      },
    },
    async (request) => {
      const log = await getProxyLog(ctx, request.params.id);
      if (!log) throw notFound(`Proxy log ${request.params.id} not found`);
      return log;
    },
  );
}
