import type { Page } from '@playwright/test';
import { test as base, expect, type Platform, signIn, unique } from '../fixtures';
import { connectDatabase, deleteProjects, type InsertedProject, insertProjects } from '../support/database';

/*
 * The projects in the shell: the sidebar's Projects group (4 projects, favicon or first-letter
 * fallback, 'More' to /projects) and the command palette's Projects group (up to 100 projects,
 * refetched when it opens, a group for the current project under /projects/{slug}). The product
 * has no create-project flow yet, so the tests insert rows into the projects table of the worker's
 * embedded PostgreSQL (no favicon_url) and delete them again afterwards.
 */

interface ApiProject {
  id: number;
  name: string;
  slug: string;
}

interface SeededProjects {
  /** The five projects inserted before the test (in insertion order, which is not the API's order). */
  readonly five: InsertedProject[];
  /** Inserts one more project (deleted after the test like the others). */
  insert(word: string): Promise<InsertedProject>;
}

/** Insertion order differs from the API's (by name), so the tests see that the console keeps the API's order. */
const WORDS = ['Ember', 'Borealis', 'Dune', 'Aurora', 'Cascade'];

const test = base.extend<{ projects: SeededProjects }>({
  projects: async ({ platform }, use) => {
    const db = await connectDatabase(platform);
    const suffix = unique('e2e');
    const slugs: string[] = [];
    const insertWords = async (words: string[]) => {
      const rows = words.map((word) => ({ name: `${word} ${suffix}`, slug: `${word.toLowerCase()}-${suffix}` }));
      slugs.push(...rows.map((row) => row.slug));
      return insertProjects(db, rows);
    };
    try {
      const five = await insertWords(WORDS);
      await use({
        five,
        insert: async (word) => {
          const [project] = await insertWords([word]);
          return project!;
        },
      });
    } finally {
      // Later tests in this worker share the database: leave no project behind.
      try {
        await deleteProjects(db, slugs);
      } finally {
        await db.end();
      }
    }
  },
});

async function listProjects(platform: Platform, perPage: number): Promise<ApiProject[]> {
  const response = await platform.adminApi.get('/api/projects', { params: { page: 1, per_page: perPage } });
  expect(response.status(), `GET /api/projects?per_page=${perPage}: ${await response.text()}`).toBe(200);
  const body = (await response.json()) as { projects: ApiProject[] };
  return body.projects;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Matches an element's text that ends with `name` (an avatar letter may come before it). */
const endsWith = (name: string) => new RegExp(`${escapeRegExp(name)}$`);

function sidebarProjectsGroup(page: Page) {
  // The group's list follows its 'Projects' label; the Platform group's 'Projects' link is a span, not a label.
  return page.getByTestId('sidebar').locator('div:text-is("Projects") + ul');
}

function palette(page: Page) {
  return page.getByRole('dialog', { name: 'Command palette', exact: true });
}

async function openPalette(page: Page) {
  await page.keyboard.press('ControlOrMeta+k');
  await expect(page.getByPlaceholder('Type a command or search...', { exact: true })).toBeFocused();
  return palette(page);
}

const isPaletteProjectsRequest = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname === '/api/projects' && parsed.searchParams.get('per_page') === '100';
};

test('the sidebar lists the first 4 projects with a letter for a missing favicon, and More leads to all of them', async ({
  page,
  platform,
  projects,
}) => {
  const ours = new Set(projects.five.map((project) => project.slug));
  const firstFour = await listProjects(platform, 4);
  expect(firstFour).toHaveLength(4);
  expect(
    firstFour.every((project) => ours.has(project.slug)),
    `other projects sort before the test's: ${firstFour.map((p) => p.name).join(', ')}`,
  ).toBe(true);
  // None of them has a favicon: the server answers 404.
  for (const project of projects.five) {
    const favicon = await platform.adminApi.get(`/api/projects/${project.id}/favicon`, { maxRedirects: 0 });
    expect(favicon.status(), `GET /api/projects/${project.id}/favicon`).toBe(404);
  }

  const sidebarRequests: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/api/projects') {
      sidebarRequests.push(`page=${url.searchParams.get('page')}&per_page=${url.searchParams.get('per_page')}`);
    }
  });
  await signIn(page, platform.admin, '/dashboard');

  const group = sidebarProjectsGroup(page);
  const links = group.getByRole('link');
  // Exactly the API's first 4, in its order, then 'More'.
  await expect(links).toHaveText([...firstFour.map((project) => endsWith(project.name)), 'More']);
  expect(sidebarRequests).toContain('page=1&per_page=4');
  const left = projects.five.find((project) => !firstFour.some((shown) => shown.slug === project.slug))!;
  await expect(group.getByRole('link', { name: left.name })).toHaveCount(0);

  for (const project of firstFour) {
    const link = group.getByRole('link', { name: project.name, exact: true });
    await expect(link).toHaveAttribute('href', `/projects/${project.slug}`);
    // The favicon failed to load: the avatar shows the first letter of the name instead of an image.
    await expect(link.locator('span[aria-hidden="true"]')).toHaveText(project.name.charAt(0));
    await expect(link.locator('img')).toHaveCount(0);
  }

  await group.getByRole('link', { name: 'More', exact: true }).click();
  await expect(page).toHaveURL(/\/projects$/);
  const main = page.getByRole('main');
  await expect(main.getByRole('heading', { name: 'Projects', exact: true })).toBeVisible();
  for (const project of projects.five) {
    const card = main.locator(`a[href="/projects/${project.slug}"]`);
    await expect(card).toBeVisible();
    await expect(card).toContainText(project.name);
    await expect(card).toContainText(project.slug);
  }
  await expect(main.getByRole('listitem')).toHaveCount((await listProjects(platform, 100)).length);
});

test('the command palette lists every project, refetches them when opened and has a group for the current project', async ({
  page,
  platform,
  projects,
}) => {
  const all = await listProjects(platform, 100);
  for (const project of projects.five) expect(all.map((p) => p.slug)).toContain(project.slug);

  const paletteRequests: number[] = [];
  page.on('request', (request) => {
    if (request.method() === 'GET' && isPaletteProjectsRequest(request.url())) paletteRequests.push(Date.now());
  });
  await signIn(page, platform.admin, '/dashboard');
  // The sidebar's 4 have arrived, so the palette's list below is not the sidebar's.
  await expect(sidebarProjectsGroup(page).getByRole('link')).toHaveCount(5);

  let dialog = await openPalette(page);
  let group = dialog.getByRole('group', { name: 'Projects', exact: true });
  // All projects (not the sidebar's 4), in the API's order, then 'All Projects'.
  await expect(group.getByRole('option')).toHaveText([...all.map((project) => endsWith(project.name)), 'All Projects']);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // A project that appears while the palette is closed is there when it opens again (within the
  // queries' 30 s stale time, so only the refetch on opening can bring it).
  const requestsBefore = paletteRequests.length;
  const added = await projects.insert('Fjord');
  const allAfter = await listProjects(platform, 100);
  expect(allAfter.map((project) => project.slug)).toContain(added.slug);
  dialog = await openPalette(page);
  group = dialog.getByRole('group', { name: 'Projects', exact: true });
  await expect(group.getByRole('option', { name: added.name, exact: true })).toBeVisible();
  await expect(group.getByRole('option')).toHaveText([...allAfter.map((project) => endsWith(project.name)), 'All Projects']);
  expect(paletteRequests.length).toBeGreaterThan(requestsBefore);

  // Selecting a project (the last one, beyond the sidebar's 4) closes the palette and opens the project.
  const target = allAfter[allAfter.length - 1]!;
  await group.getByRole('option', { name: target.name, exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(new RegExp(`/projects/${escapeRegExp(target.slug)}$`));
  await expect(page.getByRole('main')).toContainText(`Project: ${target.slug}`);

  // Under /projects/{slug} the palette has a group for the current project.
  dialog = await openPalette(page);
  const current = dialog.getByRole('group', { name: new RegExp(escapeRegExp(target.slug)) });
  await expect(current).toBeVisible();
  await expect(current).toHaveAccessibleName(`Project: ${target.slug}`);
  await expect(current.getByRole('option', { name: 'Overview', exact: true })).toBeVisible();
  await expect(dialog.getByRole('group', { name: 'Projects', exact: true })).toBeVisible();
  await current.getByRole('option', { name: 'Deployments', exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(new RegExp(`/projects/${escapeRegExp(target.slug)}/deployments$`));

  // Away from a project, there is no such group.
  await page.goto('/dashboard');
  await expect(page.getByRole('banner')).toBeVisible();
  dialog = await openPalette(page);
  await expect(dialog.getByRole('group', { name: 'Projects', exact: true })).toBeVisible();
  await expect(dialog.getByRole('group', { name: new RegExp(escapeRegExp(target.slug)) })).toHaveCount(0);
});
