import type { RoleType } from '@launchbay/contract';

export const ROLE_DESCRIPTIONS: Record<RoleType, string> = {
  admin: 'Full access, including users, keys and platform settings.',
  user: 'Can create and manage projects and their resources.',
  reader: 'Read-only access to projects and dashboards.',
};
