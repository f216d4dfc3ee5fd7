import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, type ApiResponse, apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/**
 * Sign-in throttling counts failures per (email, client address) and per client address. In the
 * default access mode the platform trusts X-Forwarded-For from loopback (a local proxy in front of
 * it), so each test signs in from its own forwarded address and the tests stay independent. The
 * per-account limit (security-auth.test.ts) counts every address together, so the tests that fail
 * many times use an account of their own.
 */
let platform: TestPlatform;
let api: Api;
let admin: string;
let nextAddress = 10;

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(() => platform.close());

const newAddress = () => `198.51.100.${nextAddress++}`;
const newAccount = () => api.userWithRole(admin, 'user');

function login(email: string, password: string, from: string): Promise<ApiResponse<ApiError & { token?: string }>> {
  return api.call('POST', '/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': from } });
}

/** Five wrong passwords (each a plain 401), then the sixth attempt's answer. */
async function lockOut(email: string, from: string) {
  for (let attempt = 1; attempt <= 5; attempt++) {
    const response = await login(email, 'wrong-password', from);
    expect(response.status, `attempt ${attempt}`).toBe(401);
    expect(response.body).toEqual({ detail: 'Invalid email or password' });
  }
  return login(email, 'wrong-password', from);
}

/** A 429 with the countdown in the body and the Retry-After header; a fresh lock is about 30 s. */
function expectLocked(response: ApiResponse<ApiError>, atLeast = 20) {
  expect(response.status).toBe(429);
  const seconds = response.body.retry_after ?? 0;
  expect(seconds).toBeGreaterThanOrEqual(atLeast);
  expect(seconds).toBeLessThanOrEqual(30);
  expect(response.headers.get('retry-after')).toBe(String(seconds));
  expect(response.body).toEqual({
    detail: `Too many failed sign-in attempts. Try again in ${seconds} seconds.`,
    retry_after: seconds,
  });
  expect(response.headers.get('set-cookie')).toBeNull();
}

/** The answer with its countdown taken out, to compare two answers. */
const shape = (response: ApiResponse<ApiError>) => ({
  status: response.status,
  body: JSON.stringify(response.body).replace(/\d+/g, 'N'),
  retryAfterHeader: response.headers.has('retry-after'),
});

describe('sign-in throttling', () => {
  it('locks an existing account after 5 wrong passwords: 429 with retry_after, and the right password is refused too', async () => {
    const account = await newAccount();
    const from = newAddress();
    const locked = await lockOut(account.email, from);
    expectLocked(locked);
    const right = await login(account.email, account.password, from);
    expectLocked(right);
    expect(right.body.token).toBeUndefined();
  });

  it('answers exactly alike for an email that does not exist', async () => {
    const existing = await lockOut((await newAccount()).email, newAddress());
    const ghost = await lockOut('nobody-here@example.com', newAddress());
    expectLocked(ghost);
    expect(shape(ghost)).toEqual(shape(existing));
    expect(Object.keys(ghost.body).sort()).toEqual(Object.keys(existing.body).sort());
  });

  it('locks the pair (email, address): the same account from another address still signs in', async () => {
    const account = await newAccount();
    const from = newAddress();
    expectLocked(await lockOut(account.email, from));
    const elsewhere = await login(account.email, account.password, newAddress());
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.token).toMatch(/^lbs_/);
    // Another email from the locked address is not locked either.
    expect((await login('someone-else@example.com', 'wrong-password', from)).status).toBe(401);
  });

  it('a successful sign-in clears the count of failures for that account', async () => {
    const from = newAddress();
    for (let i = 0; i < 4; i++) expect((await login(ADMIN_EMAIL, 'wrong-password', from)).status).toBe(401);
    expect((await login(ADMIN_EMAIL, ADMIN_PASSWORD, from)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await login(ADMIN_EMAIL, 'wrong-password', from)).status).toBe(401);
    expect((await login(ADMIN_EMAIL, ADMIN_PASSWORD, from)).status).toBe(200);
  });

  it('locks an address that tries many accounts (30 failures), for every email', async () => {
    const from = newAddress();
    // In parallel batches: exactly 30 attempts, so none of them can see the lock their batch sets.
    for (let batch = 0; batch < 5; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => login(`spray-${batch}-${i}@example.com`, 'wrong-password', from)),
      );
      expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 401]);
    }
    expectLocked(await login(ADMIN_EMAIL, ADMIN_PASSWORD, from));
    expect((await login(ADMIN_EMAIL, ADMIN_PASSWORD, newAddress())).status).toBe(200);
  });

  it('answers 400 (not 500) for a very long email, before any lookup', async () => {
    // Random, so the database could not compress it below the index row limit (2704 bytes).
    const local = randomBytes(3000).toString('hex');
    const from = newAddress();
    const response = await login(`${local}@example.com`, 'wrong-password', from);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ errors: [{ path: 'email', message: 'Email must be at most 254 characters' }] });
  });
});
