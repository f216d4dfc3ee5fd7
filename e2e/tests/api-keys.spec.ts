import { expect, signIn, test, toast, unique } from '../fixtures';

/** Calls the API the way a script would: Node's fetch with the key as a bearer token. */
async function callWithKey(baseUrl: string, secret: string, path: string): Promise<{ status: number; detail?: string }> {
  const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${secret}` } });
  const body = (await response.json().catch(() => ({}))) as { detail?: string };
  return { status: response.status, detail: body.detail };
}

test('a key created in the console works with projects:read until it is deactivated, and is gone once deleted', async ({
  page,
  context,
  platform,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.url });
  await signIn(page, platform.admin, '/keys');
  await expect(page).toHaveTitle('API Keys - Launchbay');
  const name = unique('ci-key');

  await page.getByRole('link', { name: 'Create API Key' }).first().click();
  await expect(page).toHaveURL(/\/keys\/new$/);
  await expect(page).toHaveTitle('Create API Key - Launchbay');
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByRole('combobox', { name: 'Expiry' }).click();
  await page.getByRole('option', { name: '7 days' }).click();

  // Write implies read; clearing write again leaves read only.
  const read = page.getByRole('checkbox', { name: 'Read projects', exact: true });
  const write = page.getByRole('checkbox', { name: 'Create, change and delete projects', exact: true });
  await write.check();
  await expect(read).toBeChecked();
  await write.uncheck();
  await expect(read).toBeChecked();
  await expect(page.getByText(/^1 of \d+ selected$/)).toBeVisible();
  await page.getByRole('button', { name: 'Create API Key', exact: true }).click();

  await expect(toast(page, 'API key created')).toBeVisible();
  const dialog = page.getByRole('dialog', { name: 'API key created' });
  await expect(dialog).toContainText('will not be shown again');
  const secret = ((await dialog.getByTestId('api-key-secret').textContent()) ?? '').trim();
  expect(secret).toMatch(/^lb_[A-Za-z0-9_-]{20,}$/);
  await dialog.getByRole('button', { name: 'Copy key' }).click();
  await expect(dialog.getByRole('button', { name: 'Copy key' })).toContainText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

  // The key works for what it holds, and only for that.
  expect(await callWithKey(platform.url, secret, '/api/projects')).toMatchObject({ status: 200 });
  expect(await callWithKey(platform.url, secret, '/api/users')).toMatchObject({
    status: 403,
    detail: 'This API key lacks the users:read permission',
  });

  await dialog.getByRole('button', { name: 'I have stored the key' }).click();
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/\/keys\/\d+$/);
  const keyId = Number(new URL(page.url()).pathname.split('/').pop());
  await expect(page.getByRole('heading', { level: 1 })).toContainText(name);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Active');
  await expect(page).toHaveTitle(`${name} - Launchbay`);
  await expect(page.getByText('projects:read', { exact: true })).toBeVisible();
  // The secret is never shown again.
  await expect(page.getByText(secret)).toHaveCount(0);

  // Deactivate in the console: the same call is refused.
  await page.getByRole('button', { name: 'Deactivate' }).click();
  await expect(toast(page, 'API key deactivated')).toBeVisible();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Inactive');
  expect(await callWithKey(platform.url, secret, '/api/projects')).toEqual({
    status: 401,
    detail: 'This API key is deactivated',
  });

  // Activate again: it works again, and the list shows when and from where it was last used.
  await page.getByRole('button', { name: 'Activate' }).click();
  await expect(toast(page, 'API key activated')).toBeVisible();
  expect(await callWithKey(platform.url, secret, '/api/projects')).toMatchObject({ status: 200 });

  await page.getByRole('link', { name: 'API Keys' }).first().click();
  await expect(page).toHaveURL(/\/keys$/);
  const row = page.getByTestId(`api-key-row-${keyId}`);
  await expect(row).toContainText(name);
  await expect(row).toContainText(/lb_\S+…/);
  await expect(row).toContainText('Projects');
  await expect(row).toContainText('Active');
  await expect(async () => {
    await page.reload();
    await expect(row).toContainText('127.0.0.1', { timeout: 5_000 });
  }).toPass({ timeout: 15_000 });

  // Delete from the row menu, with a confirmation.
  await row.getByRole('button', { name: `Actions for ${name}` }).click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  const confirm = page.getByRole('alertdialog');
  await expect(confirm).toContainText(`Delete ${name}?`);
  await confirm.getByRole('button', { name: 'Delete API key' }).click();
  await expect(toast(page, 'API key deleted')).toBeVisible();
  await expect(confirm).toBeHidden();
  await expect(row).toHaveCount(0);
  expect(await callWithKey(platform.url, secret, '/api/projects')).toMatchObject({ status: 401 });
});

test('the row menu deactivates a key, and the edit page renames it and changes its permissions', async ({ page, platform }) => {
  const name = unique('edit-key');
  const created = await platform.adminApi.post('/api/api-keys', {
    data: { name, permissions: ['projects:read'], expires_at: null },
  });
  expect(created.status()).toBe(201);
  const key = (await created.json()) as { id: number; secret: string };

  await signIn(page, platform.admin, '/keys');
  const row = page.getByTestId(`api-key-row-${key.id}`);
  await expect(row).toContainText('Never');
  await row.getByRole('button', { name: `Actions for ${name}` }).click();
  await page.getByRole('menuitem', { name: 'Deactivate' }).click();
  await expect(toast(page, 'API key deactivated')).toBeVisible();
  await expect(row).toContainText('Inactive');
  expect(await callWithKey(platform.url, key.secret, '/api/projects')).toMatchObject({ status: 401 });

  await row.getByRole('button', { name: `Actions for ${name}` }).click();
  await page.getByRole('menuitem', { name: 'Edit' }).click();
  await expect(page).toHaveURL(new RegExp(`/keys/${key.id}/edit$`));
  await expect(page).toHaveTitle('Edit API Key - Launchbay');
  const save = page.getByRole('button', { name: 'Save changes' });
  await expect(save).toBeDisabled();

  const renamed = unique('renamed-key');
  await page.getByLabel('Name', { exact: true }).fill(renamed);
  await page.getByRole('button', { name: 'Reader', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Reader', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('checkbox', { name: 'Read the audit log', exact: true })).toBeChecked();
  await save.click();

  await expect(toast(page, 'API key updated')).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/keys/${key.id}$`));
  await expect(page.getByRole('heading', { level: 1 })).toContainText(renamed);
  await expect(page.getByText('audit:read', { exact: true })).toBeVisible();

  const stored = (await (await platform.adminApi.get(`/api/api-keys/${key.id}`)).json()) as {
    name: string;
    permissions: string[];
    is_active: boolean;
    expires_at: string | null;
  };
  const catalogue = (await (await platform.adminApi.get('/api/api-keys/permissions')).json()) as {
    presets: { role: string; permissions: string[] }[];
  };
  const readerPreset = catalogue.presets.find((preset) => preset.role === 'reader')?.permissions ?? [];
  expect(stored.name).toBe(renamed);
  expect([...stored.permissions].sort()).toEqual([...readerPreset].sort());
  expect(stored.permissions.every((permission) => permission.endsWith(':read'))).toBe(true);
  expect(stored.expires_at).toBeNull();
  expect(stored.is_active).toBe(false);
});

test('the create form shows the contract messages, and an unknown key shows a not-found state', async ({ page, platform }) => {
  await signIn(page, platform.admin, '/keys/new');
  await page.getByRole('button', { name: 'Create API Key', exact: true }).click();
  await expect(page.getByText('Name is required')).toBeVisible();
  await expect(page.getByText('Choose at least one permission')).toBeVisible();
  await expect(page.getByRole('dialog')).toHaveCount(0);

  await page.getByRole('combobox', { name: 'Expiry' }).click();
  await page.getByRole('option', { name: 'Custom date' }).click();
  await page.getByLabel('Name', { exact: true }).fill('needs a date');
  await page.getByRole('checkbox', { name: 'Read projects', exact: true }).check();
  await page.getByRole('button', { name: 'Create API Key', exact: true }).click();
  await expect(page.getByText('Choose an expiry date')).toBeVisible();
  await expect(page.getByText('Name is required')).toHaveCount(0);

  await page.goto('/keys/999999');
  await expect(page.getByRole('heading', { name: 'This API key does not exist' })).toBeVisible();
  await expect(page).toHaveTitle('API key not found - Launchbay');
  await page.getByRole('link', { name: 'Back to API Keys' }).click();
  await expect(page).toHaveURL(/\/keys$/);
  await expect(page.getByRole('heading', { level: 1, name: 'API Keys' })).toBeVisible();
});
