import { z } from 'zod';

export const ACCESS_MODES = ['local', 'nat', 'cloudflare_tunnel', 'direct'] as const;
export const accessModeSchema = z.enum(ACCESS_MODES);
export type AccessMode = z.infer<typeof accessModeSchema>;

export const accessInfoSchema = z.object({
  access_mode: accessModeSchema,
  public_url: z.string().nullable(),
});
export type AccessInfo = z.infer<typeof accessInfoSchema>;

export const publicIpSchema = z.object({
  ip: z.string().nullable(),
  source: z.string().describe('Where the address came from: configuration, an interface, or none'),
});
export type PublicIp = z.infer<typeof publicIpSchema>;

export const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  version: z.string(),
  database: z.enum(['embedded', 'external']),
  database_ok: z.boolean(),
  uptime_seconds: z.number(),
});
