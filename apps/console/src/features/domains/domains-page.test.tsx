import { screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/test/render';
import DomainsPage from './domains-page';
import { domainFixture, OTHER_FINGERPRINT, stubApi, wildcardFixture } from './test-fixtures';

function renderPage() {
  return renderWithProviders(
    <MemoryRouter initialEntries={['/domains']}>
      <DomainsPage />
    </MemoryRouter>,
  );
}

const DAY_MS = 86_400_000;

const DOMAINS = [
  domainFixture(),
  domainFixture({
    id: 2,
    domain: 'soon.example.com',
    days_remaining: 9,
    expires_at: new Date(Date.now() + 9 * DAY_MS + 3_600_000).toISOString(),
    served: { status: 'mismatch', fingerprint: OTHER_FINGERPRINT, checked_at: new Date().toISOString() },
  }),
  domainFixture({ id: 3, domain: 'gone.example.com', served: { status: 'none', fingerprint: null, checked_at: null } }),
  domainFixture({ id: 4, domain: 'edge.example.com', served: { status: 'unreachable', fingerprint: null, checked_at: null } }),
  wildcardFixture(),
  domainFixture({
    id: 5,
    domain: 'new.example.com',
    status: 'pending',
    fingerprint: null,
    issued_at: null,
    expires_at: null,
    days_remaining: null,
    served: { status: null, fingerprint: null, checked_at: null },
  }),
  domainFixture({
    id: 6,
    domain: 'broken.example.com',
    status: 'failed',
    last_error: 'The certificate authority could not validate broken.example.com: connection refused',
    fingerprint: null,
    issued_at: null,
    expires_at: null,
    days_remaining: null,
    served: { status: null, fingerprint: null, checked_at: null },
  }),
];

const row = (name: string) => screen.getByTestId(`domain-row-${name}`);

describe('DomainsPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('lists each domain with its status badge, certificate expiry and what the edge serves', async () => {
    stubApi(({ path }) => (path === '/api/domains' ? Response.json({ domains: DOMAINS }) : undefined));
    renderPage();
    expect(screen.getByRole('heading', { level: 1, name: 'Domains' })).toBeInTheDocument();
    expect(document.title).toBe('Domains - Launchbay');
    const shop = await screen.findByTestId('domain-row-shop.example.com');

    // Status badges for every state.
    expect(within(shop).getByText('Active')).toBeInTheDocument();
    expect(within(row('*.example.com')).getByText('Provisioning')).toBeInTheDocument();
    expect(within(row('*.example.com')).getByText('Waiting for the DNS TXT record')).toBeInTheDocument();
    expect(within(row('new.example.com')).getByText('Pending')).toBeInTheDocument();
    expect(within(row('broken.example.com')).getByText('Failed')).toBeInTheDocument();
    expect(row('broken.example.com')).toHaveTextContent('connection refused');

    // Expiry: plain at 29 days, a warning under 14, none without a certificate.
    expect(within(shop).getByTestId('domain-expiry')).toHaveTextContent('Expires in 29 days');
    expect(within(shop).getByTestId('domain-expiry')).toHaveAttribute('data-tone', 'default');
    expect(within(row('soon.example.com')).getByTestId('domain-expiry')).toHaveTextContent('Expires in 9 days');
    expect(within(row('soon.example.com')).getByTestId('domain-expiry')).toHaveAttribute('data-tone', 'warning');
    expect(row('new.example.com')).toHaveTextContent('No certificate');

    // Served: green when it matches, red when the edge serves another certificate, none, or cannot be reached.
    expect(within(shop).getByTestId('domain-served')).toHaveTextContent('Served');
    expect(within(shop).getByTestId('domain-served')).toHaveAttribute('data-served', 'match');
    expect(within(row('soon.example.com')).getByTestId('domain-served')).toHaveTextContent('Edge serves another certificate');
    expect(within(row('soon.example.com')).getByTestId('domain-served')).toHaveClass('text-destructive');
    expect(within(row('gone.example.com')).getByTestId('domain-served')).toHaveTextContent('Not served');
    expect(within(row('gone.example.com')).getByTestId('domain-served')).toHaveClass('text-destructive');
    expect(within(row('edge.example.com')).getByTestId('domain-served')).toHaveTextContent('Not served');
    expect(within(row('edge.example.com')).getByTestId('domain-served')).toHaveClass('text-destructive');
    expect(within(row('new.example.com')).queryByTestId('domain-served')).not.toBeInTheDocument();

    // Each name links to its page; admins get the header's Add domain.
    expect(within(shop).getByRole('link', { name: 'shop.example.com' })).toHaveAttribute('href', '/domains/7');
    expect(await screen.findByRole('link', { name: 'Add domain' })).toHaveAttribute('href', '/domains/add');
  });

  it('shows the empty state with an Add domain button', async () => {
    stubApi(({ path }) => (path === '/api/domains' ? Response.json({ domains: [] }) : undefined));
    renderPage();
    expect(await screen.findByRole('heading', { name: 'No domains yet' })).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Add domain' })).toHaveAttribute('href', '/domains/add');
  });

  it('offers no Add domain to a reader', async () => {
    stubApi(({ path }) => (path === '/api/domains' ? Response.json({ domains: DOMAINS }) : undefined), { roles: ['reader'] });
    renderPage();
    await screen.findByTestId('domain-row-shop.example.com');
    expect(await screen.findByText(/Only admins can add or change domains/)).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Add domain' })).not.toBeInTheDocument();
  });
});
