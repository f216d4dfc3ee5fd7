import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, type PlatformProcess, SERVER_MAIN_JS, spawnPlatformProcess, waitForPlatform } from '@launchbay/testkit';
import { type APIRequestContext, test as base, expect, type Page, request } from '@playwright/test';
import { generate } from 'otplib';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
export const SERVER_MAIN = SERVER_MAIN_JS;
export const CONSOLE_DIST = path.join(repoRoot, 'apps/console/dist');
export const CONSOLE_INDEX = path.join(CONSOLE_DIST, 'index.html');

const STARTUP_TIMEOUT_MS = 45_000;
const SHUTDOWN_TIMEOUT_MS = 25_000;
const LOG_TAIL_CHARS = 8_000;

/** The server and the console must be built: the tests run the real artefacts. */
export function assertBuilt(): void {
  const missing = [SERVER_MAIN, CONSOLE_INDEX].filter((file) => !fs.existsSync(file));
  if (missing.length > 0) {
    throw new Error(
      `Missing build output: ${missing.map((file) => path.relative(repoRoot, file)).join(', ')}. ` +
        'Run npm run build first (npm run build -w apps/server && npm run build -w apps/console).',
    );
  }
}

export interface Credentials {
  email: string;
  password: string;
}

export interface CreatedUser extends Credentials {
  id: number;
  username: string;
}

export interface MfaEnrolment {
  secret: string;
  recoveryCodes: string[];
  /** The 30-second TOTP step the setup code used; the server refuses it (and older steps) afterwards. */
  usedStep: number;
}

export interface Platform {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  readonly admin: Credentials;
  /** An API client signed in as the first admin (bearer token). */
  readonly adminApi: APIRequestContext;
  isRunning(): boolean;
  /** SIGTERM, then wait for the process to exit. */
  stop(): Promise<void>;
  /** Start again on the same port and DATA_DIR; resolves once /api/health answers 200. */
  start(): Promise<void>;
  /** Start the platform if a test left it stopped. */
  ensureRunning(): Promise<void>;
  /** The tail of the server's stdout/stderr, for failure messages. */
  logs(): string;
  createUser(options?: { roles?: ('admin' | 'user' | 'reader')[]; username?: string }): Promise<CreatedUser>;
  enableMfa(user: Credentials): Promise<MfaEnrolment>;
}

export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;

export const TOTP_PERIOD_S = 30;
export const currentStep = () => Math.floor(Date.now() / 1000 / TOTP_PERIOD_S);

/** A TOTP code for the first step after `usedStep` the server still accepts (it allows one step of drift). */
export async function nextTotp(secret: string, usedStep: number): Promise<{ code: string; step: number }> {
  const step = Math.max(usedStep + 1, currentStep());
  return { code: await generate({ secret, epoch: step * TOTP_PERIOD_S }), step };
}

/** One worker's platform: the testkit's platform process, restarted on the same port and data. */
class WorkerPlatform implements Platform {
  readonly url: string;
  readonly admin: Credentials = { email: 'admin@launchbay.test', password: 'e2e-admin-password' };
  #process: PlatformProcess | null = null;
  #adminApi: APIRequestContext | null = null;

  constructor(
    readonly port: number,
    readonly dataDir: string,
    readonly consoleDir: string,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  get adminApi(): APIRequestContext {
    if (!this.#adminApi) throw new Error('The platform has not been started');
    return this.#adminApi;
  }

  isRunning(): boolean {
    return this.#process?.isRunning() ?? false;
  }

  logs(): string {
    return (this.#process?.output() ?? '').slice(-LOG_TAIL_CHARS);
  }

  async start(): Promise<void> {
    if (this.isRunning()) return;
    // PROXY_PORT=0 (the testkit's default): each worker's edge proxy takes a free port; it outlives
    // the platform's stop, so dispose() ends it.
    this.#process = await spawnPlatformProcess({
      port: this.port,
      cwd: repoRoot,
      inheritEnv: true,
      outputLimit: 4 * LOG_TAIL_CHARS,
      env: {
        DATA_DIR: path.join(this.dataDir, 'data'),
        CONSOLE_DIR: this.consoleDir,
        ADMIN_EMAIL: this.admin.email,
        ADMIN_PASSWORD: this.admin.password,
        LOG_LEVEL: 'warn',
      },
    });
    await waitForPlatform(this.#process, { timeoutMs: STARTUP_TIMEOUT_MS, everyMs: 100 });

    if (!this.#adminApi) {
      const token = await loginToken(this.url, this.admin);
      this.#adminApi = await request.newContext({
        baseURL: this.url,
        extraHTTPHeaders: { authorization: `Bearer ${token}` },
      });
    }
  }

  async stop(): Promise<void> {
    await this.#process?.stop({ killAfterMs: SHUTDOWN_TIMEOUT_MS });
  }

  async ensureRunning(): Promise<void> {
    if (!this.isRunning()) await this.start();
  }

  async dispose(): Promise<void> {
    await this.#adminApi?.dispose();
    await this.stop();
    await this.#process?.stopEdge();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  async createUser(options: { roles?: ('admin' | 'user' | 'reader')[]; username?: string } = {}): Promise<CreatedUser> {
    const username = options.username ?? unique('e2e-user');
    const user = {
      username,
      email: `${username}@launchbay.test`,
      password: 'e2e-user-password',
      roles: options.roles ?? ['user'],
    };
    const response = await this.adminApi.post('/api/users', { data: user });
    expect(response.status(), `POST /api/users: ${await response.text()}`).toBe(201);
    const body = (await response.json()) as { id: number };
    return { id: body.id, username, email: user.email, password: user.password };
  }

  async enableMfa(user: Credentials): Promise<MfaEnrolment> {
    const token = await loginToken(this.url, user);
    const api = await request.newContext({ baseURL: this.url, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
    try {
      const setup = await api.post('/api/users/me/mfa/setup');
      expect(setup.status(), `POST /api/users/me/mfa/setup: ${await setup.text()}`).toBe(200);
      const { secret } = (await setup.json()) as { secret: string };
      const usedStep = currentStep();
      const code = await generate({ secret, epoch: usedStep * TOTP_PERIOD_S });
      const verify = await api.post('/api/users/me/mfa/verify', { data: { code } });
      expect(verify.status(), `POST /api/users/me/mfa/verify: ${await verify.text()}`).toBe(200);
      const { recovery_codes } = (await verify.json()) as { recovery_codes: string[] };
      expect(recovery_codes.length).toBeGreaterThan(0);
      return { secret, recoveryCodes: recovery_codes, usedStep };
    } finally {
      await api.dispose();
    }
  }
}

async function loginToken(baseURL: string, credentials: Credentials): Promise<string> {
  const response = await fetch(`${baseURL}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  const body = (await response.json()) as { token?: string; mfa_required?: boolean; detail?: string };
  if (response.status !== 200 || !body.token) {
    throw new Error(`Sign-in of ${credentials.email} failed (${response.status}): ${JSON.stringify(body)}`);
  }
  return body.token;
}

/**
 * Signs the page's browser context in through the API (the session is the httpOnly 'lb_session'
 * cookie that POST /api/auth/login sets; page.request shares the context's cookie jar), then opens
 * `path` and waits for the app shell.
 */
export async function signIn(page: Page, credentials: Credentials, path = '/dashboard'): Promise<void> {
  const response = await page.request.post('/api/auth/login', { data: credentials });
  expect(response.status(), `POST /api/auth/login: ${await response.text()}`).toBe(200);
  const body = (await response.json()) as { mfa_required: boolean };
  expect(body.mfa_required, 'signIn() cannot complete MFA; use the UI flow').toBe(false);
  await page.goto(path);
  // The app shell's header (the sidebar is a closed drawer on small screens). When it does not
  // come, the message says what the page shows instead (a CI run only keeps the log). Twice the
  // usual wait: on a CI machine of 2 CPUs at a load of 12 the first render of a page took longer
  // than 10 s, and the message then showed the shell that had arrived meanwhile.
  try {
    await expect(page.getByRole('banner')).toBeVisible({ timeout: 20_000 });
  } catch (error) {
    const shown = await page
      .evaluate(() => (document.body.textContent ?? '').replace(/\s+/g, ' ').slice(0, 500))
      .catch((e: unknown) => `(unreadable: ${String(e)})`);
    throw new Error(`signIn(${path}): no app shell at ${page.url()}; the page shows: ${shown}`, { cause: error });
  }
}

/** A toast (sonner) whose title is exactly `title`; assert its description with toContainText. */
export function toast(page: Page, title: string) {
  return page.locator('[data-sonner-toast]').filter({ has: page.locator('[data-title]').getByText(title, { exact: true }) });
}

/**
 * Closes every toast on the page with its close button, so the next toast a test expects is the
 * next action's and not one of the same title still showing from the action before (4 s each).
 */
export async function closeToasts(page: Page): Promise<void> {
  await page.evaluate(() => {
    document.querySelectorAll<HTMLButtonElement>('[data-sonner-toast] [data-close-button]').forEach((button) => {
      button.click();
    });
  });
  await expect(page.locator('[data-sonner-toast]')).toHaveCount(0);
}

type WorkerFixtures = { platform: Platform };
type TestFixtures = { admin: Credentials; _platformUp: undefined; cspViolations: string[] };

/** What Chromium reports when the Content-Security-Policy blocks something. */
const CSP_REPORT = /Content Security Policy|CSP violation/i;

export const test = base.extend<TestFixtures, WorkerFixtures>({
  platform: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies by destructuring
    async ({}, use, workerInfo) => {
      assertBuilt();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `launchbay-e2e-w${workerInfo.workerIndex}-`));
      // The embedded PostgreSQL runs as the 'postgres' user: it must be able to traverse the folder.
      fs.chmodSync(dataDir, 0o711);
      // Serve a snapshot of the built console, so a rebuild of apps/console/dist while the suite
      // runs (new chunk names, old ones deleted) cannot break a page in the middle of a test.
      const consoleDir = path.join(dataDir, 'console');
      fs.cpSync(CONSOLE_DIST, consoleDir, { recursive: true });
      if (!fs.existsSync(path.join(consoleDir, 'index.html'))) {
        throw new Error('apps/console/dist was being rebuilt while the suite started: run the tests again');
      }
      const platform = new WorkerPlatform(await freePort(), dataDir, consoleDir);
      try {
        await platform.start();
        await use(platform);
      } finally {
        await platform.dispose();
      }
    },
    { scope: 'worker', timeout: 90_000 },
  ],
  // Every page of every test runs under the platform's real CSP: a violation fails the test.
  cspViolations: [
    async ({ page }, use) => {
      const violations: string[] = [];
      page.on('console', (message) => {
        if (CSP_REPORT.test(message.text())) violations.push(message.text());
      });
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || 'inline code'}`);
        });
      });
      await use(violations);
      expect(violations, 'the Content-Security-Policy blocked something the console loads').toEqual([]);
    },
    { auto: true },
  ],
  baseURL: async ({ platform }, use) => {
    await use(platform.url);
  },
  admin: async ({ platform }, use) => {
    await use(platform.admin);
  },
  // A test that stops the platform and fails before restarting it must not break the next one.
  _platformUp: [
    async ({ platform }, use) => {
      await platform.ensureRunning();
      await use(undefined);
    },
    { auto: true },
  ],
});

export { expect };
