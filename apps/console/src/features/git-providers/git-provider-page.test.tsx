import type { CurrentUser, GitProvider } from '@launchbay/contract';
import { screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/test/render';
import GitProviderPage from './git-provider-page';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

const NOW = new Date().toISOString();
const PENDING: GitProvider = {
  id: 3,
  name: 'Company GitLab',
  provider_type: 'gitlab',
  auth_method: 'oauth',
  base_url: 'https://gitlab.example.com',
  api_url: 'https://gitlab.example.com/api/v4',
  is_active: false,
  account_login: null,
  scopes: [],
  connection_count: 0,
  created_at: NOW,
  updated_at: NOW,
};

const user = (roles: CurrentUser['roles']): CurrentUser =>
  ({
    id: 1,
    username: 'someone',
    email: 'someone@example.com',
    avatar_url: null,
    roles,
    mfa_enabled: false,
    display_name: null,
    created_at: NOW,
  }) as CurrentUser;

function render(roles: CurrentUser['roles'], provider: GitProvider = PENDING) {
  const authorizeUrl = 'https://gitlab.example.com/oauth/authorize?client_id=app&state=fresh';
  const fetch = vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://console.test');
    const method = init?.method ?? 'GET';
    if (url.pathname === '/api/user/me') return Response.json(user(roles));
    if (url.pathname === `/api/git-providers/${provider.id}`) return Response.json(provider);
    if (url.pathname === '/api/git-connections') return Response.json({ connections: [] });
    if (url.pathname === `/api/git-providers/${provider.id}/authorize` && method === 'POST') {
      return Response.json({
        provider,
        authorize_url: authorizeUrl,
        oauth_callback_url: 'http://console.test/api/git-providers/gitlab/oauth/callback',
      });
    }
    return Response.json({ detail: `Unexpected call ${method} ${url.pathname}` }, { status: 404 });
  });
  vi.stubGlobal('fetch', fetch);
  const assign = vi.fn();
  vi.stubGlobal('location', { ...window.location, assign, origin: 'http://console.test' });
  const result = renderWithProviders(
    <MemoryRouter initialEntries={[`/git-providers/${provider.id}`]}>
      <Routes>
        <Route path="/git-providers/:id" element={<GitProviderPage />} />
      </Routes>
    </MemoryRouter>,
  );
  return { ...result, fetch, assign, authorizeUrl };
}

describe('GitProviderPage: an OAuth provider whose sign-in was not finished', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('lets an admin authorise it: a new authorisation, then the browser goes to GitLab', async () => {
    const { user: clicker, fetch, assign, authorizeUrl } = render(['admin']);
    const button = await screen.findByRole('button', { name: 'Authorise' });
    expect(screen.getByText(/has not authorised Launchbay yet/)).toHaveTextContent('Authorise it to connect its account.');
    await clicker.click(button);
    await vi.waitFor(() => expect(assign).toHaveBeenCalledWith(authorizeUrl));
    expect(
      fetch.mock.calls.some(
        ([input, init]) => String(input).endsWith('/api/git-providers/3/authorize') && init?.method === 'POST',
      ),
    ).toBe(true);
  });

  it('tells a reader that an admin can authorise it, without the button', async () => {
    render(['reader']);
    expect(await screen.findByText(/An admin can authorise it\./)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Authorise' })).not.toBeInTheDocument();
  });
});
