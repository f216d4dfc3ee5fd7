import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, type Platform, signIn, test } from '../fixtures';

/*
 * A real chunk-load failure: every worker's platform serves its own copy of the built console
 * (<platform.dataDir>/console, see fixtures.ts). The test takes the Users page's chunk away from
 * that copy after signing in (before the page was ever loaded), navigates there from the sidebar,
 * sees the console's error screen, puts the file back and recovers through the screen's actions.
 */

/** A string only the Users page has (its description): it identifies the page's chunk in the build. */
const USERS_PAGE_MARKER = 'People who can sign in to this platform';

interface HiddenChunk {
  /** The file's URL path, /assets/<name>.js. */
  readonly urlPath: string;
  readonly name: string;
  /** Puts the file back (idempotent). */
  restore(): void;
}

function findUsersChunk(platform: Platform): string {
  const assets = path.join(platform.dataDir, 'console', 'assets');
  const matches = fs
    .readdirSync(assets)
    .filter((name) => name.endsWith('.js'))
    .filter((name) => fs.readFileSync(path.join(assets, name), 'utf8').includes(USERS_PAGE_MARKER));
  expect(matches, `JS chunks in ${assets} that contain '${USERS_PAGE_MARKER}'`).toHaveLength(1);
  const name = matches[0]!;
  // Never the entry: the page must be a lazily loaded chunk, not part of what index.html loads.
  const index = fs.readFileSync(path.join(platform.dataDir, 'console', 'index.html'), 'utf8');
  expect(index, `${name} is referenced by index.html`).not.toContain(name);
  return path.join(assets, name);
}

/** Renames the chunk away, so the server answers 404 for it (its static routes are fixed at startup). */
function hideChunk(file: string): HiddenChunk {
  const hidden = `${file}.e2e-hidden`;
  fs.renameSync(file, hidden);
  const name = path.basename(file);
  return {
    urlPath: `/assets/${name}`,
    name,
    restore() {
      if (fs.existsSync(hidden)) fs.renameSync(hidden, file);
    },
  };
}

/** The console's error screen for a route whose chunk failed: the spec's full-page variant. */
async function expectChunkErrorScreen(page: Page, chunk: HiddenChunk) {
  const screen = page
    .getByRole('alert')
    .filter({ has: page.getByRole('heading', { name: 'Something went wrong', exact: true }) });
  await expect(screen).toBeVisible();
  await expect(screen.getByText('An unexpected error occurred while rendering this page', { exact: true })).toBeVisible();
  await expect(screen.getByText('Error Details', { exact: true })).toBeVisible();
  // The details name the failure: the chunk of the Users page could not be loaded.
  const details = screen.locator('pre');
  await expect(details).toContainText('ChunkLoadError');
  await expect(details).toContainText(chunk.name);
  await expect(screen.getByRole('link', { name: 'Back to Dashboard', exact: true })).toHaveAttribute('href', '/dashboard');
  await expect(screen.getByRole('button', { name: 'Try again', exact: true })).toBeVisible();
  // The Users page itself did not render.
  await expect(page.getByText(USERS_PAGE_MARKER)).toHaveCount(0);
  return screen;
}

async function expectUsersPage(page: Page, platform: Platform) {
  await expect(page).toHaveURL(/\/users$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Users', exact: true })).toBeVisible();
  await expect(page.getByText(USERS_PAGE_MARKER)).toBeVisible();
  await expect(page.getByRole('row').filter({ hasText: platform.admin.email })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Something went wrong' })).toHaveCount(0);
}

/** Signs in, recording every path the page requests from the first one on. */
async function signInAndWatch(page: Page, platform: Platform): Promise<string[]> {
  const requested: string[] = [];
  page.on('request', (request) => requested.push(new URL(request.url()).pathname));
  await signIn(page, platform.admin, '/dashboard');
  return requested;
}

/** Opens Users from the sidebar while its chunk is gone and checks the error screen. */
async function openUsersWithoutChunk(page: Page, chunk: HiddenChunk, requested: string[]) {
  // The page was never loaded in this browser context: nothing cached can stand in for the chunk.
  expect(requested).not.toContain(chunk.urlPath);
  const chunkResponse = page.waitForResponse((response) => new URL(response.url()).pathname === chunk.urlPath);
  await page.getByTestId('sidebar').getByRole('link', { name: 'Users', exact: true }).click();
  // A real failure: the browser asked for the chunk and the server had none.
  expect((await chunkResponse).status()).toBe(404);
  await expect(page).toHaveURL(/\/users$/);
  return expectChunkErrorScreen(page, chunk);
}

test('a page whose chunk fails to load shows the error screen, and Try again loads it once the chunk is back', async ({
  page,
  platform,
}) => {
  const file = findUsersChunk(platform);
  const requested = await signInAndWatch(page, platform);
  const chunk = hideChunk(file);
  try {
    const screen = await openUsersWithoutChunk(page, chunk, requested);
    // The shell stays around the error screen.
    await expect(page.getByRole('banner')).toBeVisible();
    await expect(page.getByTestId('sidebar')).toBeVisible();

    chunk.restore();
    await screen.getByRole('button', { name: 'Try again', exact: true }).click();
    await expectUsersPage(page, platform);
  } finally {
    // Whatever happened, the worker's later tests need the console copy complete.
    chunk.restore();
  }
});

test('Back to Dashboard on the chunk error screen leads home, from where the page loads once the chunk is back', async ({
  page,
  platform,
}) => {
  const file = findUsersChunk(platform);
  const requested = await signInAndWatch(page, platform);
  const chunk = hideChunk(file);
  try {
    const screen = await openUsersWithoutChunk(page, chunk, requested);

    chunk.restore();
    await screen.getByRole('link', { name: 'Back to Dashboard', exact: true }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('banner')).toBeVisible();
    await expect(page).toHaveTitle('Dashboard - Launchbay');
    await expect(page.getByRole('heading', { name: 'Something went wrong' })).toHaveCount(0);

    await page.getByTestId('sidebar').getByRole('link', { name: 'Users', exact: true }).click();
    await expectUsersPage(page, platform);
  } finally {
    chunk.restore();
  }
});
