import { expect, signIn, test, toast, unique } from '../fixtures';

/** The account page asks for the current password before it moves the account to a new email. */

test('changing the email asks for the current password and keeps the new email', async ({ page, platform }) => {
  const user = await platform.createUser();
  await signIn(page, user, '/account');
  const newEmail = `${unique('moved')}@launchbay.test`;

  const emailInput = page.getByLabel('Email', { exact: true });
  await expect(emailInput).toHaveValue(user.email);
  // Only a changed email needs the password.
  const currentPassword = page.locator('#profile-current-password');
  await expect(currentPassword).toHaveCount(0);
  await emailInput.fill(newEmail);
  await expect(currentPassword).toBeVisible();

  // Saving without it is stopped in the form.
  await page.getByRole('button', { name: 'Save profile', exact: true }).click();
  await expect(page.getByText('Current password is required to change your email')).toBeVisible();

  await currentPassword.fill(user.password);
  await page.getByRole('button', { name: 'Save profile', exact: true }).click();
  await expect(toast(page, 'Profile updated')).toBeVisible();
  await expect(currentPassword).toHaveCount(0);
  await expect(page.getByTestId('sidebar')).toContainText(newEmail);

  // Kept by the server: the new email signs in, the old one no longer does.
  await page.reload();
  await expect(page.getByLabel('Email', { exact: true })).toHaveValue(newEmail);
  const moved = await platform.adminApi.post('/api/auth/login', { data: { email: newEmail, password: user.password } });
  expect(moved.status()).toBe(200);
  const old = await platform.adminApi.post('/api/auth/login', { data: { email: user.email, password: user.password } });
  expect(old.status()).toBe(401);
});

test('a wrong current password is shown on the field and the email stays', async ({ page, platform }) => {
  const user = await platform.createUser();
  await signIn(page, user, '/account');

  // A taken email: with a wrong password the answer is about the password, never the email.
  await page.getByLabel('Email', { exact: true }).fill(platform.admin.email);
  await page.locator('#profile-current-password').fill('not-my-password');
  await page.getByRole('button', { name: 'Save profile', exact: true }).click();

  await expect(toast(page, 'Failed to update profile')).toContainText('Current password is incorrect');
  await expect(page.locator('#profile-current-password')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('Current password is incorrect', { exact: true }).first()).toBeVisible();
  await expect(page.getByText('A user with this email already exists')).toHaveCount(0);

  const me = await page.request.get('/api/user/me');
  expect(((await me.json()) as { email: string }).email).toBe(user.email);
});
