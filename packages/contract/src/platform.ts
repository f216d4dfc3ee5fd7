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

/** External Connectivity (/setup/connectivity): how the world reaches this machine, checked for real. */
export const connectivityPortSchema = z.object({
  port: z.number().int(),
  purpose: z.string(),
  /** The edge's own port for this purpose (PROXY_PORT / PROXY_TLS_PORT). */
  edge_port: z.number().int().nullable(),
  /** null when it could not be checked (no public IP known). */
  reachable: z.boolean().nullable(),
  detail: z.string(),
});

export const connectivityDnsRecordSchema = z.object({
  type: z.enum(['A', 'AAAA']),
  name: z.string(),
  value: z.string(),
  purpose: z.string(),
});

export const connectivitySchema = z.object({
  access_mode: accessModeSchema,
  public_ip: publicIpSchema,
  base_domain: z.string().nullable(),
  ports: z.array(connectivityPortSchema),
  dns_records: z.array(connectivityDnsRecordSchema).describe('Empty until a base domain is set in Settings'),
});
export type Connectivity = z.infer<typeof connectivitySchema>;

export const dnsCheckRequestSchema = z.object({
  name: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'Enter a name such as apps.example.com'),
});

export const dnsCheckSchema = z.object({
  name: z.string(),
  /** For a wildcard, the random name under it that was resolved. */
  resolved_name: z.string(),
  addresses: z.array(z.string()),
  expected: z.string().nullable(),
  ok: z.boolean(),
  detail: z.string(),
});
export type DnsCheck = z.infer<typeof dnsCheckSchema>;

export const EDGE_DRIVERS = ['embedded', 'nginx'] as const;
export const edgeDriverSchema = z.enum(EDGE_DRIVERS);
export type EdgeDriverName = z.infer<typeof edgeDriverSchema>;

/** The edge as it runs now (GET /platform/edge): which driver serves, where, and whether nginx could take over. */
export const edgeStatusSchema = z.object({
  driver: edgeDriverSchema.nullable().describe('The driver serving now; null while no edge runs'),
  pid: z.number().int().nullable(),
  port: z.number().int().nullable(),
  tls_port: z.number().int().nullable(),
  route_table_version: z.number().int().nullable().describe('The route table version being served (nginx: after its reload)'),
  error: z.string().nullable().describe('With nginx: why its last configuration was refused (the previous one keeps serving)'),
  nginx: z.object({ installed: z.boolean(), version: z.string().nullable() }),
});
export type EdgeStatus = z.infer<typeof edgeStatusSchema>;
