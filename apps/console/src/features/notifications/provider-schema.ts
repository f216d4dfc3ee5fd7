import {
  createEmailProviderRequestSchema,
  createSlackProviderRequestSchema,
  type EmailProvider,
  PROVIDER_REQUIRED_MESSAGE,
  type SlackProvider,
  type TlsMode,
} from '@launchbay/contract';
import type { FieldErrors, FieldValues, Resolver } from 'react-hook-form';
import type { z } from 'zod';

/*
 * The provider forms hold what the user types (strings, a comma-separated recipient list, a
 * 'Use Authentication' switch); they are turned into the API's request body and checked with the
 * contract's own schemas, so the form says exactly what the server would (spec section 5).
 */

/** Spec section 9: form defaults and the SMTP port hint per TLS mode. */
export const DEFAULT_SMTP_PORT = 587;
export const DEFAULT_TLS_MODE: TlsMode = 'Starttls';

export function smtpPortHint(mode: TlsMode): number {
  if (mode === 'None') return 25;
  if (mode === 'Tls') return 465;
  return 587;
}

export const FORM_ERRORS_TITLE = 'The form has errors, please check the fields and try again';
export const USERNAME_REQUIRED_MESSAGE = 'Username is required when Use Authentication is on';

export interface EmailFormValues {
  name: string;
  enabled: boolean;
  smtp_host: string;
  smtp_port: string;
  tls_mode: TlsMode;
  starttls_required: boolean;
  accept_invalid_certs: boolean;
  use_auth: boolean;
  username: string;
  password: string;
  from_address: string;
  from_name: string;
  to_addresses: string;
}

export interface SlackFormValues {
  name: string;
  enabled: boolean;
  webhook_url: string;
  channel: string;
}

export type EmailBody = z.output<typeof createEmailProviderRequestSchema>;
export type SlackBody = z.output<typeof createSlackProviderRequestSchema>;

export const EMPTY_EMAIL_VALUES: EmailFormValues = {
  name: '',
  enabled: true,
  smtp_host: '',
  smtp_port: String(DEFAULT_SMTP_PORT),
  tls_mode: DEFAULT_TLS_MODE,
  starttls_required: false,
  accept_invalid_certs: false,
  use_auth: false,
  username: '',
  password: '',
  from_address: '',
  from_name: '',
  to_addresses: '',
};

export const EMPTY_SLACK_VALUES: SlackFormValues = { name: '', enabled: true, webhook_url: '', channel: '' };

/** Spec section 5: the To Addresses input is comma-separated and trimmed. */
export function splitAddresses(value: string): string[] {
  return value
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '');
}

function parsePort(value: string): number | undefined {
  const trimmed = value.trim();
  return trimmed === '' ? undefined : Number(trimmed);
}

/** The request body as typed; the contract schema then checks it (and trims, defaults, nulls). */
export function emailBodyInput(values: EmailFormValues) {
  return {
    name: values.name,
    enabled: values.enabled,
    config: {
      smtp_host: values.smtp_host,
      smtp_port: parsePort(values.smtp_port),
      // Spec section 5: sent empty unless Use Authentication is on.
      username: values.use_auth ? values.username : '',
      password: values.use_auth ? values.password : '',
      from_address: values.from_address,
      to_addresses: splitAddresses(values.to_addresses),
      from_name: values.from_name,
      tls_mode: values.tls_mode,
      // Spec section 5: Require STARTTLS only applies in Starttls mode; invalid certificates never matter in None mode.
      starttls_required: values.tls_mode === 'Starttls' && values.starttls_required,
      accept_invalid_certs: values.tls_mode !== 'None' && values.accept_invalid_certs,
    },
  };
}

export function slackBodyInput(values: SlackFormValues) {
  return { name: values.name, enabled: values.enabled, config: { webhook_url: values.webhook_url, channel: values.channel } };
}

export function emailProviderValues(provider: EmailProvider): EmailFormValues {
  const { config } = provider;
  return {
    name: provider.name,
    enabled: provider.enabled,
    smtp_host: config.smtp_host,
    smtp_port: String(config.smtp_port),
    tls_mode: config.tls_mode,
    starttls_required: config.starttls_required,
    accept_invalid_certs: config.accept_invalid_certs,
    use_auth: config.username !== '',
    username: config.username,
    // The server's mask: sent back unchanged, it keeps the stored password.
    password: config.password,
    from_address: config.from_address,
    from_name: config.from_name ?? '',
    to_addresses: config.to_addresses.join(', '),
  };
}

export function slackProviderValues(provider: SlackProvider): SlackFormValues {
  return {
    name: provider.name,
    enabled: provider.enabled,
    // Masked by the server (the secret path hidden); sent back unchanged, it keeps the stored URL.
    webhook_url: provider.config.webhook_url,
    channel: provider.config.channel ?? '',
  };
}

/** A body path ('config.to_addresses.2', 'name') to the form field that holds it. */
export function fieldForPath<T extends FieldValues>(path: readonly PropertyKey[] | string, fields: readonly (keyof T)[]) {
  const parts = typeof path === 'string' ? path.split('.') : path.map(String);
  const candidate = parts[0] === 'config' ? parts[1] : parts[0];
  return fields.find((field) => field === candidate);
}

type Issue = { path: PropertyKey[]; message: string };

function toFieldErrors<T extends FieldValues>(issues: Issue[], fields: readonly (keyof T)[]): FieldErrors<T> {
  const errors: Record<string, { type: string; message: string }> = {};
  for (const issue of issues) {
    const field = fieldForPath<T>(issue.path, fields);
    const key = field ? String(field) : 'root';
    if (!errors[key]) errors[key] = { type: 'validate', message: issue.message };
  }
  return errors as FieldErrors<T>;
}

const EMAIL_FIELDS = Object.keys(EMPTY_EMAIL_VALUES) as (keyof EmailFormValues)[];
const SLACK_FIELDS = Object.keys(EMPTY_SLACK_VALUES) as (keyof SlackFormValues)[];

export const emailFields = EMAIL_FIELDS;
export const slackFields = SLACK_FIELDS;

export const emailResolver: Resolver<EmailFormValues, unknown, EmailBody> = async (values) => {
  const result = createEmailProviderRequestSchema.safeParse(emailBodyInput(values));
  const issues: Issue[] = result.success ? [] : result.error.issues.map((i) => ({ path: i.path, message: i.message }));
  if (values.use_auth && values.username.trim() === '') issues.push({ path: ['username'], message: USERNAME_REQUIRED_MESSAGE });
  if (result.success && issues.length === 0) return { values: result.data, errors: {} };
  return { values: {}, errors: toFieldErrors<EmailFormValues>(issues, EMAIL_FIELDS) };
};

export const slackResolver: Resolver<SlackFormValues, unknown, SlackBody> = async (values) => {
  const result = createSlackProviderRequestSchema.safeParse(slackBodyInput(values));
  if (result.success) return { values: result.data, errors: {} };
  const issues = result.error.issues.map((i) => ({ path: i.path, message: i.message }));
  return { values: {}, errors: toFieldErrors<SlackFormValues>(issues, SLACK_FIELDS) };
};

/** The distinct messages of a failed check, required-fields message first (for the toast's details). */
export function errorMessages(errors: FieldErrors): string[] {
  const messages = Object.values(errors)
    .map((error) => (error && typeof error.message === 'string' ? error.message : ''))
    .filter(Boolean);
  const unique = [...new Set(messages)];
  return unique.sort((a, b) => Number(b === PROVIDER_REQUIRED_MESSAGE) - Number(a === PROVIDER_REQUIRED_MESSAGE));
}
