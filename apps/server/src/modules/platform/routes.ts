import os from 'node:os';
import { accessInfoSchema, healthSchema, publicIpSchema } from '@launchbay/contract';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { App } from '../../lib/http';
import { getSettings } from '../settings/service';

const PRIVATE_V4 = [
  /^10\./,
  /^192\.168\./,
  /^172\.(1[6-9]|2\d|3[01])\./,
  /^127\./,
  /^169\.254\./,
  /^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./,
];
const isPublicV4 = (address: string) => !PRIVATE_V4.some((re) => re.test(address));

/** The address the world reaches this machine on, when the platform can know it without asking the internet. */
export function detectPublicIp(configured: string | undefined): { ip: string | null; source: string } {
  if (configured) return { ip: configured, source: 'configuration (PUBLIC_IP)' };
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) {
      if (a.family === 'IPv4' && !a.internal && isPublicV4(a.address)) return { ip: a.address, source: 'network interface' };
    }
  }
  return { ip: null, source: 'none: no public address on this machine; set PUBLIC_IP if it is reached through NAT' };
}

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
