import {
  accessInfoSchema,
  connectivitySchema,
  dnsCheckRequestSchema,
  dnsCheckSchema,
  edgeStatusSchema,
  healthSchema,
  publicIpSchema,
} from '@launchbay/contract';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { App } from '../../lib/http';
import { detectPublicIp } from '../../lib/public-ip';
import { getSettings } from '../settings/service';
import { checkDns, connectivity } from './connectivity';
import { edgeStatus } from './edge';

export async function platformRoutes(app: App, ctx: AppContext) {
  app.get(
    '/platform/access-info',
    {
      config: { access: 'public' },
      schema: {
        tags: ['platform'],
        summary: 'How this platform is reached (set by ACCESS_MODE)',
        response: { 200: accessInfoSchema },
      },
    },
    async () => {
      const settings = await getSettings(ctx);
      return { access_mode: settings.access_mode, public_url: settings.external_url };
    },
  );

  app.get(
    '/platform/public-ip',
    {
      config: { access: 'reader' },
      schema: { tags: ['platform'], summary: "This machine's public IP address", response: { 200: publicIpSchema } },
    },
    async () => detectPublicIp(ctx.config.publicIp),
  );

  app.get(
    '/platform/connectivity',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['platform'],
        summary: 'External connectivity: the public IP, whether ports 80 and 443 answer on it, the DNS records to create',
        response: { 200: connectivitySchema },
      },
    },
    async () => connectivity(ctx),
  );

  app.get(
    '/platform/connectivity/dns-check',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['platform'],
        summary: 'Resolve a name (a wildcard through a random name under it) and say whether it points here',
        querystring: dnsCheckRequestSchema,
        response: { 200: dnsCheckSchema },
      },
    },
    async (request) => checkDns(ctx, request.query.name),
  );

  app.get(
    '/platform/edge',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['platform'],
        summary: 'The edge as it runs: its driver (embedded or nginx), ports, served route table, and whether nginx is installed',
        response: { 200: edgeStatusSchema },
      },
    },
    async () => edgeStatus(ctx),
  );

  app.get(
    '/health',
    {
      config: { access: 'public' },
      schema: { tags: ['platform'], summary: 'Liveness and database health', response: { 200: healthSchema, 503: healthSchema } },
    },
    async (_request, reply) => {
      const databaseOk = await ctx.db
        .execute(sql`SELECT 1`)
        .then(() => true)
        .catch(() => false);
      return reply.code(databaseOk ? 200 : 503).send({
        status: databaseOk ? 'ok' : 'degraded',
        version: '1.0.0',
        database: ctx.databaseKind,
        database_ok: databaseOk,
        uptime_seconds: Math.round((Date.now() - ctx.startedAt) / 1000),
      });
    },
  );
}
