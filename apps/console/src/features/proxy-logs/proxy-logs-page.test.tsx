import { screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/test/render';
import ProxyLogsPage from './proxy-logs-page';
import { listPage, proxyLog, stubApi } from './test-fixtures';

function LocationProbe() {
  const location = useLocation();
  return <output data-testid="location">{`${location.pathname}${location.search}`}</output>;
}

function renderPage(entry = '/proxy-logs') {
  return renderWithProviders(
    <MemoryRouter initialEntries={[entry]}>
      <Routes>
        <Route path="/proxy-logs" element={<ProxyLogsPage />} />
        <Route path="/proxy-logs/:id" element={<p>Detail page</p>} />
      </Routes>
      <LocationProbe />
    </MemoryRouter>,
  );
}

const hoursAgo = (iso: string | null) => (Date.now() - new Date(iso ?? '').getTime()) / 3_600_000;

describe('ProxyLogsPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('lists the requests of the last 24 hours, newest first, with their status, timing and client', async () => {
    const { listCalls } = stubApi((url) => (url.pathname === '/api/proxy-logs' ? Response.json(listPage()) : undefined));
    renderPage();
    const row = await screen.findByTestId('proxy-log-101');
    expect(within(row).getByText('200')).toHaveAttribute('data-status-class', '2xx');
    expect(within(row).getByText('GET')).toBeInTheDocument();
    expect(within(row).getByText('shop.example.com')).toBeInTheDocument();
    expect(within(row).getByText('?page=2&sort=price')).toBeInTheDocument();
    expect(within(row).getByText('43 ms')).toBeInTheDocument();
    expect(within(row).getByText('20 KB')).toBeInTheDocument();
    expect(within(row).getByRole('link', { name: '203.0.113.9' })).toHaveAttribute('href', '/ip/203.0.113.9');
    expect(document.title).toBe('Proxy Logs - Launchbay');

    const [first] = listCalls();
    expect(first?.searchParams.get('limit')).toBe('50');
    expect(hoursAgo(first?.searchParams.get('from') ?? null)).toBeCloseTo(24, 1);
    expect(first?.searchParams.has('cursor')).toBe(false);
  });

  it('sends the filters of the URL with the request', async () => {
    const { listCalls } = stubApi((url) => (url.pathname === '/api/proxy-logs' ? Response.json(listPage()) : undefined));
    renderPage('/proxy-logs?range=1h&status_class=5xx&host=Shop.Example.com&path=api&client_ip=203.0.113.9&project_id=5');
    await screen.findByTestId('proxy-log-101');
    const params = listCalls()[0]?.searchParams;
    expect(params?.get('status_class')).toBe('5xx');
    expect(params?.get('host')).toBe('shop.example.com');
    expect(params?.get('path')).toBe('/api');
    expect(params?.get('client_ip')).toBe('203.0.113.9');
    expect(params?.get('project_id')).toBe('5');
    expect(hoursAgo(params?.get('from') ?? null)).toBeCloseTo(1, 1);
    expect(screen.getByLabelText('Host')).toHaveValue('Shop.Example.com');
  });

  it('puts typed filters in the URL and asks again with them (after a pause in typing)', async () => {
    const { listCalls } = stubApi((url) => (url.pathname === '/api/proxy-logs' ? Response.json(listPage()) : undefined));
    const { user } = renderPage();
    await screen.findByTestId('proxy-log-101');

    await user.type(screen.getByLabelText('Host'), 'api.example.com');
    await waitFor(() => expect(listCalls().some((url) => url.searchParams.get('host') === 'api.example.com')).toBe(true));
    expect(screen.getByTestId('location')).toHaveTextContent('/proxy-logs?host=api.example.com');
    // Every keystroke did not become a request.
    expect(listCalls().filter((url) => url.searchParams.has('host'))).toHaveLength(1);

    await user.type(screen.getByLabelText('Path starts with'), '/checkout');
    await waitFor(() =>
      expect(
        listCalls().some(
          (url) => url.searchParams.get('path') === '/checkout' && url.searchParams.get('host') === 'api.example.com',
        ),
      ).toBe(true),
    );
  });

  it('does not send a half-typed IP address', async () => {
    const { listCalls } = stubApi((url) => (url.pathname === '/api/proxy-logs' ? Response.json(listPage()) : undefined));
    const { user } = renderPage();
    await screen.findByTestId('proxy-log-101');
    await user.type(screen.getByLabelText('Client IP'), '10.0.0');
    expect(await screen.findByText('Enter a full IPv4 or IPv6 address')).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(listCalls().some((url) => url.searchParams.has('client_ip'))).toBe(false);

    await user.type(screen.getByLabelText('Client IP'), '.1');
    await waitFor(() => expect(listCalls().some((url) => url.searchParams.get('client_ip') === '10.0.0.1')).toBe(true));
  });

  it('asks for a status class and a time range picked from the selects', async () => {
    const { listCalls } = stubApi((url) => (url.pathname === '/api/proxy-logs' ? Response.json(listPage()) : undefined));
    const { user } = renderPage();
    await screen.findByTestId('proxy-log-101');

    await user.click(screen.getByRole('combobox', { name: 'Status' }));
    await user.click(await screen.findByRole('option', { name: '4xx' }));
    await waitFor(() => expect(listCalls().some((url) => url.searchParams.get('status_class') === '4xx')).toBe(true));

    await user.click(screen.getByRole('combobox', { name: 'Time range' }));
    await user.click(await screen.findByRole('option', { name: 'All time' }));
    await waitFor(() =>
      expect(listCalls().some((url) => url.searchParams.get('status_class') === '4xx' && !url.searchParams.has('from'))).toBe(
        true,
      ),
    );
    expect(screen.getByTestId('location')).toHaveTextContent('status_class=4xx');
    expect(screen.getByTestId('location')).toHaveTextContent('range=all');
  });

  it('loads older requests with the cursor of the previous page', async () => {
    const { listCalls } = stubApi((url) => {
      if (url.pathname !== '/api/proxy-logs') return undefined;
      if (url.searchParams.get('cursor') === '1732280000000.101') {
        return Response.json(listPage({ logs: [proxyLog({ id: 90, path: '/older' })], next_cursor: null }));
      }
      return Response.json(listPage({ next_cursor: '1732280000000.101' }));
    });
    const { user } = renderPage();
    await screen.findByTestId('proxy-log-101');
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByTestId('proxy-log-90')).toBeInTheDocument();
    expect(listCalls().at(-1)?.searchParams.get('cursor')).toBe('1732280000000.101');
    expect(screen.getByTestId('proxy-log-101')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
    expect(screen.getByText(/2 requests shown/)).toBeInTheDocument();
  });

  it('warns when the edge served requests it could not log', async () => {
    stubApi((url) =>
      url.pathname === '/api/proxy-logs'
        ? Response.json(listPage({ dropped: { count: 1250, last_at: new Date().toISOString() } }))
        : undefined,
    );
    renderPage();
    const callout = await screen.findByTestId('dropped-callout');
    expect(callout).toHaveTextContent('1,250 requests were served but not logged');
    expect(callout).toHaveTextContent(/buffer filled while the database was slow or unavailable/);
  });

  it('shows no warning when nothing was dropped, and no notice when no row waits', async () => {
    stubApi((url) => (url.pathname === '/api/proxy-logs' ? Response.json(listPage()) : undefined));
    renderPage();
    await screen.findByTestId('proxy-log-101');
    expect(screen.queryByTestId('dropped-callout')).not.toBeInTheDocument();
    expect(screen.queryByTestId('waiting-callout')).not.toBeInTheDocument();
  });

  it('says how many requests wait to be logged while the edge holds their rows back during a burst', async () => {
    stubApi((url) => (url.pathname === '/api/proxy-logs' ? Response.json(listPage({ waiting_rows: 48_213 })) : undefined));
    renderPage();
    const callout = await screen.findByTestId('waiting-callout');
    expect(callout).toHaveTextContent('48,213 requests are waiting to be logged');
    expect(callout).toHaveTextContent(/written as soon as the burst is over \(within 30 seconds\)/);
  });

  it('says so when nothing was logged yet', async () => {
    stubApi((url) => (url.pathname === '/api/proxy-logs' ? Response.json(listPage({ logs: [], latest_id: 0 })) : undefined));
    renderPage();
    expect(await screen.findByRole('heading', { name: 'No requests logged yet' })).toBeInTheDocument();
    expect(screen.getByText(/through the edge appears here/)).toBeInTheDocument();
  });

  it('offers to clear filters that match nothing', async () => {
    const { listCalls } = stubApi((url) =>
      url.pathname === '/api/proxy-logs'
        ? Response.json(url.searchParams.has('status_class') ? listPage({ logs: [] }) : listPage())
        : undefined,
    );
    const { user } = renderPage('/proxy-logs?status_class=5xx&host=nothing.example.com');
    expect(await screen.findByRole('heading', { name: 'No requests match these filters' })).toBeInTheDocument();
    const empty = screen.getByRole('heading', { name: 'No requests match these filters' }).parentElement as HTMLElement;
    await user.click(within(empty).getByRole('button', { name: 'Clear filters' }));
    expect(await screen.findByTestId('proxy-log-101')).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/proxy-logs$/);
    expect(screen.getByLabelText('Host')).toHaveValue('');
    expect(listCalls().at(-1)?.searchParams.has('host')).toBe(false);
  });

  it('shows the server error with a retry', async () => {
    stubApi((url) =>
      url.pathname === '/api/proxy-logs' ? Response.json({ detail: 'Not a cursor from this list' }, { status: 400 }) : undefined,
    );
    renderPage();
    expect(await screen.findByRole('heading', { name: 'Could not load the proxy logs' })).toBeInTheDocument();
    expect(screen.getByText('Not a cursor from this list')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it('follows new requests while Live is on: polls with after_id and puts them on top', async () => {
    const { listCalls } = stubApi((url) => {
      if (url.pathname !== '/api/proxy-logs') return undefined;
      if (url.searchParams.get('after_id') === '101') {
        return Response.json(listPage({ logs: [proxyLog({ id: 102, path: '/live-one', status_code: 503 })], latest_id: 102 }));
      }
      if (url.searchParams.has('after_id')) return Response.json(listPage({ logs: [], latest_id: 102 }));
      return Response.json(listPage());
    });
    const { user } = renderPage();
    await screen.findByTestId('proxy-log-101');
    const live = screen.getByRole('button', { name: 'Live' });
    expect(live).toHaveAttribute('aria-pressed', 'false');
    expect(listCalls().some((url) => url.searchParams.has('after_id'))).toBe(false);

    await user.click(live);
    expect(live).toHaveAttribute('aria-pressed', 'true');
    const liveRow = await screen.findByTestId('proxy-log-102');
    expect(liveRow).toHaveAttribute('data-live', 'true');
    const rows = screen.getAllByTestId(/^proxy-log-\d+$/);
    expect(rows.map((row) => row.dataset.testid)).toEqual(['proxy-log-102', 'proxy-log-101']);
    const tail = listCalls().find((url) => url.searchParams.has('after_id'));
    expect(tail?.searchParams.get('after_id')).toBe('101');
    expect(tail?.searchParams.has('from')).toBe(true);

    // The next poll asks for what came after the new row.
    await waitFor(() => expect(listCalls().some((url) => url.searchParams.get('after_id') === '102')).toBe(true), {
      timeout: 3000,
    });
    await user.click(live);
    expect(live).toHaveAttribute('aria-pressed', 'false');
  });

  it('opens a request when its row is clicked', async () => {
    stubApi((url) => (url.pathname === '/api/proxy-logs' ? Response.json(listPage()) : undefined));
    const { user } = renderPage();
    const row = await screen.findByTestId('proxy-log-101');
    await user.click(within(row).getByTitle('/api/products?page=2&sort=price'));
    expect(await screen.findByText('Detail page')).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent('/proxy-logs/101');
  });
});
