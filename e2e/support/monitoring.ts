import {
  type ReceivedMail as SmtpMessage,
  startSmtpServer,
  startWebhookReceiver,
  type WebhookReceiver,
} from '@launchbay/testkit';
import { expect, type Locator, type Page } from '@playwright/test';
import { type Platform, test as platformTest } from '../fixtures';

/*
 * Real receivers for the monitoring tests, from the testkit: an SMTP server (the smtp-server
 * package, plain mode, any login accepted) and an HTTP server standing in for Slack's incoming
 * webhooks. Both listen on 127.0.0.1 only and record what they get.
 */

export { SLACK_SECRET_PATH, startWebhookReceiver, type WebhookReceiver, type WebhookRequest } from '@launchbay/testkit';

export interface ReceivedMail {
  /** The user the client signed in as, when it did. */
  user: string | undefined;
  /** The envelope's sender. */
  from: string;
  /** The envelope's recipients. */
  to: string[];
  raw: string;
  /** The Subject header, unfolded and decoded. */
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

const received = (mail: SmtpMessage): ReceivedMail => ({
  user: mail.user,
  from: mail.envelopeFrom,
  to: mail.envelopeTo,
  raw: mail.raw,
  subject: mail.subject,
});

/** The testkit's SMTP server in plain mode (no STARTTLS: every TLS mode but Tls talks to it in the clear), any login accepted. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const server = await startSmtpServer({ mode: 'plain', auth: 'any' });
  return {
    port: server.port,
    get messages() {
      return server.messages.map(received);
    },
    logins: server.logins,
    waitForMessage: async (match, timeoutMs) => received(await server.waitForMessage((mail) => match(received(mail)), timeoutMs)),
    stop: () => server.close(),
    close: () => server.close(),
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
