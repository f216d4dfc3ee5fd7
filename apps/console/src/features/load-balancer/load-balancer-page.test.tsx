import { screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '@/lib/toast';
import { renderWithProviders } from '@/test/render';
import LoadBalancerPage from './load-balancer-page';
import { lbRoute, stubApi } from './test-fixtures';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

function renderPage() {
  return renderWithProviders(
    <MemoryRouter initialEntries={['/load-balancer']}>
      <LoadBalancerPage />
    </MemoryRouter>,
  );
}

const ROUTES = { routes: [lbRoute()] };

describe('LoadBalancerPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('lists each route with its address, target, upstream health, health check and actions', async () => {
    stubApi(({ path }) => (path === '/api/lb/routes' ? Response.json(ROUTES) : undefined));
    renderPage();
    expect(screen.getByRole('heading', { level: 1, name: 'Load balancer' })).toBeInTheDocument();
    const row = await screen.findByTestId('lb-route-api.example.com');
    const link = within(row).getByRole('link', { name: 'api.example.com' });
    expect(link).toHaveAttribute('href', 'http://api.example.com:8080');
    expect(link).toHaveAttribute('target', '_blank');
    expect(row).toHaveTextContent('Upstream addresses2 upstreams, in turn');
    expect(within(row).getByText('Healthy')).toBeInTheDocument();
    expect(within(row).getByText('Unhealthy')).toBeInTheDocument();
    expect(within(row).getByText('GET /health every 5 s')).toBeInTheDocument();
    expect(document.title).toBe('Load balancer - Launchbay');
    expect(await within(row).findByRole('button', { name: 'Actions for api.example.com' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add route' })).toBeInTheDocument();
  });

  it('shows an environment route by its project and environment, with its checks not run yet or off', async () => {
    const routes = [
      lbRoute({
        id: 2,
        domain: 'www.example.com',
        target: { kind: 'environment', project_id: 5, environment_id: 11 },
        target_label: 'Shop / production',
        upstream_health: [],
      }),
      lbRoute({
        id: 3,
        domain: 'legacy.example.org',
        target: { kind: 'upstreams', upstreams: ['10.20.30.40:8080'] },
        target_label: '10.20.30.40:8080',
        health_check: { enabled: false, path: '/', interval_seconds: 5, timeout_seconds: 2 },
        upstream_health: [{ upstream: '10.20.30.40:8080', healthy: null, since: null, checked_at: null, error: null }],
      }),
    ];
    stubApi(({ path }) => (path === '/api/lb/routes' ? Response.json({ routes }) : undefined));
    renderPage();
    const environment = await screen.findByTestId('lb-route-www.example.com');
    expect(environment).toHaveTextContent('Shop / productionProject environment');
    expect(within(environment).getByText('Not checked yet')).toBeInTheDocument();
    expect(within(environment).getByText('GET /health every 5 s')).toBeInTheDocument();
    const legacy = screen.getByTestId('lb-route-legacy.example.org');
    expect(legacy).toHaveTextContent('1 upstream, in turn');
    expect(within(legacy).getByText('Health checks off')).toBeInTheDocument();
    expect(within(legacy).getByText('Off')).toBeInTheDocument();
  });

  it('shows the empty state with an Add route button that opens the form', async () => {
    stubApi(({ path }) => (path === '/api/lb/routes' ? Response.json({ routes: [] }) : undefined));
    const { user } = renderPage();
    expect(await screen.findByRole('heading', { name: 'No load-balancer routes' })).toBeInTheDocument();
    await user.click(await screen.findByRole('button', { name: 'Add route' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add route' });
    expect(within(dialog).getByLabelText('Domain')).toHaveValue('');
    expect(within(dialog).getByRole('button', { name: 'Create route' })).toBeInTheDocument();
  });

  it('creates a route: POST with the form’s body, a toast, the dialog closes', async () => {
    const { callsTo } = stubApi(({ method, path }) => {
      if (path === '/api/lb/routes' && method === 'POST')
        return Response.json(lbRoute({ id: 2, domain: 'new.example.com' }), { status: 201 });
      if (path === '/api/lb/routes') return Response.json({ routes: [] });
      return undefined;
    });
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Add route' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add route' });
    await user.type(within(dialog).getByLabelText('Domain'), 'new.example.com');
    await user.type(within(dialog).getByLabelText('Upstream 1'), '10.0.0.5:3000');
    await user.click(within(dialog).getByRole('button', { name: 'Create route' }));
    await vi.waitFor(() => expect(vi.mocked(toast.success)).toHaveBeenCalledWith('Route created', expect.anything()));
    expect(callsTo('POST', '/api/lb/routes')[0]?.body).toEqual({
      domain: 'new.example.com',
      target: { kind: 'upstreams', upstreams: ['10.0.0.5:3000'] },
      health_check: { enabled: true, path: '/', interval_seconds: 5, timeout_seconds: 2 },
    });
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('edits a route with PUT (no domain in the body) and says so', async () => {
    const { callsTo } = stubApi(({ method, path }) => {
      if (path === '/api/lb/routes/api.example.com' && method === 'PUT') return Response.json(lbRoute());
      if (path === '/api/lb/routes') return Response.json(ROUTES);
      return undefined;
    });
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Actions for api.example.com' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit route' });
    expect(within(dialog).getByLabelText('Domain')).toHaveAttribute('readonly');
    expect(within(dialog).getByLabelText('Upstream 2')).toHaveValue('10.0.0.6:3000');
    await user.click(within(dialog).getByRole('button', { name: 'Remove upstream 2' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    await vi.waitFor(() => expect(vi.mocked(toast.success)).toHaveBeenCalledWith('Route updated', expect.anything()));
    expect(callsTo('PUT', '/api/lb/routes/api.example.com')[0]?.body).toEqual({
      target: { kind: 'upstreams', upstreams: ['10.0.0.5:3000'] },
      health_check: { enabled: true, path: '/health', interval_seconds: 5, timeout_seconds: 2 },
    });
  });

  it('deletes a route after the confirmation', async () => {
    const { callsTo } = stubApi(({ method, path }) => {
      if (path === '/api/lb/routes/api.example.com' && method === 'DELETE') return new Response(null, { status: 204 });
      if (path === '/api/lb/routes') return Response.json(ROUTES);
      return undefined;
    });
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Actions for api.example.com' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Delete route for api.example.com?' });
    expect(dialog).toHaveTextContent('Requests to api.example.com get the edge’s “no app here” page afterwards.');

    // Cancel sends nothing.
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(callsTo('DELETE', '/api/lb/routes/api.example.com')).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Actions for api.example.com' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    const again = await screen.findByRole('alertdialog', { name: 'Delete route for api.example.com?' });
    await user.click(within(again).getByRole('button', { name: 'Delete route' }));
    await vi.waitFor(() =>
      expect(vi.mocked(toast.success)).toHaveBeenCalledWith('Route deleted', { description: 'api.example.com' }),
    );
    expect(callsTo('DELETE', '/api/lb/routes/api.example.com')).toHaveLength(1);
    await vi.waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
  });

  it('keeps the confirmation open and shows the server’s detail when the delete fails', async () => {
    stubApi(({ method, path }) => {
      if (path === '/api/lb/routes/api.example.com' && method === 'DELETE') {
        return Response.json({ detail: 'No load-balancer route for api.example.com' }, { status: 404 });
      }
      if (path === '/api/lb/routes') return Response.json(ROUTES);
      return undefined;
    });
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: 'Actions for api.example.com' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Delete route for api.example.com?' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete route' }));
    await vi.waitFor(() =>
      expect(vi.mocked(toast.error)).toHaveBeenCalledWith('Failed to delete route', {
        description: 'No load-balancer route for api.example.com',
      }),
    );
    expect(screen.getByRole('alertdialog')).toBeInTheDocument();
  });

  it('offers no changes to someone who is not an admin', async () => {
    stubApi(({ path }) => (path === '/api/lb/routes' ? Response.json(ROUTES) : undefined), { roles: ['user'] });
    renderPage();
    const row = await screen.findByTestId('lb-route-api.example.com');
    expect(await screen.findByText(/Only admins can change routes\./)).toBeInTheDocument();
    expect(within(row).queryByRole('button', { name: 'Actions for api.example.com' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add route' })).not.toBeInTheDocument();
  });
});
