import { startWebhookReceiver, type WebhookReceiver } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishAlert } from '../../src/modules/notifications/dispatcher';
import { type Api, type ApiOptions, apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/*
 * The notifications API: preferences, providers (validation, masking of secrets, roles, 404s)
 * and the notification record. Delivery itself is covered by notifications-delivery.test.ts and
 * the dispatcher by notifications-dispatcher.test.ts.
 */

type FieldErrors = { detail: string; errors?: { path: string; message: string }[] };
type EmailConfig = Record<string, unknown> & { password: string };
type Provider = {
  id: number;
  name: string;
  provider_type: 'email' | 'slack';
  enabled: boolean;
  config: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  last_delivery: unknown;
};

const REQUIRED = 'Please fill in all required fields for the selected provider type';
const SMTP_PASSWORD = 'smtp-pass-Zq81-unique';
const WEBHOOK_SECRET = 'T0AAA/B0BBB/xyzSecretToken987';
const WEBHOOK_URL = `https://hooks.slack.com/services/${WEBHOOK_SECRET}`;

const DEFAULTS = {
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

let platform: TestPlatform;
let api: Api;
let admin: string;
let reader: string;
let user: string;
let receiver: WebhookReceiver;
/** Every response body this file received, to prove no secret ever leaves the server. */
const bodies: string[] = [];

beforeAll(async () => {
  platform = await startTestPlatform();
  const raw = apiClient(platform.url);
  const call = async <T = Record<string, unknown>>(method: string, path: string, options?: ApiOptions) => {
    const response = await raw.call<T>(method, path, options);
    bodies.push(typeof response.body === 'string' ? response.body : JSON.stringify(response.body));
    return response;
  };
  api = { ...raw, call };
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  reader = (await api.userWithRole(admin, 'reader')).token;
  user = (await api.userWithRole(admin, 'user')).token;
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await platform.close();
});

const emailConfig = (overrides: Record<string, unknown> = {}) => ({
  smtp_host: 'smtp.example.com',
  smtp_port: 587,
  username: 'mailer',
  password: SMTP_PASSWORD,
  from_address: 'alerts@example.com',
  to_addresses: ['ops@example.com', 'dev@example.com'],
  from_name: 'Launchbay',
  tls_mode: 'Starttls',
  starttls_required: true,
  accept_invalid_certs: false,
  ...overrides,
});

async function createEmail(name = 'Ops mail', config = emailConfig(), token = admin) {
  const response = await api.call<Provider>('POST', '/notification-providers/email', {
    token,
    body: { name, enabled: true, config },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function createSlack(name = 'Ops Slack', config: Record<string, unknown> = { webhook_url: WEBHOOK_URL, channel: '#ops' }) {
  const response = await api.call<Provider>('POST', '/notification-providers/slack', { token: admin, body: { name, config } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function storedSecret(id: number): Promise<string | null> {
  const result = await platform.ctx.pool.query<{ secret: string | null }>(
    'SELECT secret FROM notification_providers WHERE id = $1',
    [id],
  );
  const sealed = result.rows[0]?.secret ?? null;
  return sealed === null ? null : platform.ctx.box.open(sealed);
}

function expectFieldError(body: FieldErrors, path: string, message: string) {
  expect(body.errors, JSON.stringify(body)).toEqual(expect.arrayContaining([{ path, message }]));
}

describe('notification preferences', () => {
  it('GET answers every field with the defaults before anything is saved', async () => {
    const response = await api.call('GET', '/notification-preferences', { token: reader });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(DEFAULTS);
  });

  it('PUT saves the whole object and GET answers it afterwards', async () => {
    const preferences = {
      ...DEFAULTS,
      build_errors_enabled: false,
      error_threshold: 250,
      error_time_window: 15,
      ssl_days_before_expiration: 30,
      backup_successes_enabled: true,
      slack_enabled: false,
      batch_similar_notifications: false,
      minimum_severity: 'critical',
    };
    const saved = await api.call('PUT', '/notification-preferences', { token: user, body: { preferences } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toEqual(preferences);
    expect((await api.call('GET', '/notification-preferences', { token: reader })).body).toEqual(preferences);
    // Unknown fields the console may carry are ignored, not stored.
    const again = await api.call('PUT', '/notification-preferences', {
      token: admin,
      body: { preferences: { ...DEFAULTS, weekly_digest_enabled: true } },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(DEFAULTS);
  });

  it('PUT answers 400 with each range and enum message', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ error_threshold: 0 }, 'preferences.error_threshold', 'Error threshold must be between 1 and 1000'],
      [{ error_threshold: 1001 }, 'preferences.error_threshold', 'Error threshold must be between 1 and 1000'],
      [{ error_threshold: 2.5 }, 'preferences.error_threshold', 'Error threshold must be a whole number'],
      [{ error_time_window: 0 }, 'preferences.error_time_window', 'Time window must be between 1 and 60'],
      [{ error_time_window: 61 }, 'preferences.error_time_window', 'Time window must be between 1 and 60'],
      [
        { ssl_days_before_expiration: 0 },
        'preferences.ssl_days_before_expiration',
        'Days before expiration must be between 1 and 90',
      ],
      [
        { ssl_days_before_expiration: 91 },
        'preferences.ssl_days_before_expiration',
        'Days before expiration must be between 1 and 90',
      ],
      [{ minimum_severity: 'urgent' }, 'preferences.minimum_severity', 'Minimum severity must be critical, warning or info'],
      [{ email_enabled: 'yes' }, 'preferences.email_enabled', 'Invalid input: expected boolean, received string'],
    ];
    for (const [change, path, message] of cases) {
      const response = await api.call<FieldErrors>('PUT', '/notification-preferences', {
        token: admin,
        body: { preferences: { ...DEFAULTS, ...change } },
      });
      expect(response.status, JSON.stringify(change)).toBe(400);
      expectFieldError(response.body, path, message);
      expect(response.body.detail).toContain(message);
    }
    const { route_downtime_enabled: _dropped, ...missing } = DEFAULTS;
    const incomplete = await api.call<FieldErrors>('PUT', '/notification-preferences', {
      token: admin,
      body: { preferences: missing },
    });
    expect(incomplete.status).toBe(400);
    expect(incomplete.body.errors?.map((e) => e.path)).toEqual(['preferences.route_downtime_enabled']);
    const bare = await api.call<FieldErrors>('PUT', '/notification-preferences', { token: admin, body: DEFAULTS });
    expect(bare.status).toBe(400);
    expect(bare.body.errors?.[0]?.path).toBe('preferences');
    // Nothing of the refused saves was kept.
    expect((await api.call('GET', '/notification-preferences', { token: admin })).body).toEqual(DEFAULTS);
  });

  it('needs a session (401) and the user role to change (403 for a reader)', async () => {
    expect((await api.call('GET', '/notification-preferences')).status).toBe(401);
    expect((await api.call('PUT', '/notification-preferences', { body: { preferences: DEFAULTS } })).status).toBe(401);
    const refused = await api.call<FieldErrors>('PUT', '/notification-preferences', {
      token: reader,
      body: { preferences: { ...DEFAULTS, email_enabled: false } },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/read-only: you need the user role/);
    expect((await api.call('GET', '/notification-preferences', { token: admin })).body).toMatchObject({ email_enabled: true });
  });
});

describe('notification providers', () => {
  it('creates an email provider and answers it with the password masked', async () => {
    const created = await createEmail();
    expect(created).toMatchObject({
      name: 'Ops mail',
      provider_type: 'email',
      enabled: true,
      last_delivery: null,
      config: { ...emailConfig(), password: '********' },
    });
    expect(typeof created.id).toBe('number');
    expect(new Date(created.created_at).getTime()).not.toBeNaN();
    expect(await storedSecret(created.id)).toBe(SMTP_PASSWORD);
    const raw = await platform.ctx.pool.query<{ secret: string; config: unknown }>(
      'SELECT secret, config FROM notification_providers WHERE id = $1',
      [created.id],
    );
    expect(raw.rows[0]?.secret).not.toContain(SMTP_PASSWORD);
    expect(JSON.stringify(raw.rows[0]?.config)).not.toContain(SMTP_PASSWORD);

    const one = await api.call<Provider>('GET', `/notification-providers/${created.id}`, { token: reader });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(created);
    const list = await api.call<Provider[]>('GET', '/notification-providers', { token: reader });
    expect(list.status).toBe(200);
    expect(list.body.find((p) => p.id === created.id)).toEqual(created);
  });

  it('applies the email config defaults and answers an empty password when authentication is off', async () => {
    const created = await createEmail('Minimal', {
      smtp_host: 'mail.example.com',
      smtp_port: 25,
      from_address: 'a@example.com',
      to_addresses: ['b@example.com'],
    } as never);
    expect(created.config).toEqual({
      smtp_host: 'mail.example.com',
      smtp_port: 25,
      username: '',
      password: '',
      from_address: 'a@example.com',
      to_addresses: ['b@example.com'],
      from_name: null,
      tls_mode: 'Starttls',
      starttls_required: false,
      accept_invalid_certs: false,
    });
    expect(await storedSecret(created.id)).toBeNull();
    // A password without a username is not authentication: nothing is kept.
    const stray = await createEmail('Stray password', emailConfig({ username: '', password: 'ignored' }));
    expect(stray.config.password).toBe('');
    expect(await storedSecret(stray.id)).toBeNull();
  });

  it('creates a Slack provider with the webhook URL masked (scheme and host kept) and an empty channel as null', async () => {
    const created = await createSlack('Team Slack', { webhook_url: WEBHOOK_URL, channel: '' });
    expect(created).toMatchObject({
      provider_type: 'slack',
      enabled: true,
      config: { webhook_url: 'https://hooks.slack.com/********', channel: null },
    });
    expect(await storedSecret(created.id)).toBe(WEBHOOK_URL);
    const disabled = await api.call<Provider>('POST', '/notification-providers/slack', {
      token: admin,
      body: { name: 'Off', enabled: false, config: { webhook_url: WEBHOOK_URL, channel: '#quiet' } },
    });
    expect(disabled.status).toBe(201);
    expect(disabled.body).toMatchObject({ enabled: false, config: { channel: '#quiet' } });
  });

  it('answers 400 with the console form messages for a bad email provider', async () => {
    const post = (body: unknown) => api.call<FieldErrors>('POST', '/notification-providers/email', { token: admin, body });
    const cases: [unknown, string, string][] = [
      [{ name: '', config: emailConfig() }, 'name', 'Name is required'],
      [{ name: '   ', config: emailConfig() }, 'name', 'Name is required'],
      [{ config: emailConfig() }, 'name', 'Name is required'],
      [{ name: 'x' }, 'config', REQUIRED],
      [{ name: 'x', config: emailConfig({ smtp_port: 0 }) }, 'config.smtp_port', 'SMTP port must be between 1 and 65535'],
      [{ name: 'x', config: emailConfig({ smtp_port: 65536 }) }, 'config.smtp_port', 'SMTP port must be between 1 and 65535'],
      [{ name: 'x', config: emailConfig({ from_address: 'not-an-address' }) }, 'config.from_address', 'Invalid from address'],
      [
        { name: 'x', config: emailConfig({ to_addresses: ['ok@example.com', 'broken'] }) },
        'config.to_addresses.1',
        'Invalid email address',
      ],
      [{ name: 'x', config: emailConfig({ tls_mode: 'SSL' }) }, 'config.tls_mode', 'TLS mode must be None, Starttls or Tls'],
      [{ name: 'x', config: emailConfig({ smtp_host: '' }) }, 'config.smtp_host', REQUIRED],
      [{ name: 'x', config: emailConfig({ to_addresses: [] }) }, 'config.to_addresses', REQUIRED],
      [{ name: 'x', config: emailConfig({ from_address: '' }) }, 'config.from_address', REQUIRED],
    ];
    for (const [body, path, message] of cases) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expectFieldError(response.body, path, message);
    }
    const empty = await post({ name: 'x', config: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual(
      expect.arrayContaining(
        ['config.smtp_host', 'config.smtp_port', 'config.from_address', 'config.to_addresses'].map((path) => ({
          path,
          message: REQUIRED,
        })),
      ),
    );
    expect(empty.body.detail).toContain(REQUIRED);
  });

  it('answers 400 with the console form messages for a bad Slack provider', async () => {
    const post = (body: unknown) => api.call<FieldErrors>('POST', '/notification-providers/slack', { token: admin, body });
    const cases: [unknown, string, string][] = [
      [{ name: '', config: { webhook_url: WEBHOOK_URL } }, 'name', 'Name is required'],
      [{ name: 'x', config: { webhook_url: 'not a url' } }, 'config.webhook_url', 'Invalid webhook URL'],
      [{ name: 'x', config: { webhook_url: 'ftp://hooks.example.com/x' } }, 'config.webhook_url', 'Invalid webhook URL'],
      [{ name: 'x', config: { webhook_url: '' } }, 'config.webhook_url', REQUIRED],
      [{ name: 'x', config: {} }, 'config.webhook_url', REQUIRED],
      [{ name: 'x' }, 'config', REQUIRED],
    ];
    for (const [body, path, message] of cases) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expectFieldError(response.body, path, message);
    }
  });

  it('an update that sends the masked password back keeps the stored one; a new one replaces it', async () => {
    const created = await createEmail('Round trip');
    // Recipients and sender are not where the password goes: the mask keeps it.
    const echoed = await api.call<Provider>('PUT', `/notification-providers/email/${created.id}`, {
      token: admin,
      body: { name: 'Round trip renamed', enabled: true, config: { ...created.config, to_addresses: ['oncall@example.com'] } },
    });
    expect(echoed.status, JSON.stringify(echoed.body)).toBe(200);
    expect(echoed.body).toMatchObject({
      name: 'Round trip renamed',
      config: { to_addresses: ['oncall@example.com'], password: '********' },
    });
    expect(await storedSecret(created.id)).toBe(SMTP_PASSWORD);
    // Another port is another destination: the mask no longer stands for the stored password.
    const moved = await api.call<FieldErrors>('PUT', `/notification-providers/email/${created.id}`, {
      token: admin,
      body: { name: 'Round trip renamed', enabled: true, config: { ...created.config, smtp_port: 2525 } },
    });
    expect(moved.status).toBe(400);
    expectFieldError(
      moved.body,
      'config.password',
      'Enter the password again: the server, port, username or TLS settings changed',
    );
    expect(await storedSecret(created.id)).toBe(SMTP_PASSWORD);
    expect(new Date(echoed.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(created.updated_at).getTime());

    // The status toggle sends name, the flipped enabled and the config as it was read.
    const toggled = await api.call<Provider>('PUT', `/notification-providers/email/${created.id}`, {
      token: user,
      body: { name: echoed.body.name, enabled: false, config: echoed.body.config },
    });
    expect(toggled.status).toBe(200);
    expect(toggled.body.enabled).toBe(false);
    expect(await storedSecret(created.id)).toBe(SMTP_PASSWORD);

    const changed = await api.call<Provider>('PUT', `/notification-providers/email/${created.id}`, {
      token: admin,
      body: { name: 'Round trip', enabled: true, config: { ...(echoed.body.config as EmailConfig), password: 'a-new-password' } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.config.password).toBe('********');
    expect(await storedSecret(created.id)).toBe('a-new-password');

    // Turning authentication off (empty username and password) forgets the password.
    const noAuth = await api.call<Provider>('PUT', `/notification-providers/email/${created.id}`, {
      token: admin,
      body: { name: 'Round trip', enabled: true, config: { ...(echoed.body.config as EmailConfig), username: '', password: '' } },
    });
    expect(noAuth.status).toBe(200);
    expect(noAuth.body.config).toMatchObject({ username: '', password: '' });
    expect(await storedSecret(created.id)).toBeNull();
  });

  it('an update that sends the masked webhook URL back keeps the stored one; a new URL replaces it', async () => {
    const created = await createSlack('Webhook round trip');
    const kept = await api.call<Provider>('PUT', `/notification-providers/slack/${created.id}`, {
      token: admin,
      body: { name: 'Webhook round trip', enabled: true, config: { ...created.config, channel: '#deploys' } },
    });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(kept.body.config).toEqual({ webhook_url: 'https://hooks.slack.com/********', channel: '#deploys' });
    expect(await storedSecret(created.id)).toBe(WEBHOOK_URL);

    const moved = await api.call<Provider>('PUT', `/notification-providers/${created.id}`, {
      token: admin,
      body: { name: 'Webhook round trip', config: { webhook_url: receiver.url('/services/new/secret'), channel: null } },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({
      enabled: true,
      config: { webhook_url: `http://127.0.0.1:${receiver.port}/********`, channel: null },
    });
    expect(await storedSecret(created.id)).toBe(receiver.url('/services/new/secret'));
  });

  it('PUT /notification-providers/{id} checks the config against the provider type', async () => {
    const email = await createEmail('Generic update');
    const bad = await api.call<FieldErrors>('PUT', `/notification-providers/${email.id}`, {
      token: admin,
      body: { name: 'Generic update', enabled: true, config: { ...email.config, smtp_port: 70000, from_address: 'nope' } },
    });
    expect(bad.status).toBe(400);
    expectFieldError(bad.body, 'config.smtp_port', 'SMTP port must be between 1 and 65535');
    expectFieldError(bad.body, 'config.from_address', 'Invalid from address');
    const slackShaped = await api.call<FieldErrors>('PUT', `/notification-providers/${email.id}`, {
      token: admin,
      body: { name: 'Generic update', config: { webhook_url: WEBHOOK_URL } },
    });
    expect(slackShaped.status).toBe(400);
    expectFieldError(slackShaped.body, 'config.smtp_host', REQUIRED);
    const noName = await api.call<FieldErrors>('PUT', `/notification-providers/${email.id}`, {
      token: admin,
      body: { name: '', config: email.config },
    });
    expect(noName.status).toBe(400);
    expectFieldError(noName.body, 'name', 'Name is required');
    const good = await api.call<Provider>('PUT', `/notification-providers/${email.id}`, {
      token: admin,
      body: { name: 'Generic updated', enabled: false, config: { ...email.config, to_addresses: ['solo@example.com'] } },
    });
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ name: 'Generic updated', enabled: false, config: { to_addresses: ['solo@example.com'] } });
    expect(await storedSecret(email.id)).toBe(SMTP_PASSWORD);
    // The typed routes refuse a provider of the other type.
    const wrongType = await api.call<FieldErrors>('PUT', `/notification-providers/slack/${email.id}`, {
      token: admin,
      body: { name: 'x', config: { webhook_url: WEBHOOK_URL } },
    });
    expect(wrongType.status).toBe(404);
    expect(wrongType.body.detail).toBe(`Notification provider ${email.id} is not a Slack provider`);
  });

  it('deletes a provider (204), after which it is 404', async () => {
    const created = await createSlack('Short lived');
    const deleted = await api.call('DELETE', `/notification-providers/${created.id}`, { token: user });
    expect(deleted.status).toBe(204);
    expect((await api.call('GET', `/notification-providers/${created.id}`, { token: admin })).status).toBe(404);
    const list = await api.call<Provider[]>('GET', '/notification-providers', { token: admin });
    expect(list.body.map((p) => p.id)).not.toContain(created.id);
  });

  it('answers 404 for an unknown id on every route, and 400 for an id that is not a number', async () => {
    const unknown = 987654;
    const calls: [string, string, unknown][] = [
      ['GET', `/notification-providers/${unknown}`, undefined],
      ['PUT', `/notification-providers/${unknown}`, { name: 'x', config: {} }],
      ['DELETE', `/notification-providers/${unknown}`, undefined],
      ['POST', `/notification-providers/${unknown}/test`, undefined],
      ['PUT', `/notification-providers/email/${unknown}`, { name: 'x', config: emailConfig() }],
      ['PUT', `/notification-providers/slack/${unknown}`, { name: 'x', config: { webhook_url: WEBHOOK_URL } }],
    ];
    for (const [method, path, body] of calls) {
      const response = await api.call<FieldErrors>(method, path, { token: admin, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.detail).toBe(`Notification provider ${unknown} not found`);
    }
    const notANumber = await api.call<FieldErrors>('GET', '/notification-providers/abc', { token: admin });
    expect(notANumber.status).toBe(400);
    expect(notANumber.body.errors?.[0]?.path).toBe('params.id');
  });

  it('answers 401 without a session on every route', async () => {
    const calls: [string, string][] = [
      ['GET', '/notification-providers'],
      ['POST', '/notification-providers/email'],
      ['POST', '/notification-providers/slack'],
      ['PUT', '/notification-providers/email/1'],
      ['PUT', '/notification-providers/slack/1'],
      ['GET', '/notification-providers/1'],
      ['PUT', '/notification-providers/1'],
      ['DELETE', '/notification-providers/1'],
      ['POST', '/notification-providers/1/test'],
      ['GET', '/notifications'],
    ];
    for (const [method, path] of calls) {
      const response = await api.call(method, path, { body: method === 'GET' || method === 'DELETE' ? undefined : {} });
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.body).toEqual({ detail: 'Authentication Required' });
    }
  });

  it('lets a reader read but not write (403), and the user role write', async () => {
    const email = await createEmail('Role check', emailConfig(), user);
    const slack = await createSlack('Role check slack', { webhook_url: receiver.url(), channel: null });
    expect((await api.call('GET', '/notification-providers', { token: reader })).status).toBe(200);
    expect((await api.call('GET', `/notification-providers/${email.id}`, { token: reader })).status).toBe(200);
    const writes: [string, string, unknown][] = [
      ['POST', '/notification-providers/email', { name: 'x', config: emailConfig() }],
      ['POST', '/notification-providers/slack', { name: 'x', config: { webhook_url: WEBHOOK_URL } }],
      ['PUT', `/notification-providers/email/${email.id}`, { name: 'x', config: email.config }],
      ['PUT', `/notification-providers/slack/${slack.id}`, { name: 'x', config: slack.config }],
      ['PUT', `/notification-providers/${email.id}`, { name: 'x', config: email.config }],
      ['DELETE', `/notification-providers/${email.id}`, undefined],
      ['POST', `/notification-providers/${slack.id}/test`, undefined],
    ];
    const before = receiver.requests.length;
    for (const [method, path, body] of writes) {
      const response = await api.call<FieldErrors>(method, path, { token: reader, body });
      expect(response.status, `${method} ${path}`).toBe(403);
    }
    expect(receiver.requests.length).toBe(before);
    expect((await api.call<Provider>('GET', `/notification-providers/${email.id}`, { token: admin })).body.name).toBe(
      'Role check',
    );

    const tested = await api.call('POST', `/notification-providers/${slack.id}/test`, { token: user });
    expect(tested.status).toBe(200);
    expect(tested.body).toEqual({ message: 'Test notification sent successfully!' });
    expect(receiver.requests.length).toBe(before + 1);
    const renamed = await api.call<Provider>('PUT', `/notification-providers/${email.id}`, {
      token: user,
      body: { name: 'Renamed by user', config: email.config },
    });
    expect(renamed.status).toBe(200);
    expect((await api.call('DELETE', `/notification-providers/${email.id}`, { token: user })).status).toBe(204);
  });
});

describe('GET /notifications', () => {
  it('pages through recorded notifications newest first, filters by type, and is readable by a reader', async () => {
    await api.call('PUT', '/notification-preferences', {
      token: admin,
      body: { preferences: { ...DEFAULTS, email_enabled: false, slack_enabled: false, batch_similar_notifications: false } },
    });
    for (let i = 1; i <= 3; i++) {
      const result = await publishAlert(platform.ctx, {
        type: 'backup_failed',
        severity: 'critical',
        title: `Backup ${i} failed`,
        message: `S3 said no (${i})`,
        project_id: 7,
        data: { bucket: 'backups', attempt: i },
      });
      expect(result.status).toBe('queued');
    }
    type Page = { notifications: { title: string; type: string; status: string; deliveries: unknown[] }[]; total: number };
    const first = await api.call<Page>('GET', '/notifications?type=backup_failed&per_page=2&page=1', { token: reader });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 3, page: 1, per_page: 2 });
    expect(first.body.notifications.map((n) => n.title)).toEqual(['Backup 3 failed', 'Backup 2 failed']);
    expect(first.body.notifications[0]).toMatchObject({
      type: 'backup_failed',
      severity: 'critical',
      message: 'S3 said no (3)',
      project_id: 7,
      data: { bucket: 'backups', attempt: 3 },
      occurrences: 1,
      status: 'no_providers',
      deliveries: [],
    });
    const second = await api.call<Page>('GET', '/notifications?type=backup_failed&per_page=2&page=2', { token: reader });
    expect(second.body.notifications.map((n) => n.title)).toEqual(['Backup 1 failed']);
    const bad = await api.call<FieldErrors>('GET', '/notifications?per_page=1000', { token: reader });
    expect(bad.status).toBe(400);
    const badType = await api.call<FieldErrors>('GET', '/notifications?type=nonsense', { token: reader });
    expect(badType.status).toBe(400);
    await api.call('PUT', '/notification-preferences', { token: admin, body: { preferences: DEFAULTS } });
  });

  it('is open to API keys holding notifications:read, and closed to keys without it', async () => {
    const withRead = await api.call<{ secret: string }>('POST', '/api-keys', {
      token: admin,
      body: { name: 'notifications reader', permissions: ['notifications:read'] },
    });
    const without = await api.call<{ secret: string }>('POST', '/api-keys', {
      token: admin,
      body: { name: 'projects reader', permissions: ['projects:read'] },
    });
    expect((await api.call('GET', '/notifications', { token: withRead.body.secret })).status).toBe(200);
    expect((await api.call('GET', '/notification-providers', { token: withRead.body.secret })).status).toBe(200);
    const refused = await api.call<FieldErrors>('POST', '/notification-providers/slack', {
      token: withRead.body.secret,
      body: { name: 'x', config: { webhook_url: WEBHOOK_URL } },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('notifications:write');
    expect((await api.call('GET', '/notifications', { token: without.body.secret })).status).toBe(403);
  });
});

describe('secrets', () => {
  it('never appear in any response of this file, nor in the audit log', async () => {
    const audit = await api.call<{ logs: { action: string; summary: unknown }[] }>(
      'GET',
      '/audit/logs?per_page=100&action=notification_providers.',
      {
        token: admin,
      },
    );
    expect(audit.status).toBe(200);
    expect(audit.body.logs.length).toBeGreaterThan(0);
    expect(audit.body.logs.map((l) => l.action)).toEqual(expect.arrayContaining(['notification_providers.email.create']));
    const everything = bodies.join('\n');
    expect(everything).toContain('********');
    expect(everything).not.toContain(SMTP_PASSWORD);
    expect(everything).not.toContain('a-new-password');
    expect(everything).not.toContain(WEBHOOK_SECRET);
    expect(everything).not.toContain('/services/new/secret');
  });
});
