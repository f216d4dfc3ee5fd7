import type { CurrentUser } from '@launchbay/contract';
import { screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '@/lib/toast';
import { platformSettings } from '@/test/fixtures';
import { renderWithProviders } from '@/test/render';
import SettingsPage from './settings-page';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

const SETTINGS = platformSettings({ base_domain: 'apps.example.com' });

const ADMIN: CurrentUser = {
  id: 1,
  username: 'admin',
  email: 'admin@example.com',
  avatar_url: null,
  roles: ['admin'],
  mfa_enabled: false,
};

/** The settings API as the server answers it: GET /api/settings, PUT /api/settings (a partial update). */
function stubApi(nginxInstalled = true, edgeDownAnswers = 0) {
  let settings = { ...SETTINGS };
  let downAnswersLeft = edgeDownAnswers;
  const fetch = vi.fn(async (url: string, init?: RequestInit) => {
    if (url === '/api/user/me') return Response.json(ADMIN);
    if (url === '/api/platform/edge' && downAnswersLeft > 0) {
      downAnswersLeft -= 1;
      return Response.json({
        driver: null,
        pid: null,
        port: null,
        tls_port: null,
        route_table_version: null,
        error: null,
        nginx: { installed: nginxInstalled, version: nginxInstalled ? 'nginx/1.22.1' : null },
      });
    }
    if (url === '/api/platform/edge')
      return Response.json({
        driver: settings.edge_driver,
        pid: 4242,
        port: 8080,
        tls_port: 8443,
        route_table_version: 12,
        error: null,
        nginx: nginxInstalled ? { installed: true, version: 'nginx/1.22.1' } : { installed: false, version: null },
      });
    if (url === '/api/settings' && (init?.method ?? 'GET') === 'GET') return Response.json(settings);
    if (url === '/api/settings' && init?.method === 'PUT') {
      settings = { ...settings, ...JSON.parse(String(init.body)) };
      return Response.json(settings);
    }
    return Response.json({ detail: `Unexpected call ${init?.method ?? 'GET'} ${url}` }, { status: 404 });
  });
  vi.stubGlobal('fetch', fetch);
  const puts = () =>
    fetch.mock.calls.filter(([, init]) => init?.method === 'PUT').map(([, init]) => JSON.parse(String(init?.body)));
  return { fetch, puts };
}

async function renderPage(nginxInstalled = true, edgeDownAnswers = 0) {
  const api = stubApi(nginxInstalled, edgeDownAnswers);
  const result = renderWithProviders(
    <MemoryRouter initialEntries={['/settings']}>
      <SettingsPage />
    </MemoryRouter>,
  );
  const retention = await screen.findByRole('region', { name: 'Data retention' });
  return { ...result, ...api, retention };
}

describe('SettingsPage: builds kept per environment', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows the current value in the Data retention section, with its help', async () => {
    const { retention } = await renderPage();
    const builds = within(retention).getByLabelText('Builds kept per environment');
    // The current user arrives after the settings: wait until the field is editable (admin).
    await vi.waitFor(() => expect(builds).toBeEnabled());
    expect(builds).toHaveValue(7);
    expect(
      within(retention).getByText('Successful builds kept on disk for instant rollback. Older builds are removed.'),
    ).toBeInTheDocument();
    expect(within(retention).getByRole('button', { name: 'Save Data retention' })).toBeDisabled();
  });

  it("refuses 0 and 51 with the contract's messages and sends nothing", async () => {
    const { user, retention, puts } = await renderPage();
    const builds = within(retention).getByLabelText('Builds kept per environment');
    await vi.waitFor(() => expect(builds).toBeEnabled());
    const save = within(retention).getByRole('button', { name: 'Save Data retention' });

    await user.clear(builds);
    await user.type(builds, '0');
    await user.click(save);
    expect(await within(retention).findByText('At least 1 build')).toBeInTheDocument();
    expect(builds).toHaveAttribute('aria-invalid', 'true');

    await user.clear(builds);
    await user.type(builds, '51');
    await user.click(save);
    expect(await within(retention).findByText('At most 50 builds')).toBeInTheDocument();
    expect(within(retention).queryByText('At least 1 build')).not.toBeInTheDocument();

    await user.clear(builds);
    await user.click(save);
    expect(await within(retention).findByText('Enter a whole number of builds')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it('sends only the new value on save and shows the saved toast', async () => {
    const { user, retention, puts } = await renderPage();
    const builds = within(retention).getByLabelText('Builds kept per environment');
    await vi.waitFor(() => expect(builds).toBeEnabled());
    const save = within(retention).getByRole('button', { name: 'Save Data retention' });

    await user.clear(builds);
    await user.type(builds, '12');
    expect(save).toBeEnabled();
    await user.click(save);

    await vi.waitFor(() => expect(puts()).toEqual([{ kept_builds_per_environment: 12 }]));
    await vi.waitFor(() => expect(toast.success).toHaveBeenCalledWith('Settings saved'));
    // The saved settings become the form's values: nothing left to save.
    await vi.waitFor(() => expect(save).toBeDisabled());
    expect(builds).toHaveValue(12);
  });
});

async function renderSection(name: string) {
  const api = stubApi();
  const result = renderWithProviders(
    <MemoryRouter initialEntries={['/settings']}>
      <SettingsPage />
    </MemoryRouter>,
  );
  const section = await screen.findByRole('region', { name });
  return { ...result, ...api, section };
}

describe('SettingsPage: preview address template', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows the template with an example address under the base domain', async () => {
    const { section } = await renderSection('Preview environments');
    const template = within(section).getByLabelText('Preview address template');
    await vi.waitFor(() => expect(template).toBeEnabled());
    expect(template).toHaveValue('pr-{number}-{project}');
    expect(within(section).getByTestId('preview-address-example')).toHaveTextContent('pr-42-shop.apps.example.com');
  });

  it("follows the typing in the example, and refuses a template without {number} with the contract's message", async () => {
    const { user, section, puts } = await renderSection('Preview environments');
    const template = within(section).getByLabelText('Preview address template');
    await vi.waitFor(() => expect(template).toBeEnabled());
    const save = within(section).getByRole('button', { name: 'Save Preview environments' });

    await user.clear(template);
    await user.type(template, 'pr-{{num}-{{number}');
    await user.click(save);
    expect(await within(section).findByText('Only {number} and {project} are placeholders')).toBeInTheDocument();

    await user.clear(template);
    await user.type(template, '{{project}-preview');
    await user.click(save);
    expect(
      await within(section).findByText('Must contain {number}: each pull request needs its own address'),
    ).toBeInTheDocument();
    expect(template).toHaveAttribute('aria-invalid', 'true');

    await user.clear(template);
    await user.type(template, 'PR_{{number}');
    await user.click(save);
    expect(
      await within(section).findByText('Lowercase letters, digits, hyphens and the {number} and {project} placeholders'),
    ).toBeInTheDocument();
    expect(puts()).toEqual([]);

    await user.clear(template);
    await user.type(template, '{{project}-pr{{number}');
    expect(within(section).getByTestId('preview-address-example')).toHaveTextContent('shop-pr42.apps.example.com');
  });

  it('sends only the new template on save', async () => {
    const { user, section, puts } = await renderSection('Preview environments');
    const template = within(section).getByLabelText('Preview address template');
    await vi.waitFor(() => expect(template).toBeEnabled());
    await user.clear(template);
    await user.type(template, '{{project}-pr{{number}');
    await user.click(within(section).getByRole('button', { name: 'Save Preview environments' }));
    await vi.waitFor(() => expect(puts()).toEqual([{ preview_address_template: '{project}-pr{number}' }]));
    await vi.waitFor(() => expect(toast.success).toHaveBeenCalledWith('Settings saved'));
  });
});

describe('SettingsPage: branch polling interval', () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows the interval in the Git section and refuses values outside 60..86400 with the contract's messages", async () => {
    const { user, section, puts } = await renderSection('Git');
    const interval = within(section).getByLabelText('Branch polling interval (seconds)');
    await vi.waitFor(() => expect(interval).toBeEnabled());
    expect(interval).toHaveValue(60);
    const save = within(section).getByRole('button', { name: 'Save Git' });

    await user.clear(interval);
    await user.type(interval, '59');
    await user.click(save);
    expect(await within(section).findByText('At least 60 seconds')).toBeInTheDocument();

    await user.clear(interval);
    await user.type(interval, '86401');
    await user.click(save);
    expect(await within(section).findByText('At most 86400 seconds (a day)')).toBeInTheDocument();

    await user.clear(interval);
    await user.click(save);
    expect(await within(section).findByText('Enter a whole number of seconds')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it('sends only the new interval on save', async () => {
    const { user, section, puts } = await renderSection('Git');
    const interval = within(section).getByLabelText('Branch polling interval (seconds)');
    await vi.waitFor(() => expect(interval).toBeEnabled());
    await user.clear(interval);
    await user.type(interval, '300');
    await user.click(within(section).getByRole('button', { name: 'Save Git' }));
    await vi.waitFor(() => expect(puts()).toEqual([{ git_poll_interval_seconds: 300 }]));
    await vi.waitFor(() => expect(toast.success).toHaveBeenCalledWith('Settings saved'));
    expect(interval).toHaveValue(300);
  });
});

describe('SettingsPage: certificate renewal', () => {
  afterEach(() => vi.unstubAllGlobals());

  it("shows the days in the TLS section and refuses values outside 1..60 with the contract's messages", async () => {
    const { user, section, puts } = await renderSection('TLS certificates');
    const days = within(section).getByLabelText('Renew certificates');
    await vi.waitFor(() => expect(days).toBeEnabled());
    expect(days).toHaveValue(30);
    expect(within(section).getByText('Days before expiry; at least 1, at most 60')).toBeInTheDocument();
    const save = within(section).getByRole('button', { name: 'Save TLS certificates' });

    await user.clear(days);
    await user.type(days, '0');
    await user.click(save);
    expect(await within(section).findByText('At least 1 day')).toBeInTheDocument();

    await user.clear(days);
    await user.type(days, '61');
    await user.click(save);
    expect(await within(section).findByText('At most 60 days')).toBeInTheDocument();
    expect(puts()).toEqual([]);
  });

  it('sends only the new number of days on save', async () => {
    const { user, section, puts } = await renderSection('TLS certificates');
    const days = within(section).getByLabelText('Renew certificates');
    await vi.waitFor(() => expect(days).toBeEnabled());
    await user.clear(days);
    await user.type(days, '14');
    await user.click(within(section).getByRole('button', { name: 'Save TLS certificates' }));
    await vi.waitFor(() => expect(puts()).toEqual([{ certificate_renewal_days: 14 }]));
    await vi.waitFor(() => expect(toast.success).toHaveBeenCalledWith('Settings saved'));
  });
});

describe('SettingsPage: the edge proxy', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows which driver serves and where, and switches to nginx with only that field', async () => {
    const { user, puts } = await renderPage();
    const edge = await screen.findByRole('region', { name: 'Edge proxy' });
    expect(await within(edge).findByText('Serving on port 8080 and 8443 (HTTPS), route table 12.')).toBeInTheDocument();
    expect(within(edge).getByText('Installed: nginx/1.22.1')).toBeInTheDocument();
    const nginx = within(edge).getByRole('radio', { name: /^nginx/ });
    await vi.waitFor(() => expect(nginx).toBeEnabled());
    expect(within(edge).getByRole('radio', { name: /^Embedded/ })).toBeChecked();
    await user.click(nginx);
    await user.click(within(edge).getByRole('button', { name: 'Save Edge proxy' }));
    await vi.waitFor(() => expect(puts()).toEqual([{ edge_driver: 'nginx' }]));
    await vi.waitFor(() => expect(toast.success).toHaveBeenCalledWith('Settings saved'));
  });

  it('says when no edge serves, and asks again until one does', async () => {
    const { fetch } = await renderPage(true, 2);
    const edge = await screen.findByRole('region', { name: 'Edge proxy' });
    expect(
      await within(edge).findByText('No edge is running: apps are not reachable until it starts (see the platform log).'),
    ).toBeInTheDocument();
    expect(
      await within(edge).findByText('Serving on port 8080 and 8443 (HTTPS), route table 12.', {}, { timeout: 8000 }),
    ).toBeInTheDocument();
    const asked = () => fetch.mock.calls.filter(([url]) => url === '/api/platform/edge').length;
    expect(asked()).toBe(3);
    // Serving again: no more asking.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(asked()).toBe(3);
  }, 15_000);

  it('does not offer nginx where it is not installed', async () => {
    await renderPage(false);
    const edge = await screen.findByRole('region', { name: 'Edge proxy' });
    expect(await within(edge).findByText('Not installed on this machine (apt-get install nginx).')).toBeInTheDocument();
    expect(within(edge).getByRole('radio', { name: /^nginx/ })).toBeDisabled();
  });
});
