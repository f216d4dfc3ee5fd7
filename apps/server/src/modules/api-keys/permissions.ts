import { PERMISSION_AREAS, type Permission, type PermissionArea } from '@launchbay/contract';

/**
 * Which permission an API key needs for a route, decided in one place from the route's path:
 * reads need `<area>:read`, mutations `<area>:write`. `null` means any valid key may call it;
 * 'session-only' routes (your own password, MFA, sign-out) refuse keys altogether.
 */
const AREA_OF_SEGMENT: Record<string, PermissionArea> = {
  'api-keys': 'api_keys',
  audit: 'audit',
  backups: 'backups',
  domains: 'domains',
  'external-services': 'services',
  'git-connections': 'git',
  'git-providers': 'git',
  repositories: 'git',
  lb: 'load_balancer',
  'proxy-logs': 'load_balancer',
  monitors: 'monitors',
  'notification-preferences': 'notifications',
  'notification-providers': 'notifications',
  notifications: 'notifications',
  analytics: 'analytics',
  'session-replays': 'analytics',
  visitors: 'analytics',
  imports: 'projects',
  // A job's state and log: today's jobs are deploys, backups and imports, read like deployments.
  jobs: 'deployments',
  presets: 'projects',
  'launchbay-json': 'projects',
  geo: 'platform',
  performance: 'platform',
  platform: 'platform',
  settings: 'settings',
  users: 'users',
};

export function requiredPermission(method: string, routeUrl: string): Permission | null | 'session-only' | 'unmapped' {
  if (routeUrl === '/api/user/me') return null;
  if (routeUrl.startsWith('/api/users/me') || routeUrl === '/api/logout') return 'session-only';
  const access = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
  const segments = routeUrl.replace(/^\/api\//, '').split('/');
  let area = AREA_OF_SEGMENT[segments[0] ?? ''];
  if (segments[0] === 'projects') {
    // Project sub-resources have their own areas: /projects/:id/env-vars needs env_vars, and so on.
    const sub = segments[2] ?? '';
    const byProjectSub: Record<string, PermissionArea> = {
      deployments: 'deployments',
      'last-deployment': 'deployments',
      'trigger-pipeline': 'deployments',
      'env-vars': 'env_vars',
      'custom-domains': 'domains',
      monitors: 'monitors',
      'error-groups': 'errors',
      'error-dashboard-stats': 'errors',
      'error-time-series': 'errors',
      'has-error-groups': 'errors',
      dsns: 'errors',
      funnels: 'analytics',
      events: 'analytics',
      'hourly-visits': 'analytics',
      'unique-counts': 'analytics',
      'active-visitors': 'analytics',
      'has-events': 'analytics',
    };
    area = byProjectSub[sub] ?? 'projects';
    // An environment's domains are the project's custom domains by another path: the same permission.
    if (sub === 'environments' && segments[4] === 'domains') area = 'domains';
  }
  if (!area || !PERMISSION_AREAS.includes(area)) return 'unmapped';
  return `${area}:${access}`;
}
