import { z } from 'zod';
import { paginationQuerySchema } from './common';

/*
 * Notifications: alert preferences, notification providers (email over SMTP, Slack incoming
 * webhooks) and the record of every notification sent. The request schemas carry the console's
 * own validation messages (spec section 5), so the provider form and the server say the same.
 */

// ---------------------------------------------------------------------------------------------
// Alert preferences

export const NOTIFICATION_SEVERITIES = ['critical', 'warning', 'info'] as const;
export const notificationSeveritySchema = z.enum(NOTIFICATION_SEVERITIES, {
  error: 'Minimum severity must be critical, warning or info',
});
export type NotificationSeverity = z.infer<typeof notificationSeveritySchema>;

const wholeNumberBetween = (label: string, min: number, max: number) =>
  z
    .number({ error: `${label} must be a number` })
    .int(`${label} must be a whole number`)
    .min(min, `${label} must be between ${min} and ${max}`)
    .max(max, `${label} must be between ${min} and ${max}`);

/** Spec section 3 'Alert preferences': one record for the platform, edited tab by tab. */
export const notificationPreferencesSchema = z.object({
  deployment_failures_enabled: z.boolean(),
  build_errors_enabled: z.boolean(),
  runtime_errors_enabled: z.boolean(),
  error_threshold: wholeNumberBetween('Error threshold', 1, 1000).describe('Errors per minute that raise a runtime-errors alert'),
  error_time_window: wholeNumberBetween('Time window', 1, 60).describe('Minutes over which runtime errors are counted'),
  ssl_expiration_enabled: z.boolean(),
  ssl_days_before_expiration: wholeNumberBetween('Days before expiration', 1, 90),
  domain_expiration_enabled: z.boolean(),
  dns_changes_enabled: z.boolean(),
  backup_failures_enabled: z.boolean(),
  s3_connection_issues_enabled: z.boolean(),
  retention_policy_violations_enabled: z.boolean(),
  backup_successes_enabled: z.boolean(),
  route_downtime_enabled: z.boolean(),
  load_balancer_issues_enabled: z.boolean(),
  security_alerts_enabled: z.boolean().describe('Alert when an account is locked after repeated failed sign-ins'),
  email_enabled: z.boolean(),
  slack_enabled: z.boolean(),
  batch_similar_notifications: z.boolean(),
  minimum_severity: notificationSeveritySchema,
});
export type NotificationPreferences = z.infer<typeof notificationPreferencesSchema>;

/** What GET answers before anyone saved preferences. */
export const DEFAULT_NOTIFICATION_PREFERENCES: NotificationPreferences = {
  deployment_failures_enabled: true,
  build_errors_enabled: true,
  runtime_errors_enabled: true,
  error_threshold: 10,
  error_time_window: 5,
  ssl_expiration_enabled: true,
  ssl_days_before_expiration: 14,
  domain_expiration_enabled: true,
  dns_changes_enabled: true,
  backup_failures_enabled: true,
  s3_connection_issues_enabled: true,
  retention_policy_violations_enabled: true,
  backup_successes_enabled: false,
  route_downtime_enabled: true,
  load_balancer_issues_enabled: true,
  security_alerts_enabled: true,
  email_enabled: true,
  slack_enabled: true,
  batch_similar_notifications: true,
  minimum_severity: 'warning',
};

/** PUT /notification-preferences sends the whole object inside `preferences`. */
export const updateNotificationPreferencesRequestSchema = z.object({
  preferences: notificationPreferencesSchema,
});
export type UpdateNotificationPreferencesRequest = z.infer<typeof updateNotificationPreferencesRequestSchema>;

// ---------------------------------------------------------------------------------------------
// Providers

export const PROVIDER_TYPES = ['email', 'slack'] as const;
export const providerTypeSchema = z.enum(PROVIDER_TYPES, { error: 'Provider type must be email or slack' });
export type ProviderType = z.infer<typeof providerTypeSchema>;

export const TLS_MODES = ['None', 'Starttls', 'Tls'] as const;
export const tlsModeSchema = z.enum(TLS_MODES, { error: 'TLS mode must be None, Starttls or Tls' });
export type TlsMode = z.infer<typeof tlsModeSchema>;

/** Spec section 5: the message when a provider's required parts are missing. */
export const PROVIDER_REQUIRED_MESSAGE = 'Please fill in all required fields for the selected provider type';
/**
 * What reads answer in place of a stored password. Sending it back keeps the stored one only while
 * the destination is unchanged (for email: host, port, username and TLS mode; for Slack: the URL).
 */
export const SECRET_MASK = '********';

/** A missing value says the required-fields message; a value of the wrong kind says `otherwise`. */
const requiredOr = (otherwise: string) => (issue: { input?: unknown }) =>
  issue.input === undefined || issue.input === null ? PROVIDER_REQUIRED_MESSAGE : otherwise;

export const providerNameSchema = z
  .string({ error: 'Name is required' })
  .trim()
  .min(1, 'Name is required')
  .max(100, 'Name must be at most 100 characters');

const emailAddressSchema = (message: string) =>
  z
    .string({ error: requiredOr(message) })
    .trim()
    .min(1, PROVIDER_REQUIRED_MESSAGE)
    .max(320, message)
    .pipe(z.email(message));

/** Spec section 3 'Email config'. username and password stay empty unless authentication is used. */
export const emailConfigSchema = z.object(
  {
    smtp_host: z
      .string({ error: requiredOr('SMTP host must be text') })
      .trim()
      .min(1, PROVIDER_REQUIRED_MESSAGE)
      .max(253, 'SMTP host must be at most 253 characters'),
    smtp_port: z
      .number({ error: requiredOr('SMTP port must be a number') })
      .int('SMTP port must be between 1 and 65535')
      .min(1, 'SMTP port must be between 1 and 65535')
      .max(65535, 'SMTP port must be between 1 and 65535'),
    username: z.string('Username must be text').trim().max(320, 'Username must be at most 320 characters').default(''),
    password: z.string('Password must be text').max(1024, 'Password must be at most 1024 characters').default(''),
    from_address: emailAddressSchema('Invalid from address'),
    to_addresses: z
      .array(emailAddressSchema('Invalid email address'), { error: requiredOr('To addresses must be a list') })
      .min(1, PROVIDER_REQUIRED_MESSAGE)
      .max(50, 'At most 50 recipients'),
    from_name: z
      .string('From name must be text')
      .trim()
      .max(200, 'From name must be at most 200 characters')
      .nullish()
      .transform((value) => value || null),
    tls_mode: tlsModeSchema.default('Starttls'),
    starttls_required: z.boolean('Require STARTTLS must be true or false').default(false),
    accept_invalid_certs: z.boolean('Accept invalid certificates must be true or false').default(false),
  },
  { error: requiredOr('Config must be an object') },
);
export type EmailConfigInput = z.input<typeof emailConfigSchema>;
export type EmailConfig = z.output<typeof emailConfigSchema>;

/** Spec section 3 'Slack config': an incoming-webhook URL and an optional channel (null when empty). */
export const slackConfigSchema = z.object(
  {
    webhook_url: z
      .string({ error: requiredOr('Invalid webhook URL') })
      .trim()
      .min(1, PROVIDER_REQUIRED_MESSAGE)
      .max(2048, 'Invalid webhook URL')
      .pipe(z.url({ protocol: /^https?$/, error: 'Invalid webhook URL' })),
    channel: z
      .string('Channel must be text')
      .trim()
      .max(80, 'Channel must be at most 80 characters')
      .nullish()
      .transform((value) => value || null),
  },
  { error: requiredOr('Config must be an object') },
);
export type SlackConfigInput = z.input<typeof slackConfigSchema>;
export type SlackConfig = z.output<typeof slackConfigSchema>;

export const createEmailProviderRequestSchema = z.object({
  name: providerNameSchema,
  enabled: z.boolean('Enabled must be true or false').default(true),
  config: emailConfigSchema,
});
export const createSlackProviderRequestSchema = z.object({
  name: providerNameSchema,
  enabled: z.boolean('Enabled must be true or false').default(true),
  config: slackConfigSchema,
});
/**
 * Updates send name, enabled and the whole config; a masked secret sent back keeps the stored one
 * for an unchanged destination, and answers 400 (type it again) when the destination changed.
 */
export const updateEmailProviderRequestSchema = z.object({
  name: providerNameSchema,
  enabled: z.boolean('Enabled must be true or false').optional(),
  config: emailConfigSchema,
});
export const updateSlackProviderRequestSchema = z.object({
  name: providerNameSchema,
  enabled: z.boolean('Enabled must be true or false').optional(),
  config: slackConfigSchema,
});
/** PUT /notification-providers/{id}: the config is checked against the provider's own type. */
export const updateProviderRequestSchema = z.object({
  name: providerNameSchema,
  enabled: z.boolean('Enabled must be true or false').optional(),
  config: z.record(z.string(), z.unknown(), { error: requiredOr('Config must be an object') }),
});
export type CreateEmailProviderRequest = z.input<typeof createEmailProviderRequestSchema>;
export type CreateSlackProviderRequest = z.input<typeof createSlackProviderRequestSchema>;
export type UpdateProviderRequest = z.input<typeof updateProviderRequestSchema>;

export const DELIVERY_STATUSES = ['pending', 'sending', 'sent', 'failed', 'cancelled'] as const;
export const deliveryStatusSchema = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof deliveryStatusSchema>;

export const lastDeliverySchema = z
  .object({ at: z.string(), status: deliveryStatusSchema, error: z.string().nullable() })
  .describe("The provider's most recent delivery attempt");

const providerBase = {
  id: z.number().int(),
  name: z.string(),
  enabled: z.boolean(),
  saved_by_admin: z
    .boolean()
    .describe(
      'Last saved by an admin: only such providers reach private and loopback addresses, unless the allow_private_network_targets setting is on',
    ),
  created_at: z.string(),
  updated_at: z.string(),
  last_delivery: lastDeliverySchema.nullable(),
};

export const emailProviderSchema = z.object({
  ...providerBase,
  provider_type: z.literal('email'),
  config: z.object({
    smtp_host: z.string(),
    smtp_port: z.number().int(),
    username: z.string(),
    password: z.string().describe(`'${SECRET_MASK}' when a password is stored, '' when none`),
    from_address: z.string(),
    to_addresses: z.array(z.string()),
    from_name: z.string().nullable(),
    tls_mode: tlsModeSchema,
    starttls_required: z.boolean(),
    accept_invalid_certs: z.boolean(),
  }),
});
export const slackProviderSchema = z.object({
  ...providerBase,
  provider_type: z.literal('slack'),
  config: z.object({
    webhook_url: z.string().describe('Masked: scheme and host kept, the secret path hidden'),
    channel: z.string().nullable(),
  }),
});
export const notificationProviderSchema = z.discriminatedUnion('provider_type', [emailProviderSchema, slackProviderSchema]);
export type EmailProvider = z.infer<typeof emailProviderSchema>;
export type SlackProvider = z.infer<typeof slackProviderSchema>;
export type NotificationProvider = z.infer<typeof notificationProviderSchema>;

export const notificationProviderListResponseSchema = z.array(notificationProviderSchema);

export const TEST_NOTIFICATION_SENT_MESSAGE = 'Test notification sent successfully!';
export const TEST_NOTIFICATION_FAILED_MESSAGE = 'Failed to send test notification';

// ---------------------------------------------------------------------------------------------
// Alerts and the notification record

/** The events capabilities publish to the dispatcher, and the preference each is gated by. */
export const ALERT_TYPES = [
  'deployment_failed',
  'build_error',
  'runtime_errors',
  'ssl_expiring',
  'ssl_renewal_failed',
  'domain_expiring',
  'dns_changed',
  'backup_failed',
  'backup_succeeded',
  's3_connection_issue',
  'retention_violation',
  'route_down',
  'load_balancer_issue',
  'account_locked',
  'cron_failed',
] as const;
export const alertTypeSchema = z.enum(ALERT_TYPES);
export type AlertType = z.infer<typeof alertTypeSchema>;

export const ALERT_TYPE_PREFERENCE: Record<AlertType, keyof NotificationPreferences> = {
  deployment_failed: 'deployment_failures_enabled',
  build_error: 'build_errors_enabled',
  runtime_errors: 'runtime_errors_enabled',
  ssl_expiring: 'ssl_expiration_enabled',
  ssl_renewal_failed: 'ssl_expiration_enabled',
  domain_expiring: 'domain_expiration_enabled',
  dns_changed: 'dns_changes_enabled',
  backup_failed: 'backup_failures_enabled',
  backup_succeeded: 'backup_successes_enabled',
  s3_connection_issue: 's3_connection_issues_enabled',
  retention_violation: 'retention_policy_violations_enabled',
  route_down: 'route_downtime_enabled',
  load_balancer_issue: 'load_balancer_issues_enabled',
  account_locked: 'security_alerts_enabled',
  // A scheduled call the app answered with an error (or not at all): a runtime failure of the app.
  cron_failed: 'runtime_errors_enabled',
};

/** A provider test is recorded like an alert, under its own type. */
export const notificationTypeSchema = z.enum([...ALERT_TYPES, 'test']);

export const deliveryAttemptSchema = z.object({
  at: z.string(),
  outcome: z.enum(['sent', 'retry', 'failed', 'interrupted']),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  node: z.string().describe('The platform node that made the attempt'),
});

export const notificationDeliverySchema = z.object({
  id: z.number().int(),
  provider_id: z.number().int().nullable().describe('null once the provider was deleted'),
  provider_name: z.string(),
  provider_type: providerTypeSchema,
  status: deliveryStatusSchema,
  attempts: z.number().int(),
  max_attempts: z.number().int(),
  next_attempt_at: z.string().nullable().describe('When a pending delivery is tried next'),
  last_attempt_at: z.string().nullable(),
  last_error: z.string().nullable().describe("The receiving server's refusal or the connection error"),
  sent_at: z.string().nullable(),
  history: z.array(deliveryAttemptSchema),
});
export type NotificationDelivery = z.infer<typeof notificationDeliverySchema>;

export const notificationRecordSchema = z.object({
  id: z.number().int(),
  type: notificationTypeSchema,
  severity: z.enum(NOTIFICATION_SEVERITIES),
  title: z.string(),
  message: z.string(),
  group_key: z.string().nullable(),
  project_id: z.number().int().nullable(),
  data: z.record(z.string(), z.unknown()),
  occurrences: z.number().int().describe('How many similar alerts were folded into this notification'),
  first_at: z.string(),
  last_at: z.string(),
  created_at: z.string(),
  status: z
    .enum(['pending', 'sent', 'partial', 'failed', 'no_providers'])
    .describe('pending while any delivery is queued; partial when some providers got it and some refused'),
  deliveries: z.array(notificationDeliverySchema),
});
export type NotificationRecord = z.infer<typeof notificationRecordSchema>;

export const notificationListQuerySchema = paginationQuerySchema.extend({
  type: notificationTypeSchema.optional(),
});

export const notificationListResponseSchema = z.object({
  notifications: z.array(notificationRecordSchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});
export type NotificationListResponse = z.infer<typeof notificationListResponseSchema>;
