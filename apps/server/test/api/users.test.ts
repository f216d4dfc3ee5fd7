import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient, TEST_PASSWORD, uniqueEmail } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

type User = {
  id: number;
  username: string;
  email: string;
  avatar_url: string | null;
  roles: string[];
  mfa_enabled: boolean;
  disabled: boolean;
  created_at: string;
  last_login_at: string | null;
};

let platform: TestPlatform;
let api: Api;
let admin: string;
let adminId: number;

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  adminId = (await api.call<{ id: number }>('GET', '/user/me', { token: admin })).body.id;
});
afterAll(() => platform.close());

async function createUser(body: Record<string, unknown>) {
  return api.call<User & ApiError>('POST', '/users', { token: admin, body });
}

async function activeAdmins(): Promise<string[]> {
  const list = await api.call<{ users: User[] }>('GET', '/users', { token: admin });
  return list.body.users.filter((u) => u.roles.includes('admin') && !u.disabled).map((u) => u.email);
}

/** Every admin-only route, with a plausible body: the role check must refuse it whatever the input. */
const ADMIN_ROUTES: [string, string, unknown?][] = [
  ['GET', '/users'],
  ['POST', '/users', { username: 'x', email: 'x@example.com', password: 'long-enough-1', roles: ['user'] }],
  ['GET', '/users/1'],
  ['PATCH', '/users/1', { username: 'Hijacked' }],
  ['DELETE', '/users/1'],
  ['POST', '/users/1/roles', { role_type: 'admin' }],
  ['DELETE', '/users/1/roles/admin'],
];

describe('the last admin', () => {
  // First in the file: here the first admin is the only one.
  it('cannot be deleted, disabled or demoted', async () => {
    expect(await activeAdmins()).toEqual([ADMIN_EMAIL]);

    const deleteSelf = await api.call<ApiError>('DELETE', `/users/${adminId}`, { token: admin });
    expect(deleteSelf.status).toBe(400);
    expect(deleteSelf.body.detail).toBe('You cannot delete your own account');

    const disable = await api.call<ApiError>('PATCH', `/users/${adminId}`, {
      token: admin,
      body: { disabled: true, username: 'Renamed in the refused change' },
    });
    expect(disable.status).toBe(400);
    expect(disable.body.detail).toBe('The last active admin cannot be disabled');
    // The refused change is rolled back whole: the name did not change either.
    expect((await api.call<User>('GET', `/users/${adminId}`, { token: admin })).body.username).toBe('Admin');

    const onlyRole = await api.call<ApiError>('DELETE', `/users/${adminId}/roles/admin`, { token: admin });
    expect(onlyRole.status).toBe(400);
    expect(onlyRole.body.detail).toBe('A user needs at least one role: add another role first');

    expect((await api.call('POST', `/users/${adminId}/roles`, { token: admin, body: { role_type: 'user' } })).status).toBe(200);
    const demote = await api.call<ApiError>('DELETE', `/users/${adminId}/roles/admin`, { token: admin });
    expect(demote.status).toBe(400);
    expect(demote.body.detail).toBe('The last active admin cannot lose the admin role');
    const after = await api.call<User>('DELETE', `/users/${adminId}/roles/user`, { token: admin });
    expect(after.status).toBe(200);
    expect(after.body.roles).toEqual(['admin']);

    // Nothing changed: still an active admin who can sign in and act.
    const me = await api.call<User>('GET', `/users/${adminId}`, { token: admin });
    expect(me.body).toMatchObject({ disabled: false, roles: ['admin'] });
    expect(await api.login(ADMIN_EMAIL, ADMIN_PASSWORD)).toMatch(/^lbs_/);
  });

  it('with two admins one can be demoted or disabled, and then the other is the last', async () => {
    const second = await api.userWithRole(admin, 'admin');
    expect((await api.call('GET', '/users', { token: second.token })).status).toBe(200);
    await api.call('POST', `/users/${second.id}/roles`, { token: admin, body: { role_type: 'reader' } });
    const demoted = await api.call<User>('DELETE', `/users/${second.id}/roles/admin`, { token: admin });
    expect(demoted.status).toBe(200);
    expect(demoted.body.roles).toEqual(['reader']);
    // The demotion applies to the open session at once.
    expect((await api.call('GET', '/users', { token: second.token })).status).toBe(403);

    const third = await api.userWithRole(admin, 'admin');
    const disabled = await api.call<User>('PATCH', `/users/${third.id}`, { token: admin, body: { disabled: true } });
    expect(disabled.status).toBe(200);
    expect(disabled.body.disabled).toBe(true);
    // A disabled admin does not count: the first admin is the last active one again.
    expect(await activeAdmins()).toEqual([ADMIN_EMAIL]);
    const refuse = await api.call<ApiError>('PATCH', `/users/${adminId}`, { token: admin, body: { disabled: true } });
    expect(refuse.status).toBe(400);
    expect(refuse.body.detail).toBe('The last active admin cannot be disabled');

    // Another active admin may take the first admin's role away.
    const fourth = await api.userWithRole(admin, 'admin');
    await api.call('POST', `/users/${adminId}/roles`, { token: fourth.token, body: { role_type: 'user' } });
    const firstDemoted = await api.call<User>('DELETE', `/users/${adminId}/roles/admin`, { token: fourth.token });
    expect(firstDemoted.status).toBe(200);
    expect(firstDemoted.body.roles).toEqual(['user']);
    const restored = await api.call<User>('POST', `/users/${adminId}/roles`, {
      token: fourth.token,
      body: { role_type: 'admin' },
    });
    expect(restored.body.roles).toEqual(['admin', 'user']);
    await api.call('DELETE', `/users/${adminId}/roles/user`, { token: admin });
    expect((await api.call('DELETE', `/users/${fourth.id}`, { token: admin })).status).toBe(204);
    expect(await activeAdmins()).toEqual([ADMIN_EMAIL]);
  });

  it('two admins disabling each other at the same moment: exactly one wins', async () => {
    expect(await activeAdmins()).toEqual([ADMIN_EMAIL]);
    const other = await api.userWithRole(admin, 'admin');
    const [first, second] = await Promise.all([
      api.call<User & ApiError>('PATCH', `/users/${adminId}`, { token: other.token, body: { disabled: true } }),
      api.call<User & ApiError>('PATCH', `/users/${other.id}`, { token: admin, body: { disabled: true } }),
    ]);
    const [winner, loser] = first.status === 200 ? [first, second] : [second, first];
    expect(winner.status).toBe(200);
    expect(winner.body.disabled).toBe(true);
    // The loser is refused by the guard, or, when the winner finished first, its own session already ended.
    if (loser.status === 401) expect(loser.body).toEqual({ detail: 'Authentication Required' });
    else {
      expect(loser.status).toBe(400);
      expect(loser.body.detail).toBe('The last active admin cannot be disabled');
    }
    const active = await api.call<{ users: User[] }>('GET', '/users', {
      token: first.status === 200 ? other.token : admin,
    });
    expect(active.body.users.filter((u) => u.roles.includes('admin') && !u.disabled)).toHaveLength(1);
    // Put the first admin back in charge, alone.
    if (first.status === 200) {
      await api.call('PATCH', `/users/${adminId}`, { token: other.token, body: { disabled: false } });
      admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
    }
    expect((await api.call('DELETE', `/users/${other.id}`, { token: admin })).status).toBe(204);
    expect(await activeAdmins()).toEqual([ADMIN_EMAIL]);
  });
});

describe('admin-only routes', () => {
  it('answer 401 without credentials and with a bad token', async () => {
    for (const [method, path, body] of ADMIN_ROUTES) {
      const anonymous = await api.call(method, path, { body });
      expect(anonymous.status, `${method} ${path}`).toBe(401);
      expect(anonymous.body, `${method} ${path}`).toEqual({ detail: 'Authentication Required' });
      const forged = await api.call(method, path, { body, token: 'lbs_not-a-real-session-token' });
      expect(forged.status, `${method} ${path} (forged)`).toBe(401);
    }
  });

  it('answer 403 to the user and reader roles, and change nothing', async () => {
    const user = await api.userWithRole(admin, 'user');
    const reader = await api.userWithRole(admin, 'reader');
    for (const who of [user, reader]) {
      for (const [method, path, body] of ADMIN_ROUTES) {
        const response = await api.call<ApiError>(method, path, { token: who.token, body });
        expect(response.status, `${method} ${path}`).toBe(403);
        expect(response.body.detail).toBe('You need the admin role for this');
      }
    }
    const first = await api.call<User>('GET', `/users/${adminId}`, { token: admin });
    expect(first.body).toMatchObject({ username: 'Admin', roles: ['admin'], disabled: false });
    const list = await api.call<{ users: User[] }>('GET', '/users', { token: admin });
    expect(list.body.users.some((u) => u.email === 'x@example.com')).toBe(false);
  });

  it('answer 403 before reading the body (authorisation comes first)', async () => {
    const reader = await api.userWithRole(admin, 'reader');
    const response = await api.call('POST', '/users', { token: reader.token, rawBody: '{"broken":' });
    expect(response.status).toBe(403);
  });
});

describe('GET /api/users', () => {
  it('lists every user with roles and no secrets', async () => {
    const email = uniqueEmail('listed');
    const created = await createUser({ username: 'Listed', email, password: TEST_PASSWORD, roles: ['reader', 'user'] });
    const list = await api.call<{ users: User[] }>('GET', '/users', { token: admin });
    expect(list.status).toBe(200);
    const ids = list.body.users.map((u) => u.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const listed = list.body.users.find((u) => u.id === created.body.id);
    expect(listed).toEqual({
      id: created.body.id,
      username: 'Listed',
      email,
      avatar_url: null,
      roles: ['reader', 'user'],
      mfa_enabled: false,
      disabled: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      last_login_at: null,
    });
    const first = list.body.users.find((u) => u.email === ADMIN_EMAIL);
    expect(first?.last_login_at).not.toBeNull();
    expect(JSON.stringify(list.body)).not.toMatch(/password|argon2|mfa_secret/i);
  });
});

describe('POST /api/users', () => {
  it('creates a user (201) who can sign in with the given role', async () => {
    const email = uniqueEmail('Mixed.Case');
    const created = await createUser({ username: '  Ada Lovelace  ', email, password: TEST_PASSWORD });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      username: 'Ada Lovelace',
      email: email.toLowerCase(),
      roles: ['user'],
      disabled: false,
      mfa_enabled: false,
    });
    const token = await api.login(email.toUpperCase(), TEST_PASSWORD);
    const me = await api.call('GET', '/user/me', { token });
    expect(me.body).toMatchObject({ id: created.body.id, roles: ['user'] });
    const fetched = await api.call<User>('GET', `/users/${created.body.id}`, { token: admin });
    expect(fetched.body.last_login_at).not.toBeNull();
  });

  it('answers 400 with a field error for each bad field', async () => {
    const bad = await createUser({ username: '', email: 'not-an-email', password: 'short', roles: ['superuser'] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'username', message: 'Name is required' },
        { path: 'email', message: 'Please enter a valid email address' },
        { path: 'password', message: 'Password must be at least 8 characters' },
        expect.objectContaining({ path: 'roles.0' }),
      ]),
    );
    expect(bad.body.detail).toContain('email: Please enter a valid email address');

    const noRoles = await createUser({ username: 'x', email: uniqueEmail(), password: TEST_PASSWORD, roles: [] });
    expect(noRoles.status).toBe(400);
    expect(noRoles.body.errors).toEqual([{ path: 'roles', message: 'Choose at least one role' }]);

    const missing = await createUser({});
    expect(missing.status).toBe(400);
    expect(missing.body.errors?.map((e) => e.path).sort()).toEqual(['email', 'password', 'username']);

    const longPassword = await createUser({ username: 'x', email: uniqueEmail(), password: 'p'.repeat(257) });
    expect(longPassword.body.errors).toEqual([{ path: 'password', message: 'Password must be at most 256 characters' }]);
  });

  it('answers 409 for an email that is taken, whatever its case', async () => {
    const email = uniqueEmail('dup');
    expect((await createUser({ username: 'One', email, password: TEST_PASSWORD })).status).toBe(201);
    const again = await createUser({ username: 'Two', email: email.toUpperCase(), password: TEST_PASSWORD });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      detail: 'A user with this email already exists',
      errors: [{ path: 'email', message: 'A user with this email already exists' }],
    });
    const list = await api.call<{ users: User[] }>('GET', '/users', { token: admin });
    expect(list.body.users.filter((u) => u.email === email)).toHaveLength(1);
  });

  it('creating the same email many times at once gives one 201 and 409s', async () => {
    const email = uniqueEmail('race');
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => createUser({ username: `Racer ${i}`, email, password: TEST_PASSWORD })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const list = await api.call<{ users: User[] }>('GET', '/users', { token: admin });
    expect(list.body.users.filter((u) => u.email === email)).toHaveLength(1);
  });
});

describe('GET /api/users/{user_id}', () => {
  it('returns one user, 404 for an unknown id and 400 for an id that is not one', async () => {
    const found = await api.call<User>('GET', `/users/${adminId}`, { token: admin });
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ id: adminId, email: ADMIN_EMAIL, roles: ['admin'] });

    const missing = await api.call<ApiError>('GET', '/users/999999', { token: admin });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe('User 999999 not found');

    for (const id of ['abc', '-1', '0', '1.5']) {
      const bad = await api.call<ApiError>('GET', `/users/${id}`, { token: admin });
      expect(bad.status, id).toBe(400);
      expect(bad.body.errors?.[0]?.path, id).toBe('params.user_id');
    }
  });
});

describe('PATCH /api/users/{user_id}', () => {
  it('updates name and email', async () => {
    const person = await api.userWithRole(admin, 'user');
    const email = uniqueEmail('renamed');
    const updated = await api.call<User>('PATCH', `/users/${person.id}`, {
      token: admin,
      body: { username: 'Renamed', email: email.toUpperCase() },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: person.id, username: 'Renamed', email });
    // The person's open session sees the change at once.
    expect((await api.call('GET', '/user/me', { token: person.token })).body).toMatchObject({ username: 'Renamed', email });
  });

  it('answers 400 for an empty patch and for bad fields, 404 for an unknown id, 409 for a taken email', async () => {
    const person = await api.userWithRole(admin, 'user');
    const empty = await api.call<ApiError>('PATCH', `/users/${person.id}`, { token: admin, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ detail: 'Nothing to update', errors: [{ path: '(root)', message: 'Nothing to update' }] });

    const bad = await api.call<ApiError>('PATCH', `/users/${person.id}`, {
      token: admin,
      body: { email: 'nope', password: 'short', disabled: 'yes' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.map((e) => e.path).sort()).toEqual(['disabled', 'email', 'password']);

    const missing = await api.call<ApiError>('PATCH', '/users/999999', { token: admin, body: { username: 'Ghost' } });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe('User 999999 not found');

    const taken = await api.call<ApiError>('PATCH', `/users/${person.id}`, { token: admin, body: { email: ADMIN_EMAIL } });
    expect(taken.status).toBe(409);
    expect(taken.body.errors).toEqual([{ path: 'email', message: 'A user with this email already exists' }]);
    expect((await api.call<User>('GET', `/users/${person.id}`, { token: admin })).body.email).toBe(person.email);
  });

  it('a new password set by an admin ends every session of the user', async () => {
    const person = await api.userWithRole(admin, 'user');
    const second = await api.login(person.email, person.password);
    const changed = await api.call('PATCH', `/users/${person.id}`, { token: admin, body: { password: 'brand-new-password' } });
    expect(changed.status).toBe(200);
    for (const token of [person.token, second]) expect((await api.call('GET', '/user/me', { token })).status).toBe(401);
    expect((await api.call('POST', '/auth/login', { body: { email: person.email, password: person.password } })).status).toBe(
      401,
    );
    expect(await api.login(person.email, 'brand-new-password')).toMatch(/^lbs_/);
  });

  it('a disabled user is signed out at once and cannot sign in; enabling lets them back', async () => {
    const person = await api.userWithRole(admin, 'user');
    expect((await api.call('GET', '/user/me', { token: person.token })).status).toBe(200);
    const disabled = await api.call<User>('PATCH', `/users/${person.id}`, { token: admin, body: { disabled: true } });
    expect(disabled.body.disabled).toBe(true);
    expect((await api.call('GET', '/user/me', { token: person.token })).status).toBe(401);

    const login = await api.call<ApiError>('POST', '/auth/login', { body: { email: person.email, password: person.password } });
    expect(login.status).toBe(403);
    expect(login.body.detail).toBe('This account has been disabled. Ask an admin to enable it.');
    expect(login.headers.get('set-cookie')).toBeNull();

    const enabled = await api.call<User>('PATCH', `/users/${person.id}`, { token: admin, body: { disabled: false } });
    expect(enabled.body.disabled).toBe(false);
    // The old session stays ended; a new sign-in works.
    expect((await api.call('GET', '/user/me', { token: person.token })).status).toBe(401);
    const token = await api.login(person.email, person.password);
    expect((await api.call('GET', '/user/me', { token })).status).toBe(200);
  });
});

describe('DELETE /api/users/{user_id}', () => {
  it('deletes the user (204) and ends their sessions', async () => {
    const person = await api.userWithRole(admin, 'user');
    const deleted = await api.call('DELETE', `/users/${person.id}`, { token: admin });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    expect((await api.call('GET', '/user/me', { token: person.token })).status).toBe(401);
    expect((await api.call('GET', `/users/${person.id}`, { token: admin })).status).toBe(404);
    expect((await api.call('POST', '/auth/login', { body: { email: person.email, password: person.password } })).status).toBe(
      401,
    );
    const { rows } = await platform.ctx.pool.query('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [person.id]);
    expect(rows[0].n).toBe(0);
  });

  it('answers 404 for an unknown id and 400 for a bad one', async () => {
    const missing = await api.call<ApiError>('DELETE', '/users/999999', { token: admin });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe('User 999999 not found');
    expect((await api.call('DELETE', '/users/abc', { token: admin })).status).toBe(400);
  });
});

describe('roles', () => {
  it('POST adds a role that applies to open sessions at once; DELETE takes it away', async () => {
    const person = await api.userWithRole(admin, 'reader');
    expect((await api.call('GET', '/users', { token: person.token })).status).toBe(403);
    const added = await api.call<User>('POST', `/users/${person.id}/roles`, { token: admin, body: { role_type: 'admin' } });
    expect(added.status).toBe(200);
    expect(added.body.roles).toEqual(['admin', 'reader']);
    expect((await api.call('GET', '/users', { token: person.token })).status).toBe(200);

    const twice = await api.call<User>('POST', `/users/${person.id}/roles`, { token: admin, body: { role_type: 'admin' } });
    expect(twice.body.roles).toEqual(['admin', 'reader']);

    const removed = await api.call<User>('DELETE', `/users/${person.id}/roles/admin`, { token: admin });
    expect(removed.status).toBe(200);
    expect(removed.body.roles).toEqual(['reader']);
    expect((await api.call('GET', '/users', { token: person.token })).status).toBe(403);
  });

  it('answers 400 for a bad role, 404 for an unknown user or a role the user does not have', async () => {
    const person = await api.userWithRole(admin, 'user');
    const badBody = await api.call<ApiError>('POST', `/users/${person.id}/roles`, { token: admin, body: { role_type: 'root' } });
    expect(badBody.status).toBe(400);
    expect(badBody.body.errors?.[0]?.path).toBe('role_type');
    const noBody = await api.call<ApiError>('POST', `/users/${person.id}/roles`, { token: admin });
    expect(noBody.status).toBe(400);

    const badParam = await api.call<ApiError>('DELETE', `/users/${person.id}/roles/root`, { token: admin });
    expect(badParam.status).toBe(400);
    expect(badParam.body.errors?.[0]?.path).toBe('params.role_type');

    const unknownUser = await api.call<ApiError>('POST', '/users/999999/roles', { token: admin, body: { role_type: 'user' } });
    expect(unknownUser.status).toBe(404);
    expect((await api.call('DELETE', '/users/999999/roles/user', { token: admin })).status).toBe(404);

    const notHeld = await api.call<ApiError>('DELETE', `/users/${person.id}/roles/reader`, { token: admin });
    expect(notHeld.status).toBe(404);
    expect(notHeld.body.detail).toBe(`User ${person.id} does not have the reader role`);
  });
});

describe('PATCH /api/users/me', () => {
  it('changes name, email and avatar, for any role', async () => {
    const reader = await api.userWithRole(admin, 'reader');
    const email = uniqueEmail('me');
    // Asked before the change, so the answer kept for this session's principal is the old one.
    expect((await api.call<{ username: string }>('GET', '/user/me', { token: reader.token })).body.username).not.toBe('Grace');
    const updated = await api.call('PATCH', '/users/me', {
      token: reader.token,
      body: { username: 'Grace', email, avatar_url: 'https://example.com/grace.png', current_password: reader.password },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({
      id: reader.id,
      username: 'Grace',
      email,
      avatar_url: 'https://example.com/grace.png',
      roles: ['reader'],
      mfa_enabled: false,
    });
    expect((await api.call('GET', '/user/me', { token: reader.token })).body).toEqual(updated.body);
    expect(await api.login(email, reader.password)).toMatch(/^lbs_/);

    const cleared = await api.call('PATCH', '/users/me', { token: reader.token, body: { avatar_url: null } });
    expect(cleared.body).toMatchObject({ avatar_url: null, username: 'Grace' });
  });

  it('answers 400 with field errors for bad values and 409 for a taken email', async () => {
    const user = await api.userWithRole(admin, 'user');
    const bad = await api.call<ApiError>('PATCH', '/users/me', {
      token: user.token,
      body: { username: '   ', email: 'nope', avatar_url: 'ftp://example.com/a.png' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'username', message: 'Name is required' },
        { path: 'email', message: 'Please enter a valid email address' },
        { path: 'avatar_url', message: 'Avatar must be an http(s) URL' },
      ]),
    );
    const taken = await api.call<ApiError>('PATCH', '/users/me', {
      token: user.token,
      body: { email: ADMIN_EMAIL, current_password: user.password },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.errors).toEqual([{ path: 'email', message: 'A user with this email already exists' }]);
    expect((await api.call('GET', '/user/me', { token: user.token })).body).toMatchObject({ email: user.email });
    expect((await api.call('PATCH', '/users/me', { body: { username: 'Anon' } })).status).toBe(401);
  });

  it('a new email needs the current password, checked before the email', async () => {
    const user = await api.userWithRole(admin, 'user');
    const freeEmail = uniqueEmail('moved');
    const incorrect = {
      detail: 'Current password is incorrect',
      errors: [{ path: 'current_password', message: 'Current password is incorrect' }],
    };

    const missing = await api.call<ApiError>('PATCH', '/users/me', { token: user.token, body: { email: freeEmail } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([
      { path: 'current_password', message: 'Current password is required to change your email' },
    ]);
    const missingTaken = await api.call<ApiError>('PATCH', '/users/me', { token: user.token, body: { email: ADMIN_EMAIL } });
    expect(missingTaken.status).toBe(400);
    expect(missingTaken.body).toEqual(missing.body);

    const wrongFree = await api.call<ApiError>('PATCH', '/users/me', {
      token: user.token,
      body: { email: freeEmail, current_password: 'not-my-password', username: 'Not applied' },
    });
    expect(wrongFree.status).toBe(400);
    expect(wrongFree.body).toEqual(incorrect);
    // A taken email with a wrong password answers exactly like a free one: no account is confirmed.
    const wrongTaken = await api.call<ApiError>('PATCH', '/users/me', {
      token: user.token,
      body: { email: ADMIN_EMAIL, current_password: 'not-my-password', username: 'Not applied' },
    });
    expect(wrongTaken.status).toBe(400);
    expect(wrongTaken.body).toEqual(wrongFree.body);
    expect((await api.call('GET', '/user/me', { token: user.token })).body).toMatchObject({
      email: user.email,
      username: 'user person',
    });

    const rightTaken = await api.call<ApiError>('PATCH', '/users/me', {
      token: user.token,
      body: { email: ADMIN_EMAIL.toUpperCase(), current_password: user.password },
    });
    expect(rightTaken.status).toBe(409);
    expect(rightTaken.body).toEqual({
      detail: 'A user with this email already exists',
      errors: [{ path: 'email', message: 'A user with this email already exists' }],
    });

    const moved = await api.call('PATCH', '/users/me', {
      token: user.token,
      body: { email: freeEmail, current_password: user.password },
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: user.id, email: freeEmail });
    expect(await api.login(freeEmail, user.password)).toMatch(/^lbs_/);
    // Name and avatar alone still need no password.
    expect((await api.call('PATCH', '/users/me', { token: user.token, body: { username: 'Renamed' } })).status).toBe(200);
  });

  it('a new password needs the right current password', async () => {
    const user = await api.userWithRole(admin, 'user');
    const missing = await api.call<ApiError>('PATCH', '/users/me', {
      token: user.token,
      body: { new_password: 'another-password' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ path: 'current_password', message: 'Current password is required to set a new one' }]);

    const wrong = await api.call<ApiError>('PATCH', '/users/me', {
      token: user.token,
      body: { current_password: 'not-my-password', new_password: 'another-password', username: 'Not applied' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      detail: 'Current password is incorrect',
      errors: [{ path: 'current_password', message: 'Current password is incorrect' }],
    });
    expect((await api.call('GET', '/user/me', { token: user.token })).body).toMatchObject({ username: 'user person' });

    const short = await api.call<ApiError>('PATCH', '/users/me', {
      token: user.token,
      body: { current_password: user.password, new_password: 'short' },
    });
    expect(short.body.errors).toEqual([{ path: 'new_password', message: 'Password must be at least 8 characters' }]);
    expect(await api.login(user.email, user.password)).toMatch(/^lbs_/);
  });

  it('after a password change the other sessions end and the current one keeps working', async () => {
    const user = await api.userWithRole(admin, 'user');
    const other = await api.login(user.email, user.password);
    const changed = await api.call('PATCH', '/users/me', {
      token: user.token,
      body: { current_password: user.password, new_password: 'my-new-password' },
    });
    expect(changed.status).toBe(200);
    expect((await api.call('GET', '/user/me', { token: user.token })).status).toBe(200);
    expect((await api.call('GET', '/user/me', { token: other })).status).toBe(401);
    expect((await api.call('POST', '/auth/login', { body: { email: user.email, password: user.password } })).status).toBe(401);
    expect(await api.login(user.email, 'my-new-password')).toMatch(/^lbs_/);
  });
});

describe('sessions', () => {
  it('an expired session answers 401', async () => {
    const person = await api.userWithRole(admin, 'user');
    const fresh = await api.login(person.email, person.password);
    await platform.ctx.pool.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1", [person.id]);
    expect((await api.call('GET', '/user/me', { token: fresh })).status).toBe(401);
  });

  it('the session cookie works like the bearer token, and logout clears it', async () => {
    const person = await api.userWithRole(admin, 'reader');
    const login = await api.call('POST', '/auth/login', { body: { email: person.email, password: person.password } });
    const cookie =
      login.headers
        .getSetCookie()
        .find((c) => c.startsWith('lb_session='))
        ?.split(';')[0] ?? '';
    expect(cookie).toMatch(/^lb_session=lbs_/);
    expect((await api.call('GET', '/user/me', { cookie })).body).toMatchObject({ email: person.email });
    const logout = await api.call('POST', '/logout', { cookie });
    expect(logout.status).toBe(204);
    expect(logout.headers.getSetCookie().join()).toMatch(/lb_session=;.*Expires=Thu, 01 Jan 1970/);
    expect((await api.call('GET', '/user/me', { cookie })).status).toBe(401);
    // Other sessions of the same user are untouched by a logout.
    expect((await api.call('GET', '/user/me', { token: person.token })).status).toBe(200);
  });
});
