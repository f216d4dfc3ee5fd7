import { currentUserSchema } from '@launchbay/contract';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiRequestError, api, declared } from './api';

const user = { id: 1, username: 'Admin', email: 'admin@example.com', avatar_url: null, roles: ['admin'], mfa_enabled: false };

describe('api (the typed client)', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('parses the body with the contract schema it is given', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Response.json({ ...user, extra: 'dropped' })),
    );
    const me = await api('/user/me', { response: currentUserSchema });
    expect(me).toEqual(user);
  });

  it('turns a body that breaks the contract into an ApiRequestError', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Response.json({ id: 'one' })),
    );
    const call = api('/user/me', { response: currentUserSchema });
    await expect(call).rejects.toBeInstanceOf(ApiRequestError);
    await expect(call).rejects.toMatchObject({ status: 200, detail: 'The server answered in an unexpected format' });
  });

  it('passes a declared body through unparsed (the login path)', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Response.json(user)),
    );
    const me = await api('/user/me', { response: declared<typeof currentUserSchema>() });
    expect(me.roles).toEqual(['admin']);
  });

  it("throws the server's detail and field errors on a failed call", async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Response.json({ detail: 'Bad input', errors: [{ path: 'email', message: 'Nope' }] }, { status: 400 })),
    );
    await expect(api('/users', { method: 'POST', body: {} })).rejects.toMatchObject({
      status: 400,
      detail: 'Bad input',
      errors: [{ path: 'email', message: 'Nope' }],
    });
  });

  it('answers nothing for a call without a reader (204)', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(null, { status: 204 })),
    );
    await expect(api('/users/3', { method: 'DELETE' })).resolves.toBeUndefined();
  });
});
