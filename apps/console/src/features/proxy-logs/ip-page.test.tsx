import type { GeoLocation } from '@launchbay/contract';
import { screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/test/render';
import IpPage from './ip-page';
import { listPage, PRIVATE_GEO, PUBLIC_GEO, proxyLog, stubApi } from './test-fixtures';

function renderPage(geo: GeoLocation, options: { nextCursor?: string } = {}) {
  const stub = stubApi((url) => {
    if (url.pathname === `/api/geo/${geo.ip}`) return Response.json(geo);
    if (url.pathname === '/api/proxy-logs') {
      if (url.searchParams.get('cursor')) {
        return Response.json(listPage({ logs: [proxyLog({ id: 7, client_ip: geo.ip, path: '/older' })] }));
      }
      return Response.json(listPage({ logs: [proxyLog({ client_ip: geo.ip })], next_cursor: options.nextCursor ?? null }));
    }
    return undefined;
  });
  const result = renderWithProviders(
    <MemoryRouter initialEntries={[`/ip/${geo.ip}`]}>
      <Routes>
        <Route path="/ip/:ip" element={<IpPage />} />
      </Routes>
    </MemoryRouter>,
  );
  return { ...result, ...stub };
}

describe('IpPage', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('says a private address has no location', async () => {
    renderPage(PRIVATE_GEO);
    expect(await screen.findByText('Private address — not on the public internet, so it has no location.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: /10\.0\.0\.1/, level: 1 })).toBeInTheDocument();
    expect(document.title).toBe('IP Lookup: 10.0.0.1 - Launchbay');
    expect(screen.queryByText('Country')).not.toBeInTheDocument();
  });

  it('shows the place of a public address with its flag, coordinates, timezone and source', async () => {
    renderPage(PUBLIC_GEO);
    const location = await screen.findByRole('region', { name: 'Location' });
    expect(await within(location).findByText('Mountain View, California')).toBeInTheDocument();
    expect(within(location).getByRole('img', { name: 'United States' })).toHaveTextContent('🇺🇸');
    expect(within(location).getByText('Mountain View')).toBeInTheDocument();
    expect(within(location).getByText('America/Los_Angeles')).toBeInTheDocument();
    expect(within(location).getByRole('link', { name: /37\.3860° N, 122\.0838° W/ })).toHaveAttribute(
      'href',
      expect.stringContaining('openstreetmap.org'),
    );
    expect(within(location).getByText(/DB-IP/)).toBeInTheDocument();
    expect(within(location).queryByText(/has no location/)).not.toBeInTheDocument();
  });

  it('lists the requests from the address, with Load more', async () => {
    const { user, listCalls } = renderPage(PUBLIC_GEO, { nextCursor: '1732280000000.101' });
    const requests = await screen.findByRole('region', { name: 'Requests from this IP' });
    expect(await within(requests).findByTestId('proxy-log-101')).toBeInTheDocument();
    expect(listCalls()[0]?.searchParams.get('client_ip')).toBe('8.8.8.8');
    expect(listCalls()[0]?.searchParams.has('from')).toBe(false);
    // The client is this address: its column is left out.
    expect(within(requests).queryByRole('columnheader', { name: 'Client IP' })).not.toBeInTheDocument();

    await user.click(within(requests).getByRole('button', { name: 'Load more' }));
    expect(await within(requests).findByTestId('proxy-log-7')).toBeInTheDocument();
    const last = listCalls().at(-1)?.searchParams;
    expect(last?.get('cursor')).toBe('1732280000000.101');
    expect(last?.get('client_ip')).toBe('8.8.8.8');
  });

  it('refuses what is not an IP address without asking the server', async () => {
    const { fetch } = stubApi(() => undefined);
    renderWithProviders(
      <MemoryRouter initialEntries={['/ip/not-an-ip']}>
        <Routes>
          <Route path="/ip/:ip" element={<IpPage />} />
        </Routes>
      </MemoryRouter>,
    );
    expect(await screen.findByRole('heading', { name: 'Not an IP address' })).toBeInTheDocument();
    expect(fetch).not.toHaveBeenCalled();
  });
});
