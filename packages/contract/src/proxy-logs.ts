import { z } from 'zod';
import { dbIdSchema, PG_INTEGER_MAX } from './common';

/** One request the edge served: written by the edge in batches, kept for `log_retention_days`. */
export const proxyLogSchema = z.object({
  id: z.number().int(),
  created_at: z.string().describe('When the request arrived (ISO 8601, to the millisecond)'),
  method: z.string(),
  host: z.string(),
  path: z.string(),
  query: z.string().nullable().describe('The query string without its "?", null when there was none'),
  status_code: z.number().int(),
  duration_ms: z.number().describe('From the request arriving to the last byte of the answer'),
  bytes_in: z.number().int().describe('Request line, headers and body as received'),
  bytes_out: z.number().int().describe('Status line, headers and body as sent'),
  client_ip: z.string(),
  user_agent: z.string().nullable(),
  referrer: z.string().nullable(),
  route: z.string().nullable().describe('The route that matched, as host and path prefix (null: no route, the edge answered)'),
  project_id: z.number().int().nullable(),
  project_name: z.string().nullable(),
  project_slug: z.string().nullable(),
  environment_id: z.number().int().nullable(),
  environment_name: z.string().nullable(),
  deployment_id: z.number().int().nullable(),
  upstream: z.string().nullable().describe('host:port or socket the request went to; null when the edge answered itself'),
  tls_version: z.string().nullable().describe('e.g. TLSv1.3; null for plain HTTP'),
});
export type ProxyLog = z.infer<typeof proxyLogSchema>;

export const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
export const statusClassSchema = z.enum(STATUS_CLASSES);
export type StatusClass = z.infer<typeof statusClassSchema>;

/** An IPv4 or IPv6 address as text (what the edge records as client_ip). */
export const ipAddressSchema = z.union([z.ipv4(), z.ipv6()], { error: 'Enter an IPv4 or IPv6 address' });

export const proxyLogQuerySchema = z.object({
  from: z.iso.datetime({ offset: true, error: 'Enter a date and time (ISO 8601)' }).optional(),
  to: z.iso.datetime({ offset: true, error: 'Enter a date and time (ISO 8601)' }).optional(),
  status_class: statusClassSchema.optional(),
  status_code: z.coerce.number().int().min(100).max(599).optional(),
  host: z.string().trim().toLowerCase().min(1).max(253).optional().describe('Exact host'),
  path: z.string().trim().min(1).max(2048).optional().describe('Path prefix, e.g. /api'),
  client_ip: ipAddressSchema.optional(),
  project_id: z.coerce.number().int().min(1).max(PG_INTEGER_MAX).optional(),
  environment_id: z.coerce.number().int().min(1).max(PG_INTEGER_MAX).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z
    .string()
    .regex(/^\d{1,15}\.\d{1,19}$/, 'Not a cursor from this list')
    .optional()
    .describe('next_cursor of the previous page: the rows older than it'),
  after_id: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Live tail: only rows stored after this id (newest first, at most `limit`)'),
});
export type ProxyLogQuery = z.input<typeof proxyLogQuerySchema>;

export const proxyLogListResponseSchema = z.object({
  logs: z.array(proxyLogSchema),
  next_cursor: z.string().nullable().describe('Pass as cursor for the next (older) page; null on the last page'),
  latest_id: z.number().int().describe('The highest id stored so far: pass as after_id to tail'),
  dropped: z
    .object({
      count: z.number().int().describe('Requests the edge served but could not log (its buffer was full)'),
      last_at: z.string().nullable(),
    })
    .describe('Within the time range asked for'),
  waiting_rows: z
    .number()
    .int()
    .min(0)
    .describe(
      'Requests served but not in the list yet: the edge holds their rows back while a burst of traffic saturates it, and writes them once it is over (within 30 s)',
    ),
});
export type ProxyLogList = z.infer<typeof proxyLogListResponseSchema>;

export const proxyLogIdParamSchema = z.object({ id: dbIdSchema });

/** Where an address is, from the offline city database shipped with the platform. */
export const geoLocationSchema = z.object({
  ip: z.string(),
  kind: z
    .enum(['public', 'private', 'loopback', 'link_local', 'reserved'])
    .describe('Only public addresses have a place; the others say what they are instead'),
  country_code: z.string().nullable(),
  country: z.string().nullable(),
  region: z.string().nullable(),
  city: z.string().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  timezone: z.string().nullable(),
  source: z.string().describe('The database the answer came from, with its attribution'),
});
export type GeoLocation = z.infer<typeof geoLocationSchema>;

export const geoIpParamSchema = z.object({ ip: ipAddressSchema });
