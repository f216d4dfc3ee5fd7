import { z } from 'zod';

const LABEL = '[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?';
const NAME = new RegExp(`^(?=.{1,253}$)(\\*\\.)?(${LABEL}\\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$`);

/** A domain a certificate is for: `shop.example.com`, or a wildcard `*.example.com` (one label, DNS-01). */
export const domainNameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .transform((value) => value.replace(/\.$/, ''))
  .pipe(z.string().regex(NAME, 'Enter a domain such as shop.example.com or *.example.com'));

export const createDomainRequestSchema = z.object({ domain: domainNameSchema });

export const DOMAIN_STATUSES = ['pending', 'provisioning', 'active', 'failed'] as const;
export const domainStatusSchema = z.enum(DOMAIN_STATUSES);

export const dnsRecordSchema = z.object({
  type: z.enum(['A', 'AAAA', 'CNAME', 'TXT']),
  name: z.string(),
  value: z.string(),
  purpose: z.string(),
});

export const domainChallengeSchema = z.object({
  type: z.enum(['http-01', 'dns-01']),
  identifier: z.string(),
  status: z.string().describe('As the CA says: pending, processing, valid, invalid'),
  token: z.string(),
  url: z.string().describe('http-01: where the CA looks; dns-01: the challenge URL at the CA'),
  dns_name: z.string().nullable().describe('dns-01: the TXT record to create'),
  dns_value: z.string().nullable(),
  error: z.string().nullable(),
});

export const domainOrderSchema = z.object({
  domain_id: z.number().int(),
  status: z.string().describe('As the CA says: pending, ready, processing, valid, invalid'),
  directory_url: z.string(),
  challenges: z.array(domainChallengeSchema),
  error: z.string().nullable(),
  expires_at: z.string().nullable(),
  created_at: z.string(),
});
export type DomainOrder = z.infer<typeof domainOrderSchema>;

export const domainSchema = z.object({
  id: z.number().int(),
  domain: z.string(),
  is_wildcard: z.boolean(),
  challenge_type: z.enum(['http-01', 'dns-01']),
  status: domainStatusSchema,
  last_error: z.string().nullable(),
  fingerprint: z.string().nullable().describe('SHA-256 of the certificate, hex'),
  issued_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  days_remaining: z.number().int().nullable(),
  renewal_failures: z.number().int(),
  next_renewal_at: z.string().nullable(),
  served: z
    .object({
      status: z.enum(['match', 'mismatch', 'none', 'unreachable']).nullable(),
      fingerprint: z.string().nullable(),
      checked_at: z.string().nullable(),
    })
    .describe('What the edge really serves for this name, compared with the stored certificate'),
  dns_records: z.array(dnsRecordSchema).describe('What to create at the DNS provider'),
  order: domainOrderSchema.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Domain = z.infer<typeof domainSchema>;

export const domainListResponseSchema = z.object({ domains: z.array(domainSchema) });

/** A domain in a path: its id, or its name. */
export const domainRefParamSchema = z.object({ domain: z.string().trim().toLowerCase().min(1).max(253) });
export const domainIdParamSchema = z.object({
  domain_id: z
    .string()
    .regex(/^[1-9]\d{0,9}$/, 'Must be a positive whole number')
    .transform(Number),
});

export const httpChallengeDebugSchema = z.object({
  domain: z.string(),
  ready: z.boolean().describe('True when every check passed: a CA asking now would succeed'),
  checks: z.array(
    z.object({
      name: z.enum(['dns', 'port_80', 'token']),
      ok: z.boolean(),
      detail: z.string(),
    }),
  ),
});
export type HttpChallengeDebug = z.infer<typeof httpChallengeDebugSchema>;

/** A domain of a project: served by one of its environments, or redirecting to another of its domains. */
export const customDomainSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  domain: z.string(),
  environment_id: z.number().int(),
  environment_name: z.string(),
  redirect_to: z.string().nullable().describe('Requests for this name are redirected (308) to that domain, path kept'),
  url: z.string(),
  certificate: z
    .object({
      domain_id: z.number().int(),
      status: domainStatusSchema,
      expires_at: z.string().nullable(),
      served_status: z.enum(['match', 'mismatch', 'none', 'unreachable']).nullable(),
    })
    .nullable()
    .describe('The certificate of the name (in Domains), once one was asked for'),
  created_at: z.string(),
});
export type CustomDomain = z.infer<typeof customDomainSchema>;

const exactDomainSchema = domainNameSchema.refine(
  (value) => !value.startsWith('*.'),
  'A project domain is one name; add a wildcard certificate in Domains',
);

export const createCustomDomainRequestSchema = z.object({
  domain: exactDomainSchema,
  environment_id: z.number().int().positive().optional().describe('Default: production'),
  redirect_to: exactDomainSchema.nullable().optional(),
});
export const updateCustomDomainRequestSchema = z.object({
  environment_id: z.number().int().positive().optional(),
  redirect_to: exactDomainSchema.nullable().optional(),
});
export const createEnvironmentDomainRequestSchema = z.object({ domain: exactDomainSchema });
export const customDomainListResponseSchema = z.object({ domains: z.array(customDomainSchema) });
