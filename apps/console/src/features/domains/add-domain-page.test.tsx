import { screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '@/lib/toast';
import { renderWithProviders } from '@/test/render';
import AddDomainPage, { ADD_FAILED_TITLE } from './add-domain-page';
import { domainFixture, stubApi, wildcardFixture } from './test-fixtures';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

function DomainRoute() {
  const location = useLocation();
  return (
    <p data-testid="detail">
      {location.pathname} {JSON.stringify(location.state)}
    </p>
  );
}

function renderPage() {
  return renderWithProviders(
    <MemoryRouter initialEntries={['/domains/add']}>
      <Routes>
        <Route path="/domains/add" element={<AddDomainPage />} />
        <Route path="/domains/:id" element={<DomainRoute />} />
      </Routes>
    </MemoryRouter>,
  );
}

const pending = (overrides = {}) =>
  domainFixture({
    status: 'pending',
    fingerprint: null,
    issued_at: null,
    expires_at: null,
    days_remaining: null,
    served: { status: null, fingerprint: null, checked_at: null },
    updated_at: '2026-01-01T10:00:00.000Z',
    ...overrides,
  });

describe('AddDomainPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it("refuses a name that is not a domain with the contract's message and sends nothing", async () => {
    const { calls } = stubApi();
    const { user } = renderPage();
    expect(screen.getByRole('heading', { level: 1, name: 'Provision Domain' })).toBeInTheDocument();
    expect(document.title).toBe('Provision Domain - Launchbay');
    expect(screen.getByText(/A wildcard needs a DNS TXT record/)).toBeInTheDocument();
    const field = screen.getByLabelText('Domain');
    await vi.waitFor(() => expect(field).toBeEnabled());
    await user.type(field, 'not a domain');
    await user.click(screen.getByRole('button', { name: 'Add domain' }));
    expect(await screen.findByText('Enter a domain such as shop.example.com or *.example.com')).toBeInTheDocument();
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
  });

  it('adds an exact name, starts provisioning at once and opens its page following the job', async () => {
    const { callsTo } = stubApi(({ method, path }) => {
      if (method === 'POST' && path === '/api/domains') return Response.json(pending(), { status: 201 });
      if (method === 'POST' && path === '/api/domains/7/provision') return Response.json(pending(), { status: 202 });
      return undefined;
    });
    const { user } = renderPage();
    const field = screen.getByLabelText('Domain');
    await vi.waitFor(() => expect(field).toBeEnabled());
    await user.type(field, 'Shop.Example.com');
    expect(screen.getByTestId('domain-next-steps')).toHaveTextContent('Exact name: validated through the edge (HTTP-01)');
    await user.click(screen.getByRole('button', { name: 'Add domain' }));
    const detail = await screen.findByTestId('detail');
    expect(detail).toHaveTextContent('/domains/7');
    expect(detail).toHaveTextContent('"baseline":"2026-01-01T10:00:00.000Z"');
    expect(callsTo('POST', '/api/domains')[0]?.body).toEqual({ domain: 'shop.example.com' });
    expect(callsTo('POST', '/api/domains/7/provision')).toHaveLength(1);
    expect(vi.mocked(toast.success)).toHaveBeenCalledWith('Domain added', expect.anything());
  });

  it('adds a wildcard, says a TXT record comes next and asks for its order', async () => {
    const wildcard = wildcardFixture({ status: 'pending', order: null, updated_at: '2026-01-01T10:00:00.000Z' });
    const { callsTo } = stubApi(({ method, path }) => {
      if (method === 'POST' && path === '/api/domains') return Response.json(wildcard, { status: 201 });
      if (method === 'POST' && path === '/api/domains/8/provision') return Response.json(wildcard, { status: 202 });
      return undefined;
    });
    const { user } = renderPage();
    const field = screen.getByLabelText('Domain');
    await vi.waitFor(() => expect(field).toBeEnabled());
    await user.type(field, '*.example.com');
    expect(screen.getByTestId('domain-next-steps')).toHaveTextContent('_acme-challenge.example.com');
    await user.click(screen.getByRole('button', { name: 'Add domain' }));
    expect(await screen.findByTestId('detail')).toHaveTextContent('/domains/8');
    expect(callsTo('POST', '/api/domains')[0]?.body).toEqual({ domain: '*.example.com' });
    expect(callsTo('POST', '/api/domains/8/provision')).toHaveLength(1);
  });

  it("puts the server's field error under the field (already added)", async () => {
    stubApi(({ method, path }) =>
      method === 'POST' && path === '/api/domains'
        ? Response.json(
            {
              detail: 'shop.example.com is already added',
              errors: [{ path: 'domain', message: 'This domain is already added' }],
            },
            { status: 409 },
          )
        : undefined,
    );
    const { user } = renderPage();
    const field = screen.getByLabelText('Domain');
    await vi.waitFor(() => expect(field).toBeEnabled());
    await user.type(field, 'shop.example.com');
    await user.click(screen.getByRole('button', { name: 'Add domain' }));
    expect(await screen.findByText('This domain is already added')).toBeInTheDocument();
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(vi.mocked(toast.error)).toHaveBeenCalledWith(ADD_FAILED_TITLE, {
      description: 'shop.example.com is already added',
    });
    expect(screen.queryByTestId('detail')).not.toBeInTheDocument();
  });

  it('tells a reader that adding a domain needs an admin', async () => {
    stubApi(() => undefined, { roles: ['reader'] });
    renderPage();
    expect(await screen.findByText('Admins only')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add domain' })).toBeDisabled();
  });
});
