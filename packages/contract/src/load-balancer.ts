import { z } from 'zod';

/** A host name the edge routes by: lowercase, no port, no scheme (e.g. api.example.com). */
export const routeDomainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/,
    // abort: a name that is not one gets this message once, not again from the check below.
    { error: 'Enter a domain such as api.example.com', abort: true },
  )
  .refine((value) => value.includes('.'), 'Enter a domain such as api.example.com');

/** Where the edge sends a route's requests: `host:port` (an IPv6 address in brackets). */
export const upstreamAddressSchema = z
  .string()
  .trim()
  .regex(
    /^(\[[0-9a-fA-F:.]+\]|[a-zA-Z0-9]([a-zA-Z0-9.-]{0,251}[a-zA-Z0-9])?):([1-9]\d{0,4})$/,
    // abort: an address without a port is not also told its port is too large.
    { error: 'Enter an address such as 10.0.0.5:3000', abort: true },
  )
  .refine((value) => Number(value.slice(value.lastIndexOf(':') + 1)) <= 65535, 'The port must be at most 65535');

export const lbTargetSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('environment'),
    project_id: z.number().int().positive(),
    environment_id: z.number().int().positive(),
  }),
  z.object({
    kind: z.literal('upstreams'),
    upstreams: z
      .array(upstreamAddressSchema)
      .min(1, 'Add at least one upstream')
      .max(32, 'At most 32 upstreams')
      .refine((list) => new Set(list).size === list.length, 'Each upstream once'),
  }),
]);
export type LbTarget = z.infer<typeof lbTargetSchema>;

/** Active health checks: the edge asks each upstream for `path`; one that fails twice gets no traffic until it answers again. */
export const lbHealthCheckSchema = z.object({
  enabled: z.boolean(),
  path: z.string().trim().startsWith('/', 'The path must start with /').max(512, 'At most 512 characters'),
  interval_seconds: z.number().int().min(1, 'At least 1 second').max(300, 'At most 300 seconds'),
  timeout_seconds: z.number().int().min(1, 'At least 1 second').max(60, 'At most 60 seconds'),
});
export type LbHealthCheck = z.infer<typeof lbHealthCheckSchema>;

export const DEFAULT_HEALTH_CHECK: LbHealthCheck = { enabled: true, path: '/', interval_seconds: 5, timeout_seconds: 2 };

export const lbRouteRequestSchema = z.object({
  domain: routeDomainSchema,
  target: lbTargetSchema,
  health_check: lbHealthCheckSchema.optional(),
});

export const lbRouteUpdateSchema = lbRouteRequestSchema.omit({ domain: true });

export const lbDomainParamSchema = z.object({ domain: routeDomainSchema });

/** What the edge last saw of one upstream (null fields: not checked yet). */
export const lbUpstreamHealthSchema = z.object({
  upstream: z.string(),
  healthy: z.boolean().nullable(),
  since: z.string().nullable().describe('When it last turned healthy or unhealthy'),
  checked_at: z.string().nullable(),
  error: z.string().nullable(),
});

export const lbRouteSchema = z.object({
  id: z.number().int(),
  domain: z.string(),
  target: lbTargetSchema,
  target_label: z.string().describe('The project and environment, or the upstream addresses'),
  health_check: lbHealthCheckSchema,
  upstream_health: z.array(lbUpstreamHealthSchema),
  url: z.string().describe('The address on this platform (with the edge port)'),
  created_at: z.string(),
  updated_at: z.string(),
});
export type LbRoute = z.infer<typeof lbRouteSchema>;

export const lbRouteListResponseSchema = z.object({ routes: z.array(lbRouteSchema) });
