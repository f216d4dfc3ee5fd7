import net from 'node:net';
import { DEFAULT_NOTIFICATION_PREFERENCES } from '@launchbay/contract';
import { startSmtpServer, startWebhookReceiver, type TestSmtpServer, type WebhookReceiver, waitUntil } from '@launchbay/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type AddressCategory,
  classifyAddress,
  guardedLookup,
  OutboundRefusedError,
  outboundFetch,
  outboundRefusal,
  type Resolver,
  resolveOutbound,
} from '../../src/lib/outbound';
import { publishAlert } from '../../src/modules/notifications/dispatcher';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/*
 * Server-side requests on a user's behalf (webhooks, SMTP) go only where the policy allows:
 * never to link-local or metadata addresses; to loopback and private ranges only for providers
 * an admin saved, or once an admin allowed it in Settings. The receivers here are real servers
 * on 127.0.0.1: a refused request must never reach them.
 */

const STRICT = { allowPrivateNetworks: false };
const TRUSTED = { allowPrivateNetworks: true };
const LOOPBACK_REFUSAL = 'only an admin can send to private or loopback addresses, or allow them in Settings';

/** A resolver that answers what a hostile DNS server would: any name is 127.0.0.1. */
const rebindingResolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];

/** A plain TCP listener on loopback that counts connections: proof that nothing connected. */
async function countingListener(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, connections: () => connections, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('the address classifier', () => {
  const cases: [string, AddressCategory, 'public' | 'private_only' | 'never', string?][] = [
    ['8.8.8.8', 'public', 'public'],
    ['172.32.0.1', 'public', 'public'],
    ['2606:4700:4700::1111', 'public', 'public'],
    ['127.0.0.1', 'loopback', 'private_only'],
    ['127.8.9.10', 'loopback', 'private_only'],
    ['::1', 'loopback', 'private_only'],
    ['10.0.0.8', 'private', 'private_only'],
    ['172.16.5.4', 'private', 'private_only'],
    ['172.31.255.255', 'private', 'private_only'],
    ['192.168.1.20', 'private', 'private_only'],
    ['100.64.0.1', 'shared', 'private_only'],
    ['fc00::1', 'private', 'private_only'],
    ['fd12:3456::1', 'private', 'private_only'],
    ['169.254.169.254', 'link_local', 'never'],
    ['169.254.1.1', 'link_local', 'never'],
    ['fe80::1', 'link_local', 'never'],
    ['fe80::1%eth0', 'link_local', 'never'],
    ['fd00:ec2::254', 'metadata', 'never'],
    ['100.100.100.200', 'metadata', 'never'],
    ['0.0.0.0', 'unspecified', 'never'],
    ['::', 'unspecified', 'never'],
    ['224.0.0.1', 'multicast', 'never'],
    ['ff02::1', 'multicast', 'never'],
    ['255.255.255.255', 'broadcast', 'never'],
    ['240.0.0.1', 'reserved', 'never'],
    ['192.0.2.1', 'reserved', 'never'],
    ['::7f00:1', 'reserved', 'never'],
    // IPv4 inside IPv6 is judged as the IPv4 it reaches.
    ['::ffff:127.0.0.1', 'loopback', 'private_only', '127.0.0.1'],
    ['::ffff:169.254.169.254', 'link_local', 'never', '169.254.169.254'],
    ['::ffff:10.1.1.1', 'private', 'private_only', '10.1.1.1'],
    ['::ffff:8.8.8.8', 'public', 'public', '8.8.8.8'],
    ['[::ffff:7f00:1]', 'loopback', 'private_only', '127.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'link_local', 'never'],
    ['64:ff9b::808:808', 'public', 'public'],
    ['2002:7f00:1::1', 'loopback', 'private_only'],
  ];
  it.each(cases)('%s is %s (%s)', (address, category, reach, shown) => {
    const verdict = classifyAddress(address);
    expect(verdict).toMatchObject({ category, reach });
    if (shown) expect(verdict.address).toBe(shown);
  });
});

describe('the guarded lookup and fetch', () => {
  it('refuses at connect time a name that resolves to loopback, and the listener sees no connection', async () => {
    const listener = await countingListener();
    try {
      const error = await new Promise<Error>((resolve, reject) => {
        const socket = net.connect({
          host: 'rebind.example.com',
          port: listener.port,
          lookup: guardedLookup(STRICT, rebindingResolver),
        });
        socket.on('connect', () => reject(new Error('connected')));
        socket.on('error', resolve);
      });
      expect(error).toBeInstanceOf(OutboundRefusedError);
      expect(error.message).toBe(`Refused: rebind.example.com resolves to 127.0.0.1, a loopback address; ${LOOPBACK_REFUSAL}`);
      expect(listener.connections()).toBe(0);

      // The same lookup under a trusting policy connects to the checked address.
      await new Promise<void>((resolve, reject) => {
        const socket = net.connect({
          host: 'rebind.example.com',
          port: listener.port,
          lookup: guardedLookup(TRUSTED, rebindingResolver),
        });
        socket.on('connect', () => {
          socket.destroy();
          resolve();
        });
        socket.on('error', reject);
      });
      await waitUntil(() => listener.connections() === 1, 'the trusted connection');
    } finally {
      await listener.close();
    }
  });

  it('refuses a name when any of its addresses is refused', async () => {
    const mixed: Resolver = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ];
    await expect(resolveOutbound('mixed.example.com', TRUSTED, mixed)).rejects.toThrow(
      'Refused: mixed.example.com resolves to 169.254.169.254, a link-local address; the platform never sends requests there',
    );
  });

  it('fetch: a rebinding name, an IP literal and the decimal form of 127.0.0.1 never reach the receiver', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const attempts = [
        outboundFetch(`http://rebind.example.com:${receiver.port}/hook`, { method: 'POST' }, STRICT, rebindingResolver),
        outboundFetch(`http://127.0.0.1:${receiver.port}/hook`, { method: 'POST' }, STRICT),
        outboundFetch(`http://2130706433:${receiver.port}/hook`, { method: 'POST' }, STRICT),
        outboundFetch(`http://[::ffff:127.0.0.1]:${receiver.port}/hook`, { method: 'POST' }, STRICT),
        outboundFetch('http://169.254.169.254/latest/meta-data/', { method: 'GET' }, TRUSTED),
        // Each outcome is taken at once: a refusal that waited unhandled for the others would be an unhandled rejection.
      ].map((attempt) =>
        attempt.then(
          () => undefined,
          (error: unknown) => error,
        ),
      );
      for (const attempt of attempts) {
        expect(outboundRefusal(await attempt)).toBeInstanceOf(OutboundRefusedError);
      }
      expect(receiver.requests).toHaveLength(0);
      const allowed = await outboundFetch(`http://127.0.0.1:${receiver.port}/hook`, { method: 'POST', body: 'x' }, TRUSTED);
      expect(allowed.status).toBe(200);
      await allowed.body?.cancel();
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});

describe('notification providers through the guard', () => {
  type Provider = { id: number; saved_by_admin: boolean; last_delivery: { status: string; error: string | null } | null };

  let platform: TestPlatform;
  let api: Api;
  let admin: string;
  let user: string;
  let receiver: WebhookReceiver;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    platform = await startTestPlatform();
    api = apiClient(platform.url);
    admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
    user = (await api.userWithRole(admin, 'user')).token;
    receiver = await startWebhookReceiver((request) =>
      request.path.startsWith('/missing')
        ? { status: 404, body: 'DISTINCTIVE-BODY internal admin panel v3.1' }
        : { status: 200, body: 'ok' },
    );
  });
  afterAll(async () => {
    await receiver?.close();
    await platform?.close();
  });
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()?.();
    await setPrivateTargets(false);
  });

  async function setPrivateTargets(allowed: boolean) {
    const response = await api.call('PUT', '/settings', { token: admin, body: { allow_private_network_targets: allowed } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  }

  async function slack(webhookUrl: string, token: string): Promise<Provider> {
    const created = await api.call<Provider>('POST', '/notification-providers/slack', {
      token,
      body: { name: `Slack ${webhookUrl}`, config: { webhook_url: webhookUrl, channel: null } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body;
  }

  async function email(smtpHost: string, port: number, token: string): Promise<Provider> {
    const created = await api.call<Provider>('POST', '/notification-providers/email', {
      token,
      body: {
        name: `Mail ${smtpHost}`,
        config: {
          smtp_host: smtpHost,
          smtp_port: port,
          from_address: 'a@launchbay.test',
          to_addresses: ['b@example.com'],
          tls_mode: 'None',
        },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body;
  }

  async function smtpServer(): Promise<TestSmtpServer> {
    const server = await startSmtpServer({ mode: 'plain' });
    cleanups.push(() => server.close());
    return server;
  }

  const sendTest = (id: number, token = user) => api.call<ApiError>('POST', `/notification-providers/${id}/test`, { token });
  const read = async (id: number) => (await api.call<Provider>('GET', `/notification-providers/${id}`, { token: user })).body;

  it("a user's webhook to loopback is refused in every spelling, and the receiver gets no request", async () => {
    const before = receiver.requests.length;
    for (const url of [
      `http://127.0.0.1:${receiver.port}/hook`,
      `http://localhost:${receiver.port}/hook`,
      `http://2130706433:${receiver.port}/hook`,
      `http://[::ffff:127.0.0.1]:${receiver.port}/hook`,
    ]) {
      const provider = await slack(url, user);
      expect(provider.saved_by_admin).toBe(false);
      const response = await sendTest(provider.id);
      expect(response.status, url).toBe(400);
      expect(response.body.detail, url).toMatch(
        /^Refused: (127\.0\.0\.1 is|localhost resolves to (127\.0\.0\.1|::1),) a loopback address; only an admin can send to private or loopback addresses, or allow them in Settings$/,
      );
      expect((await read(provider.id)).last_delivery).toMatchObject({ status: 'failed', error: response.body.detail });
    }
    expect(receiver.requests.length).toBe(before);
  });

  it("the dispatcher refuses a user's loopback webhook too, for good (no retries)", async () => {
    const list = await api.call<Provider[]>('GET', '/notification-providers', { token: admin });
    for (const existing of list.body) await api.call('DELETE', `/notification-providers/${existing.id}`, { token: admin });
    const preferences = { ...DEFAULT_NOTIFICATION_PREFERENCES, batch_similar_notifications: false };
    expect((await api.call('PUT', '/notification-preferences', { token: admin, body: { preferences } })).status).toBe(200);
    const before = receiver.requests.length;
    const provider = await slack(`http://127.0.0.1:${receiver.port}/alerts`, user);
    const published = await publishAlert(platform.ctx, {
      type: 'deployment_failed',
      severity: 'critical',
      title: `Refused alert ${provider.id}`,
      message: 'x',
    });
    expect(published.status).toBe('queued');
    const outcome = await waitUntil(async () => {
      const last = (await read(provider.id)).last_delivery;
      return last?.status === 'failed' ? last : undefined;
    }, 'the delivery to fail');
    expect(outcome.error).toBe(`Refused: 127.0.0.1 is a loopback address; ${LOOPBACK_REFUSAL}`);
    expect(receiver.requests.length).toBe(before);
    const { rows } = await platform.ctx.pool.query<{ attempts: number }>(
      'SELECT attempts FROM notification_deliveries WHERE provider_id = $1',
      [provider.id],
    );
    expect(rows.map((r) => r.attempts)).toEqual([1]);
    await api.call('DELETE', `/notification-providers/${provider.id}`, { token: admin });
  });

  it('cloud metadata and link-local addresses are refused even for an admin and with private targets allowed', async () => {
    await setPrivateTargets(true);
    for (const url of [
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'http://[::ffff:169.254.169.254]/latest/meta-data/',
      'http://100.100.100.200/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://[fe80::1]/',
      'http://0.0.0.0:80/',
    ]) {
      const provider = await slack(url, admin);
      expect(provider.saved_by_admin).toBe(true);
      const response = await sendTest(provider.id, admin);
      expect(response.status, url).toBe(400);
      expect(response.body.detail, url).toMatch(
        /^Refused: .* is (a link-local|a cloud metadata|an unspecified) address; the platform never sends requests there$/,
      );
    }
  });

  it("a failure says the HTTP status, never the target's body", async () => {
    const provider = await slack(`http://127.0.0.1:${receiver.port}/missing/hook`, admin);
    const response = await sendTest(provider.id, admin);
    expect(response.status).toBe(400);
    expect(response.body.detail).toBe(`127.0.0.1:${receiver.port} answered HTTP 404`);
    const everything = JSON.stringify([
      response.body,
      await read(provider.id),
      (await api.call('GET', '/notifications?type=test&per_page=100', { token: user })).body,
    ]);
    expect(everything).not.toContain('DISTINCTIVE-BODY');
    expect(everything).not.toContain('admin panel');
  });

  it('network failures all read the same, whatever the reason', async () => {
    const closed = await countingListener();
    await closed.close();
    const provider = await slack(`http://127.0.0.1:${closed.port}/hook`, admin);
    const refusedPort = await sendTest(provider.id, admin);
    expect(refusedPort.status).toBe(502);
    expect(refusedPort.body.detail).toBe(`Could not connect to 127.0.0.1:${closed.port}`);
    const unknownName = await slack('http://no-such-host.invalid/hook', admin);
    const dns = await sendTest(unknownName.id, admin);
    expect(dns.status).toBe(502);
    expect(dns.body.detail).toBe('Could not connect to no-such-host.invalid:80');
  });

  it("a user's SMTP host on loopback is refused, and the SMTP server is never contacted", async () => {
    const server = await smtpServer();
    const listener = await countingListener();
    cleanups.push(() => listener.close());
    const onSmtp = await email('127.0.0.1', server.port, user);
    const refused = await sendTest(onSmtp.id);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe(`Refused: 127.0.0.1 is a loopback address; ${LOOPBACK_REFUSAL}`);
    expect(server.messages).toHaveLength(0);
    for (const host of ['localhost', '2130706433', '::1']) {
      const provider = await email(host, listener.port, user);
      const response = await sendTest(provider.id);
      expect(response.status, host).toBe(400);
      expect(response.body.detail, host).toMatch(/^Refused: .*a loopback address; only an admin/);
    }
    expect(listener.connections()).toBe(0);
  });

  it("once an admin allows private targets, a user's providers deliver to loopback; turned off, they are refused again", async () => {
    const server = await smtpServer();
    const webhook = await slack(`http://127.0.0.1:${receiver.port}/allowed`, user);
    const mail = await email('127.0.0.1', server.port, user);
    expect((await sendTest(webhook.id)).status).toBe(400);

    await setPrivateTargets(true);
    const before = receiver.requests.length;
    const sent = await sendTest(webhook.id);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(receiver.requests.length).toBe(before + 1);
    expect(receiver.requests.at(-1)?.path).toBe('/allowed');
    expect((await sendTest(mail.id)).status).toBe(200);
    expect(server.messages).toHaveLength(1);

    await setPrivateTargets(false);
    expect((await sendTest(webhook.id)).status).toBe(400);
    expect(receiver.requests.length).toBe(before + 1);
  });

  it("an admin's provider reaches loopback; a user re-saving it makes it untrusted again, until an admin saves it", async () => {
    const provider = await slack(`http://127.0.0.1:${receiver.port}/team`, admin);
    expect(provider.saved_by_admin).toBe(true);
    const before = receiver.requests.length;
    // Anyone may send a test through an admin's provider.
    expect((await sendTest(provider.id, user)).status).toBe(200);
    expect(receiver.requests.length).toBe(before + 1);

    const resave = (token: string) =>
      api.call<Provider>('PUT', `/notification-providers/slack/${provider.id}`, {
        token,
        body: { name: 'Team', config: { webhook_url: `http://127.0.0.1:${receiver.port}/team`, channel: '#ops' } },
      });
    const byUser = await resave(user);
    expect(byUser.status).toBe(200);
    expect(byUser.body.saved_by_admin).toBe(false);
    const refused = await sendTest(provider.id, admin);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain('loopback address');
    expect(receiver.requests.length).toBe(before + 1);

    const byAdmin = await resave(admin);
    expect(byAdmin.body.saved_by_admin).toBe(true);
    expect((await sendTest(provider.id, user)).status).toBe(200);
    expect(receiver.requests.length).toBe(before + 2);
  });

  it('stores saved_by_admin on the row (existing rows start untrusted)', async () => {
    const { rows } = await platform.ctx.pool.query<{ column_default: string; is_nullable: string }>(
      "SELECT column_default, is_nullable FROM information_schema.columns WHERE table_name = 'notification_providers' AND column_name = 'saved_by_admin'",
    );
    expect(rows).toEqual([{ column_default: 'false', is_nullable: 'NO' }]);
  });
});
