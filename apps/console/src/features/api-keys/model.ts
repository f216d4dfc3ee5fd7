import { type ApiKey, PERMISSION_AREAS, type Permission, type PermissionArea } from '@launchbay/contract';

export type KeyStatus = 'active' | 'inactive' | 'expired';

export function keyStatus(key: Pick<ApiKey, 'is_active' | 'expires_at'>, now = Date.now()): KeyStatus {
  if (key.expires_at && new Date(key.expires_at).getTime() <= now) return 'expired';
  return key.is_active ? 'active' : 'inactive';
}

export const AREA_TITLES: Record<PermissionArea, string> = {
  projects: 'Projects',
  deployments: 'Deployments',
  domains: 'Domains',
  env_vars: 'Environment variables',
  services: 'Services',
  backups: 'Backups',
  monitors: 'Monitors',
  analytics: 'Analytics',
  errors: 'Error tracking',
  notifications: 'Notifications',
  git: 'Git',
  load_balancer: 'Load balancer',
  users: 'Users',
  api_keys: 'API keys',
  settings: 'Settings',
  audit: 'Audit log',
  platform: 'Platform',
};

export function areaTitle(area: string): string {
  return AREA_TITLES[area as PermissionArea] ?? area.replace(/_/g, ' ');
}

export interface AreaAccess {
  area: string;
  read: boolean;
  write: boolean;
}

/** Permissions grouped by area, in the contract's area order. */
export function accessByArea(permissions: readonly Permission[]): AreaAccess[] {
  const held = new Set<string>(permissions);
  const known = new Set<string>(PERMISSION_AREAS);
  const extra = [...new Set(permissions.map((p) => p.split(':')[0] ?? p))].filter((area) => !known.has(area));
  return [...PERMISSION_AREAS, ...extra]
    .map((area) => ({ area, read: held.has(`${area}:read`), write: held.has(`${area}:write`) }))
    .filter((entry) => entry.read || entry.write);
}

export function accessLabel(entry: Pick<AreaAccess, 'read' | 'write'>): string {
  if (entry.read && entry.write) return 'Read & write';
  return entry.write ? 'Write' : 'Read';
}

const ALL_PERMISSIONS = PERMISSION_AREAS.length * 2;

/** A short description of a permission set: 'Full access', 'Read-only' (every area) or the count. */
export function permissionsHeadline(permissions: readonly Permission[]): string {
  const unique = new Set(permissions);
  if (unique.size >= ALL_PERMISSIONS) return 'Full access';
  if (unique.size === PERMISSION_AREAS.length && [...unique].every((p) => p.endsWith(':read'))) return 'Read-only';
  return `${unique.size} ${unique.size === 1 ? 'permission' : 'permissions'}`;
}

/** One sentence about a permission set, for the key's page. */
export function permissionsSentence(permissions: readonly Permission[]): string {
  const headline = permissionsHeadline(permissions);
  if (headline === 'Full access') return 'Full access: read and write in every area.';
  if (headline === 'Read-only') return 'Read-only access to every area.';
  const areas = accessByArea(permissions).length;
  return `${headline} across ${areas} ${areas === 1 ? 'area' : 'areas'}.`;
}

/** Route parameter to a key id; null for anything that cannot be one (shown as not found). */
export function parseKeyId(value: string | undefined): number | null {
  if (!value || !/^\d{1,9}$/.test(value)) return null;
  const id = Number(value);
  return id > 0 ? id : null;
}

const DAY_MS = 86_400_000;

export function expiresSoon(key: Pick<ApiKey, 'expires_at'>, now = Date.now()): boolean {
  if (!key.expires_at) return false;
  const left = new Date(key.expires_at).getTime() - now;
  return left > 0 && left < 7 * DAY_MS;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  return date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** 'in 90 days', 'in 5 hours', 'tomorrow': how far away an expiry is, at any distance. */
export function formatUntil(iso: string, now = Date.now()): string {
  const ms = new Date(iso).getTime() - now;
  if (Number.isNaN(ms)) return '';
  if (Math.abs(ms) < 3_600_000) return relative.format(Math.round(ms / 60_000), 'minute');
  if (Math.abs(ms) < DAY_MS) return relative.format(Math.round(ms / 3_600_000), 'hour');
  return relative.format(Math.round(ms / DAY_MS), 'day');
}
