import type { Connectivity, CurrentUser, DnsCheck } from '@launchbay/contract';
import { screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '@/lib/toast';
import { platformSettings } from '@/test/fixtures';
import { renderWithProviders } from '@/test/render';
import ConnectivityPage from './connectivity-page';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

const SETTINGS = platformSettings({ base_domain: 'apps.example.com', access_mode: 'direct' });

const ADMIN: CurrentUser = {
  id: 1,
  username: 'admin',
  email: 'admin@example.com',
  avatar_url: null,
  roles: ['admin'],
  mfa_enabled: false,
};

function connectivity(overrides: Partial<Connectivity> = {}): Connectivity {
  return {
    access_mode: 'direct',
    public_ip: { ip: '203.0.113.7', source: 'network interface' },
    base_domain: 'apps.example.com',
    ports: [
      {
        port: 80,
        purpose: 'HTTP, and HTTP-01 certificate validation',
        edge_port: 80,
        reachable: true,
        detail: '203.0.113.7:80 answers (tried from this machine).',
      },
      {
        port: 443,
        purpose: 'HTTPS',
        edge_port: 443,
        reachable: false,
        detail: '203.0.113.7:443: connection refused (nothing listens there).',
      },
    ],
    dns_records: [
      { type: 'A', name: 'apps.example.com', value: '203.0.113.7', purpose: 'The platform itself' },
      { type: 'A', name: '*.apps.example.com', value: '203.0.113.7', purpose: 'Every app and preview address under it' },
    ],
    ...overrides,
  };
}

/** The APIs the page calls, as the server answers them; `dnsChecks` maps a name to its check. */
function stubApi({
  state = connectivity(),
  dnsChecks = {},
}: {
  state?: Connectivity;
  dnsChecks?: Record<string, DnsCheck>;
} = {}) {
  let settings = { ...SETTINGS, base_domain: state.base_domain, access_mode: state.access_mode };
  const fetch = vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://console.test');
    const method = init?.method ?? 'GET';
    if (url.pathname === '/api/user/me') return Response.json(ADMIN);
    if (url.pathname === '/api/settings' && method === 'GET') return Response.json(settings);
    if (url.pathname === '/api/settings' && method === 'PUT') {
      settings = { ...settings, ...JSON.parse(String(init?.body)) };
      return Response.json(settings);
    }
    if (url.pathname === '/api/platform/connectivity') return Response.json(state);
    if (url.pathname === '/api/platform/access-info')
      return Response.json({ access_mode: settings.access_mode, public_url: null });
    if (url.pathname === '/api/platform/connectivity/dns-check') {
      const check = dnsChecks[url.searchParams.get('name') ?? ''];
      if (check) return Response.json(check);
    }
    return Response.json({ detail: `Unexpected call ${method} ${input}` }, { status: 404 });
  });
  vi.stubGlobal('fetch', fetch);
  const puts = () =>
    fetch.mock.calls.filter(([, init]) => init?.method === 'PUT').map(([, init]) => JSON.parse(String(init?.body)));
  return { fetch, puts };
}

function renderPage(options: Parameters<typeof stubApi>[0] = {}) {
  const stub = stubApi(options);
  const result = renderWithProviders(
    <MemoryRouter initialEntries={['/setup/connectivity']}>
      <ConnectivityPage />
    </MemoryRouter>,
  );
  return { ...result, ...stub };
}

describe('ConnectivityPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows the access mode, the public IP and its source', async () => {
    renderPage();
    expect(screen.getByRole('heading', { level: 1, name: 'External Connectivity' })).toBeInTheDocument();
    const access = await screen.findByRole('region', { name: 'Access mode' });
    expect(await within(access).findByTestId('connectivity-access-mode')).toHaveTextContent(
      'DirectThis machine has its own public IP address.',
    );
    const ip = await screen.findByRole('region', { name: 'Public IP' });
    expect(within(ip).getByTestId('connectivity-public-ip')).toHaveTextContent('203.0.113.7');
    expect(within(ip).getByText('Source: network interface.')).toBeInTheDocument();
  });

  it("says 'Unknown' and why when no public IP is known", async () => {
    renderPage({
      state: connectivity({
        public_ip: { ip: null, source: 'none: no public address on this machine; set PUBLIC_IP if it is reached through NAT' },
      }),
    });
    const ip = await screen.findByRole('region', { name: 'Public IP' });
    expect(within(ip).getByTestId('connectivity-public-ip')).toHaveTextContent('Unknown');
    expect(
      within(ip).getByText('No public address on this machine; set PUBLIC_IP if it is reached through NAT.'),
    ).toBeInTheDocument();
  });

  it.each([
    [true, 'Reachable', 'reachable'],
    [false, 'Not reachable', 'unreachable'],
    [null, 'Not checked', 'unchecked'],
  ] as const)('shows reachable %s as the %s badge, with the purpose, edge port and detail', async (reachable, label, state) => {
    const detail = reachable === null ? 'Not checked: no public IP is known.' : `Port 80 said ${String(reachable)}.`;
    renderPage({
      state: connectivity({
        ports: [{ port: 80, purpose: 'HTTP, and HTTP-01 certificate validation', edge_port: 8080, reachable, detail }],
      }),
    });
    const ports = await screen.findByRole('region', { name: 'Ports 80 and 443' });
    const port = within(ports).getByTestId('port-80');
    const badge = within(port).getByTestId('port-reachability');
    expect(badge).toHaveTextContent(label);
    expect(badge).toHaveAttribute('data-state', state);
    expect(within(port).getByText('HTTP, and HTTP-01 certificate validation')).toBeInTheDocument();
    expect(within(port).getByText('8080')).toBeInTheDocument();
    expect(within(port).getByText(detail)).toBeInTheDocument();
  });

  it("'Check again' asks the server again", async () => {
    const { user, fetch } = renderPage();
    const ports = await screen.findByRole('region', { name: 'Ports 80 and 443' });
    const calls = () => fetch.mock.calls.filter(([url]) => url === '/api/platform/connectivity').length;
    expect(calls()).toBe(1);
    await user.click(within(ports).getByRole('button', { name: 'Check again' }));
    await vi.waitFor(() => expect(calls()).toBe(2));
  });

  it('checks a record and shows the result inline, ok and not ok', async () => {
    const { user } = renderPage({
      dnsChecks: {
        'apps.example.com': {
          name: 'apps.example.com',
          resolved_name: 'apps.example.com',
          addresses: ['203.0.113.7'],
          expected: '203.0.113.7',
          ok: true,
          detail: 'apps.example.com points to this server (203.0.113.7)',
        },
        '*.apps.example.com': {
          name: '*.apps.example.com',
          resolved_name: 'launchbay-check-1a2b3c4d.apps.example.com',
          addresses: [],
          expected: '203.0.113.7',
          ok: false,
          detail: 'launchbay-check-1a2b3c4d.apps.example.com does not resolve yet',
        },
      },
    });
    const dns = await screen.findByRole('region', { name: 'DNS records' });
    const [apex, wildcard] = within(dns).getAllByTestId('dns-record');
    expect(apex).toHaveTextContent('apps.example.com');
    expect(wildcard).toHaveTextContent('*.apps.example.com');
    expect(within(dns).queryByTestId('dns-check-result')).not.toBeInTheDocument();

    await user.click(within(dns).getByRole('button', { name: 'Check apps.example.com' }));
    const ok = await within(dns).findByTestId('dns-check-result');
    expect(ok).toHaveTextContent('apps.example.com points to this server (203.0.113.7)');
    expect(ok).toHaveAttribute('data-ok', 'true');

    await user.click(within(dns).getByRole('button', { name: 'Check *.apps.example.com' }));
    const notOk = await within(dns).findByText('launchbay-check-1a2b3c4d.apps.example.com does not resolve yet');
    expect(notOk.closest('[data-testid="dns-check-result"]')).toHaveAttribute('data-ok', 'false');
    // The first result stays.
    expect(within(dns).getAllByTestId('dns-check-result')).toHaveLength(2);
  });

  it("shows the server's message when a check fails", async () => {
    const { user } = renderPage();
    const dns = await screen.findByRole('region', { name: 'DNS records' });
    await user.click(within(dns).getByRole('button', { name: 'Check apps.example.com' }));
    expect(await within(dns).findByTestId('dns-check-result')).toHaveTextContent(
      'Could not check: Unexpected call GET /api/platform/connectivity/dns-check?name=apps.example.com',
    );
  });

  it('asks for a base domain when there are no records yet', async () => {
    renderPage({ state: connectivity({ base_domain: null, dns_records: [] }) });
    const dns = await screen.findByRole('region', { name: 'DNS records' });
    // The sentence depends on the role: wait for the current user (an admin).
    expect(
      await within(dns).findByText('No base domain is set. Set one with the form above to see the records to create.'),
    ).toBeInTheDocument();
    expect(within(dns).queryByRole('table')).not.toBeInTheDocument();
  });

  it("refuses an invalid base domain with the contract's message and sends nothing", async () => {
    const { user, puts } = renderPage();
    const field = await screen.findByLabelText('Base domain');
    expect(field).toHaveValue('apps.example.com');
    await user.clear(field);
    await user.type(field, 'not a domain');
    await user.click(screen.getByRole('button', { name: 'Save connectivity settings' }));
    expect(await screen.findByText('Enter a domain such as apps.example.com')).toBeInTheDocument();
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(puts()).toEqual([]);
  });

  it('saves only the changed base domain and says so', async () => {
    const { user, puts } = renderPage();
    const field = await screen.findByLabelText('Base domain');
    await user.clear(field);
    await user.type(field, 'Apps2.Example.com ');
    await user.click(screen.getByRole('button', { name: 'Save connectivity settings' }));
    await vi.waitFor(() => expect(puts()).toEqual([{ base_domain: 'apps2.example.com' }]));
    await vi.waitFor(() => expect(toast.success).toHaveBeenCalledWith('Connectivity settings saved'));
  });
});
