import type { Locator } from '@playwright/test';
import { expect, signIn, test } from '../fixtures';

const PALETTE_PLACEHOLDER = 'Type a command or search...';

async function widthOf(locator: Locator): Promise<number> {
  const box = await locator.boundingBox();
  return box ? Math.round(box.width) : -1;
}

test.describe('shell', () => {
  test.beforeEach(async ({ page, platform }) => {
    await signIn(page, await platform.createUser());
  });

  test('Ctrl+B collapses the sidebar and the state survives a reload', async ({ page, context }) => {
    const sidebar = page.getByTestId('sidebar');
    await expect(sidebar).toHaveAttribute('data-state', 'expanded');
    await expect.poll(() => widthOf(sidebar)).toBe(256); // 16rem

    await page.keyboard.press('ControlOrMeta+b');
    await expect(sidebar).toHaveAttribute('data-state', 'collapsed');
    await expect.poll(() => widthOf(sidebar)).toBe(64); // 4rem
    const cookie = (await context.cookies()).find((c) => c.name === 'sidebar_state');
    expect(cookie?.value).toBe('false');
    // Kept for 7 days.
    expect(cookie!.expires - Date.now() / 1000).toBeGreaterThan(604_800 - 120);

    await page.reload();
    await expect(sidebar).toHaveAttribute('data-state', 'collapsed');
    await expect.poll(() => widthOf(sidebar)).toBe(64);

    await page.keyboard.press('ControlOrMeta+b');
    await expect(sidebar).toHaveAttribute('data-state', 'expanded');
    await expect.poll(() => widthOf(sidebar)).toBe(256);
  });

  test('the command palette finds a page with a misspelled word and navigates to it', async ({ page }) => {
    const input = page.getByPlaceholder(PALETTE_PLACEHOLDER, { exact: true });
    await expect(input).toBeHidden();

    await page.keyboard.press('ControlOrMeta+k');
    await expect(input).toBeVisible();
    await expect(input).toBeFocused();
    await input.fill('audt');
    const selected = page.locator('[role="option"][aria-selected="true"]');
    await expect(selected).toHaveText(/Audit Logs/);
    await input.press('Enter');

    await expect(page).toHaveURL(/\/settings\/audit-logs$/);
    await expect(input).toBeHidden();

    await page.keyboard.press('ControlOrMeta+k');
    await expect(input).toBeVisible();
    await input.fill('qzxwvjk');
    await expect(page.getByText('No results found.', { exact: true })).toBeVisible();
    await expect(page.getByRole('option')).toHaveCount(0);
    await page.keyboard.press('Escape');
    await expect(input).toBeHidden();
  });

  test('the theme menu switches to dark and back to light, and the choice survives a reload', async ({ page }) => {
    const html = page.locator('html');
    await expect(html).not.toHaveClass(/(^|\s)dark(\s|$)/);

    await page.getByRole('button', { name: /theme/i }).click();
    await page.getByRole('menuitem', { name: 'Dark', exact: true }).click();
    await expect(html).toHaveClass(/(^|\s)dark(\s|$)/);

    await page.reload();
    await expect(page.getByRole('banner')).toBeVisible();
    await expect(html).toHaveClass(/(^|\s)dark(\s|$)/);

    await page.getByRole('button', { name: /theme/i }).click();
    await page.getByRole('menuitem', { name: 'Light', exact: true }).click();
    await expect(html).not.toHaveClass(/(^|\s)dark(\s|$)/);
  });

  test('an unknown path shows the not-found page', async ({ page }) => {
    await page.goto('/this/page/does-not-exist');
    await expect(page.getByRole('heading', { name: /not found/i })).toBeVisible();
    await expect(page.getByText('404', { exact: true })).toBeVisible();
    await expect(page).toHaveTitle(/ - Launchbay$/);
    // The shell stays around it.
    await expect(page.getByTestId('sidebar')).toBeVisible();
    await expect(page.locator('body')).toHaveClass(/(^|\s)platform-local(\s|$)/);
  });
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 375, height: 812 } });

  test('the sidebar opens as a drawer from the header toggle', async ({ page, platform }) => {
    await signIn(page, await platform.createUser());
    await expect(page.getByTestId('sidebar')).toBeHidden();
    await expect(page.getByRole('dialog')).toHaveCount(0);

    await page
      .getByRole('banner')
      .getByRole('button', { name: /sidebar/i })
      .click();
    const drawer = page.getByRole('dialog');
    await expect(drawer).toBeVisible();
    await expect(drawer.getByTestId('sidebar')).toBeVisible();
    await expect.poll(() => widthOf(drawer)).toBe(288); // 18rem

    await drawer.getByRole('link', { name: 'Users', exact: true }).click();
    await expect(page).toHaveURL(/\/users$/);
    await expect(drawer).toBeHidden();
  });
});
