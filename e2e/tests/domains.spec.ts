import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import {
  freePort,
  type Pebble,
  type PlatformProcess,
  REPO_ROOT,
  spawnPlatformProcess,
  startPebble,
  waitForPlatform,
} from '@launchbay/testkit';
import { type APIRequestContext, request } from '@playwright/test';
import { test as base, CONSOLE_DIST, type Credentials, expect, signIn, toast } from '../fixtures';

/*
 * Certificates in the console against a real ACME server: Pebble, whose DNS answers 127.0.0.1 for
 * every name, so its HTTP-01 validation really reaches this platform's edge. The shared worker
 * platform cannot be told where Pebble is (its environment is fixed), so this spec starts a
 * platform of its own with the ACME settings and points the browser at it.
 *
 * An exact name is added from the header's Create new menu, is provisioned at once through the
 * edge, and shows Active with the edge serving its certificate (checked here over TLS as well). A
 * wildcard shows its TXT record; Verify and issue before the record exists says so, after it is
 * created the certificate is issued.
 */

const SHOP = 'e2e-shop.example.test';
const WILDCARD = '*.e2e-wild.example.test';
const TXT_NAME = '_acme-challenge.e2e-wild.example.test';

const STARTUP_TIMEOUT_MS = 45_000;
const SHUTDOWN_TIMEOUT_MS = 25_000;

interface AcmePlatform {
  readonly url: string;
  readonly admin: Credentials;
  readonly pebble: Pebble;
  /** The edge's HTTPS port (PROXY_TLS_PORT). */
  readonly tlsPort: number;
  /** Signed in as the admin (bearer token). */
  readonly api: APIRequestContext;
  logs(): string;
}

async function loginToken(baseURL: string, credentials: Credentials): Promise<string> {
  const response = await fetch(`${baseURL}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  const body = (await response.json()) as { token?: string };
  if (response.status !== 200 || !body.token) throw new Error(`Sign-in failed (${response.status}): ${JSON.stringify(body)}`);
  return body.token;
}

/** The certificate the edge presents for `serverName`: its SHA-256 fingerprint (hex), verified against `ca`. */
function servedFingerprint(port: number, serverName: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: serverName, ca, timeout: 5000 });
    socket.once('secureConnect', () => {
      const fingerprint = socket.getPeerX509Certificate()?.fingerprint256.replaceAll(':', '').toLowerCase() ?? '';
      socket.destroy();
      resolve(fingerprint);
    });
    socket.once('timeout', () => socket.destroy(new Error(`TLS to the edge for ${serverName} timed out`)));
    socket.once('error', reject);
  });
}

const test = base.extend<object, { acme: AcmePlatform }>({
  acme: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies by destructuring
    async ({}, use, workerInfo) => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `launchbay-e2e-acme-w${workerInfo.workerIndex}-`));
      // The embedded PostgreSQL runs as the 'postgres' user: it must be able to traverse the folder.
      fs.chmodSync(dataDir, 0o711);
      const consoleDir = path.join(dataDir, 'console');
      fs.cpSync(CONSOLE_DIST, consoleDir, { recursive: true });
      const caFile = path.join(dataDir, 'pebble-listener.pem');
      const [proxyPort, tlsPort, dnsPort] = [await freePort(), await freePort(), await freePort()];
      // Certificates for 90 days; Pebble validates HTTP-01 on the edge's plain HTTP port.
      const pebble = await startPebble({ httpPort: proxyPort, dnsPort, caFile, validityHours: 24 * 90 });
      const admin = { email: 'admin@launchbay.test', password: 'e2e-admin-password' };
      let platform: PlatformProcess | null = null;
      let api: APIRequestContext | null = null;
      try {
        platform = await spawnPlatformProcess({
          cwd: REPO_ROOT,
          inheritEnv: true,
          outputLimit: 32_000,
          env: {
            DATA_DIR: path.join(dataDir, 'data'),
            CONSOLE_DIR: consoleDir,
            ADMIN_EMAIL: admin.email,
            ADMIN_PASSWORD: admin.password,
            LOG_LEVEL: 'warn',
            PROXY_PORT: String(proxyPort),
            PROXY_TLS_PORT: String(tlsPort),
            ACME_HTTP_PORT: String(proxyPort),
            ACME_CA_FILE: caFile,
            DNS_SERVERS: pebble.dnsServer,
          },
        });
        await waitForPlatform(platform, { timeoutMs: STARTUP_TIMEOUT_MS, everyMs: 100 });
        const token = await loginToken(platform.url, admin);
        api = await request.newContext({ baseURL: platform.url, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
        const settings = await api.put('/api/settings', { data: { acme_directory_url: pebble.directoryUrl } });
        expect(settings.status(), `PUT /api/settings: ${await settings.text()}`).toBe(200);
        const running = platform;
        await use({ url: platform.url, admin, pebble, tlsPort, api, logs: () => running.output() });
      } finally {
        await api?.dispose();
        await platform?.stop({ killAfterMs: SHUTDOWN_TIMEOUT_MS });
        await platform?.stopEdge();
        await pebble.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    { scope: 'worker', timeout: 120_000 },
  ],
  // The browser talks to this spec's platform; the shared worker platform is not needed.
  baseURL: async ({ acme }, use) => {
    await use(acme.url);
  },
  admin: async ({ acme }, use) => {
    await use(acme.admin);
  },
  // Still automatic (an override keeps that), but without starting the shared platform.
  // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies by destructuring
  _platformUp: async ({}, use) => {
    await use(undefined);
  },
});

test('an exact name and a wildcard get certificates from the ACME server, served by the edge', async ({ page, admin, acme }) => {
  // Two certificates with real validation, and a platform of its own: several times that on a busy CI machine.
  test.setTimeout(240_000);
  const { pebble } = acme;
  try {
    await signIn(page, admin, '/domains');
    await expect(page).toHaveTitle('Domains - Launchbay');
    await expect(page.getByRole('heading', { name: 'No domains yet' })).toBeVisible();

    // The header's quick action leads to the form; an invalid name gets the contract's message.
    await page.getByRole('banner').getByRole('button', { name: 'Create new' }).click();
    await page.getByRole('menuitem', { name: 'Provision Domain' }).click();
    await expect(page).toHaveURL(/\/domains\/add$/);
    await expect(page).toHaveTitle('Provision Domain - Launchbay');
    const field = page.getByLabel('Domain', { exact: true });
    await field.fill('not a domain');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await expect(page.getByText('Enter a domain such as shop.example.com or *.example.com', { exact: true })).toBeVisible();
    await expect(field).toHaveAttribute('aria-invalid', 'true');

    // An exact name: added, provisioned at once through the edge (HTTP-01), followed on its page.
    await field.fill(SHOP);
    await expect(page.getByTestId('domain-next-steps')).toContainText('validated through the edge (HTTP-01)');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await expect(toast(page, 'Domain added')).toContainText(SHOP);
    await expect(page).toHaveURL(/\/domains\/\d+$/);
    await expect(page).toHaveTitle(`${SHOP} - Launchbay`);
    await expect(page.getByRole('heading', { level: 1, name: SHOP })).toBeVisible();
    const header = page.locator('main h1').locator('..');
    await expect(header.getByText('Active', { exact: true })).toBeVisible({ timeout: 60_000 });
    const served = page.getByTestId('domain-served-card');
    await expect(served.getByText('The edge serves this certificate', { exact: true })).toBeVisible({ timeout: 30_000 });
    await expect(served).toHaveAttribute('data-served', 'match');
    const certificate = page.getByTestId('domain-certificate');
    await expect(certificate.getByTestId('domain-expiry')).toHaveText(/^Expires in \d+ days$/);
    const days = Number(await certificate.getByTestId('domain-days-remaining').textContent());
    expect(days).toBeGreaterThanOrEqual(88);
    expect(days).toBeLessThanOrEqual(90);
    await expect(page.getByTestId('domain-last-error')).toHaveCount(0);

    // The fingerprint shown is what the edge presents over TLS, signed by Pebble's root.
    const shown = await certificate.locator('code[title]').getAttribute('title');
    expect(shown).toMatch(/^[0-9a-f]{64}$/);
    expect(await servedFingerprint(acme.tlsPort, SHOP, await pebble.issuingRoot())).toBe(shown);

    // The HTTP-01 check: the name points here, the edge's port 80 answers, no token pending.
    const check = page.getByTestId('domain-http-check');
    await check.getByRole('button', { name: 'Run check' }).click();
    await expect(check.getByTestId('http-check-result')).toHaveAttribute('data-ready', 'true', { timeout: 20_000 });
    for (const name of ['dns', 'port_80', 'token']) {
      await expect(check.getByTestId(`http-check-${name}`)).toHaveAttribute('data-ok', 'true');
    }
    await expect(check.getByTestId('http-check-dns')).toContainText(`${SHOP} points here`);

    // A wildcard, from the list's Add domain: its TXT record to create.
    await page.getByRole('link', { name: 'Domains', exact: true }).first().click();
    await expect(page).toHaveURL(/\/domains$/);
    const shopRow = page.getByTestId(`domain-row-${SHOP}`);
    await expect(shopRow.getByText('Active', { exact: true })).toBeVisible();
    await expect(shopRow.getByTestId('domain-expiry')).toHaveText(`Expires in ${days} days`);
    await expect(shopRow.getByTestId('domain-served')).toHaveText('Served');
    await page.getByRole('main').getByRole('link', { name: 'Add domain' }).click();
    await expect(page).toHaveURL(/\/domains\/add$/);
    await page.getByLabel('Domain', { exact: true }).fill(WILDCARD);
    await expect(page.getByTestId('domain-next-steps')).toContainText(TXT_NAME);
    await page.getByRole('button', { name: 'Add domain' }).click();
    await expect(page).toHaveURL(/\/domains\/\d+$/);
    await expect(page.getByRole('heading', { level: 1, name: WILDCARD })).toBeVisible();
    const step = page.getByTestId('dns-step');
    await expect(step).toBeVisible({ timeout: 30_000 });
    const record = step.getByTestId('txt-record');
    await expect(record.locator('dd').first()).toHaveText(TXT_NAME);
    const value = (await record.locator('dd').nth(1).locator('code').textContent()) ?? '';
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await expect(page.getByTestId('dns-record-TXT')).toContainText(value);
    await expect(page.getByTestId('challenge-dns-01')).toContainText('Waiting');
    await expect(page.getByTestId('domain-http-check')).toHaveCount(0);

    // Verify before the record exists: the reason, inline; nothing is issued.
    await step.getByRole('button', { name: 'Verify and issue' }).click();
    await expect(step.getByTestId('finalize-error')).toContainText(
      `No TXT record ${TXT_NAME} yet: create it with the value "${value}"`,
    );
    await expect(page.locator('main h1').locator('..').getByText('Provisioning', { exact: true })).toBeVisible();

    // The record created: verified, issued, served.
    await pebble.setTxt(TXT_NAME, value);
    await step.getByRole('button', { name: 'Verify and issue' }).click();
    await expect(toast(page, 'Certificate issued')).toContainText(WILDCARD, { timeout: 60_000 });
    await expect(page.locator('main h1').locator('..').getByText('Active', { exact: true })).toBeVisible();
    await expect(page.getByTestId('dns-step')).toHaveCount(0);
    await expect(
      page.getByTestId('domain-served-card').getByText('The edge serves this certificate', { exact: true }),
    ).toBeVisible();
    await expect(page.getByTestId('domain-certificate').getByTestId('domain-expiry')).toHaveText(/^Expires in \d+ days$/);
    const wildcardShown = await page.getByTestId('domain-certificate').locator('code[title]').getAttribute('title');
    expect(await servedFingerprint(acme.tlsPort, 'any.e2e-wild.example.test', await pebble.issuingRoot())).toBe(wildcardShown);

    // Deleted after the confirmation: back on the list, only the exact name is left.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = page.getByRole('alertdialog', { name: `Delete ${WILDCARD}?` });
    await confirm.getByRole('button', { name: 'Delete domain' }).click();
    await expect(toast(page, 'Domain deleted')).toContainText(WILDCARD);
    await expect(page).toHaveURL(/\/domains$/);
    await expect(page.getByTestId(`domain-row-${WILDCARD}`)).toHaveCount(0);
    await expect(page.getByTestId(`domain-row-${SHOP}`)).toBeVisible();
  } finally {
    await pebble.clearTxt(TXT_NAME);
    const list = await acme.api.get('/api/domains');
    const { domains } = (await list.json()) as { domains: { id: number }[] };
    for (const domain of domains) await acme.api.delete(`/api/domains/${domain.id}`);
  }
});
