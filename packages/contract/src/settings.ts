import { z } from 'zod';
import { emailSchema } from './common';
import { accessModeSchema, EDGE_DRIVERS } from './platform';

const hostnameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'Enter a domain such as apps.example.com');

/** The platform's settings: one object, saved per section from the /settings page. */
export const platformSettingsSchema = z.object({
  external_url: z.url({ protocol: /^https?$/, error: 'Enter a URL such as https://launchbay.example.com' }).nullable(),
  base_domain: hostnameSchema.nullable().describe('Apps get addresses under this domain'),
  access_mode: accessModeSchema,
  acme_directory_url: z.url({ protocol: /^https?$/, error: 'Enter the ACME directory URL' }),
  acme_contact_email: emailSchema.nullable(),
  certificate_renewal_days: z
    .number()
    .int()
    .min(1, 'At least 1 day')
    .max(60, 'At most 60 days')
    .describe('Certificates are renewed this many days before they expire'),
  log_retention_days: z.number().int().min(1, 'At least 1 day').max(3650, 'At most 3650 days'),
  analytics_retention_days: z.number().int().min(1, 'At least 1 day').max(3650, 'At most 3650 days'),
  audit_retention_days: z.number().int().min(7, 'At least 7 days').max(3650, 'At most 3650 days'),
  kept_builds_per_environment: z
    .number()
    .int()
    .min(1, 'At least 1 build')
    .max(50, 'At most 50 builds')
    .describe('Successful builds kept per environment for instant rollback; older ones are removed'),
  preview_environments_enabled: z.boolean(),
  preview_address_template: z
    .string()
    .trim()
    .min(1, 'The address template is required')
    .max(40, 'At most 40 characters')
    .regex(/^[a-z0-9{}-]+$/, 'Lowercase letters, digits, hyphens and the {number} and {project} placeholders')
    .refine((value) => value.includes('{number}'), 'Must contain {number}: each pull request needs its own address')
    .refine(
      (value) => value.replace(/\{(number|project)\}/g, '').match(/[{}]/) === null,
      'Only {number} and {project} are placeholders',
    )
    .describe('The address label of a pull-request preview, e.g. pr-{number}-{project} gives pr-42-shop'),
  git_poll_interval_seconds: z
    .number()
    .int()
    .min(60, 'At least 60 seconds')
    .max(86400, 'At most 86400 seconds (a day)')
    .describe('How often branch heads are read for projects no webhook reaches (the local access mode)'),
  edge_driver: z
    .enum(EDGE_DRIVERS, { error: 'Choose embedded or nginx' })
    .describe(
      "Who serves apps' traffic: the embedded edge, or nginx configured and reloaded by Launchbay (nginx must be installed)",
    ),
  allow_private_network_targets: z
    .boolean()
    .describe(
      "Let every user's webhooks and SMTP servers reach private and loopback addresses (admins' always may); metadata and link-local addresses stay refused",
    ),
});
export type PlatformSettings = z.infer<typeof platformSettingsSchema>;

/** The preview address template's default: pull request 42 of `shop` is served at `pr-42-shop`. */
export const DEFAULT_PREVIEW_ADDRESS_TEMPLATE = 'pr-{number}-{project}';

/**
 * A pull-request preview's address label from the template: `pr-{number}-{project}` with 42 and
 * `shop` gives `pr-42-shop`, always a valid DNS label. The server serves previews there; the
 * console shows the same label as an example.
 */
export function previewAddressLabel(template: string, prNumber: number, projectSlug: string): string {
  const label = template
    .replaceAll('{number}', String(prNumber))
    .replaceAll('{project}', projectSlug)
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .slice(0, 63)
    .replace(/^-+|-+$/g, '');
  return label || `pr-${prNumber}`;
}

export const LETS_ENCRYPT_DIRECTORY = 'https://acme-v02.api.letsencrypt.org/directory';

/**
 * Every setting's value until someone changes it. The server starts external_url and access_mode
 * from its configuration (PUBLIC_URL, ACCESS_MODE); these are the values without one.
 */
export const PLATFORM_SETTINGS_DEFAULTS: PlatformSettings = {
  external_url: null,
  base_domain: null,
  access_mode: 'local',
  acme_directory_url: LETS_ENCRYPT_DIRECTORY,
  acme_contact_email: null,
  certificate_renewal_days: 30,
  log_retention_days: 30,
  analytics_retention_days: 90,
  audit_retention_days: 365,
  kept_builds_per_environment: 5,
  preview_environments_enabled: false,
  preview_address_template: DEFAULT_PREVIEW_ADDRESS_TEMPLATE,
  git_poll_interval_seconds: 60,
  edge_driver: 'embedded',
  // Off: only admins' providers reach private and loopback addresses (the server's lib/outbound.ts).
  allow_private_network_targets: false,
};

export const updateSettingsRequestSchema = platformSettingsSchema
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'Nothing to update');
