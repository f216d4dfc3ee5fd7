import type { CurrentUser, LbRoute } from '@launchbay/contract';
import { vi } from 'vitest';
import { PRODUCTION_ENVIRONMENT, providerProject } from '@/test/fixtures';

const NOW = new Date().toISOString();
const secondsAgo = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();

/** A route to two upstreams, A healthy and B refusing connections for 12 seconds. */
export function lbRoute(overrides: Partial<LbRoute> = {}): LbRoute {
  return {
    id: 1,
    domain: 'api.example.com',
    target: { kind: 'upstreams', upstreams: ['10.0.0.5:3000', '10.0.0.6:3000'] },
    target_label: '10.0.0.5:3000, 10.0.0.6:3000',
    health_check: { enabled: true, path: '/health', interval_seconds: 5, timeout_seconds: 2 },
    upstream_health: [
      { upstream: '10.0.0.5:3000', healthy: true, since: secondsAgo(600), checked_at: secondsAgo(2), error: null },
      {
        upstream: '10.0.0.6:3000',
        healthy: false,
        since: secondsAgo(12),
        checked_at: secondsAgo(2),
        error: 'connection refused',
      },
    ],
    url: 'http://api.example.com:8080',
    created_at: NOW,
    updated_at: NOW,
    ...overrides,
  };
}

export const STAGING_ENVIRONMENT = { ...PRODUCTION_ENVIRONMENT, id: 12, name: 'staging', slug: 'staging', is_production: false };

export const user = (roles: CurrentUser['roles']): CurrentUser =>
  ({
    id: 1,
    username: 'someone',
    email: 'someone@example.com',
    avatar_url: null,
    roles,
    mfa_enabled: false,
    display_name: null,
    created_at: NOW,
  }) as CurrentUser;

type Call = { method: string; path: string; body: unknown };
type Handler = (call: Call) => Response | Promise<Response> | undefined;

/**
 * Stubs fetch: `handler` answers first; then the current user (an admin unless `roles`), the
 * project list (Shop, id 5) and Shop's detail (production and staging). Anything else is a 404.
 */
export function stubApi(handler: Handler = () => undefined, options: { roles?: CurrentUser['roles'] } = {}) {
  const calls: Call[] = [];
  const fetch = vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input), 'http://console.test');
    const call: Call = {
      method: init?.method ?? 'GET',
      path: url.pathname,
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    calls.push(call);
    const answer = await handler(call);
    if (answer) return answer;
    if (call.path === '/api/user/me') return Response.json(user(options.roles ?? ['admin']));
    if (call.path === '/api/projects') {
      return Response.json({
        projects: [
          { id: 5, name: 'Shop', slug: 'shop', url: '', last_deployment: null, current_deployment: null, created_at: NOW },
        ],
        total: 1,
        page: 1,
        per_page: 100,
      });
    }
    if (call.path === '/api/projects/5') {
      return Response.json(providerProject({ environments: [PRODUCTION_ENVIRONMENT, STAGING_ENVIRONMENT] }));
    }
    return Response.json({ detail: `Unexpected call ${call.method} ${call.path}` }, { status: 404 });
  });
  vi.stubGlobal('fetch', fetch);
  return { fetch, calls, callsTo: (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path) };
}
