import type { CurrentUser, CustomDomain, ProjectDetail } from '@launchbay/contract';
import { screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '@/lib/toast';
import { PRODUCTION_ENVIRONMENT, providerProject } from '@/test/fixtures';
import { renderWithProviders } from '@/test/render';
import SettingsDomainsPage from './settings-domains-page';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

const NOW = new Date().toISOString();
const IN_30_DAYS = new Date(Date.now() + 30 * 86_400_000 - 60_000).toISOString();

const STAGING = { ...PRODUCTION_ENVIRONMENT, id: 12, name: 'staging', slug: 'staging', branch: 'develop', is_production: false };
const PROJECT: ProjectDetail = providerProject({ environments: [PRODUCTION_ENVIRONMENT, STAGING] });

const user = (roles: CurrentUser['roles']): CurrentUser => ({
  id: 1,
  username: 'someone',
  email: 'someone@example.com',
  avatar_url: null,
  roles,
  mfa_enabled: false,
});

function customDomain(id: number, domain: string, extra: Partial<CustomDomain> = {}): CustomDomain {
  return {
    id,
    project_id: PROJECT.id,
    domain,
    environment_id: PRODUCTION_ENVIRONMENT.id,
    environment_name: 'production',
    redirect_to: null,
    url: `http://${domain}:8080`,
    certificate: { domain_id: 100 + id, status: 'pending', expires_at: null, served_status: null },
    created_at: NOW,
    ...extra,
  };
}

const APEX = customDomain(1, 'shop.example.com', {
  certificate: { domain_id: 101, status: 'active', expires_at: IN_30_DAYS, served_status: 'match' },
});
const WWW = customDomain(2, 'www.shop.example.com', { redirect_to: 'shop.example.com' });

type Answer = { status: number; body?: unknown };

interface Options {
  domains?: CustomDomain[];
  roles?: CurrentUser['roles'];
  /** POST custom-domains answers this instead of creating the name. */
  addAnswer?: Answer;
  /** DELETE custom-domains/{id} answers this instead of removing the name. */
  removeAnswer?: Answer;
}

/** The API as the server answers it: the project, the current user and its domains (kept across calls). */
function stubApi(options: Options = {}) {
  let domains = [...(options.domains ?? [])];
  let nextId = 50;
  const base = `/api/projects/${PROJECT.id}/custom-domains`;
  const fetch = vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://console.test');
    const method = init?.method ?? 'GET';
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    if (url.pathname === '/api/user/me') return Response.json(user(options.roles ?? ['user']));
    if (url.pathname === `/api/projects/by-slug/${PROJECT.slug}`) return Response.json(PROJECT);
    if (url.pathname === base && method === 'GET') return Response.json({ domains });
    if (url.pathname === base && method === 'POST') {
      if (options.addAnswer) return Response.json(options.addAnswer.body, { status: options.addAnswer.status });
      const env = PROJECT.environments.find((e) => e.id === (body.environment_id ?? PRODUCTION_ENVIRONMENT.id));
      const created = customDomain(nextId++, body.domain, {
        environment_id: env?.id ?? PRODUCTION_ENVIRONMENT.id,
        environment_name: env?.name ?? 'production',
        redirect_to: body.redirect_to ?? null,
      });
      domains = [...domains, created];
      return Response.json(created, { status: 201 });
    }
    const one = url.pathname.match(new RegExp(`^${base}/(\\d+)$`));
    if (one) {
      const id = Number(one[1]);
      if (method === 'DELETE') {
        if (options.removeAnswer) return Response.json(options.removeAnswer.body, { status: options.removeAnswer.status });
        domains = domains.filter((d) => d.id !== id);
        return new Response(null, { status: 204 });
      }
      if (method === 'PUT') {
        const env = PROJECT.environments.find((e) => e.id === body.environment_id);
        domains = domains.map((d) =>
          d.id === id
            ? {
                ...d,
                redirect_to: body.redirect_to ?? null,
                ...(env ? { environment_id: env.id, environment_name: env.name } : {}),
              }
            : d,
        );
        return Response.json(domains.find((d) => d.id === id));
      }
    }
    return Response.json({ detail: `Unexpected call ${method} ${url.pathname}` }, { status: 404 });
  });
  vi.stubGlobal('fetch', fetch);
  const calls = (method: string, path: string) =>
    fetch.mock.calls
      .filter(([input, init]) => (init?.method ?? 'GET') === method && new URL(input, 'http://console.test').pathname === path)
      .map(([, init]) => (init?.body ? JSON.parse(String(init.body)) : undefined));
  return { fetch, calls };
}

async function renderPage(options: Options = {}) {
  const api = stubApi(options);
  const result = renderWithProviders(
    <MemoryRouter initialEntries={[`/projects/${PROJECT.slug}/settings/domains`]}>
      <Routes>
        <Route path="/projects/:slug/settings/domains" element={<SettingsDomainsPage />} />
      </Routes>
    </MemoryRouter>,
  );
  await screen.findByRole('heading', { name: 'Domains' });
  return { ...result, ...api };
}

/** The Add domain form, once the list has loaded (it offers the project's serving names as redirect targets). */
async function addForm() {
  return screen.findByRole('region', { name: 'Add domain' });
}

describe('SettingsDomainsPage', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.clearAllMocks();
  });

  it('lists each name with what it does and the state of its certificate', async () => {
    await renderPage({
      domains: [
        APEX,
        WWW,
        customDomain(3, 'staging.example.com', {
          environment_id: STAGING.id,
          environment_name: 'staging',
          certificate: { domain_id: 103, status: 'failed', expires_at: null, served_status: null },
        }),
        customDomain(4, 'old.example.com', {
          certificate: { domain_id: 104, status: 'active', expires_at: IN_30_DAYS, served_status: 'mismatch' },
        }),
      ],
    });
    expect(screen.getByText(/The names this project answers at besides its generated address/)).toHaveTextContent(
      'shop.localhost:8080',
    );
    const apex = await screen.findByTestId('project-domain-shop.example.com');
    expect(within(apex).getByRole('link', { name: /shop\.example\.com/ })).toHaveAttribute(
      'href',
      'http://shop.example.com:8080',
    );
    expect(within(apex).getByRole('link', { name: /shop\.example\.com/ })).toHaveAttribute('target', '_blank');
    expect(apex).toHaveTextContent('Serves production');
    expect(apex).toHaveTextContent('Active');
    expect(apex).toHaveTextContent('expires in 30 days');
    expect(within(apex).getByRole('link', { name: 'Manage certificate' })).toHaveAttribute('href', '/domains/101');

    const www = screen.getByTestId('project-domain-www.shop.example.com');
    expect(www).toHaveTextContent('Redirects to shop.example.com');
    expect(www).toHaveTextContent('No certificate yet — Manage certificate');
    expect(within(www).getByRole('link', { name: 'Manage certificate' })).toHaveAttribute('href', '/domains/102');

    const staging = screen.getByTestId('project-domain-staging.example.com');
    expect(staging).toHaveTextContent('Serves staging');
    expect(within(staging).getByText('Failed')).toHaveClass('text-destructive');

    const old = screen.getByTestId('project-domain-old.example.com');
    expect(within(old).getByText('The edge serves another certificate')).toHaveClass('text-destructive');
  });

  it('refuses a wildcard before asking the server', async () => {
    const { user: u, calls } = await renderPage({ domains: [APEX] });
    const form = await addForm();
    await u.type(within(form).getByRole('textbox', { name: 'Domain' }), '*.example.com');
    await u.click(within(form).getByRole('button', { name: 'Add domain' }));
    expect(
      await within(form).findByText('A project domain is one name; add a wildcard certificate in Domains'),
    ).toBeInTheDocument();
    expect(within(form).getByRole('textbox', { name: 'Domain' })).toHaveAttribute('aria-invalid', 'true');
    expect(calls('POST', '/api/projects/5/custom-domains')).toEqual([]);
  });

  it('adds a name to production by default, with the DNS step for it', async () => {
    const { user: u, calls } = await renderPage();
    const form = await addForm();
    expect(within(form).getByRole('combobox', { name: 'Environment' })).toHaveTextContent('Production');
    await u.type(within(form).getByRole('textbox', { name: 'Domain' }), 'Shop.Example.com');
    expect(within(form).getByRole('note')).toHaveTextContent(
      'At your DNS provider, create an A record for shop.example.com pointing to this server.',
    );
    await u.click(within(form).getByRole('button', { name: 'Add domain' }));
    await vi.waitFor(() =>
      expect(calls('POST', '/api/projects/5/custom-domains')).toEqual([{ domain: 'shop.example.com', environment_id: 11 }]),
    );
    await vi.waitFor(() =>
      expect(toast.success).toHaveBeenCalledWith('Domain added', { description: 'shop.example.com serves production' }),
    );
    expect(await screen.findByTestId('project-domain-shop.example.com')).toHaveTextContent('Serves production');
    expect(within(form).getByRole('textbox', { name: 'Domain' })).toHaveValue('');
  });

  it('puts a 409 from the server under the domain field, and its detail in a toast', async () => {
    const { user: u } = await renderPage({
      addAnswer: {
        status: 409,
        body: {
          detail: 'shop.example.com is a domain of Blog',
          errors: [{ path: 'domain', message: 'Already a domain of Blog' }],
        },
      },
    });
    const form = await addForm();
    const input = within(form).getByRole('textbox', { name: 'Domain' });
    await u.type(input, 'shop.example.com');
    await u.click(within(form).getByRole('button', { name: 'Add domain' }));
    expect(await within(form).findByText('Already a domain of Blog')).toBeInTheDocument();
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveValue('shop.example.com');
    expect(toast.error).toHaveBeenCalledWith('Failed to add domain', { description: 'shop.example.com is a domain of Blog' });
    expect(toast.success).not.toHaveBeenCalled();
  });

  it('redirects a new name to a serving one with the switch (off while no name serves)', async () => {
    const { user: u, calls } = await renderPage({ domains: [APEX] });
    const form = await addForm();
    const toggle = within(form).getByRole('switch', { name: 'Redirect to another domain' });
    expect(toggle).not.toBeChecked();
    expect(within(form).getByRole('combobox', { name: 'Environment' })).toBeInTheDocument();
    await u.click(toggle);
    expect(toggle).toBeChecked();
    expect(within(form).queryByRole('combobox', { name: 'Environment' })).not.toBeInTheDocument();
    const target = within(form).getByRole('combobox', { name: 'Redirect to' });
    expect(target).toHaveTextContent('shop.example.com');
    await u.type(within(form).getByRole('textbox', { name: 'Domain' }), 'www.shop.example.com');
    await u.click(within(form).getByRole('button', { name: 'Add domain' }));
    await vi.waitFor(() =>
      expect(calls('POST', '/api/projects/5/custom-domains')).toEqual([
        { domain: 'www.shop.example.com', redirect_to: 'shop.example.com' },
      ]),
    );
    await vi.waitFor(() =>
      expect(toast.success).toHaveBeenCalledWith('Domain added', {
        description: 'www.shop.example.com redirects to shop.example.com',
      }),
    );
    expect(await screen.findByTestId('project-domain-www.shop.example.com')).toHaveTextContent('Redirects to shop.example.com');
    // The form starts again serving production.
    expect(within(form).getByRole('switch', { name: 'Redirect to another domain' })).not.toBeChecked();
  });

  it('cannot redirect while the project has no name that serves', async () => {
    await renderPage();
    const form = await addForm();
    expect(within(form).getByRole('switch', { name: 'Redirect to another domain' })).toBeDisabled();
    expect(form).toHaveTextContent('Add a domain that serves first');
  });

  it('turns a redirect back into serving an environment in Edit', async () => {
    const { user: u, calls } = await renderPage({ domains: [APEX, WWW] });
    await u.click(await screen.findByRole('button', { name: 'Actions for www.shop.example.com' }));
    await u.click(await screen.findByRole('menuitem', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit www.shop.example.com' });
    const toggle = within(dialog).getByRole('switch', { name: 'Redirect to another domain' });
    expect(toggle).toBeChecked();
    expect(within(dialog).getByRole('combobox', { name: 'Redirect to' })).toHaveTextContent('shop.example.com');
    await u.click(toggle);
    await u.click(within(dialog).getByRole('combobox', { name: 'Environment' }));
    await u.click(await screen.findByRole('option', { name: 'Staging' }));
    await u.click(within(dialog).getByRole('button', { name: 'Save' }));
    await vi.waitFor(() =>
      expect(calls('PUT', '/api/projects/5/custom-domains/2')).toEqual([{ environment_id: 12, redirect_to: null }]),
    );
    await vi.waitFor(() =>
      expect(toast.success).toHaveBeenCalledWith('Domain updated', { description: 'www.shop.example.com serves staging' }),
    );
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(await screen.findByTestId('project-domain-www.shop.example.com')).toHaveTextContent('Serves staging');
  });

  it('keeps a name others redirect to serving: its switch is off and says why', async () => {
    const { user: u } = await renderPage({ domains: [APEX, WWW, customDomain(3, 'shop.example.net')] });
    await u.click(await screen.findByRole('button', { name: 'Actions for shop.example.com' }));
    await u.click(await screen.findByRole('menuitem', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit shop.example.com' });
    expect(within(dialog).getByRole('switch', { name: 'Redirect to another domain' })).toBeDisabled();
    expect(dialog).toHaveTextContent('www.shop.example.com redirects here, so this one must serve.');
  });

  it('removes a name after confirmation', async () => {
    const { user: u, calls } = await renderPage({ domains: [APEX, WWW] });
    await u.click(await screen.findByRole('button', { name: 'Actions for www.shop.example.com' }));
    await u.click(await screen.findByRole('menuitem', { name: 'Remove' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Remove www.shop.example.com?' });
    await u.click(within(dialog).getByRole('button', { name: 'Remove domain' }));
    await vi.waitFor(() => expect(calls('DELETE', '/api/projects/5/custom-domains/2')).toHaveLength(1));
    await vi.waitFor(() => expect(toast.success).toHaveBeenCalledWith('Domain removed', { description: 'www.shop.example.com' }));
    await vi.waitFor(() => expect(screen.queryByTestId('project-domain-www.shop.example.com')).not.toBeInTheDocument());
  });

  it('shows why a removal was refused in a toast and keeps the confirmation open', async () => {
    const { user: u } = await renderPage({
      domains: [APEX, WWW],
      removeAnswer: {
        status: 400,
        body: {
          detail: 'domain: www.shop.example.com redirects here: change or remove it first',
          errors: [{ path: 'domain', message: 'www.shop.example.com redirects here: change or remove it first' }],
        },
      },
    });
    await u.click(await screen.findByRole('button', { name: 'Actions for shop.example.com' }));
    await u.click(await screen.findByRole('menuitem', { name: 'Remove' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Remove shop.example.com?' });
    await u.click(within(dialog).getByRole('button', { name: 'Remove domain' }));
    await vi.waitFor(() =>
      expect(toast.error).toHaveBeenCalledWith('Failed to remove domain', {
        description: 'www.shop.example.com redirects here: change or remove it first',
      }),
    );
    expect(screen.getByRole('alertdialog', { name: 'Remove shop.example.com?' })).toBeInTheDocument();
    expect(toast.success).not.toHaveBeenCalled();
    expect(screen.getByTestId('project-domain-shop.example.com')).toBeInTheDocument();
  });

  it('shows a reader the names without the form or the actions', async () => {
    await renderPage({ domains: [APEX], roles: ['reader'] });
    expect(await screen.findByTestId('project-domain-shop.example.com')).toHaveTextContent('Serves production');
    expect(screen.getByText(/Your role is read-only: changing them needs the user role\./)).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Add domain' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Actions for shop.example.com' })).not.toBeInTheDocument();
  });
});
