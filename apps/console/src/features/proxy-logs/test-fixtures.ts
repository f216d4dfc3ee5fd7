import type { GeoLocation, ProxyLog, ProxyLogList } from '@launchbay/contract';
import { vi } from 'vitest';

/** A request the edge served for the `shop` project (id 5), with every field set. */
export function proxyLog(overrides: Partial<ProxyLog> = {}): ProxyLog {
  return {
    id: 101,
    created_at: new Date(Date.now() - 60_000).toISOString(),
    method: 'GET',
    host: 'shop.example.com',
    path: '/api/products',
    query: 'page=2&sort=price',
    status_code: 200,
    duration_ms: 42.5,
    bytes_in: 512,
    bytes_out: 20_480,
    client_ip: '203.0.113.9',
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
    referrer: 'https://shop.example.com/products',
    route: 'shop.example.com/',
    project_id: 5,
    project_name: 'Shop',
    project_slug: 'shop',
    environment_id: 11,
    environment_name: 'production',
    deployment_id: 77,
    upstream: '127.0.0.1:4100',
    tls_version: 'TLSv1.3',
    ...overrides,
  };
}

export function listPage(overrides: Partial<ProxyLogList> = {}): ProxyLogList {
  return {
    logs: [proxyLog()],
    next_cursor: null,
    latest_id: 101,
    dropped: { count: 0, last_at: null },
    waiting_rows: 0,
    ...overrides,
  };
}

export const PUBLIC_GEO: GeoLocation = {
  ip: '8.8.8.8',
  kind: 'public',
  country_code: 'US',
  country: 'United States',
  region: 'California',
  city: 'Mountain View',
  latitude: 37.386,
  longitude: -122.0838,
  timezone: 'America/Los_Angeles',
  source: 'IP Geolocation by DB-IP (db-ip.com), CC BY 4.0',
};

export const PRIVATE_GEO: GeoLocation = {
  ip: '10.0.0.1',
  kind: 'private',
  country_code: null,
  country: null,
  region: null,
  city: null,
  latitude: null,
  longitude: null,
  timezone: null,
  source: 'IP Geolocation by DB-IP (db-ip.com), CC BY 4.0',
};

type Handler = (url: URL) => Response | Promise<Response> | undefined;

/**
 * Stubs fetch: each call goes to `handler` (by URL), the project list answers one project, and
 * anything else is a 404. Returns the mock and the URLs of the /api/proxy-logs list calls.
 */
export function stubApi(handler: Handler) {
  const fetch = vi.fn(async (input: string | URL | Request) => {
    const url = new URL(String(input), 'http://console.test');
    const answer = await handler(url);
    if (answer) return answer;
    if (url.pathname === '/api/projects') {
      return Response.json({
        projects: [{ id: 5, name: 'Shop', slug: 'shop' }],
        total: 1,
        page: 1,
        per_page: 100,
      });
    }
    return Response.json({ detail: `Unexpected call ${url.pathname}` }, { status: 404 });
  });
  vi.stubGlobal('fetch', fetch);
  const listCalls = () =>
    fetch.mock.calls
      .map(([input]) => new URL(String(input), 'http://console.test'))
      .filter((url) => url.pathname === '/api/proxy-logs');
  return { fetch, listCalls };
}
