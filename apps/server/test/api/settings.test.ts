import { LETS_ENCRYPT_DIRECTORY, type PlatformSettings } from '@launchbay/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { auditRowsAfter, createKey, lastAuditId } from '../helpers/audit';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

type FieldErrors = ApiError & { errors: { path: string; message: string }[] };

let platform: TestPlatform;
let api: Api;
let admin: string;

const DEFAULTS: PlatformSettings = {
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
  preview_address_template: 'pr-{number}-{project}',
  git_poll_interval_seconds: 60,
  edge_driver: 'embedded',
  allow_private_network_targets: false,
};

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(() => platform.close());

const getSettings = async (token = admin) => {
  const response = await api.call<PlatformSettings>('GET', '/settings', { token });
  expect(response.status).toBe(200);
  return response.body;
};
const putSettings = (body: unknown, token = admin) =>
  api.call<PlatformSettings & FieldErrors>('PUT', '/settings', { token, body });

// The tests run in order against one platform; each states the values it relies on.
describe('GET /api/settings', () => {
  it('answers the defaults before anything is changed, to every role', async () => {
    expect(await getSettings()).toEqual(DEFAULTS);
    const reader = await api.userWithRole(admin, 'reader');
    expect(await getSettings(reader.token)).toEqual(DEFAULTS);
    const access = await api.call('GET', '/platform/access-info');
    expect(access.body).toEqual({ access_mode: 'local', public_url: null });
  });

  it('answers 401 without credentials', async () => {
    const response = await api.call<ApiError>('GET', '/settings');
    expect(response.status).toBe(401);
    expect(response.body.detail).toBe('Authentication Required');
  });
});

describe('PUT /api/settings', () => {
  it('changes only the fields sent, and the change persists', async () => {
    const first = await putSettings({ log_retention_days: 14 });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ ...DEFAULTS, log_retention_days: 14 });
    const second = await putSettings({ analytics_retention_days: 400, preview_environments_enabled: true });
    expect(second.body).toEqual({
      ...DEFAULTS,
      log_retention_days: 14,
      analytics_retention_days: 400,
      preview_environments_enabled: true,
    });
    expect(await getSettings()).toEqual(second.body);
    // Stored in the database, not only in memory.
    const { rows } = await platform.ctx.pool.query<{ key: string; value: unknown }>(
      'SELECT key, value FROM settings ORDER BY key',
    );
    expect(Object.fromEntries(rows.map((r) => [r.key, r.value]))).toMatchObject({
      log_retention_days: 14,
      analytics_retention_days: 400,
      preview_environments_enabled: true,
    });
  });

  it('applies without a restart: access-info answers the new access mode and external URL at once', async () => {
    const changed = await putSettings({ access_mode: 'direct', external_url: 'https://launchbay.example.com' });
    expect(changed.status).toBe(200);
    const access = await api.call('GET', '/platform/access-info');
    expect(access.body).toEqual({ access_mode: 'direct', public_url: 'https://launchbay.example.com' });

    await putSettings({ access_mode: 'cloudflare_tunnel', external_url: null });
    expect((await api.call('GET', '/platform/access-info')).body).toEqual({ access_mode: 'cloudflare_tunnel', public_url: null });
  });

  it('keeps the ACME directory and contact, and the base domain in lower case', async () => {
    const response = await putSettings({
      acme_directory_url: 'https://localhost:14000/dir',
      acme_contact_email: 'ops@example.com',
      base_domain: '  Apps.Example.COM ',
      audit_retention_days: 7,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      acme_directory_url: 'https://localhost:14000/dir',
      acme_contact_email: 'ops@example.com',
      base_domain: 'apps.example.com',
      audit_retention_days: 7,
    });
    const cleared = await putSettings({ base_domain: null, acme_contact_email: null });
    expect(cleared.body).toMatchObject({
      base_domain: null,
      acme_contact_email: null,
      acme_directory_url: 'https://localhost:14000/dir',
    });
  });

  it("chooses Let's Encrypt's staging directory (for tests) and goes back to Let's Encrypt", async () => {
    const staging = 'https://acme-staging-v02.api.letsencrypt.org/directory';
    const chosen = await putSettings({ acme_directory_url: staging });
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    expect(chosen.body.acme_directory_url).toBe(staging);
    expect((await getSettings()).acme_directory_url).toBe(staging);
    const { rows } = await platform.ctx.pool.query<{ value: unknown }>(
      "SELECT value FROM settings WHERE key = 'acme_directory_url'",
    );
    expect(rows[0]?.value).toBe(staging);

    const back = await putSettings({ acme_directory_url: LETS_ENCRYPT_DIRECTORY });
    expect(back.status).toBe(200);
    expect((await getSettings()).acme_directory_url).toBe(LETS_ENCRYPT_DIRECTORY);
  });

  it('answers 400 with field errors for bad values and changes nothing', async () => {
    const before = await getSettings();
    const cases: [unknown, { path: string; message: string }[]][] = [
      [{ log_retention_days: 0 }, [{ path: 'log_retention_days', message: 'At least 1 day' }]],
      [{ log_retention_days: 3651 }, [{ path: 'log_retention_days', message: 'At most 3650 days' }]],
      [{ analytics_retention_days: 0 }, [{ path: 'analytics_retention_days', message: 'At least 1 day' }]],
      [{ audit_retention_days: 6 }, [{ path: 'audit_retention_days', message: 'At least 7 days' }]],
      [{ external_url: 'not a url' }, [{ path: 'external_url', message: 'Enter a URL such as https://launchbay.example.com' }]],
      [{ acme_directory_url: 'nope' }, [{ path: 'acme_directory_url', message: 'Enter the ACME directory URL' }]],
      [{ acme_contact_email: 'ops-at-example' }, [{ path: 'acme_contact_email', message: 'Please enter a valid email address' }]],
      [{ base_domain: 'not a domain!' }, [{ path: 'base_domain', message: 'Enter a domain such as apps.example.com' }]],
      [{ base_domain: 'localhost' }, [{ path: 'base_domain', message: 'Enter a domain such as apps.example.com' }]],
      [
        { preview_address_template: 'preview-{project}' },
        [{ path: 'preview_address_template', message: 'Must contain {number}: each pull request needs its own address' }],
      ],
      [
        { preview_address_template: 'pr-{number}-{branch}' },
        [{ path: 'preview_address_template', message: 'Only {number} and {project} are placeholders' }],
      ],
      [
        { preview_address_template: 'PR_{number}' },
        [
          {
            path: 'preview_address_template',
            message: 'Lowercase letters, digits, hyphens and the {number} and {project} placeholders',
          },
        ],
      ],
      [{ git_poll_interval_seconds: 30 }, [{ path: 'git_poll_interval_seconds', message: 'At least 60 seconds' }]],
      [{ git_poll_interval_seconds: 100000 }, [{ path: 'git_poll_interval_seconds', message: 'At most 86400 seconds (a day)' }]],
    ];
    for (const [body, errors] of cases) {
      const response = await putSettings(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors, JSON.stringify(body)).toEqual(errors);
      expect(response.body.detail).toContain(errors[0]?.message);
    }
    for (const body of [
      { access_mode: 'sideways' },
      { log_retention_days: 1.5 },
      { log_retention_days: '30' },
      { preview_environments_enabled: 'yes' },
      { allow_private_network_targets: 'yes' },
      { acme_directory_url: null },
    ]) {
      const response = await putSettings(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors?.[0]?.path).toBe(Object.keys(body)[0]);
    }
    const several = await putSettings({
      log_retention_days: 0,
      acme_contact_email: 'x',
      external_url: 'https://fine.example.com',
    });
    expect(several.body.errors.map((e) => e.path).sort()).toEqual(['acme_contact_email', 'log_retention_days']);
    expect(await getSettings()).toEqual(before);
  });

  it('refuses an external URL or ACME directory that is not http(s)', async () => {
    const before = await getSettings();
    const messages: Record<string, string> = {
      external_url: 'Enter a URL such as https://launchbay.example.com',
      acme_directory_url: 'Enter the ACME directory URL',
    };
    for (const body of [
      { external_url: 'javascript:alert(document.cookie)' },
      { external_url: 'ftp://launchbay.example.com' },
      { acme_directory_url: 'file:///etc/passwd' },
    ]) {
      const response = await putSettings(body);
      const field = Object.keys(body)[0] as string;
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors).toEqual([{ path: field, message: messages[field] }]);
    }
    expect(await getSettings()).toEqual(before);
    expect((await api.call('GET', '/platform/access-info')).body).toMatchObject({ public_url: before.external_url });
  });

  it('answers 400 for an empty body or one with only unknown fields', async () => {
    for (const body of [{}, { colour: 'blue' }]) {
      const response = await putSettings(body);
      expect(response.status).toBe(400);
      expect(response.body.detail).toBe('Nothing to update');
    }
    const none = await api.call<ApiError>('PUT', '/settings', { token: admin });
    expect(none.status).toBe(400);
    const malformed = await api.call<ApiError>('PUT', '/settings', { token: admin, rawBody: '{"log_retention_days":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.detail).toMatch(/Malformed JSON/);
  });

  it('is for admins only: reader and user get 403, no credentials 401', async () => {
    const before = await getSettings();
    for (const role of ['reader', 'user'] as const) {
      const person = await api.userWithRole(admin, role);
      const response = await putSettings({ log_retention_days: 2 }, person.token);
      expect(response.status, role).toBe(403);
      expect(response.body.detail).toBe('You need the admin role for this');
      // Above all, no one but an admin opens private and loopback addresses to every user's providers.
      const opening = await putSettings({ allow_private_network_targets: true }, person.token);
      expect(opening.status, role).toBe(403);
    }
    const anonymous = await api.call<ApiError>('PUT', '/settings', { body: { log_retention_days: 2 } });
    expect(anonymous.status).toBe(401);
    expect(await getSettings()).toEqual(before);
  });

  it('takes an admin key with settings:write, and names settings:write to a key without it', async () => {
    const reading = await createKey(api, admin, ['settings:read']);
    expect((await api.call('GET', '/settings', { token: reading.secret })).status).toBe(200);
    const refused = await api.call<ApiError & { missing_permission: string }>('PUT', '/settings', {
      token: reading.secret,
      body: { log_retention_days: 3 },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.missing_permission).toBe('settings:write');
    expect(refused.body.detail).toContain('settings:write');

    const writing = await createKey(api, admin, ['settings:write']);
    const changed = await api.call<PlatformSettings>('PUT', '/settings', {
      token: writing.secret,
      body: { log_retention_days: 3 },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.log_retention_days).toBe(3);
    const read = await api.call<ApiError>('GET', '/settings', { token: writing.secret });
    expect(read.status).toBe(403);
    expect(read.body.detail).toContain('settings:read');
  });

  it('is audited: one settings.update row with the change', async () => {
    const before = await lastAuditId(api, admin);
    expect((await putSettings({ preview_environments_enabled: false, acme_contact_email: 'acme@example.com' })).status).toBe(200);
    expect((await putSettings({ log_retention_days: -1 })).status).toBe(400);
    const rows = await auditRowsAfter(api, admin, before);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: 'settings.update',
      target_type: 'settings',
      method: 'PUT',
      path: '/api/settings',
      status_code: 200,
      actor_type: 'user',
      actor_label: ADMIN_EMAIL,
      summary: { body: { preview_environments_enabled: false, acme_contact_email: 'acme@example.com' } },
    });
  });
});
