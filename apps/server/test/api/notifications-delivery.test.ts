import {
  SLACK_SECRET_PATH,
  type SmtpServerOptions,
  selfSignedCertificate,
  startSmtpServer,
  startWebhookReceiver,
  type TestSmtpServer,
  type TlsCertificate,
  type WebhookReceiver,
} from '@launchbay/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Api, apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/*
 * Real delivery through POST /notification-providers/{id}/test: a real SMTP server (smtp-server)
 * in its three shapes and a real HTTP server standing in for Slack, all on 127.0.0.1.
 */

type Provider = { id: number; last_delivery: { at: string; status: string; error: string | null } | null };
type Failure = { detail: string };

let platform: TestPlatform;
let api: Api;
let token: string;
let certificate: TlsCertificate;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  token = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  certificate = selfSignedCertificate();
});
afterAll(() => platform.close());
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function smtp(options: SmtpServerOptions): Promise<TestSmtpServer> {
  const server = await startSmtpServer({ certificate, ...options });
  cleanups.push(() => server.close());
  return server;
}

async function webhook(...args: Parameters<typeof startWebhookReceiver>): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver(...args);
  cleanups.push(() => receiver.close());
  return receiver;
}

async function emailProvider(name: string, config: Record<string, unknown>): Promise<number> {
  const created = await api.call<Provider>('POST', '/notification-providers/email', {
    token,
    body: {
      name,
      enabled: true,
      config: {
        smtp_host: '127.0.0.1',
        from_address: 'alerts@launchbay.test',
        from_name: 'Launchbay Alerts',
        to_addresses: ['ops@example.com', 'oncall@example.com'],
        username: '',
        password: '',
        starttls_required: false,
        accept_invalid_certs: false,
        ...config,
      },
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

async function slackProvider(name: string, webhookUrl: string, channel: string | null = null): Promise<number> {
  const created = await api.call<Provider>('POST', '/notification-providers/slack', {
    token,
    body: { name, enabled: true, config: { webhook_url: webhookUrl, channel } },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

const sendTest = (id: number) => api.call<{ message: string } & Failure>('POST', `/notification-providers/${id}/test`, { token });
const lastDelivery = async (id: number) =>
  (await api.call<Provider>('GET', `/notification-providers/${id}`, { token })).body.last_delivery;

describe('email over real SMTP', () => {
  it('plain SMTP without authentication delivers from name + address, to several recipients, subject and body', async () => {
    const server = await smtp({ mode: 'plain' });
    const id = await emailProvider('Plain SMTP', { smtp_port: server.port, tls_mode: 'None' });
    const response = await sendTest(id);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({ message: 'Test notification sent successfully!' });
    expect(server.messages).toHaveLength(1);
    const mail = server.messages[0];
    expect(mail?.from).toMatch(/^"?Launchbay Alerts"? <alerts@launchbay\.test>$/);
    expect(mail?.envelopeFrom).toBe('alerts@launchbay.test');
    expect(mail?.envelopeTo).toEqual(['ops@example.com', 'oncall@example.com']);
    expect(mail?.to).toContain('ops@example.com');
    expect(mail?.to).toContain('oncall@example.com');
    expect(mail?.subject).toBe('[Launchbay] [INFO] Test notification');
    expect(mail?.text).toContain('This is a test notification from the provider "Plain SMTP"');
    expect(mail?.html).toContain('Test notification');
    expect(mail?.secure).toBe(false);
    expect(mail?.user).toBeUndefined();
    expect(await lastDelivery(id)).toMatchObject({ status: 'sent', error: null });
  });

  it('None never upgrades, even when the server offers STARTTLS', async () => {
    const server = await smtp({ mode: 'starttls' });
    const id = await emailProvider('No TLS', { smtp_port: server.port, tls_mode: 'None' });
    expect((await sendTest(id)).status).toBe(200);
    expect(server.messages.map((m) => m.secure)).toEqual([false]);
  });

  it('STARTTLS with authentication upgrades and logs in (self-signed certificate accepted on request)', async () => {
    const server = await smtp({ mode: 'starttls', auth: { user: 'mailer', pass: 's3cret-smtp' } });
    const id = await emailProvider('Starttls auth', {
      smtp_port: server.port,
      tls_mode: 'Starttls',
      starttls_required: true,
      accept_invalid_certs: true,
      username: 'mailer',
      password: 's3cret-smtp',
    });
    const response = await sendTest(id);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(server.messages).toHaveLength(1);
    expect(server.messages[0]).toMatchObject({ secure: true, user: 'mailer', subject: '[Launchbay] [INFO] Test notification' });
  });

  it('STARTTLS against a self-signed certificate fails with a clear error when invalid certificates are not accepted', async () => {
    const server = await smtp({ mode: 'starttls' });
    const id = await emailProvider('Starttls strict', {
      smtp_port: server.port,
      tls_mode: 'Starttls',
      accept_invalid_certs: false,
    });
    const response = await sendTest(id);
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/TLS certificate of the SMTP server at 127\.0\.0\.1:\d+ is not trusted/);
    expect(response.body.detail).toMatch(/self[- ]signed certificate/);
    expect(response.body.detail).toContain('Accept invalid certificates');
    expect(server.messages).toHaveLength(0);
    expect(await lastDelivery(id)).toMatchObject({ status: 'failed', error: response.body.detail });
  });

  it('implicit TLS delivers over an encrypted connection, and refuses a self-signed certificate unless told to accept it', async () => {
    const server = await smtp({ mode: 'tls', auth: { user: 'tls-user', pass: 'tls-pass' } });
    const strict = await emailProvider('TLS strict', {
      smtp_port: server.port,
      tls_mode: 'Tls',
      username: 'tls-user',
      password: 'tls-pass',
    });
    const refused = await sendTest(strict);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/not trusted \(self[- ]signed certificate\)/);
    expect(server.messages).toHaveLength(0);

    const lenient = await emailProvider('TLS lenient', {
      smtp_port: server.port,
      tls_mode: 'Tls',
      accept_invalid_certs: true,
      username: 'tls-user',
      password: 'tls-pass',
      from_name: null,
      to_addresses: ['a@example.com', 'b@example.com', 'c@example.com'],
    });
    const sent = await sendTest(lenient);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(server.messages).toHaveLength(1);
    expect(server.messages[0]).toMatchObject({ secure: true, user: 'tls-user', from: 'alerts@launchbay.test' });
    expect(server.messages[0]?.envelopeTo).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
  });

  it('Require STARTTLS refuses a server that does not offer it, rather than sending in the clear', async () => {
    const server = await smtp({ mode: 'plain' });
    const id = await emailProvider('Require STARTTLS', { smtp_port: server.port, tls_mode: 'Starttls', starttls_required: true });
    const response = await sendTest(id);
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/STARTTLS/i);
    expect(server.messages).toHaveLength(0);
  });

  it('answers 400 with the reply code (not the reply text) for a wrong password, and for a server that requires a login', async () => {
    const server = await smtp({ mode: 'starttls', auth: { user: 'mailer', pass: 'right' } });
    const wrong = await emailProvider('Wrong password', {
      smtp_port: server.port,
      accept_invalid_certs: true,
      username: 'mailer',
      password: 'wrong',
    });
    const refused = await sendTest(wrong);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(
      new RegExp(`^The SMTP server at 127\\.0\\.0\\.1:${server.port} refused the login \\(reply 535`),
    );
    expect(refused.body.detail).not.toContain('Invalid username or password');

    const anonymous = await emailProvider('No login', { smtp_port: server.port, accept_invalid_certs: true });
    const needsLogin = await sendTest(anonymous);
    expect(needsLogin.status).toBe(400);
    expect(needsLogin.body.detail).toMatch(/reply 530.*requires a login/);
    expect(needsLogin.body.detail).not.toMatch(/authentication required/i);
    expect(server.messages).toHaveLength(0);
  });

  it('answers 400 with the reply code for a 5xx refusal of the message, and 502 when the server cannot be reached', async () => {
    const server = await smtp({ mode: 'plain', refuse: () => ({ code: 550, message: 'Mailbox unavailable: policy says no' }) });
    const refusedId = await emailProvider('Refusing server', { smtp_port: server.port, tls_mode: 'None' });
    const refused = await sendTest(refusedId);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe(`The SMTP server at 127.0.0.1:${server.port} refused the message (reply 550)`);
    expect(refused.body.detail).not.toContain('Mailbox unavailable');
    expect(await lastDelivery(refusedId)).toMatchObject({ status: 'failed', error: refused.body.detail });

    const closed = await smtp({ mode: 'plain' });
    const port = closed.port;
    await closed.close();
    const unreachableId = await emailProvider('Down server', { smtp_port: port, tls_mode: 'None' });
    const unreachable = await sendTest(unreachableId);
    expect(unreachable.status).toBe(502);
    expect(unreachable.body.detail).toBe(`Could not connect to 127.0.0.1:${port}`);
  });
});

describe('Slack over a real webhook receiver', () => {
  it('posts the incoming-webhook JSON (text, channel, blocks) to the webhook URL', async () => {
    const receiver = await webhook();
    const id = await slackProvider('Slack alerts', receiver.url(), '#alerts');
    const response = await sendTest(id);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toEqual({ message: 'Test notification sent successfully!' });
    expect(receiver.requests).toHaveLength(1);
    const request = receiver.requests[0];
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe(SLACK_SECRET_PATH);
    expect(request?.headers['content-type']).toMatch(/^application\/json/);
    const payload = request?.json as { text: string; channel?: string; blocks: unknown[] };
    expect(payload.channel).toBe('#alerts');
    expect(payload.text).toContain('Test notification');
    expect(payload.text).toContain('This is a test notification from the provider "Slack alerts"');
    expect(Array.isArray(payload.blocks)).toBe(true);
    expect(await lastDelivery(id)).toMatchObject({ status: 'sent', error: null });
  });

  it('leaves the channel out when none is set (the webhook default)', async () => {
    const receiver = await webhook();
    const id = await slackProvider('Default channel', receiver.url(), '');
    expect((await sendTest(id)).status).toBe(200);
    expect(receiver.requests[0]?.json).not.toHaveProperty('channel');
  });

  it("answers 400 with the HTTP status (never the receiver's body) for a 4xx refusal, and 502 for a 5xx answer or an unreachable receiver", async () => {
    const receiver = await webhook((request) =>
      request.path.endsWith('/gone') ? { status: 404, body: 'no_service' } : { status: 500, body: 'rollup_error' },
    );
    const refused = await sendTest(await slackProvider('Gone', receiver.url('/services/gone')));
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe(`127.0.0.1:${receiver.port} answered HTTP 404`);

    const failing = await sendTest(await slackProvider('Broken', receiver.url('/services/broken')));
    expect(failing.status).toBe(502);
    expect(failing.body.detail).toBe(`127.0.0.1:${receiver.port} answered HTTP 500`);

    const down = await webhook();
    const url = down.url();
    await down.stop();
    const unreachable = await sendTest(await slackProvider('Down', url));
    expect(unreachable.status).toBe(502);
    expect(unreachable.body.detail).toBe(`Could not connect to 127.0.0.1:${down.port}`);
    expect(unreachable.body.detail).not.toContain(SLACK_SECRET_PATH);
  });
});

describe('the record of test sends', () => {
  it('lists each test with its true outcome in GET /notifications', async () => {
    const receiver = await webhook(() => ({ status: 403, body: 'invalid_token' }));
    const id = await slackProvider('Recorded', receiver.url());
    expect((await sendTest(id)).status).toBe(400);
    const list = await api.call<{
      notifications: {
        type: string;
        status: string;
        deliveries: { provider_id: number; status: string; attempts: number; last_error: string }[];
      }[];
    }>('GET', '/notifications?type=test&per_page=100', { token });
    expect(list.status).toBe(200);
    const record = list.body.notifications.find((n) => n.deliveries[0]?.provider_id === id);
    expect(record).toMatchObject({ type: 'test', status: 'failed' });
    expect(record?.deliveries[0]).toMatchObject({ status: 'failed', attempts: 1 });
    expect(record?.deliveries[0]?.last_error).toBe(`127.0.0.1:${receiver.port} answered HTTP 403`);
  });
});
