import type { ProxyLog } from '@launchbay/contract';
import { screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/test/render';
import ProxyLogPage from './proxy-log-page';
import { proxyLog, stubApi } from './test-fixtures';

function renderPage(log: ProxyLog | null, entry = `/proxy-logs/${log?.id ?? 404}`) {
  const { fetch } = stubApi((url) => {
    if (log && url.pathname === `/api/proxy-logs/${log.id}`) return Response.json(log);
    if (url.pathname.startsWith('/api/proxy-logs/')) return Response.json({ detail: 'Proxy log not found' }, { status: 404 });
    return undefined;
  });
  const result = renderWithProviders(
    <MemoryRouter initialEntries={[entry]}>
      <Routes>
        <Route path="/proxy-logs/:id" element={<ProxyLogPage />} />
      </Routes>
    </MemoryRouter>,
  );
  return { ...result, fetch };
}

const region = (name: string) => screen.getByRole('region', { name });

describe('ProxyLogPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows every field of the request, grouped, and links the client IP to its lookup', async () => {
    renderPage(proxyLog());
    expect(await screen.findByRole('heading', { name: 'Proxy Log #101', level: 1 })).toBeInTheDocument();
    expect(document.title).toBe('Proxy Log #101 - Launchbay');

    const request = region('Request');
    expect(within(request).getByText('/api/products')).toBeInTheDocument();
    expect(within(request).getByText('?page=2&sort=price')).toBeInTheDocument();
    expect(within(request).getByText('TLSv1.3')).toBeInTheDocument();
    expect(within(request).getByText('512 Bytes')).toBeInTheDocument();
    expect(within(request).getByText('20 KB')).toBeInTheDocument();
    expect(within(request).getByText('43 ms')).toBeInTheDocument();

    const client = region('Client');
    expect(within(client).getByRole('link', { name: '203.0.113.9' })).toHaveAttribute('href', '/ip/203.0.113.9');
    expect(within(client).getByText(/Firefox\/140\.0/)).toBeInTheDocument();
    expect(within(client).getByRole('link', { name: 'https://shop.example.com/products' })).toHaveAttribute(
      'rel',
      'noreferrer noopener',
    );

    const routing = region('Routing');
    expect(within(routing).getByRole('link', { name: 'Shop' })).toHaveAttribute('href', '/projects/shop');
    expect(within(routing).getByRole('link', { name: '#77' })).toHaveAttribute('href', '/projects/shop/deployments/77');
    expect(within(routing).getByText('Production')).toBeInTheDocument();
    expect(within(routing).getByText('127.0.0.1:4100')).toBeInTheDocument();
    expect(within(routing).queryByText(/No route matched/)).not.toBeInTheDocument();
  });

  it('says the edge answered itself when no route matched', async () => {
    renderPage(
      proxyLog({
        id: 5,
        status_code: 404,
        route: null,
        project_id: null,
        project_name: null,
        project_slug: null,
        environment_id: null,
        environment_name: null,
        deployment_id: null,
        upstream: null,
        tls_version: null,
        referrer: null,
        user_agent: null,
      }),
    );
    expect(await screen.findByText('No route matched — the edge answered itself.')).toBeInTheDocument();
    expect(within(region('Routing')).queryByRole('link')).not.toBeInTheDocument();
    expect(within(region('Request')).getByText('None (plain HTTP)')).toBeInTheDocument();
  });

  it('shows the not-found state for an unknown id', async () => {
    renderPage(null, '/proxy-logs/999');
    expect(await screen.findByRole('heading', { name: 'This request is not in the log' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Proxy Logs' })).toHaveAttribute('href', '/proxy-logs');
  });

  it('does not ask the server for an id that is not one', async () => {
    const { fetch } = renderPage(null, '/proxy-logs/abc');
    expect(await screen.findByRole('heading', { name: 'This request is not in the log' })).toBeInTheDocument();
    expect(fetch).not.toHaveBeenCalled();
  });
});
