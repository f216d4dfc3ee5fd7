import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { expect, type Locator, type Page } from '@playwright/test';
import { SMTPServer } from 'smtp-server';
import { type Platform, test as platformTest } from '../fixtures';

/*
 * Real receivers for the monitoring tests: an SMTP server (the smtp-server package, plain mode,
 * authentication optional) and an HTTP server standing in for Slack's incoming webhooks. Both
 * listen on 127.0.0.1 only, record what they get, and can be stopped and started on the same port.
 */

export interface ReceivedMail {
  /** The user the client signed in as, when it did. */
  user: string | undefined;
  from: string;
  to: string[];
  raw: string;
  /** The Subject header, unfolded. */
  subject: string;
}

export interface SmtpReceiver {
  readonly port: number;
  readonly messages: ReceivedMail[];
  /** Every sign-in the receiver accepted (it accepts any), with the password the client sent. */
  readonly logins: { username: string; password: string }[];
  /** Resolves with the first message (now or later) that matches. */
  waitForMessage(match: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** Stops listening: connections to the port are refused (a receiver that is down). */
  stop(): Promise<void>;
  close(): Promise<void>;
}

function headerValue(raw: string, name: string): string {
  const head = raw.split(/\r?\n\r?\n/, 1)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line ? line.slice(name.length + 1).trim() : '';
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = [];
  const logins: { username: string; password: string }[] = [];
  const waiters: { match: (mail: ReceivedMail) => boolean; resolve: (mail: ReceivedMail) => void }[] = [];
  const server = new SMTPServer({
    secure: false,
    // Plain mode: no STARTTLS offered, so every TLS mode but Tls talks to it in the clear.
    disabledCommands: ['STARTTLS'],
    hideSTARTTLS: true,
    authOptional: true,
    // Clients that sign in do so over the plain connection (TLS mode None).
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mail: ReceivedMail = {
          user: typeof session.user === 'string' ? session.user : undefined,
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw,
          subject: headerValue(raw, 'Subject'),
        };
        messages.push(mail);
        for (const waiter of [...waiters]) {
          if (waiter.match(mail)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(mail);
          }
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  let listening = true;

  const stop = async () => {
    if (!listening) return;
    listening = false;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  return {
    port,
    messages,
    logins,
    waitForMessage(match, timeoutMs = 15_000) {
      const found = messages.find(match);
      if (found) return Promise.resolve(found);
      return new Promise<ReceivedMail>((resolve, reject) => {
        const waiter = {
          match,
          resolve: (mail: ReceivedMail) => {
            clearTimeout(timer);
            resolve(mail);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`No matching mail within ${timeoutMs} ms; got ${messages.length}`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    stop,
    close: stop,
  };
}

export interface WebhookRequest {
  path: string;
  body: string;
  json: unknown;
}

export interface WebhookReceiver {
  readonly port: number;
  readonly requests: WebhookRequest[];
  /** A webhook URL on this receiver; the path plays the part of Slack's secret. */
  url(path?: string): string;
  waitForRequest(match: (request: WebhookRequest) => boolean, timeoutMs?: number): Promise<WebhookRequest>;
  close(): Promise<void>;
}

export const SLACK_SECRET_PATH = '/services/T0E2E/B0E2E/e2e-secret-token';

/** An HTTP server on 127.0.0.1 that answers 200 'ok' like Slack and records every request. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: WebhookRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      requests.push({ path: req.url ?? '', body, json });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    requests,
    url: (path = SLACK_SECRET_PATH) => `http://127.0.0.1:${port}${path}`,
    async waitForRequest(match, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = requests.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`No matching webhook request within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// API set-up (the UI under test is the console; these only prepare and check server state)

export interface EmailProviderInput {
  name: string;
  enabled?: boolean;
  smtpPort: number;
  from?: string;
  to?: string[];
  /** Sign in to the SMTP server with these. */
  login?: { username: string; password: string };
}

export async function createEmailProvider(platform: Platform, input: EmailProviderInput): Promise<{ id: number }> {
  const response = await platform.adminApi.post('/api/notification-providers/email', {
    data: {
      name: input.name,
      enabled: input.enabled ?? true,
      config: {
        smtp_host: '127.0.0.1',
        smtp_port: input.smtpPort,
        username: input.login?.username ?? '',
        password: input.login?.password ?? '',
        from_address: input.from ?? 'alerts@launchbay.test',
        to_addresses: input.to ?? ['ops@launchbay.test'],
        from_name: 'Launchbay E2E',
        tls_mode: 'None',
        starttls_required: false,
        accept_invalid_certs: false,
      },
    },
  });
  expect(response.status(), `POST /api/notification-providers/email: ${await response.text()}`).toBe(201);
  return (await response.json()) as { id: number };
}

export interface ProviderDto {
  id: number;
  name: string;
  provider_type: 'email' | 'slack';
  enabled: boolean;
  config: Record<string, unknown>;
}

export async function listProviders(platform: Platform): Promise<ProviderDto[]> {
  const response = await platform.adminApi.get('/api/notification-providers');
  expect(response.status()).toBe(200);
  return (await response.json()) as ProviderDto[];
}

export async function deleteAllProviders(platform: Platform): Promise<void> {
  for (const provider of await listProviders(platform)) {
    const response = await platform.adminApi.delete(`/api/notification-providers/${provider.id}`);
    expect(response.status()).toBe(204);
  }
}

export async function getPreferences(platform: Platform): Promise<Record<string, unknown>> {
  const response = await platform.adminApi.get('/api/notification-preferences');
  expect(response.status()).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Console helpers

/** The card of one provider on the Providers tab. */
export function providerCard(page: Page, name: string): Locator {
  return page.getByRole('article', { name, exact: true });
}

/** Opens a provider card's ... menu and picks an item. */
export async function providerMenu(page: Page, name: string, item: 'Edit' | 'Test' | 'Delete'): Promise<void> {
  await providerCard(page, name)
    .getByRole('button', { name: `Actions for ${name}`, exact: true })
    .click();
  await page.getByRole('menuitem', { name: item, exact: true }).click();
}

/** Picks an option of a Radix select (combobox) by its label. */
export async function chooseOption(page: Page, combobox: Locator, option: string): Promise<void> {
  await combobox.click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

// ---------------------------------------------------------------------------------------------
// Fixtures: a fresh SMTP receiver and Slack stand-in per test, closed afterwards

export const test = platformTest.extend<{ smtp: SmtpReceiver; webhook: WebhookReceiver }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies by destructuring
  smtp: async ({}, use) => {
    const receiver = await startSmtpReceiver();
    try {
      await use(receiver);
    } finally {
      await receiver.close();
    }
  },
  // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies by destructuring
  webhook: async ({}, use) => {
    const receiver = await startWebhookReceiver();
    try {
      await use(receiver);
    } finally {
      await receiver.close();
    }
  },
});
