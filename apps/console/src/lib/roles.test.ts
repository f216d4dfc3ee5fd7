import { describe, expect, it } from 'vitest';
import { canManage, hasRole, isAdmin } from './roles';

describe('role checks', () => {
  it('admins and users manage; readers and nobody only look', () => {
    expect(canManage({ roles: ['admin'] })).toBe(true);
    expect(canManage({ roles: ['user'] })).toBe(true);
    expect(canManage({ roles: ['reader'] })).toBe(false);
    expect(canManage(undefined)).toBe(false);
  });

  it('isAdmin and hasRole read the roles list', () => {
    expect(isAdmin({ roles: ['user', 'admin'] })).toBe(true);
    expect(isAdmin({ roles: ['user'] })).toBe(false);
    expect(hasRole({ roles: ['reader'] }, 'reader')).toBe(true);
  });
});
