import { SECRET_MASK } from '@launchbay/contract';
import {
  SLACK_SECRET_PATH,
  startSmtpServer,
  startWebhookReceiver,
  type TestSmtpServer,
  type WebhookReceiver,
} from '@launchbay/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decideMaskedSecret } from '../../src/lib/masked-secret';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/*
 * A masked secret sent back keeps the stored one only for the destination it was stored for.
 * The finding: a plain user saved an SMTP provider with the masked password and their own host,
 * and the test send logged in to that host with the stored password. Here a second, real SMTP
 * server (on another port, accepting exactly the stored login) stands in for the user's host:
 * it must never receive the stored credentials.
 */

type Provider = { id: number; saved_by_admin: boolean; config: Record<string, unknown> };
type FieldErrors = ApiError & { errors: { path: string; message: string }[] };

const STORED_PASSWORD = 'stored-smtp-pass-7Qx';
const ASK_AGAIN = 'Enter the password again: the server, port, username or TLS settings changed';

let platform: TestPlatform;
let api: Api;
let admin: string;
let user: string;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  user = (await api.userWithRole(admin, 'user')).token;
  // The receivers are on loopback: let every provider reach them, so only the mask rule is under test here.
  const opened = await api.call('PUT', '/settings', { token: admin, body: { allow_private_network_targets: true } });
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
});
afterAll(() => platform.close());
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function smtpServer(): Promise<TestSmtpServer> {
  // Accepts exactly the stored login: a message here with user 'mailer' means it got the stored password.
  const server = await startSmtpServer({ mode: 'plain', auth: { user: 'mailer', pass: STORED_PASSWORD } });
  cleanups.push(() => server.close());
  return server;
}

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  cleanups.push(() => started.close());
  return started;
}

async function storedSecret(id: number): Promise<string | null> {
  const { rows } = await platform.ctx.pool.query<{ secret: string | null }>(
    'SELECT secret FROM notification_providers WHERE id = $1',
    [id],
  );
  const sealed = rows[0]?.secret ?? null;
  return sealed === null ? null : platform.ctx.box.open(sealed);
}

const sendTest = (id: number, token = user) => api.call<ApiError>('POST', `/notification-providers/${id}/test`, { token });

async function adminEmailProvider(port: number): Promise<Provider> {
  const created = await api.call<Provider>('POST', '/notification-providers/email', {
    token: admin,
    body: {
      name: 'Team mail',
      config: {
        smtp_host: 'localhost',
        smtp_port: port,
        username: 'mailer',
        password: STORED_PASSWORD,
        from_address: 'alerts@launchbay.test',
        to_addresses: ['ops@example.com'],
        tls_mode: 'None',
      },
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

const putEmail = (id: number, config: Record<string, unknown>, token = user) =>
  api.call<Provider & FieldErrors>('PUT', `/notification-providers/email/${id}`, { token, body: { name: 'Team mail', config } });

describe('a masked SMTP password', () => {
  it("never reaches a host the user picked: a changed host keeps nothing, answers 400, and the user's server gets no login", async () => {
    const teamServer = await smtpServer();
    const usersServer = await smtpServer();
    const provider = await adminEmailProvider(teamServer.port);
    expect(provider.config.password).toBe(SECRET_MASK);

    // The attack: everything as read (password masked), but the host and port of the user's server.
    const moved = await putEmail(provider.id, { ...provider.config, smtp_host: '127.0.0.1', smtp_port: usersServer.port });
    expect(moved.status).toBe(400);
    expect(moved.body.errors).toEqual([{ path: 'config.password', message: ASK_AGAIN }]);
    expect(moved.body.detail).toBe(`config.password: ${ASK_AGAIN}`);

    // Nothing changed: a test still goes to the team's server, and the user's server saw no login at all.
    expect((await sendTest(provider.id, admin)).status).toBe(200);
    expect(teamServer.messages.map((m) => m.user)).toEqual(['mailer']);
    expect(usersServer.messages).toHaveLength(0);
    expect(await storedSecret(provider.id)).toBe(STORED_PASSWORD);
    const read = await api.call<Provider>('GET', `/notification-providers/${provider.id}`, { token: user });
    expect(read.body.config).toMatchObject({ smtp_host: 'localhost', smtp_port: teamServer.port });
  });

  it('asks again when any of host, port, username or TLS settings changes; host case does not count', async () => {
    const teamServer = await smtpServer();
    const provider = await adminEmailProvider(teamServer.port);
    for (const change of [
      { smtp_host: 'mail.attacker.example' },
      { smtp_port: teamServer.port + 1 },
      { username: 'someone-else' },
      { tls_mode: 'Tls' },
      // Weaker TLS lets whoever sits on the path pose as the server that receives the password.
      { accept_invalid_certs: true },
    ]) {
      const response = await putEmail(provider.id, { ...provider.config, ...change });
      expect(response.status, JSON.stringify(change)).toBe(400);
      expect(response.body.errors, JSON.stringify(change)).toEqual([{ path: 'config.password', message: ASK_AGAIN }]);
    }
    expect(await storedSecret(provider.id)).toBe(STORED_PASSWORD);

    // The same destination (host names are case-insensitive) with the mask keeps the password, and it still works.
    const renamed = await putEmail(provider.id, {
      ...provider.config,
      smtp_host: 'LocalHost',
      to_addresses: ['oncall@example.com'],
      from_name: 'Alerts',
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.config.password).toBe(SECRET_MASK);
    expect(await storedSecret(provider.id)).toBe(STORED_PASSWORD);
    expect((await sendTest(provider.id)).status).toBe(200);
    expect(teamServer.messages).toHaveLength(1);
    expect(teamServer.messages[0]).toMatchObject({ user: 'mailer', envelopeTo: ['oncall@example.com'] });

    // A new password typed with the new destination is what the fix asks for: that is saved.
    const retyped = await putEmail(provider.id, { ...provider.config, username: 'someone-else', password: 'typed-again' });
    expect(retyped.status).toBe(200);
    expect(await storedSecret(provider.id)).toBe('typed-again');
  });

  it('is refused when no password is stored: the literal mask is never saved as a password', async () => {
    const created = await api.call<FieldErrors>('POST', '/notification-providers/email', {
      token: user,
      body: {
        name: 'Masked from the start',
        config: {
          smtp_host: 'smtp.example.com',
          smtp_port: 587,
          username: 'mailer',
          password: SECRET_MASK,
          from_address: 'alerts@example.com',
          to_addresses: ['ops@example.com'],
        },
      },
    });
    expect(created.status).toBe(400);
    expect(created.body.errors).toEqual([
      { path: 'config.password', message: 'Enter the password: there is no stored password to keep' },
    ]);
    const { rows } = await platform.ctx.pool.query("SELECT id FROM notification_providers WHERE name = 'Masked from the start'");
    expect(rows).toHaveLength(0);
  });
});

describe('a masked Slack webhook URL', () => {
  it('keeps the stored URL only for the same scheme and host; otherwise 400, and nothing is sent anywhere new', async () => {
    const team = await receiver();
    const other = await receiver();
    const created = await api.call<Provider>('POST', '/notification-providers/slack', {
      token: admin,
      body: { name: 'Team Slack', config: { webhook_url: team.url(), channel: null } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.body.config.webhook_url).toBe(`http://127.0.0.1:${team.port}/${SECRET_MASK}`);

    const put = (webhookUrl: string) =>
      api.call<FieldErrors>('PUT', `/notification-providers/slack/${id}`, {
        token: user,
        body: { name: 'Team Slack', config: { webhook_url: webhookUrl, channel: null } },
      });
    for (const masked of [
      `http://127.0.0.1:${other.port}/${SECRET_MASK}`, // another port
      `http://localhost:${team.port}/${SECRET_MASK}`, // another host name
      `https://127.0.0.1:${team.port}/${SECRET_MASK}`, // another scheme
    ]) {
      const response = await put(masked);
      expect(response.status, masked).toBe(400);
      expect(response.body.errors, masked).toEqual([
        { path: 'config.webhook_url', message: 'Enter the webhook URL again: its scheme or host changed' },
      ]);
    }
    expect(await storedSecret(id)).toBe(team.url());

    const kept = await put(`http://127.0.0.1:${team.port}/${SECRET_MASK}`);
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect(await storedSecret(id)).toBe(team.url());
    expect((await sendTest(id)).status).toBe(200);
    expect(team.requests.map((r) => r.path)).toEqual([SLACK_SECRET_PATH]);
    expect(other.requests).toHaveLength(0);
  });

  it('is refused when no URL is stored', async () => {
    const response = await api.call<FieldErrors>('POST', '/notification-providers/slack', {
      token: user,
      body: { name: 'Masked Slack', config: { webhook_url: `https://hooks.slack.com/${SECRET_MASK}` } },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { path: 'config.webhook_url', message: 'Enter the webhook URL: there is no stored webhook URL to keep' },
    ]);
  });
});

describe('decideMaskedSecret (the one rule for every masked secret)', () => {
  const base = {
    mask: SECRET_MASK,
    storedSealed: 'sealed-secret',
    destinationUnchanged: true,
    field: 'config.token',
    label: 'token',
    destination: 'the git host',
  };
  it('keeps the stored secret only for the mask and an unchanged destination', () => {
    expect(decideMaskedSecret({ ...base, sent: SECRET_MASK })).toEqual({ action: 'keep_stored', sealed: 'sealed-secret' });
    expect(decideMaskedSecret({ ...base, sent: 'a-new-token' })).toEqual({ action: 'use_sent' });
    expect(decideMaskedSecret({ ...base, sent: 'a-new-token', destinationUnchanged: false })).toEqual({ action: 'use_sent' });
  });
  it('asks again for the mask with a changed destination or nothing stored', () => {
    expect(decideMaskedSecret({ ...base, sent: SECRET_MASK, destinationUnchanged: false })).toEqual({
      action: 'ask_again',
      error: { path: 'config.token', message: 'Enter the token again: the git host changed' },
    });
    for (const storedSealed of [null, undefined, '']) {
      expect(decideMaskedSecret({ ...base, sent: SECRET_MASK, storedSealed })).toEqual({
        action: 'ask_again',
        error: { path: 'config.token', message: 'Enter the token: there is no stored token to keep' },
      });
    }
  });
  it('takes a test for masks that embed more than the mask', () => {
    const mask = (sent: string) => sent.endsWith(`/${SECRET_MASK}`);
    expect(decideMaskedSecret({ ...base, mask, sent: `https://x.example/${SECRET_MASK}` }).action).toBe('keep_stored');
    expect(decideMaskedSecret({ ...base, mask, sent: SECRET_MASK }).action).toBe('use_sent');
  });
});
