import type { Domain } from '@launchbay/contract';
import { screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '@/lib/toast';
import { platformSettings } from '@/test/fixtures';
import { renderWithProviders } from '@/test/render';
import DomainPage, { DOMAIN_DELETED } from './domain-page';
import { CERTIFICATE_ISSUED } from './order-card';
import { domainFixture, FINGERPRINT, OTHER_FINGERPRINT, stubApi, TXT_VALUE, wildcardFixture } from './test-fixtures';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

const SETTINGS = platformSettings({ certificate_renewal_days: 21 });

function renderPage(path = '/domains/7') {
  return renderWithProviders(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/domains" element={<p>The domains list</p>} />
        <Route path="/domains/:id" element={<DomainPage />} />
      </Routes>
    </MemoryRouter>,
  );
}

/** GET /api/domains/{id} answers `domain` (or the next of a list each time); `more` answers first. */
function serve(domain: Domain | Domain[], more: Parameters<typeof stubApi>[0] = () => undefined, roles?: ['reader']) {
  const answers = Array.isArray(domain) ? [...domain] : [domain];
  return stubApi(
    (call) => {
      const extra = more(call);
      if (extra) return extra;
      if (call.method === 'GET' && call.path === `/api/domains/${answers[0]?.id}`) {
        const next = answers.length > 1 ? answers.shift() : answers[0];
        return Response.json(next);
      }
      if (call.path === '/api/settings') return Response.json(SETTINGS);
      return undefined;
    },
    roles ? { roles } : {},
  );
}

describe('DomainPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows the certificate (issued, expires, days remaining, fingerprint) and that the edge serves it', async () => {
    serve(domainFixture());
    renderPage();
    expect(await screen.findByRole('heading', { level: 1, name: 'shop.example.com' })).toBeInTheDocument();
    expect(document.title).toBe('shop.example.com - Launchbay');
    expect(screen.getAllByText('Active')[0]).toBeInTheDocument();

    const certificate = screen.getByTestId('domain-certificate');
    expect(within(certificate).getByTestId('domain-expiry')).toHaveTextContent('Expires in 29 days');
    expect(within(certificate).getByTestId('domain-days-remaining')).toHaveTextContent('29');
    expect(within(certificate).getByText('a1b2c3d4e5f6…6d7e8f90')).toHaveAttribute('title', FINGERPRINT);
    expect(within(certificate).getByRole('button', { name: 'Copy fingerprint' })).toBeInTheDocument();
    expect(await within(certificate).findByText(/Automatic, 21 days before it expires/)).toBeInTheDocument();

    const served = screen.getByTestId('domain-served-card');
    expect(served).toHaveAttribute('data-served', 'match');
    expect(within(served).getByText('The edge serves this certificate')).toBeInTheDocument();

    // The DNS record to create, with copy buttons; the HTTP-01 check is there for an exact name.
    const record = screen.getByTestId('dns-record-A');
    expect(record).toHaveTextContent('shop.example.com');
    expect(within(record).getByRole('button', { name: 'Copy A value' })).toBeInTheDocument();
    expect(screen.getByTestId('domain-http-check')).toBeInTheDocument();

    // Admin actions.
    expect(await screen.findByRole('button', { name: 'Provision' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Renew' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Delete' })).toBeEnabled();
  });

  it('shows loudly when the edge serves another certificate, with both fingerprints', async () => {
    serve(
      domainFixture({ served: { status: 'mismatch', fingerprint: OTHER_FINGERPRINT, checked_at: new Date().toISOString() } }),
    );
    renderPage();
    const served = await screen.findByTestId('domain-served-card');
    expect(served).toHaveAttribute('data-served', 'mismatch');
    const alert = within(served).getByRole('alert');
    expect(alert).toHaveTextContent('The edge serves another certificate');
    const fingerprints = within(served).getByTestId('domain-served-fingerprints');
    expect(fingerprints).toHaveTextContent(FINGERPRINT);
    expect(fingerprints).toHaveTextContent(OTHER_FINGERPRINT);
  });

  it.each([
    ['none', 'The edge serves no certificate for this name', 'HTTPS requests for shop.example.com get no certificate'],
    ['unreachable', "The edge's HTTPS port cannot be reached", 'could not connect to the edge'],
  ] as const)('shows loudly when the edge serves %s', async (status, headline, sentence) => {
    serve(domainFixture({ served: { status, fingerprint: null, checked_at: new Date().toISOString() } }));
    renderPage();
    const served = await screen.findByTestId('domain-served-card');
    const alert = within(served).getByRole('alert');
    expect(alert).toHaveTextContent(headline);
    expect(alert).toHaveTextContent(sentence);
  });

  it('shows the last error in a destructive callout, and the failed renewals with the next attempt', async () => {
    serve(
      domainFixture({
        renewal_failures: 2,
        next_renewal_at: new Date(Date.now() + 2 * 3_600_000).toISOString(),
        last_error: 'The ACME directory https://127.0.0.1:9/dir cannot be reached: connect ECONNREFUSED',
      }),
    );
    renderPage();
    const callout = await screen.findByTestId('domain-last-error');
    expect(callout).toHaveAttribute('role', 'alert');
    expect(callout).toHaveTextContent('The last renewal failed');
    expect(callout).toHaveTextContent('cannot be reached');
    expect(screen.getByTestId('domain-renewal')).toHaveTextContent('Failed 2 times in a row');
    expect(screen.getByTestId('domain-renewal')).toHaveTextContent('Next attempt in 2 hours');
  });

  it('shows the DNS step of a wildcard, and the reason when Verify and issue finds no TXT record yet', async () => {
    const message = `No TXT record _acme-challenge.example.com yet: create it with the value "${TXT_VALUE}"`;
    const { callsTo } = serve(wildcardFixture(), ({ method, path }) =>
      method === 'POST' && path === '/api/domains/8/order/finalize'
        ? Response.json({ detail: 'Validation failed', errors: [{ path: 'dns', message }] }, { status: 400 })
        : undefined,
    );
    const { user } = renderPage('/domains/8');
    const step = await screen.findByTestId('dns-step');
    const record = within(step).getByTestId('txt-record');
    expect(record).toHaveTextContent('_acme-challenge.example.com');
    expect(record).toHaveTextContent(TXT_VALUE);
    // The platform finishes by itself once the record is visible; the button does it now.
    expect(step).toHaveTextContent('Launchbay looks for it every minute and issues the certificate by itself once it is visible');
    expect(within(step).getByRole('button', { name: 'Copy TXT name' })).toBeInTheDocument();
    expect(within(step).getByRole('button', { name: 'Copy TXT value' })).toBeInTheDocument();
    expect(screen.getByTestId('challenge-dns-01')).toHaveTextContent('Waiting');
    // A wildcard is never validated over HTTP: no HTTP-01 check; the A record's placeholder is not copied.
    expect(screen.queryByTestId('domain-http-check')).not.toBeInTheDocument();
    expect(within(screen.getByTestId('dns-record-A')).queryByRole('button', { name: 'Copy A value' })).not.toBeInTheDocument();
    expect(screen.getByTestId('dns-record-A')).toHaveTextContent("this server's public IP address");

    await user.click(await within(step).findByRole('button', { name: 'Verify and issue' }));
    const error = await within(step).findByTestId('finalize-error');
    expect(error).toHaveTextContent(message);
    expect(callsTo('POST', '/api/domains/8/order/finalize')).toHaveLength(1);
  });

  it('issues the certificate when the record is there: the page shows it active', async () => {
    const issued = domainFixture({ id: 8, domain: '*.example.com', is_wildcard: true, challenge_type: 'dns-01' });
    serve(wildcardFixture(), ({ method, path }) =>
      method === 'POST' && path === '/api/domains/8/order/finalize' ? Response.json(issued) : undefined,
    );
    const { user } = renderPage('/domains/8');
    await user.click(await screen.findByRole('button', { name: 'Verify and issue' }));
    await vi.waitFor(() => expect(vi.mocked(toast.success)).toHaveBeenCalledWith(CERTIFICATE_ISSUED, expect.anything()));
    expect(await screen.findByText('The edge serves this certificate')).toBeInTheDocument();
    expect(screen.queryByTestId('dns-step')).not.toBeInTheDocument();
  });

  it('runs the HTTP-01 check and lists each check with its result and detail', async () => {
    serve(domainFixture(), ({ path }) =>
      path === '/api/domains/7/http-challenge-debug'
        ? Response.json({
            domain: 'shop.example.com',
            ready: false,
            checks: [
              { name: 'dns', ok: true, detail: 'shop.example.com points here (127.0.0.1)' },
              { name: 'port_80', ok: false, detail: 'Port 80 of 127.0.0.1: connection refused (nothing listens there)' },
              { name: 'token', ok: false, detail: 'Not checked: port 80 cannot be reached' },
            ],
          })
        : undefined,
    );
    const { user } = renderPage();
    const card = await screen.findByTestId('domain-http-check');
    await user.click(within(card).getByRole('button', { name: 'Run check' }));
    const result = await within(card).findByTestId('http-check-result');
    expect(result).toHaveTextContent('Not ready');
    const dns = within(result).getByTestId('http-check-dns');
    expect(dns).toHaveAttribute('data-ok', 'true');
    expect(within(dns).getByLabelText('Passed')).toBeInTheDocument();
    expect(dns).toHaveTextContent('shop.example.com points here (127.0.0.1)');
    const port = within(result).getByTestId('http-check-port_80');
    expect(port).toHaveAttribute('data-ok', 'false');
    expect(within(port).getByLabelText('Failed')).toBeInTheDocument();
    expect(port).toHaveTextContent('connection refused');
    expect(within(result).getByTestId('http-check-token')).toHaveTextContent('Not checked: port 80 cannot be reached');
  });

  it('polls every 2 s while provisioning and shows the domain active once the certificate is issued', async () => {
    const provisioning = domainFixture({
      status: 'provisioning',
      fingerprint: null,
      issued_at: null,
      expires_at: null,
      days_remaining: null,
      served: { status: null, fingerprint: null, checked_at: null },
    });
    const { callsTo } = serve([provisioning, domainFixture()]);
    renderPage();
    expect(await screen.findByText('Provisioning')).toBeInTheDocument();
    expect(await screen.findByText('The edge serves this certificate', {}, { timeout: 4000 })).toBeInTheDocument();
    expect(callsTo('GET', '/api/domains/7').length).toBeGreaterThanOrEqual(2);
  });

  it('provisions again: the job is followed in the header until it is done', async () => {
    const { callsTo } = serve(domainFixture(), ({ method, path }) =>
      method === 'POST' && path === '/api/domains/7/provision' ? Response.json(domainFixture(), { status: 202 }) : undefined,
    );
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Provision' }));
    expect(await screen.findByTestId('domain-job')).toHaveTextContent('Getting a certificate…');
    expect(screen.getByRole('button', { name: 'Provision' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Renew' })).toBeDisabled();
    expect(callsTo('POST', '/api/domains/7/provision')).toHaveLength(1);
    expect(vi.mocked(toast.success)).toHaveBeenCalledWith('Provisioning started', expect.anything());
  });

  it('deletes after the confirmation and goes back to the list', async () => {
    const { callsTo } = serve(domainFixture(), ({ method, path }) =>
      method === 'DELETE' && path === '/api/domains/7' ? new Response(null, { status: 204 }) : undefined,
    );
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Delete shop.example.com?' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete domain' }));
    expect(await screen.findByText('The domains list')).toBeInTheDocument();
    expect(callsTo('DELETE', '/api/domains/7')).toHaveLength(1);
    expect(vi.mocked(toast.success)).toHaveBeenCalledWith(DOMAIN_DELETED, { description: 'shop.example.com' });
  });

  it('offers no actions to a reader', async () => {
    serve(wildcardFixture(), undefined, ['reader']);
    renderPage('/domains/8');
    expect(await screen.findByText('Only admins can change domains.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Provision' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Verify and issue' })).not.toBeInTheDocument();
    expect(screen.getByText('An admin verifies the record once it exists.')).toBeInTheDocument();
  });

  it('says so when the domain does not exist', async () => {
    stubApi(({ path }) =>
      path === '/api/domains/99' ? Response.json({ detail: 'Domain 99 not found' }, { status: 404 }) : undefined,
    );
    renderPage('/domains/99');
    expect(await screen.findByRole('heading', { name: 'This domain does not exist' })).toBeInTheDocument();
  });
});
