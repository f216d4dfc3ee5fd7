import fs from 'node:fs';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import type { Page } from '@playwright/test';
import { expect, test, unique } from '../fixtures';
import { waitForDeployment } from '../support/deployments';

/*
 * Every screen of one deployed project in the light and the dark theme, on a desktop (1280x800)
 * and on a phone (375x812): the page shows its heading or key content, the page itself never
 * scrolls sideways (regions of their own, like a table's wrapper or a log, may), and the theme is
 * really applied (the html element's class as index.html and app/theme.tsx set it from
 * localStorage 'theme', and the body's background). A full-page screenshot of each case goes to
 * /tmp/shots/{screen}-{theme}-{width}.png for a human look. The project comes from a real git
 * repository, deployed once per worker and deleted at the end.
 */

const SHOTS_DIR = '/tmp/shots';

type Theme = 'light' | 'dark';
const THEMES: Theme[] = ['light', 'dark'];
const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 375, height: 812 },
] as const;

type Project = { id: number; slug: string; name: string; url: string };

interface Context {
  project: Project;
  deploymentId: number;
  marker: string;
}

interface Screen {
  /** The screenshot's name. */
  name: string;
  path: (ctx: Context) => string;
  /** Waits for the screen's heading or key content: what makes it this screen, loaded. */
  ready: (page: Page, ctx: Context) => Promise<void>;
}

const PACKAGE_JSON = JSON.stringify({
  name: 'responsive-storefront',
  version: '1.0.0',
  private: true,
  scripts: { build: 'node build.js', start: 'node server.js' },
});

/** A build log as builds write them: a few steps, colour, and one long unbroken line (a URL). */
const BUILD_JS = (marker: string) => `
console.log('\\u001b[34m${marker}\\u001b[0m: compiling the storefront');
console.log('fetched https://registry.example.com/@storefront/design-system/-/design-system-4.12.0-beta.3+build.20240611.tgz?integrity=sha512-' + 'a'.repeat(120));
console.log('${marker}: wrote dist/ in 1.2 s');
console.log('build finished');
`;

const SERVER_JS = (marker: string) => `
const http = require('node:http');
console.log('${marker}: the storefront listens on port ' + process.env.PORT);
http.createServer((req, res) => {
  console.log('${marker}: served ' + req.method + ' ' + req.url);
  res.setHeader('content-type', 'text/plain');
  res.end('storefront');
}).listen(Number(process.env.PORT), process.env.HOST);
`;

const main = (page: Page) => page.getByRole('main');

const SCREENS: Screen[] = [
  {
    name: 'dashboard',
    path: () => '/dashboard',
    ready: async (page, { project }) => {
      await expect(main(page).getByRole('heading', { level: 1 })).toHaveText(/^Good (morning|afternoon|evening), /);
      await expect(main(page).locator(`a[href="/projects/${project.slug}"]`).first()).toBeVisible();
    },
  },
  {
    name: 'projects',
    path: () => '/projects',
    ready: async (page, { project }) => {
      await expect(main(page).getByRole('heading', { level: 1, name: 'Projects', exact: true })).toBeVisible();
      await expect(main(page).getByText(project.name, { exact: true }).first()).toBeVisible();
    },
  },
  {
    name: 'projects-new',
    path: () => '/projects/new',
    ready: async (page) => {
      await expect(main(page).getByRole('heading', { level: 1, name: 'Create Project', exact: true })).toBeVisible();
      await expect(page.getByLabel('Git URL')).toBeVisible();
    },
  },
  {
    name: 'project-overview',
    path: ({ project }) => `/projects/${project.slug}`,
    ready: async (page, { project }) => {
      await expect(main(page).getByRole('heading', { level: 1, name: project.name, exact: true })).toBeVisible();
      await expect(page.getByRole('region', { name: 'Production deployment' }).locator('[data-slot="status-badge"]')).toHaveText(
        'Ready',
      );
      await expect(page.getByRole('region', { name: 'Latest deployments' })).toBeVisible();
    },
  },
  {
    name: 'project-deployments',
    path: ({ project }) => `/projects/${project.slug}/deployments`,
    ready: async (page) => {
      await expect(main(page).getByRole('heading', { name: 'Deployments', exact: true })).toBeVisible();
      await expect(main(page).getByText(/^Showing 1–1 of 1$/)).toBeVisible();
    },
  },
  {
    name: 'project-deployment',
    path: ({ project, deploymentId }) => `/projects/${project.slug}/deployments/${deploymentId}`,
    ready: async (page, { deploymentId, marker }) => {
      await expect(main(page).getByRole('heading', { name: `Deployment #${deploymentId}`, exact: true })).toBeVisible();
      await expect(page.getByTestId('deployment-header')).toContainText('Ready');
      const log = page.getByRole('log', { name: `Log of deployment #${deploymentId}` });
      await expect(log).toContainText(`${marker}: wrote dist/`);
      await expect(log).toContainText('build finished');
    },
  },
  {
    name: 'project-runtime',
    path: ({ project }) => `/projects/${project.slug}/runtime`,
    ready: async (page, { marker }) => {
      await expect(main(page).getByRole('heading', { name: 'Runtime', exact: true })).toBeVisible();
      await expect(page.getByRole('log', { name: 'Runtime log of production', exact: true })).toContainText(
        `${marker}: the storefront listens on port`,
        { timeout: 20_000 },
      );
    },
  },
  {
    name: 'settings-general',
    path: ({ project }) => `/projects/${project.slug}/settings/general`,
    ready: async (page) => {
      const cardTitles = main(page).locator('[data-slot="card-title"]');
      await expect(cardTitles.filter({ hasText: /^Project name$/ })).toBeVisible();
      await expect(cardTitles.filter({ hasText: /^Build settings$/ })).toBeVisible();
    },
  },
  {
    name: 'settings-environments',
    path: ({ project }) => `/projects/${project.slug}/settings/environments`,
    ready: async (page) => {
      await expect(main(page).getByRole('heading', { name: 'Environments', exact: true })).toBeVisible();
      await expect(main(page).getByText('Production', { exact: true }).first()).toBeVisible();
    },
  },
  {
    name: 'settings-environment-variables',
    path: ({ project }) => `/projects/${project.slug}/settings/environment-variables`,
    ready: async (page) => {
      await expect(main(page).getByRole('heading', { name: 'Environment Variables', exact: true })).toBeVisible();
      await expect(page.getByTestId('env-var-DATABASE_URL')).toBeVisible();
    },
  },
];

const caseKey = (screen: string, theme: Theme, width: number) => `${screen}-${theme}-${width}`;

let git: GitServer;
let ctx: Context;

test.beforeAll(async ({ platform }) => {
  test.setTimeout(150_000);
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  git = await startGitServer();
  const name = unique('Storefront');
  const marker = unique('rsp');
  const repo = await git.createRepo(
    `e2e/${name.toLowerCase()}`,
    { 'package.json': PACKAGE_JSON, 'build.js': BUILD_JS(marker), 'server.js': SERVER_JS(marker) },
    { message: 'Storefront: responsive checkout and dark mode' },
  );
  const created = await platform.adminApi.post('/api/projects', {
    data: {
      name,
      git_url: repo.url,
      branch: 'main',
      env_vars: [
        { key: 'DATABASE_URL', value: 'postgres://storefront:secret@db.internal.example.com:5432/storefront_production' },
        { key: 'STRIPE_SECRET_KEY', value: 'sk_test_51HxYzAbCdEfGhIjKlMnOpQrStUvWxYz0123456789' },
      ],
    },
  });
  expect(created.status(), await created.text()).toBe(201);
  const project = (await created.json()) as Project;
  ctx = { project, deploymentId: 0, marker };
  const last = await platform.adminApi.get(`/api/projects/${project.id}/last-deployment`);
  expect(last.status()).toBe(200);
  const deploymentId = ((await last.json()) as { id: number }).id;
  const settled = await waitForDeployment(platform.adminApi, project.id, deploymentId);
  expect(settled.status, settled.error ?? '').toBe('ready');
  ctx.deploymentId = deploymentId;
});

test.afterAll(async ({ platform }) => {
  // The app's processes outlive the platform's stop by design: the project's deletion ends them.
  if (ctx?.project) await platform.adminApi.delete(`/api/projects/${ctx.project.id}`);
  await git?.close();
});

/** Stores the theme as the console does (app/theme.tsx, localStorage 'theme'); index.html applies it on the next load, before first paint. */
async function storeTheme(page: Page, theme: Theme): Promise<void> {
  await page.evaluate((value) => localStorage.setItem('theme', value), theme);
}

/** The html element's theme class and the body's background, painted to a pixel to read its luminance. */
async function appliedTheme(page: Page) {
  return page.evaluate(() => {
    const background = getComputedStyle(document.body).backgroundColor;
    const canvas = document.createElement('canvas');
    canvas.width = 1;
    canvas.height = 1;
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2d canvas');
    context.fillStyle = background;
    context.fillRect(0, 0, 1, 1);
    const [r = 0, g = 0, b = 0] = context.getImageData(0, 0, 1, 1).data;
    return {
      dark: document.documentElement.classList.contains('dark'),
      light: document.documentElement.classList.contains('light'),
      background,
      luminance: (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255,
    };
  });
}

/**
 * How far the page scrolls sideways, and what sticks out of the viewport (not inside a region that
 * scrolls or clips on its own): named in the failure message.
 */
async function horizontalOverflow(page: Page) {
  return page.evaluate(() => {
    const viewport = window.innerWidth;
    const clipped = (element: Element) => {
      for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        const overflowX = getComputedStyle(parent).overflowX;
        if (overflowX !== 'visible') return true;
      }
      return false;
    };
    const offenders: string[] = [];
    for (const element of Array.from(document.body.querySelectorAll('*'))) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.right <= viewport + 1 || clipped(element)) continue;
      const classes = typeof element.className === 'string' ? element.className.slice(0, 120) : '';
      offenders.push(
        `<${element.tagName.toLowerCase()} class="${classes}"> right=${Math.round(box.right)}: ${(element.textContent ?? '').trim().slice(0, 60)}`,
      );
      if (offenders.length >= 8) break;
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: viewport, offenders };
  });
}

async function checkScreen(page: Page, screen: Screen, theme: Theme, width: number, backgrounds: Map<Theme, string>) {
  await page.goto(screen.path(ctx));
  await expect(page.getByRole('banner')).toBeVisible({ timeout: 30_000 });
  await screen.ready(page, ctx);
  await expect(main(page).locator('[data-slot="skeleton"]')).toHaveCount(0);
  await page.evaluate(() => document.fonts.ready);

  const applied = await appliedTheme(page);
  expect.soft(applied.dark, `${screen.name}: html.dark in the ${theme} theme`).toBe(theme === 'dark');
  expect.soft(applied.light, `${screen.name}: html.light in the ${theme} theme`).toBe(theme === 'light');
  if (theme === 'dark') expect.soft(applied.luminance, `${screen.name}: dark body ${applied.background}`).toBeLessThan(0.25);
  else expect.soft(applied.luminance, `${screen.name}: light body ${applied.background}`).toBeGreaterThan(0.75);
  const seen = backgrounds.get(theme);
  if (seen) expect.soft(applied.background, `${screen.name}: the same body background as the other screens`).toBe(seen);
  else backgrounds.set(theme, applied.background);

  const overflow = await horizontalOverflow(page);
  expect
    .soft(
      overflow.scrollWidth,
      `${screen.name} (${theme}, ${width}px) scrolls sideways; sticking out:\n${overflow.offenders.join('\n')}`,
    )
    .toBeLessThanOrEqual(overflow.innerWidth);

  // The current link of each navigation row (project sections, settings sections) is in view, not cut at the edge.
  const cut = await page.evaluate((viewport) => {
    const links = Array.from(document.querySelectorAll<HTMLElement>('main nav [aria-current="page"]'));
    return links
      .filter((link) => {
        const box = link.getBoundingClientRect();
        const row = link.closest('nav')?.getBoundingClientRect();
        return box.left < Math.max(0, row?.left ?? 0) - 1 || box.right > Math.min(viewport, row?.right ?? viewport) + 1;
      })
      .map((link) => (link.textContent ?? '').trim());
  }, width);
  expect.soft(cut, `${screen.name} (${theme}, ${width}px): current links cut off at the edge of their row`).toEqual([]);

  // The breadcrumb's shown parents keep their width ("Projects", not "Pr…") up to a quarter of the screen (a long
  // project name is cut there): the current page is the crumb that gives way.
  const cutCrumbs = await page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('nav[aria-label="Breadcrumb"] a'))
      .filter((link) => link.getClientRects().length > 0)
      .filter((link) => link.clientWidth + 1 < Math.min(link.scrollWidth, window.innerWidth / 4 - 2))
      .map((link) => `${(link.textContent ?? '').trim()} (${link.clientWidth} of ${link.scrollWidth} px)`),
  );
  expect.soft(cutCrumbs, `${screen.name} (${theme}, ${width}px): breadcrumb parents cut short`).toEqual([]);

  await page.screenshot({ path: `${SHOTS_DIR}/${caseKey(screen.name, theme, width)}.png`, fullPage: true });
}

for (const size of SIZES) {
  test(`every project screen works in the light and the dark theme at ${size.width}x${size.height}`, async ({ page, admin }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: size.width, height: size.height });
    const response = await page.request.post('/api/auth/login', { data: admin });
    expect(response.status(), await response.text()).toBe(200);
    await page.goto('/dashboard');
    await expect(page.getByRole('banner')).toBeVisible({ timeout: 30_000 });

    const backgrounds = new Map<Theme, string>();
    for (const theme of THEMES) {
      await storeTheme(page, theme);
      for (const screen of SCREENS) {
        await test.step(`${screen.name} (${theme})`, () => checkScreen(page, screen, theme, size.width, backgrounds));
      }
    }
    expect(backgrounds.get('light'), 'the body background differs between the themes').not.toBe(backgrounds.get('dark'));
  });
}
