import { expect, signIn, test } from '../fixtures';

test('a stopped server shows Cannot Connect to Server and Retry Connection recovers', async ({ page, platform }) => {
  test.setTimeout(90_000);
  await signIn(page, platform.admin);
  const sidebar = page.getByTestId('sidebar');

  // Load the lazy chunks used below while the server is still up: the Users page (for after the
  // reconnect) and the command palette.
  await sidebar.getByRole('link', { name: 'Users', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Users', level: 1, exact: true })).toBeVisible();
  const palette = page.getByPlaceholder('Type a command or search...', { exact: true });
  await page.keyboard.press('ControlOrMeta+k');
  await expect(palette).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(palette).toBeHidden();

  const cannotConnect = page.getByRole('heading', { name: 'Cannot Connect to Server', exact: true });
  const retry = page.getByRole('button', { name: 'Retry Connection', exact: true });
  try {
    await platform.stop();
    // Any API call that fails with a network error makes the auth gate re-check the server: opening
    // the command palette refetches the project list.
    await page.keyboard.press('ControlOrMeta+k');
    await expect(cannotConnect).toBeVisible({ timeout: 20_000 });
    await expect(retry).toBeVisible();

    // Retrying while the server is still down keeps the screen.
    await retry.click();
    await expect(cannotConnect).toBeVisible();
    await expect(retry).toBeEnabled();
  } finally {
    await platform.ensureRunning();
  }

  await retry.click();
  await expect(cannotConnect).toBeHidden();
  await expect(page.getByTestId('sidebar')).toBeVisible();
  await expect(page.getByTestId('sidebar')).toContainText(platform.admin.email);
  await expect(page).toHaveURL(/\/users$/);
  await expect(page.getByRole('heading', { name: 'Users', level: 1, exact: true })).toBeVisible();
});
