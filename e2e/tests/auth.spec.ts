import { expect, nextTotp, signIn, test, toast } from '../fixtures';

const WELCOME = 'Welcome back';

test.describe('login', () => {
  test.beforeEach(async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { name: WELCOME, exact: true })).toBeVisible();
  });

  test('validates the email and the password before calling the server', async ({ page }) => {
    const email = page.getByLabel('Email', { exact: true });
    const password = page.getByLabel('Password', { exact: true });
    const signInButton = page.getByRole('button', { name: 'Sign in', exact: true });
    const emailError = page.getByText('Please enter a valid email address', { exact: true });
    const passwordError = page.getByText('Password is required', { exact: true });
    let loginCalls = 0;
    page.on('request', (request) => {
      if (request.url().endsWith('/api/auth/login')) loginCalls += 1;
    });

    // Empty form: both messages.
    await signInButton.click();
    await expect(emailError).toBeVisible();
    await expect(passwordError).toBeVisible();

    // An invalid email with a password: only the email message.
    await email.fill('not-an-email');
    await password.fill('something');
    await signInButton.click();
    await expect(emailError).toBeVisible();
    await expect(passwordError).toBeHidden();

    // A valid email with an empty password: only the password message.
    await email.fill('someone@launchbay.test');
    await password.fill('');
    await signInButton.click();
    await expect(passwordError).toBeVisible();
    await expect(emailError).toBeHidden();

    expect(loginCalls, 'invalid input must not reach POST /api/auth/login').toBe(0);
    await expect(page).toHaveURL(/\/$/);
  });

  test('a wrong password shows the Login failed toast with the server detail', async ({ page, admin }) => {
    await page.getByLabel('Email', { exact: true }).fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill('definitely-not-the-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    const failed = toast(page, 'Login failed');
    await expect(failed).toBeVisible();
    await expect(failed).toContainText('Invalid email or password');
    await expect(page.getByRole('heading', { name: WELCOME, exact: true })).toBeVisible();
  });

  test('a successful login lands on the dashboard', async ({ page, admin }) => {
    await expect(page.locator('body')).toHaveClass(/(^|\s)platform-local(\s|$)/);
    await page.getByLabel('Email', { exact: true }).fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    await expect(toast(page, 'Logged in successfully')).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByTestId('sidebar')).toBeVisible();
    await expect(page.getByTestId('sidebar')).toContainText(admin.email);
    await expect(page).toHaveTitle(/ - Launchbay$/);
    await expect(page.locator('body')).toHaveClass(/(^|\s)platform-local(\s|$)/);
  });
});

test.describe('login with MFA', () => {
  test('a TOTP code from the authenticator completes the sign-in', async ({ page, platform }) => {
    const user = await platform.createUser();
    const mfa = await platform.enableMfa(user);

    await page.goto('/');
    await page.getByLabel('Email', { exact: true }).fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    await expect(toast(page, 'Please complete MFA verification')).toBeVisible();
    await expect(page).toHaveURL(/\/mfa-verify$/);
    // The setup used the current 30-second step; the server refuses a step twice, so use the next one.
    const { code } = await nextTotp(mfa.secret, mfa.usedStep);
    const codeInput = page.getByRole('textbox');
    await codeInput.fill(code);
    await codeInput.press('Enter');

    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByTestId('sidebar')).toContainText(user.username);
    await expect(page.getByTestId('sidebar')).toContainText(user.email);
  });

  test('a recovery code completes the sign-in once', async ({ page, platform }) => {
    const user = await platform.createUser();
    const mfa = await platform.enableMfa(user);
    const recoveryCode = mfa.recoveryCodes[0]!;

    await page.goto('/');
    await page.getByLabel('Email', { exact: true }).fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    await expect(toast(page, 'Please complete MFA verification')).toBeVisible();
    await expect(page).toHaveURL(/\/mfa-verify$/);
    const codeInput = page.getByRole('textbox');
    await codeInput.fill(recoveryCode);
    await codeInput.press('Enter');

    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByTestId('sidebar')).toContainText(user.email);

    // The same recovery code cannot be used again.
    const login = await page.request.post('/api/auth/login', { data: { email: user.email, password: user.password } });
    const { mfa_token } = (await login.json()) as { mfa_token: string };
    const reuse = await page.request.post('/api/auth/verify-mfa', { data: { code: recoveryCode, mfa_token } });
    expect(reuse.status()).toBe(401);
  });
});

test('logging out reloads to the login screen', async ({ page, platform }) => {
  const user = await platform.createUser();
  await signIn(page, user);
  // A marker on window proves the page really reloads.
  await page.evaluate(() => {
    (window as unknown as { __beforeLogout?: boolean }).__beforeLogout = true;
  });

  await page.getByTestId('sidebar').getByText(user.email).click();
  await page.getByRole('menuitem', { name: 'Log out', exact: true }).click();

  await expect(page.getByRole('heading', { name: WELCOME, exact: true })).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __beforeLogout?: boolean }).__beforeLogout)).toBeUndefined();
  const me = await page.request.get('/api/user/me');
  expect(me.status(), 'the session must be gone after logout').toBe(401);
});
