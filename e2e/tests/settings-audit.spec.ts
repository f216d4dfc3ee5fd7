import { expect, signIn, test, toast, unique } from '../fixtures';

test('an admin changes the base domain and finds the change in the audit log', async ({ page, platform }) => {
  await signIn(page, platform.admin, '/settings');
  await expect(page).toHaveTitle('Settings - Launchbay');
  const general = page.getByRole('region', { name: 'General' });
  const save = general.getByRole('button', { name: 'Save General' });
  const domain = `${unique('apps')}.example.com`;

  await expect(save).toBeDisabled();
  await general.getByLabel('Base domain').fill(domain);
  await expect(save).toBeEnabled();
  // Only the changed section can be saved.
  await expect(page.getByRole('button', { name: 'Save Data retention' })).toBeDisabled();
  await save.click();
  await expect(toast(page, 'Settings saved')).toBeVisible();
  await expect(save).toBeDisabled();

  const settings = (await (await platform.adminApi.get('/api/settings')).json()) as { base_domain: string };
  expect(settings.base_domain).toBe(domain);
  await page.reload();
  await expect(page.getByLabel('Base domain')).toHaveValue(domain);

  // The audit log, filtered by action through the suggestions.
  await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Audit Logs' }).click();
  await expect(page).toHaveURL(/\/settings\/audit-logs$/);
  await expect(page).toHaveTitle('Audit Logs - Launchbay');
  const action = page.getByRole('combobox', { name: 'Action' });
  await action.fill('settings.');
  await page.getByRole('option', { name: /^settings\.update/ }).click();
  await expect(action).toHaveValue('settings.update');
  await expect(page).toHaveURL(/[?&]action=settings\.update/);

  const rows = page.getByRole('row').filter({ has: page.getByRole('button', { name: /^Open entry/ }) });
  await expect(rows).not.toHaveCount(0);
  await expect(rows.filter({ hasNotText: 'settings.update' })).toHaveCount(0);
  await expect(page.getByText(/^Showing 1–\d+ of \d+$/)).toBeVisible();

  // Newest first: the first entry is ours.
  const first = rows.first();
  await expect(first).toContainText(platform.admin.email);
  await expect(first).toContainText('200');
  await first.click();
  const sheet = page.getByRole('dialog', { name: 'Audit entry' });
  await expect(sheet).toBeVisible();
  await expect(sheet).toContainText('PUT /api/settings');
  await expect(sheet).toContainText(platform.admin.email);
  const summary = sheet.getByTestId('audit-summary');
  await expect(summary).toContainText(`"base_domain": "${domain}"`);
  await expect(page).toHaveURL(/[?&]log=\d+/);

  // The filtered view, with the entry open, is a link that can be shared.
  const link = page.url();
  await page.goto('/dashboard');
  await page.goto(link);
  await expect(page.getByRole('dialog', { name: 'Audit entry' }).getByTestId('audit-summary')).toContainText(domain);
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'Audit entry' })).toBeHidden();
  await expect(page).not.toHaveURL(/[?&]log=/);
  await expect(page).toHaveURL(/[?&]action=settings\.update/);
  await expect(page.getByRole('combobox', { name: 'Action' })).toHaveValue('settings.update');
});

test('an admin allows private network targets for every provider, and turns it off again', async ({ page, platform }) => {
  await signIn(page, platform.admin, '/settings');
  const outbound = page.getByRole('region', { name: 'Outbound requests' });
  const allow = outbound.getByRole('switch', { name: 'Allow private network targets' });
  const save = outbound.getByRole('button', { name: 'Save Outbound requests' });
  await expect(outbound).toContainText('cloud metadata addresses are always refused');
  await expect(allow).toHaveAttribute('aria-checked', 'false');

  await allow.click();
  await save.click();
  await expect(toast(page, 'Settings saved')).toBeVisible();
  const read = async () =>
    ((await (await platform.adminApi.get('/api/settings')).json()) as { allow_private_network_targets: boolean })
      .allow_private_network_targets;
  expect(await read()).toBe(true);
  await page.reload();
  await expect(page.getByRole('switch', { name: 'Allow private network targets' })).toHaveAttribute('aria-checked', 'true');

  // Off again: other tests rely on the default.
  await page.getByRole('switch', { name: 'Allow private network targets' }).click();
  await page.getByRole('button', { name: 'Save Outbound requests' }).click();
  await expect(toast(page, 'Settings saved')).toBeVisible();
  expect(await read()).toBe(false);
});

test('settings show the contract messages for invalid values and server-side state is unchanged', async ({ page, platform }) => {
  const before = await (await platform.adminApi.get('/api/settings')).json();
  await signIn(page, platform.admin, '/settings');

  const general = page.getByRole('region', { name: 'General' });
  await general.getByLabel('Base domain').fill('not a domain');
  await general.getByLabel('External URL').fill('launchbay');
  await general.getByRole('button', { name: 'Save General' }).click();
  await expect(general.getByText('Enter a domain such as apps.example.com')).toBeVisible();
  await expect(general.getByText('Enter a URL such as https://launchbay.example.com')).toBeVisible();

  const retention = page.getByRole('region', { name: 'Data retention' });
  await retention.getByLabel('Audit log').fill('3');
  await retention.getByRole('button', { name: 'Save Data retention' }).click();
  await expect(retention.getByText('At least 7 days')).toBeVisible();

  // Discard brings the saved values back.
  await general.getByRole('button', { name: 'Discard' }).click();
  await expect(general.getByLabel('Base domain')).toHaveValue(before.base_domain ?? '');
  await expect(general.getByRole('button', { name: 'Save General' })).toBeDisabled();

  expect(await (await platform.adminApi.get('/api/settings')).json()).toEqual(before);
});

test('the audit log pages by 50 and keeps the page in the URL', async ({ page, platform }) => {
  const marker = unique('paging');
  for (let i = 0; i < 52; i++) {
    const response = await platform.adminApi.put('/api/settings', { data: { acme_contact_email: `${marker}-${i}@example.com` } });
    expect(response.status()).toBe(200);
  }
  await signIn(page, platform.admin, '/settings/audit-logs?action=settings.update');
  const total = Number(/of (\d+)$/.exec((await page.getByText(/^Showing 1–50 of \d+$/).textContent()) ?? '')?.[1] ?? Number.NaN);
  expect(total).toBeGreaterThanOrEqual(52);
  const rows = page.getByRole('row').filter({ has: page.getByRole('button', { name: /^Open entry/ }) });
  await expect(rows).toHaveCount(50);
  await expect(page.getByRole('button', { name: 'Prev' })).toBeDisabled();

  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page).toHaveURL(/[?&]page=2/);
  await expect(page.getByText(`Showing 51–${Math.min(100, total)} of ${total}`)).toBeVisible();
  await page.goBack();
  await expect(page.getByText(`Showing 1–50 of ${total}`)).toBeVisible();
});

test('a reader sees the settings read-only and is refused the audit log', async ({ page, platform }) => {
  const reader = await platform.createUser({ roles: ['reader'] });
  await signIn(page, reader, '/settings');
  await expect(page.getByTestId('settings-read-only')).toContainText('changing them needs the admin role');
  await expect(page.getByLabel('Base domain')).toBeDisabled();
  await expect(page.getByRole('switch', { name: 'Enable preview environments' })).toBeDisabled();
  await expect(page.getByRole('button', { name: /^Save/ })).toHaveCount(0);

  await page.goto('/settings/audit-logs');
  await expect(page.getByRole('heading', { name: 'You need the admin role to view the audit log' })).toBeVisible();
});
