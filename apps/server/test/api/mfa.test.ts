import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient, setCookie } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';
import { totp, wrongTotp } from '../helpers/totp';

type LoginAnswer = { mfa_required: boolean; token?: string; mfa_token?: string };
type Setup = { secret: string; otpauth_uri: string; qr_code: string };

let platform: TestPlatform;
let api: Api;
let admin: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(() => platform.close());

/**
 * A new user (each test has its own: the replay guard allows one code per 30 s step and user)
 * with MFA turned on using the current step's code. The next code to use is `totp(secret, 1)`.
 */
async function userWithMfa(role: 'user' | 'reader' = 'user') {
  const person = await api.userWithRole(admin, role);
  const setup = await api.call<Setup>('POST', '/users/me/mfa/setup', { token: person.token });
  expect(setup.status).toBe(200);
  const verified = await api.call<{ recovery_codes: string[] }>('POST', '/users/me/mfa/verify', {
    token: person.token,
    body: { code: await totp(setup.body.secret) },
  });
  expect(verified.status).toBe(200);
  return { ...person, secret: setup.body.secret, recoveryCodes: verified.body.recovery_codes };
}

async function passwordStep(person: { email: string; password: string }) {
  const login = await api.call<LoginAnswer>('POST', '/auth/login', { body: { email: person.email, password: person.password } });
  expect(login.status).toBe(200);
  expect(login.body.mfa_required).toBe(true);
  return login;
}

describe('MFA setup and confirmation', () => {
  it('setup returns a secret, its otpauth URI and a QR code, and does not turn MFA on yet', async () => {
    const person = await api.userWithRole(admin, 'reader');
    const setup = await api.call<Setup>('POST', '/users/me/mfa/setup', { token: person.token });
    expect(setup.status).toBe(200);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{16,}$/);
    const uri = new URL(setup.body.otpauth_uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe(`/Launchbay:${person.email}`);
    expect(uri.searchParams.get('secret')).toBe(setup.body.secret);
    expect(uri.searchParams.get('issuer')).toBe('Launchbay');
    expect(setup.body.qr_code).toMatch(/^data:image\/png;base64,/);
    const png = Buffer.from(setup.body.qr_code.split(',')[1] ?? '', 'base64');
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.length).toBeGreaterThan(500);

    expect((await api.call('GET', '/user/me', { token: person.token })).body).toMatchObject({ mfa_enabled: false });
    const login = await api.call<LoginAnswer>('POST', '/auth/login', {
      body: { email: person.email, password: person.password },
    });
    expect(login.body).toMatchObject({ mfa_required: false, token: expect.stringMatching(/^lbs_/) });
    // The secret is stored encrypted, never in clear.
    const { rows } = await platform.ctx.pool.query('SELECT mfa_pending_secret, mfa_secret FROM users WHERE id = $1', [person.id]);
    expect(rows[0].mfa_secret).toBeNull();
    expect(rows[0].mfa_pending_secret).toMatch(/^v1\./);
    expect(rows[0].mfa_pending_secret).not.toContain(setup.body.secret);
  });

  it('verify refuses a wrong or malformed code and a missing setup', async () => {
    const person = await api.userWithRole(admin, 'user');
    const early = await api.call<ApiError>('POST', '/users/me/mfa/verify', { token: person.token, body: { code: '123456' } });
    expect(early.status).toBe(400);
    expect(early.body.detail).toBe('Start the setup first: no authenticator secret is waiting to be confirmed');

    const setup = await api.call<Setup>('POST', '/users/me/mfa/setup', { token: person.token });
    const wrong = await api.call<ApiError>('POST', '/users/me/mfa/verify', {
      token: person.token,
      body: { code: await wrongTotp(setup.body.secret) },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors).toEqual([{ path: 'code', message: 'Invalid code' }]);

    for (const code of ['12345', '1234567', 'abcdef', '']) {
      const malformed = await api.call<ApiError>('POST', '/users/me/mfa/verify', { token: person.token, body: { code } });
      expect(malformed.status, code).toBe(400);
      expect(malformed.body.errors, code).toEqual([
        { path: 'code', message: 'Enter the 6-digit code from your authenticator app' },
      ]);
    }
    expect((await api.call('GET', '/user/me', { token: person.token })).body).toMatchObject({ mfa_enabled: false });
  });

  it('verify with a real TOTP code turns MFA on and returns 10 one-time recovery codes', async () => {
    const person = await api.userWithRole(admin, 'user');
    const setup = await api.call<Setup>('POST', '/users/me/mfa/setup', { token: person.token });
    const verified = await api.call<{ recovery_codes: string[] }>('POST', '/users/me/mfa/verify', {
      token: person.token,
      body: { code: await totp(setup.body.secret) },
    });
    expect(verified.status).toBe(200);
    const codes = verified.body.recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);

    // The session that turned it on keeps working and sees the change.
    const me = await api.call('GET', '/user/me', { token: person.token });
    expect(me.body).toMatchObject({ mfa_enabled: true });
    expect((await api.call('GET', `/users/${person.id}`, { token: admin })).body).toMatchObject({ mfa_enabled: true });

    const again = await api.call<ApiError>('POST', '/users/me/mfa/setup', { token: person.token });
    expect(again.status).toBe(400);
    expect(again.body.detail).toBe('Two-factor authentication is already on. Turn it off first to set it up again.');
    const { rows } = await platform.ctx.pool.query('SELECT code_hash FROM mfa_recovery_codes WHERE user_id = $1', [person.id]);
    expect(rows).toHaveLength(10);
    for (const row of rows) expect(codes.join()).not.toContain(row.code_hash);
  });

  it('the MFA routes need a session', async () => {
    expect((await api.call('POST', '/users/me/mfa/setup')).status).toBe(401);
    expect((await api.call('POST', '/users/me/mfa/verify', { body: { code: '123456' } })).status).toBe(401);
    expect((await api.call('DELETE', '/users/me/mfa', { body: { code: '123456' } })).status).toBe(401);
  });
});

describe('sign-in with MFA on', () => {
  it('login answers mfa_required with no session; verify-mfa with mfa_token and a TOTP code signs in', async () => {
    const person = await userWithMfa();
    const login = await passwordStep(person);
    expect(login.body.token).toBeUndefined();
    expect(login.body.mfa_token).toMatch(/^lbs_/);
    expect(setCookie(login.headers, 'lb_session')).toBeUndefined();
    // The pending token is not a session.
    expect((await api.call('GET', '/user/me', { token: login.body.mfa_token })).status).toBe(401);

    const code = await totp(person.secret, 1);
    const verified = await api.call<{ token: string }>('POST', '/auth/verify-mfa', {
      body: { mfa_token: login.body.mfa_token, code },
    });
    expect(verified.status).toBe(200);
    expect(verified.body.token).toMatch(/^lbs_/);
    expect(setCookie(verified.headers, 'lb_session')?.value).toBe(verified.body.token);
    const me = await api.call('GET', '/user/me', { token: verified.body.token });
    expect(me.body).toMatchObject({ id: person.id, mfa_enabled: true });

    // The pending sign-in is used up.
    const reuse = await api.call<ApiError>('POST', '/auth/verify-mfa', { body: { mfa_token: login.body.mfa_token, code } });
    expect(reuse.status).toBe(401);
    expect(reuse.body.detail).toBe('Your sign-in expired. Sign in again with your email and password.');

    // The same TOTP code is not accepted twice (replay), even on a new sign-in.
    const second = await passwordStep(person);
    const replay = await api.call<ApiError>('POST', '/auth/verify-mfa', { body: { mfa_token: second.body.mfa_token, code } });
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ detail: 'Invalid verification code' });
  });

  it('the cookie flow works without mfa_token', async () => {
    const person = await userWithMfa();
    const login = await passwordStep(person);
    const pending = setCookie(login.headers, 'lb_mfa');
    expect(pending?.value).toBe(login.body.mfa_token);
    expect(pending?.attributes).toMatch(/Path=\/api\/auth/);
    expect(pending?.attributes).toMatch(/HttpOnly/i);

    const verified = await api.call<{ token: string }>('POST', '/auth/verify-mfa', {
      cookie: `lb_mfa=${pending?.value}`,
      body: { code: await totp(person.secret, 1) },
    });
    expect(verified.status).toBe(200);
    const session = setCookie(verified.headers, 'lb_session');
    expect(session?.attributes).toMatch(/HttpOnly/i);
    expect(session?.attributes).toMatch(/SameSite=Lax/i);
    // The pending cookie is cleared.
    expect(setCookie(verified.headers, 'lb_mfa')?.attributes).toMatch(/Expires=Thu, 01 Jan 1970/);
    const me = await api.call('GET', '/user/me', { cookie: `lb_session=${session?.value}` });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: person.email });
  });

  it('a recovery code works once, in any case and without dashes', async () => {
    const person = await userWithMfa();
    const [first, second] = person.recoveryCodes;
    const login = await passwordStep(person);
    const used = await api.call<{ token: string }>('POST', '/auth/verify-mfa', {
      body: { mfa_token: login.body.mfa_token, code: first },
    });
    expect(used.status).toBe(200);
    expect((await api.call('GET', '/user/me', { token: used.body.token })).status).toBe(200);

    const again = await passwordStep(person);
    const refused = await api.call<ApiError>('POST', '/auth/verify-mfa', {
      body: { mfa_token: again.body.mfa_token, code: first },
    });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toBe('Invalid verification code');

    const other = await api.call('POST', '/auth/verify-mfa', {
      body: { mfa_token: again.body.mfa_token, code: second?.replaceAll('-', '').toUpperCase() },
    });
    expect(other.status).toBe(200);
    const { rows } = await platform.ctx.pool.query(
      'SELECT count(*)::int AS n FROM mfa_recovery_codes WHERE user_id = $1 AND used_at IS NOT NULL',
      [person.id],
    );
    expect(rows[0].n).toBe(2);
  });

  it('wrong codes answer 401, and after 5 the sign-in is locked (429), even with a new password step', async () => {
    const person = await userWithMfa();
    const login = await passwordStep(person);
    const wrong = await wrongTotp(person.secret);
    for (let attempt = 1; attempt <= 5; attempt++) {
      const response = await api.call<ApiError>('POST', '/auth/verify-mfa', {
        body: { mfa_token: login.body.mfa_token, code: attempt % 2 ? wrong : 'aaaa-bbbb-cccc' },
      });
      expect(response.status, `attempt ${attempt}`).toBe(401);
      expect(response.body).toEqual({ detail: 'Invalid verification code' });
    }
    const locked = await api.call<ApiError>('POST', '/auth/verify-mfa', {
      body: { mfa_token: login.body.mfa_token, code: await totp(person.secret, 1) },
    });
    expect(locked.status).toBe(429);
    expect(locked.body.retry_after).toBeGreaterThan(0);
    expect(locked.headers.get('retry-after')).toBe(String(locked.body.retry_after));
    expect(locked.body.detail).toMatch(/^Too many failed sign-in attempts\. Try again in \d+ seconds?\.$/);

    // Signing in again with the password does not buy a fresh round of guesses.
    const fresh = await passwordStep(person);
    const stillLocked = await api.call('POST', '/auth/verify-mfa', {
      body: { mfa_token: fresh.body.mfa_token, code: person.recoveryCodes[0] },
    });
    expect(stillLocked.status).toBe(429);
  });

  it('a pending sign-in expires (10 minutes): verify-mfa then answers 401', async () => {
    const person = await userWithMfa();
    const login = await passwordStep(person);
    const { rows } = await platform.ctx.pool.query<{ minutes: number }>(
      "SELECT round(extract(epoch FROM expires_at - created_at) / 60)::int AS minutes FROM sessions WHERE user_id = $1 AND kind = 'mfa_pending'",
      [person.id],
    );
    expect(rows).toEqual([{ minutes: 10 }]);
    await platform.ctx.pool.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1", [person.id]);
    const expired = await api.call<ApiError>('POST', '/auth/verify-mfa', {
      body: { mfa_token: login.body.mfa_token, code: await totp(person.secret, 1) },
    });
    expect(expired.status).toBe(401);
    expect(expired.body.detail).toBe('Your sign-in expired. Sign in again with your email and password.');
  });

  it('verify-mfa refuses a missing or wrong kind of token, and bad input', async () => {
    const person = await userWithMfa();
    const none = await api.call<ApiError>('POST', '/auth/verify-mfa', { body: { code: '123456' } });
    expect(none.status).toBe(401);
    expect(none.body.detail).toBe('Your sign-in expired. Sign in again with your email and password.');
    const session = await api.call('POST', '/auth/verify-mfa', { body: { mfa_token: admin, code: '123456' } });
    expect(session.status).toBe(401);
    const forged = await api.call('POST', '/auth/verify-mfa', { body: { mfa_token: 'lbs_forged', code: '123456' } });
    expect(forged.status).toBe(401);

    const short = await api.call<ApiError>('POST', '/auth/verify-mfa', { body: { code: '123' } });
    expect(short.status).toBe(400);
    expect(short.body.errors).toEqual([{ path: 'code', message: 'Enter the 6-digit code or a recovery code' }]);
    const typed = await api.call<ApiError>('POST', '/auth/verify-mfa', { body: { code: 123456, mfa_token: 5 } });
    expect(typed.status).toBe(400);
    expect(typed.body.errors?.map((e) => e.path).sort()).toEqual(['code', 'mfa_token']);

    // A user disabled between the two steps cannot finish signing in.
    const login = await passwordStep(person);
    await api.call('PATCH', `/users/${person.id}`, { token: admin, body: { disabled: true } });
    const disabled = await api.call('POST', '/auth/verify-mfa', {
      body: { mfa_token: login.body.mfa_token, code: await totp(person.secret, 1) },
    });
    expect(disabled.status).toBe(401);
  });
});

describe('DELETE /api/users/me/mfa', () => {
  it('needs a current valid code (400 otherwise), then turns MFA off', async () => {
    const person = await userWithMfa('reader');
    const wrong = await api.call<ApiError>('DELETE', '/users/me/mfa', {
      token: person.token,
      body: { code: await wrongTotp(person.secret) },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ detail: 'The code is not valid', errors: [{ path: 'code', message: 'Invalid code' }] });
    const malformed = await api.call<ApiError>('DELETE', '/users/me/mfa', { token: person.token, body: { code: 'abc' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors?.[0]?.path).toBe('code');
    // A recovery code is for signing in, not for turning MFA off.
    const recovery = await api.call('DELETE', '/users/me/mfa', { token: person.token, body: { code: person.recoveryCodes[0] } });
    expect(recovery.status).toBe(400);
    // The code used to turn MFA on cannot be replayed to turn it off.
    const { rows } = await platform.ctx.pool.query('SELECT mfa_last_step FROM users WHERE id = $1', [person.id]);
    expect(Number(rows[0].mfa_last_step)).toBeGreaterThan(0);
    expect((await api.call('GET', '/user/me', { token: person.token })).body).toMatchObject({ mfa_enabled: true });

    const off = await api.call('DELETE', '/users/me/mfa', { token: person.token, body: { code: await totp(person.secret, 1) } });
    expect(off.status).toBe(204);
    expect((await api.call('GET', '/user/me', { token: person.token })).body).toMatchObject({ mfa_enabled: false });
    const login = await api.call<LoginAnswer>('POST', '/auth/login', {
      body: { email: person.email, password: person.password },
    });
    expect(login.body).toMatchObject({ mfa_required: false, token: expect.stringMatching(/^lbs_/) });
    const codes = await platform.ctx.pool.query('SELECT count(*)::int AS n FROM mfa_recovery_codes WHERE user_id = $1', [
      person.id,
    ]);
    expect(codes.rows[0].n).toBe(0);

    const notOn = await api.call<ApiError>('DELETE', '/users/me/mfa', { token: person.token, body: { code: '123456' } });
    expect(notOn.status).toBe(400);
    expect(notOn.body.detail).toBe('Two-factor authentication is not on');
  });

  it('refuses the code that was just used to turn MFA on (replay)', async () => {
    const person = await api.userWithRole(admin, 'user');
    const setup = await api.call<Setup>('POST', '/users/me/mfa/setup', { token: person.token });
    const code = await totp(setup.body.secret);
    expect((await api.call('POST', '/users/me/mfa/verify', { token: person.token, body: { code } })).status).toBe(200);
    const replay = await api.call<ApiError>('DELETE', '/users/me/mfa', { token: person.token, body: { code } });
    expect(replay.status).toBe(400);
    expect(replay.body.errors).toEqual([{ path: 'code', message: 'Invalid code' }]);
  });
});
