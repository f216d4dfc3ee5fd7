import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

let platform: TestPlatform;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
});
afterAll(() => platform.close());

describe('POST /api/auth/login', () => {
  it('signs in the first admin and returns a working bearer token', async () => {
    const login = await api.call<{ mfa_required: boolean; token: string }>('POST', '/auth/login', {
      body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
    });
    expect(login.status).toBe(200);
    expect(login.body.mfa_required).toBe(false);
    expect(login.body.token).toMatch(/^lbs_/);
    expect(login.headers.get('set-cookie')).toMatch(/lb_session=.*HttpOnly.*SameSite=Lax/i);
    const me = await api.call('GET', '/user/me', { token: login.body.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: ADMIN_EMAIL, username: 'Admin', avatar_url: null, roles: ['admin'] });
  });

  it('answers 400 with field errors for bad input', async () => {
    const response = await api.call<{ detail: string; errors: { path: string; message: string }[] }>('POST', '/auth/login', {
      body: { email: 'not-an-email', password: '' },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'email', message: 'Please enter a valid email address' },
        { path: 'password', message: 'Password is required' },
      ]),
    );
  });

  it('answers the same 401 for a wrong password and an unknown email', async () => {
    const wrong = await api.call('POST', '/auth/login', { body: { email: ADMIN_EMAIL, password: 'nope-nope' } });
    const unknown = await api.call('POST', '/auth/login', { body: { email: 'ghost@example.com', password: 'nope-nope' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it('answers 400 for malformed JSON and 413 for an oversized body', async () => {
    const malformed = await api.call<{ detail: string }>('POST', '/auth/login', { rawBody: '{"email":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.detail).toMatch(/Malformed JSON/);
    const huge = await api.call('POST', '/auth/login', { body: { email: 'a@b.co', password: 'x'.repeat(2 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
  });
});

describe('GET /api/user/me and POST /api/logout', () => {
  it('answers 401 Authentication Required without credentials', async () => {
    const response = await api.call('GET', '/user/me');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Authentication Required' });
  });

  it('revokes the session on logout', async () => {
    const token = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const logout = await api.call('POST', '/logout', { token });
    expect(logout.status).toBe(204);
    // The browser drops its session cookie too.
    expect(logout.headers.get('set-cookie')).toBe(
      'lb_session=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Lax',
    );
    expect((await api.call('GET', '/user/me', { token })).status).toBe(401);
    expect((await api.call('POST', '/logout')).status).toBe(401);
  });
});

describe('unknown API paths', () => {
  it('answer 404 JSON', async () => {
    const response = await api.call('GET', '/definitely/not/here');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ detail: expect.stringContaining('/api/definitely/not/here') });
  });
});
