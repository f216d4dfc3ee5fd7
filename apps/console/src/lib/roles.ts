import type { CurrentUser, RoleType } from '@launchbay/contract';
import { useCurrentUser } from './current-user';

/**
 * Role checks for what the UI offers. The server enforces roles on every call; these only decide
 * whether a control is shown or enabled.
 */
export function hasRole(user: Pick<CurrentUser, 'roles'> | undefined, role: RoleType): boolean {
  return user?.roles.includes(role) ?? false;
}

export function isAdmin(user: Pick<CurrentUser, 'roles'> | undefined): boolean {
  return hasRole(user, 'admin');
}

/** Admins and users change things; readers only look. */
export function canManage(user: Pick<CurrentUser, 'roles'> | undefined): boolean {
  return hasRole(user, 'admin') || hasRole(user, 'user');
}

export function useIsAdmin(): boolean {
  return isAdmin(useCurrentUser().data);
}

export function useCanManage(): boolean {
  return canManage(useCurrentUser().data);
}
