import fs from 'node:fs';
import { DEFAULT_NOTIFICATION_PREFERENCES } from '@launchbay/contract';
import {
  sleep,
  startSmtpServer,
  startWebhookReceiver,
  type TestSmtpServer,
  type WebhookReceiver,
  type WebhookRequest,
  waitUntil,
} from '@launchbay/testkit';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { createDb, createPool } from '../../src/db/client';
import { type AlertInput, publishAlert, startNotificationWorker } from '../../src/modules/notifications/dispatcher';
import { startPlatform } from '../../src/platform';
import { type Api, apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform, testEnv } from '../helpers/platform';

/*
 * The alert dispatcher end to end: publishAlert() -> preferences -> the durable delivery queue in
 * PostgreSQL -> real SMTP and webhook receivers on 127.0.0.1 -> the record in GET /notifications.
 * Short windows and delays come from the environment, as an operator would set them.
 */

const ENV = { NOTIFICATION_BATCH_WINDOW_SECONDS: '1.5', NOTIFICATION_RETRY_BASE_MS: '150', NOTIFICATION_LEASE_SECONDS: '4' };

/** The dispatcher tests start from the defaults with batching off and every severity let through. */
const DEFAULTS = { ...DEFAULT_NOTIFICATION_PREFERENCES, batch_similar_notifications: false, minimum_severity: 'info' as const };

type Delivery = {
  provider_id: number | null;
  provider_type: string;
  status: string;
  attempts: number;
  last_error: string | null;
  sent_at: string | null;
  history: { outcome: string; error: string | null; node: string; at: string }[];
};
type NotificationRecord = { id: number; title: string; occurrences: number; status: string; deliveries: Delivery[] };

let platform: TestPlatform;
let api: Api;
let token: string;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  platform = await startTestPlatform(ENV);
  api = apiClient(platform.url);
  token = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(() => platform.close());

beforeEach(async () => {
  // Each test starts with no provider and everything on, unbatched, down to info.
  const list = await api.call<{ id: number }[]>('GET', '/notification-providers', { token });
  for (const p of list.body) await api.call('DELETE', `/notification-providers/${p.id}`, { token });
  await setPreferences({});
});
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function setPreferences(changes: Record<string, unknown>, target: Api = api, as = token) {
  const response = await target.call('PUT', '/notification-preferences', {
    token: as,
    body: { preferences: { ...DEFAULTS, ...changes } },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

async function receiverFor(respond?: Parameters<typeof startWebhookReceiver>[0]): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver(respond);
  cleanups.push(() => receiver.close());
  return receiver;
}

async function slackProvider(url: string, options: { enabled?: boolean; target?: Api; as?: string; name?: string } = {}) {
  const response = await (options.target ?? api).call<{ id: number }>('POST', '/notification-providers/slack', {
    token: options.as ?? token,
    body: { name: options.name ?? 'Slack', enabled: options.enabled ?? true, config: { webhook_url: url, channel: '#alerts' } },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id;
}

async function emailProvider(server: TestSmtpServer) {
  const response = await api.call<{ id: number }>('POST', '/notification-providers/email', {
    token,
    body: {
      name: 'Mail',
      config: {
        smtp_host: '127.0.0.1',
        smtp_port: server.port,
        from_address: 'alerts@launchbay.test',
        from_name: 'Launchbay Alerts',
        to_addresses: ['ops@example.com', 'cto@example.com'],
        tls_mode: 'None',
      },
    },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id;
}

async function smtpServer(options: Parameters<typeof startSmtpServer>[0] = { mode: 'plain' }) {
  const server = await startSmtpServer(options);
  cleanups.push(() => server.close());
  return server;
}

const textOf = (request: WebhookRequest | undefined) => (request?.json as { text?: string } | undefined)?.text ?? '';

const alert = (overrides: Partial<AlertInput> = {}): AlertInput => ({
  type: 'deployment_failed',
  severity: 'critical',
  title: 'Deployment of shop failed',
  message: 'The build step exited with code 1.',
  ...overrides,
});

async function record(id: number, target: Api = api, as = token): Promise<NotificationRecord | undefined> {
  const response = await target.call<{ notifications: NotificationRecord[] }>('GET', '/notifications?per_page=100', {
    token: as,
  });
  expect(response.status).toBe(200);
  return response.body.notifications.find((n) => n.id === id);
}

/** Waits until every delivery of the notification reached a final state, and answers the record. */
async function settled(id: number, timeoutMs = 10_000, target: Api = api, as = token): Promise<NotificationRecord> {
  return waitUntil(
    async () => {
      const found = await record(id, target, as);
      return found && found.status !== 'pending' ? found : undefined;
    },
    `notification ${id} to settle`,
    timeoutMs,
    100,
  );
}

function queuedId(result: Awaited<ReturnType<typeof publishAlert>>): number {
  if (result.status !== 'queued') throw new Error(`expected the alert to be queued, got ${JSON.stringify(result)}`);
  return result.notification_id;
}

describe('publishing an alert', () => {
  it('sends it through every enabled provider (email and Slack), never through a disabled one', async () => {
    const smtp = await smtpServer();
    const slack = await receiverFor();
    const disabled = await receiverFor();
    const emailId = await emailProvider(smtp);
    const slackId = await slackProvider(slack.url());
    await slackProvider(disabled.url(), { enabled: false, name: 'Disabled' });

    const id = queuedId(
      await publishAlert(platform.ctx, alert({ project_id: 12, data: { deployment: 'dep_42', commit: 'abc123' } })),
    );
    const done = await settled(id);
    expect(done.status).toBe('sent');
    expect(done.deliveries.map((d) => [d.provider_id, d.status, d.attempts]).sort()).toEqual(
      [
        [emailId, 'sent', 1],
        [slackId, 'sent', 1],
      ].sort(),
    );
    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0];
    expect(mail?.subject).toBe('[Launchbay] [CRITICAL] Deployment of shop failed');
    expect(mail?.from).toMatch(/^"?Launchbay Alerts"? <alerts@launchbay\.test>$/);
    expect(mail?.envelopeTo).toEqual(['ops@example.com', 'cto@example.com']);
    expect(mail?.text).toContain('The build step exited with code 1.');
    expect(mail?.text).toContain('deployment: dep_42');
    expect(mail?.text).toContain('Project: 12');
    expect(slack.requests).toHaveLength(1);
    const payload = slack.requests[0]?.json as { text: string; channel: string };
    expect(payload.channel).toBe('#alerts');
    expect(payload.text).toContain('[CRITICAL] Deployment of shop failed');
    expect(payload.text).toContain('The build step exited with code 1.');
    expect(disabled.requests).toHaveLength(0);
    const provider = await api.call<{ last_delivery: { status: string; error: string | null; at: string } }>(
      'GET',
      `/notification-providers/${slackId}`,
      { token },
    );
    expect(provider.body.last_delivery).toMatchObject({ status: 'sent', error: null });
  });

  it('sends nothing for an alert type whose preference is off, nor through a channel that is off', async () => {
    const slack = await receiverFor();
    const smtp = await smtpServer();
    await slackProvider(slack.url());
    await emailProvider(smtp);
    await setPreferences({ deployment_failures_enabled: false, backup_successes_enabled: false });
    const before = (await api.call<{ total: number }>('GET', '/notifications', { token })).body.total;
    expect(await publishAlert(platform.ctx, alert())).toEqual({
      status: 'suppressed',
      reason: 'deployment_failures_enabled is off',
    });
    expect(
      (await publishAlert(platform.ctx, alert({ type: 'backup_succeeded', severity: 'info', title: 'Backup done' }))).status,
    ).toBe('suppressed');
    await sleep(1200); // more than two poll cycles
    expect(slack.requests).toHaveLength(0);
    expect(smtp.messages).toHaveLength(0);
    expect((await api.call<{ total: number }>('GET', '/notifications', { token })).body.total).toBe(before);

    // Email off, Slack on: only Slack gets the next alert.
    await setPreferences({ email_enabled: false });
    const id = queuedId(await publishAlert(platform.ctx, alert({ title: 'Second failure' })));
    const done = await settled(id);
    expect(done.deliveries.map((d) => d.provider_type)).toEqual(['slack']);
    expect(slack.requests).toHaveLength(1);
    expect(smtp.messages).toHaveLength(0);
  });

  it('sends nothing below the minimum severity', async () => {
    const slack = await receiverFor();
    await slackProvider(slack.url());
    await setPreferences({ minimum_severity: 'critical' });
    expect(await publishAlert(platform.ctx, alert({ severity: 'warning', type: 'route_down', title: 'Route slow' }))).toEqual({
      status: 'suppressed',
      reason: 'severity warning is below the minimum (critical)',
    });
    expect(
      (await publishAlert(platform.ctx, alert({ severity: 'info', type: 'dns_changed', title: 'DNS changed' }))).status,
    ).toBe('suppressed');
    await sleep(1200);
    expect(slack.requests).toHaveLength(0);
    const id = queuedId(
      await publishAlert(platform.ctx, alert({ severity: 'critical', type: 'route_down', title: 'Route down' })),
    );
    await settled(id);
    expect(slack.requests).toHaveLength(1);
    expect(textOf(slack.requests[0])).toContain('Route down');
  });

  it('applies the runtime-error threshold and the SSL warning days to the alerts that carry them', async () => {
    const slack = await receiverFor();
    await slackProvider(slack.url());
    await setPreferences({ error_threshold: 10, error_time_window: 5, ssl_days_before_expiration: 14 });
    const under = await publishAlert(platform.ctx, alert({ type: 'runtime_errors', title: 'Errors', data: { error_count: 49 } }));
    expect(under.status).toBe('suppressed');
    const over = await publishAlert(platform.ctx, alert({ type: 'runtime_errors', title: 'Errors', data: { error_count: 50 } }));
    expect(over.status).toBe('queued');
    expect(
      (await publishAlert(platform.ctx, alert({ type: 'ssl_expiring', title: 'TLS', data: { days_remaining: 20 } }))).status,
    ).toBe('suppressed');
    expect(
      (await publishAlert(platform.ctx, alert({ type: 'ssl_expiring', title: 'TLS', data: { days_remaining: 14 } }))).status,
    ).toBe('queued');
  });
});

describe('batching similar notifications', () => {
  it('folds 10 identical alerts within the window into ONE message with the count', async () => {
    const slack = await receiverFor();
    const smtp = await smtpServer();
    await slackProvider(slack.url());
    await emailProvider(smtp);
    await setPreferences({ batch_similar_notifications: true });
    const results = [];
    for (let i = 0; i < 10; i++) {
      results.push(
        await publishAlert(platform.ctx, alert({ type: 'route_down', title: 'shop.example.com is down', group_key: 'route:7' })),
      );
    }
    const other = await publishAlert(
      platform.ctx,
      alert({ type: 'route_down', title: 'blog.example.com is down', group_key: 'route:8' }),
    );
    expect(results[0]?.status).toBe('queued');
    expect(results.slice(1).map((r) => r.status)).toEqual(Array(9).fill('batched'));
    expect(results[9]).toMatchObject({ status: 'batched', occurrences: 10 });
    const id = queuedId(results[0] as Awaited<ReturnType<typeof publishAlert>>);
    const otherId = queuedId(other);
    // Nothing leaves before the window closes: the one message must carry the final count.
    await sleep(700);
    expect(slack.requests).toHaveLength(0);

    const done = await settled(id);
    const otherDone = await settled(otherId);
    expect(done).toMatchObject({ occurrences: 10, status: 'sent' });
    expect(done.deliveries).toHaveLength(2);
    expect(otherDone).toMatchObject({ occurrences: 1, status: 'sent' });
    expect(slack.requests).toHaveLength(2);
    const texts = slack.requests.map((r) => textOf(r));
    const folded = texts.find((t) => t.includes('shop.example.com'));
    expect(folded).toContain('(10 times)');
    expect(folded).toContain('This alert occurred 10 times');
    expect(texts.find((t) => t.includes('blog.example.com'))).not.toContain('times');
    expect(smtp.messages).toHaveLength(2);
    expect(smtp.messages.map((m) => m.subject).sort()).toEqual([
      '[Launchbay] [CRITICAL] blog.example.com is down',
      '[Launchbay] [CRITICAL] shop.example.com is down (10 times)',
    ]);

    // After the window a repeat starts a new notification.
    const later = await publishAlert(
      platform.ctx,
      alert({ type: 'route_down', title: 'shop.example.com is down', group_key: 'route:7' }),
    );
    expect(later.status).toBe('queued');
    await settled(queuedId(later));
    expect(slack.requests).toHaveLength(3);
  });
});

describe('delivery outcomes', () => {
  it('retries a receiver that fails twice (HTTP 500) and delivers exactly once, recording 3 attempts', async () => {
    const slack = await receiverFor((_request, index) =>
      index < 2 ? { status: 500, body: 'internal_error' } : { status: 200, body: 'ok' },
    );
    const providerId = await slackProvider(slack.url());
    const id = queuedId(await publishAlert(platform.ctx, alert({ title: 'Flaky receiver' })));
    const done = await settled(id);
    expect(done.status).toBe('sent');
    const delivery = done.deliveries[0];
    expect(delivery).toMatchObject({ provider_id: providerId, status: 'sent', attempts: 3, last_error: null });
    expect(delivery?.sent_at).not.toBeNull();
    expect(delivery?.history.map((h) => h.outcome)).toEqual(['retry', 'retry', 'sent']);
    expect(delivery?.history[0]?.error).toBe(`127.0.0.1:${slack.port} answered HTTP 500`);
    expect(slack.requests).toHaveLength(3);
    expect(slack.requests.filter((_r, i) => i >= 2)).toHaveLength(1);
    // Exponential backoff: ~150 ms, then ~300 ms.
    const gaps = [1, 2].map((i) => (slack.requests[i]?.at ?? 0) - (slack.requests[i - 1]?.at ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(140);
    expect(gaps[1]).toBeGreaterThanOrEqual(290);
    await sleep(800);
    expect(slack.requests).toHaveLength(3);
  });

  it('records a 4xx refusal as failed with the HTTP status (not the body), after one attempt (never sent)', async () => {
    const slack = await receiverFor(() => ({ status: 404, body: 'no_service' }));
    const providerId = await slackProvider(slack.url());
    const id = queuedId(await publishAlert(platform.ctx, alert({ title: 'Refused' })));
    const done = await settled(id);
    expect(done.status).toBe('failed');
    expect(done.deliveries[0]).toMatchObject({ status: 'failed', attempts: 1, sent_at: null });
    expect(done.deliveries[0]?.last_error).toBe(`127.0.0.1:${slack.port} answered HTTP 404`);
    await sleep(600);
    expect(slack.requests).toHaveLength(1);
    const provider = await api.call<{ last_delivery: { status: string; error: string } }>(
      'GET',
      `/notification-providers/${providerId}`,
      {
        token,
      },
    );
    expect(provider.body.last_delivery).toMatchObject({ status: 'failed', error: done.deliveries[0]?.last_error });
  });

  it('retries HTTP 429 (rate limited), and records an SMTP 5xx refusal as failed after one attempt', async () => {
    const slack = await receiverFor((_r, index) =>
      index === 0 ? { status: 429, body: 'rate_limited', headers: { 'retry-after': '0' } } : { status: 200 },
    );
    await slackProvider(slack.url());
    const smtp = await smtpServer({ mode: 'plain', refuse: () => ({ code: 554, message: 'Transaction failed: spam' }) });
    await emailProvider(smtp);
    const id = queuedId(await publishAlert(platform.ctx, alert({ title: 'Mixed outcomes' })));
    const done = await settled(id);
    expect(done.status).toBe('partial');
    const slackDelivery = done.deliveries.find((d) => d.provider_type === 'slack');
    const emailDelivery = done.deliveries.find((d) => d.provider_type === 'email');
    expect(slackDelivery).toMatchObject({ status: 'sent', attempts: 2 });
    expect(emailDelivery).toMatchObject({ status: 'failed', attempts: 1 });
    expect(emailDelivery?.last_error).toBe(`The SMTP server at 127.0.0.1:${smtp.port} refused the message (reply 554)`);
    expect(smtp.messages).toHaveLength(0);
    expect(smtp.refused).toBe(1);
  });

  it('gives up after 5 attempts against a receiver that keeps failing, and says so', async () => {
    const slack = await receiverFor(() => ({ status: 503, body: 'unavailable' }));
    const id = queuedId(await publishAlert(platform.ctx, alert({ title: 'Always failing' })));
    // No provider yet: nothing to deliver.
    expect((await settled(id)).status).toBe('no_providers');
    await slackProvider(slack.url());
    const second = queuedId(await publishAlert(platform.ctx, alert({ title: 'Always failing' })));
    const done = await settled(second, 15_000);
    expect(done.status).toBe('failed');
    expect(done.deliveries[0]).toMatchObject({ status: 'failed', attempts: 5 });
    expect(done.deliveries[0]?.last_error).toBe(`127.0.0.1:${slack.port} answered HTTP 503 (gave up after 5 attempts)`);
    expect(done.deliveries[0]?.history.map((h) => h.outcome)).toEqual(['retry', 'retry', 'retry', 'retry', 'failed']);
    expect(slack.requests).toHaveLength(5);
  });
});

describe('providers changed while a delivery waits', () => {
  it('cancels the deliveries of a provider disabled or deleted before they were sent', async () => {
    const kept = await receiverFor();
    const disabled = await receiverFor();
    const deleted = await receiverFor();
    const keptId = await slackProvider(kept.url(), { name: 'Kept' });
    const disabledId = await slackProvider(disabled.url(), { name: 'Disabled later' });
    const deletedId = await slackProvider(deleted.url(), { name: 'Deleted later' });
    await setPreferences({ batch_similar_notifications: true }); // deliveries wait for the window
    const id = queuedId(await publishAlert(platform.ctx, alert({ title: 'Providers change' })));
    const provider = await api.call<{ name: string; config: Record<string, unknown> }>(
      'GET',
      `/notification-providers/${disabledId}`,
      {
        token,
      },
    );
    const toggled = await api.call('PUT', `/notification-providers/slack/${disabledId}`, {
      token,
      body: { name: provider.body.name, enabled: false, config: provider.body.config },
    });
    expect(toggled.status).toBe(200);
    expect((await api.call('DELETE', `/notification-providers/${deletedId}`, { token })).status).toBe(204);

    const done = await settled(id);
    expect(done.status).toBe('partial');
    const byName = Object.fromEntries(done.deliveries.map((d) => [d.provider_id ?? 'deleted', d]));
    expect(byName[keptId]).toMatchObject({ status: 'sent', attempts: 1 });
    expect(byName[disabledId]).toMatchObject({
      status: 'cancelled',
      attempts: 0,
      last_error: 'The provider was disabled before delivery',
    });
    expect(byName.deleted).toMatchObject({ status: 'cancelled', last_error: 'The provider was deleted before delivery' });
    expect(kept.requests).toHaveLength(1);
    expect(disabled.requests).toHaveLength(0);
    expect(deleted.requests).toHaveLength(0);
    const after = await api.call<{ last_delivery: unknown }>('GET', `/notification-providers/${disabledId}`, { token });
    expect(after.body.last_delivery).toBeNull();
  });
});

describe('the durable queue', () => {
  it('takes over a delivery left "sending" by a node that died, once its lease expires', async () => {
    const slack = await receiverFor();
    await slackProvider(slack.url());
    await setPreferences({ batch_similar_notifications: true }); // the delivery waits 1.5 s: time to play the dead node
    const id = queuedId(await publishAlert(platform.ctx, alert({ title: 'Orphaned delivery' })));
    const claimed = await platform.ctx.pool.query(
      `UPDATE notification_deliveries
       SET status = 'sending', attempts = 1, locked_by = 'dead-node', lease_until = clock_timestamp() + interval '1500 milliseconds'
       WHERE notification_id = $1 AND status = 'pending'`,
      [id],
    );
    expect(claimed.rowCount).toBe(1);
    await sleep(1000);
    expect(slack.requests).toHaveLength(0); // still leased to the dead node
    const done = await settled(id, 6000);
    expect(done.status).toBe('sent');
    expect(done.deliveries[0]).toMatchObject({ status: 'sent', attempts: 2 });
    expect(slack.requests).toHaveLength(1);
  });

  it('two workers sharing the database deliver every notification exactly once', async () => {
    const slack = await receiverFor(() => ({ status: 200, body: 'ok', delayMs: 150 }));
    await slackProvider(slack.url());
    const connection = platform.databaseUrl ? { connectionString: platform.databaseUrl } : platform.embedded?.connection;
    const pool = createPool({ ...connection, max: 5 });
    // The other node looks for work every 50 ms (this node is woken by its own enqueues): it cannot
    // miss the second or so of work by sleeping through an idle back-off.
    const config = { ...platform.ctx.config, jobPollMs: 50, jobIdlePollMs: 50 };
    const otherNode = startNotificationWorker({ ...platform.ctx, config, pool, db: createDb(pool) }, pino({ level: 'silent' }));
    cleanups.push(async () => {
      await otherNode.stop();
      await pool.end();
    });
    const ids: number[] = [];
    for (let i = 0; i < 24; i++) ids.push(queuedId(await publishAlert(platform.ctx, alert({ title: `Shared work ${i}` }))));
    const records = await Promise.all(ids.map((id) => settled(id, 15_000)));
    expect(records.every((r) => r.status === 'sent' && r.deliveries[0]?.attempts === 1)).toBe(true);
    const titles = slack.requests.map((r) => /Shared work \d+/.exec(textOf(r))?.[0]);
    expect(titles).toHaveLength(24);
    expect(new Set(titles).size).toBe(24);
    const nodes = new Set(records.map((r) => r.deliveries[0]?.history[0]?.node));
    expect(nodes.size).toBe(2);
  });

  it('stopping mid-send does not hang: the interrupted send goes back to the queue, uncounted, and is sent after the restart', async () => {
    const slowEnv = { ...ENV, NOTIFICATION_LEASE_SECONDS: '60' }; // a send may take 30 s: longer than the stop's grace
    const first = await startTestPlatform(slowEnv);
    let second: Awaited<ReturnType<typeof startPlatform>> | undefined;
    try {
      const firstApi = apiClient(first.url);
      const firstToken = await firstApi.login(ADMIN_EMAIL, ADMIN_PASSWORD);
      await setPreferences({}, firstApi, firstToken);
      // The first request hangs (an unresponsive receiver); later ones answer at once.
      const slack = await receiverFor((_r, index) =>
        index === 0 ? { status: 200, delayMs: 30_000 } : { status: 200, body: 'ok' },
      );
      await slackProvider(slack.url(), { target: firstApi, as: firstToken });
      const id = queuedId(await publishAlert(first.ctx, alert({ title: 'Interrupted send' })));
      await waitUntil(() => slack.requests.length === 1, 'the send to start');
      const stopping = Date.now();
      await first.stop();
      expect(Date.now() - stopping).toBeLessThan(8_000);

      second = await startPlatform(loadConfig(testEnv(first.dataDir, first.databaseUrl, slowEnv)));
      const secondApi = apiClient(second.url.replace('localhost', '127.0.0.1'));
      const done = await settled(id, 10_000, secondApi, await secondApi.login(ADMIN_EMAIL, ADMIN_PASSWORD));
      expect(done.status).toBe('sent');
      expect(done.deliveries[0]?.attempts).toBe(1);
      expect(done.deliveries[0]?.history.map((h) => h.outcome)).toEqual(['interrupted', 'sent']);
      expect(done.deliveries[0]?.history[0]?.error).toContain('platform stopped');
      expect(slack.requests).toHaveLength(2);
    } finally {
      await second?.stop();
      await first.stop();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
    }
  });

  it('a restart in the middle loses nothing: a pending delivery is sent once the platform is back and the receiver is up', async () => {
    const restartEnv = { ...ENV, NOTIFICATION_RETRY_BASE_MS: '400' };
    const first = await startTestPlatform(restartEnv);
    let second: Awaited<ReturnType<typeof startPlatform>> | undefined;
    try {
      const firstApi = apiClient(first.url);
      const firstToken = await firstApi.login(ADMIN_EMAIL, ADMIN_PASSWORD);
      await setPreferences({}, firstApi, firstToken);
      const slack = await receiverFor();
      await slackProvider(slack.url(), { target: firstApi, as: firstToken });
      await slack.stop(); // the receiver is down
      const id = queuedId(await publishAlert(first.ctx, alert({ title: 'Survives a restart' })));
      const retrying = await waitUntil(async () => {
        const found = await record(id, firstApi, firstToken);
        return found?.deliveries[0]?.attempts === 1 && found.deliveries[0].status === 'pending' ? found : undefined;
      }, 'the first attempt to fail');
      expect(retrying.deliveries[0]?.last_error).toBe(`Could not connect to 127.0.0.1:${slack.port}`);
      await first.stop();

      second = await startPlatform(loadConfig(testEnv(first.dataDir, first.databaseUrl, restartEnv)));
      const secondApi = apiClient(second.url.replace('localhost', '127.0.0.1'));
      const secondToken = await secondApi.login(ADMIN_EMAIL, ADMIN_PASSWORD);
      await slack.start();
      const done = await settled(id, 15_000, secondApi, secondToken);
      expect(done.status).toBe('sent');
      expect(done.deliveries[0]?.attempts).toBeGreaterThanOrEqual(2);
      expect(slack.requests).toHaveLength(1);
      expect(textOf(slack.requests[0])).toContain('Survives a restart');
    } finally {
      await second?.stop();
      await first.stop();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});
