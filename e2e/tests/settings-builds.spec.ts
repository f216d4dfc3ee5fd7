import { expect, signIn, test, toast } from '../fixtures';

test('an admin changes how many builds each environment keeps, and it stays after a reload', async ({ page, platform }) => {
  const read = async () =>
    ((await (await platform.adminApi.get('/api/settings')).json()) as { kept_builds_per_environment: number })
      .kept_builds_per_environment;
  const before = await read();
  const next = before === 12 ? 13 : 12;
  try {
    await signIn(page, platform.admin, '/settings');
    const retention = page.getByRole('region', { name: 'Data retention' });
    const builds = retention.getByLabel('Builds kept per environment');
    const save = retention.getByRole('button', { name: 'Save Data retention' });
    await expect(builds).toHaveValue(String(before));
    await expect(retention).toContainText('Successful builds kept on disk for instant rollback.');

    // Out of range: the contract's message, nothing saved.
    await builds.fill('51');
    await save.click();
    await expect(retention.getByRole('alert')).toHaveText('At most 50 builds');
    expect(await read()).toBe(before);

    await builds.fill(String(next));
    await expect(retention.getByRole('alert')).toHaveCount(0);
    await save.click();
    await expect(toast(page, 'Settings saved')).toBeVisible();
    await expect(save).toBeDisabled();
    expect(await read()).toBe(next);

    await page.reload();
    await expect(page.getByRole('region', { name: 'Data retention' }).getByLabel('Builds kept per environment')).toHaveValue(
      String(next),
    );
  } finally {
    // Other tests on this worker's platform expect the value they found.
    const response = await platform.adminApi.put('/api/settings', { data: { kept_builds_per_environment: before } });
    expect(response.status()).toBe(200);
  }
});
