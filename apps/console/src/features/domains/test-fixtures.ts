import type { CurrentUser, Domain, DomainOrder } from '@launchbay/contract';
import { vi } from 'vitest';
import { currentUser } from '@/test/fixtures';

const DAY_MS = 86_400_000;
const NOW = Date.now();
const iso = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();

export const FINGERPRINT = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
export const OTHER_FINGERPRINT = 'ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100';
export const TXT_VALUE = 'kJ3nO0y1q2T0ZxWmH4bq8pVb4dZ-5Qh7cR9sX1aVwEo';

/** shop.example.com with a certificate issued a day ago that expires in 29 days, served by the edge. */
export function domainFixture(overrides: Partial<Domain> = {}): Domain {
  return {
    id: 7,
    domain: 'shop.example.com',
    is_wildcard: false,
    challenge_type: 'http-01',
    status: 'active',
    last_error: null,
    fingerprint: FINGERPRINT,
    issued_at: iso(-DAY_MS),
    expires_at: iso(29 * DAY_MS + 3_600_000),
    days_remaining: 29,
    renewal_failures: 0,
    next_renewal_at: null,
    served: { status: 'match', fingerprint: FINGERPRINT, checked_at: iso(-60_000) },
    dns_records: [{ type: 'A', name: 'shop.example.com', value: '203.0.113.10', purpose: 'The name reaches this server' }],
    order: null,
    created_at: iso(-2 * DAY_MS),
    updated_at: iso(-DAY_MS),
    ...overrides,
  };
}

/** A DNS-01 order for *.example.com waiting for its TXT record. */
export function dnsOrder(overrides: Partial<DomainOrder> = {}): DomainOrder {
  return {
    domain_id: 8,
    status: 'pending',
    directory_url: 'https://acme.example.test/dir',
    challenges: [
      {
        type: 'dns-01',
        identifier: 'example.com',
        status: 'pending',
        token: 'tok-dns',
        url: 'https://acme.example.test/chal/1',
        dns_name: '_acme-challenge.example.com',
        dns_value: TXT_VALUE,
        error: null,
      },
    ],
    error: null,
    expires_at: iso(7 * DAY_MS),
    created_at: iso(-60_000),
    ...overrides,
  };
}

/** *.example.com provisioning: its order waits for the TXT record. */
export function wildcardFixture(overrides: Partial<Domain> = {}): Domain {
  return domainFixture({
    id: 8,
    domain: '*.example.com',
    is_wildcard: true,
    challenge_type: 'dns-01',
    status: 'provisioning',
    fingerprint: null,
    issued_at: null,
    expires_at: null,
    days_remaining: null,
    served: { status: null, fingerprint: null, checked_at: null },
    dns_records: [
      {
        type: 'A',
        name: '*.example.com',
        value: "this server's public IP address",
        purpose: 'Every name under the wildcard reaches this server',
      },
      {
        type: 'TXT',
        name: '_acme-challenge.example.com',
        value: TXT_VALUE,
        purpose: 'Proves to the certificate authority that you control the domain (DNS-01)',
      },
    ],
    order: dnsOrder(),
    ...overrides,
  });
}

/** The signed-in user, with these roles (the shared fixture). */
export const user = currentUser;

type Call = { method: string; path: string; body: unknown };
type Handler = (call: Call) => Response | Promise<Response> | undefined;

/** Stubs fetch: `handler` answers first, then the current user (an admin unless `roles`); anything else is a 404. */
export function stubApi(handler: Handler = () => undefined, options: { roles?: CurrentUser['roles'] } = {}) {
  const calls: Call[] = [];
  const fetch = vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input), 'http://console.test');
    const call: Call = {
      method: init?.method ?? 'GET',
      path: decodeURIComponent(url.pathname),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    calls.push(call);
    const answer = await handler(call);
    if (answer) return answer;
    if (call.path === '/api/user/me') return Response.json(user(options.roles ?? ['admin']));
    return Response.json({ detail: `Unexpected call ${call.method} ${call.path}` }, { status: 404 });
  });
  vi.stubGlobal('fetch', fetch);
  return { fetch, calls, callsTo: (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path) };
}
