import type { CurrentUser, ProjectDetail } from '@launchbay/contract';
import { screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '@/lib/toast';
import { currentUser, providerProject } from '@/test/fixtures';
import { renderWithProviders } from '@/test/render';
import type { EnvVar } from './api';
import EnvVarsPage from './env-vars-page';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

const NOW = new Date().toISOString();

const PROJECT: ProjectDetail = providerProject();

const envVar = (id: number, key: string, includeInPreviews: boolean): EnvVar => ({
  id,
  key,
  value: '••••••••',
  environment_ids: [11],
  include_in_previews: includeInPreviews,
  created_at: NOW,
  updated_at: NOW,
});

function stubApi(roles: CurrentUser['roles']) {
  let list = [envVar(1, 'PUBLIC_API', true), envVar(2, 'PROD_SECRET', false)];
  const values: Record<string, string> = { PUBLIC_API: 'https://api.example.com', PROD_SECRET: 'do-not-leak' };
  const fetch = vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://console.test');
    const method = init?.method ?? 'GET';
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    if (url.pathname === '/api/user/me') return Response.json(currentUser(roles));
    if (url.pathname === '/api/projects/by-slug/shop') return Response.json(PROJECT);
    if (url.pathname === '/api/projects/5/env-vars' && method === 'GET') return Response.json({ env_vars: list });
    if (url.pathname === '/api/projects/5/env-vars' && method === 'POST') {
      const created = envVar(3, body.key, body.include_in_previews ?? false);
      values[body.key] = body.value;
      list = [...list, created];
      return Response.json(created, { status: 201 });
    }
    const value = /^\/api\/projects\/5\/env-vars\/([A-Z_]+)\/value$/.exec(url.pathname);
    if (value?.[1]) return Response.json({ key: value[1], value: values[value[1]], environment_ids: [11] });
    const update = /^\/api\/projects\/5\/env-vars\/(\d+)$/.exec(url.pathname);
    if (update && method === 'PUT') {
      list = list.map((item) => (item.id === Number(update[1]) ? { ...item, ...body } : item));
      return Response.json(list.find((item) => item.id === Number(update[1])));
    }
    return Response.json({ detail: `Unexpected call ${method} ${url.pathname}` }, { status: 404 });
  });
  vi.stubGlobal('fetch', fetch);
  const bodies = (method: string, pattern: RegExp) =>
    fetch.mock.calls
      .filter(([input, init]) => init?.method === method && pattern.test(String(input)))
      .map(([, init]) => JSON.parse(String(init?.body)));
  return { fetch, bodies };
}

async function renderPage(roles: CurrentUser['roles'] = ['user']) {
  const api = stubApi(roles);
  const result = renderWithProviders(
    <MemoryRouter initialEntries={['/projects/shop/settings/environment-variables']}>
      <Routes>
        <Route path="/projects/:slug/settings/environment-variables" element={<EnvVarsPage />} />
      </Routes>
    </MemoryRouter>,
  );
  await screen.findByTestId('env-var-PUBLIC_API');
  return { ...result, ...api };
}

describe('Environment variables: Include in previews', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('marks the variables previews get with a badge', async () => {
    await renderPage();
    expect(within(screen.getByTestId('env-var-PUBLIC_API')).getByText('Previews')).toBeInTheDocument();
    expect(within(screen.getByTestId('env-var-PROD_SECRET')).queryByText('Previews')).not.toBeInTheDocument();
  });

  it('the add form sends include_in_previews when it is checked', async () => {
    const { user, bodies } = await renderPage();
    await user.type(screen.getByLabelText('Key'), 'FEATURE_FLAG');
    await user.type(screen.getByLabelText('Value'), 'on');
    const checkbox = screen.getByRole('checkbox', { name: 'Include in previews' });
    expect(checkbox).not.toBeChecked();
    await user.click(checkbox);
    await user.click(screen.getByRole('button', { name: 'Add' }));
    await vi.waitFor(() =>
      expect(bodies('POST', /\/env-vars$/)).toEqual([{ key: 'FEATURE_FLAG', value: 'on', include_in_previews: true }]),
    );
    expect(toast.success).toHaveBeenCalledWith('Environment variable added', { description: 'FEATURE_FLAG' });
    expect(await screen.findByTestId('env-var-FEATURE_FLAG')).toHaveTextContent('Previews');
  });

  it('the add form leaves it out when unchecked (previews get nothing by default)', async () => {
    const { user, bodies } = await renderPage();
    await user.type(screen.getByLabelText('Key'), 'PRIVATE_KEY');
    await user.type(screen.getByLabelText('Value'), 'secret');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    await vi.waitFor(() => expect(bodies('POST', /\/env-vars$/)).toEqual([{ key: 'PRIVATE_KEY', value: 'secret' }]));
  });

  it('the edit dialog shows the current mark and sends only the change', async () => {
    const { user, bodies } = await renderPage();
    await user.click(screen.getByRole('button', { name: 'Actions for PUBLIC_API' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit PUBLIC_API' });
    const checkbox = within(dialog).getByRole('checkbox', { name: 'Include in previews' });
    await vi.waitFor(() => expect(within(dialog).getByLabelText('Value')).toHaveValue('https://api.example.com'));
    expect(checkbox).toBeChecked();
    await user.click(checkbox);
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await vi.waitFor(() => expect(bodies('PUT', /\/env-vars\/1$/)).toEqual([{ include_in_previews: false }]));
    await vi.waitFor(() =>
      expect(within(screen.getByTestId('env-var-PUBLIC_API')).queryByText('Previews')).not.toBeInTheDocument(),
    );
  });
});

describe('Environment variables for a reader', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('lists the keys and where they apply, and offers no way to read a value or change anything', async () => {
    const { fetch } = await renderPage(['reader']);
    await screen.findByText('Settings and secrets the app reads from its environment. Their values are hidden from readers.');
    const row = screen.getByTestId('env-var-PROD_SECRET');
    expect(within(row).getByText('PROD_SECRET')).toBeInTheDocument();
    expect(within(row).getByText('••••••••')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Reveal PROD_SECRET' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Actions for PROD_SECRET' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Import \.env/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Download \.env/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add' })).not.toBeInTheDocument();
    expect(fetch.mock.calls.some(([input]) => /\/value$/.test(String(input)))).toBe(false);
  });

  it('a user gets the controls', async () => {
    await renderPage(['user']);
    expect(await screen.findByRole('button', { name: 'Reveal PROD_SECRET' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Actions for PROD_SECRET' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Import \.env/ })).toBeInTheDocument();
  });
});
