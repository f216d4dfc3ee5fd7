import type { CurrentUser, PlatformSettings, ProjectDetail, WebhookDelivery } from '@launchbay/contract';
import { screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '@/lib/toast';
import { platformSettings, providerProject } from '@/test/fixtures';
import { renderWithProviders } from '@/test/render';
import SettingsGitPage from './settings-git-page';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

const NOW = new Date().toISOString();

const PROJECT: ProjectDetail = providerProject({ previews_enabled: false });

const SETTINGS = platformSettings({ external_url: 'https://launchbay.example.com', git_poll_interval_seconds: 120 });

const user = (roles: CurrentUser['roles']): CurrentUser => ({
  id: 1,
  username: 'someone',
  email: 'someone@example.com',
  avatar_url: null,
  roles,
  mfa_enabled: false,
});

const delivery = (id: number, extra: Partial<WebhookDelivery>): WebhookDelivery => ({
  id,
  provider_type: 'github',
  delivery_id: `d-${id}`,
  event: 'push',
  action: null,
  ref: 'refs/heads/main',
  commit_sha: 'abcdef1234567890abcdef1234567890abcdef12',
  outcome: 'deployed',
  detail: 'Deploying abcdef1 of main to production',
  deployment_id: 31,
  received_at: NOW,
  ...extra,
});

const DELIVERIES = [
  delivery(2, {
    event: 'pull_request',
    action: 'opened',
    ref: 'refs/heads/feature/cart',
    commit_sha: '1234567890abcdef1234567890abcdef12345678',
    outcome: 'ignored',
    detail: 'Pull request previews are off for this project',
    deployment_id: null,
  }),
  delivery(1, {}),
];

interface Options {
  project?: ProjectDetail;
  roles?: CurrentUser['roles'];
  settings?: PlatformSettings;
  webhook?: { webhook_url: string | null; webhook_registered: boolean };
  deliveries?: WebhookDelivery[];
  failAutomaticDeploy?: boolean;
}

/** The API as the server answers it: the project, the current user, settings, deliveries and the two switches. */
function stubApi(options: Options = {}) {
  let project = options.project ?? PROJECT;
  const webhook = options.webhook ?? {
    webhook_url: `https://launchbay.example.com/webhooks/git/${PROJECT.id}`,
    webhook_registered: true,
  };
  const fetch = vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://console.test');
    const method = init?.method ?? 'GET';
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    if (url.pathname === '/api/user/me') return Response.json(user(options.roles ?? ['admin']));
    if (url.pathname === `/api/projects/by-slug/${project.slug}`) return Response.json(project);
    if (url.pathname === '/api/settings') return Response.json(options.settings ?? SETTINGS);
    if (url.pathname === `/api/projects/${project.id}/webhook-deliveries`) {
      return Response.json({
        deliveries: options.deliveries ?? DELIVERIES,
        ...webhook,
        automatic_deploy: project.automatic_deploy,
      });
    }
    if (url.pathname === `/api/projects/${project.id}/automatic-deploy` && method === 'POST') {
      if (options.failAutomaticDeploy) {
        return Response.json({ detail: 'Your role (reader) is read-only: you need the user role for this' }, { status: 403 });
      }
      project = { ...project, automatic_deploy: body.enabled };
      return Response.json(project);
    }
    if (url.pathname === `/api/projects/${project.id}/git` && method === 'POST') {
      return Response.json({
        webhook_registered: true,
        webhook_url: `https://launchbay.example.com/webhooks/git/${project.id}`,
        detail: null,
      });
    }
    if (url.pathname === `/api/projects/${project.id}/deployment-config` && method === 'PATCH') {
      project = { ...project, previews_enabled: body.previews_enabled };
      return Response.json(project);
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
  const slug = (options.project ?? PROJECT).slug;
  const result = renderWithProviders(
    <MemoryRouter initialEntries={[`/projects/${slug}/settings/git`]}>
      <Routes>
        <Route path="/projects/:slug/settings/git" element={<SettingsGitPage />} />
      </Routes>
    </MemoryRouter>,
  );
  await screen.findByRole('heading', { name: 'Git' });
  return { ...result, ...api };
}

describe('SettingsGitPage: a project from a git provider', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows the repository, its branch, the registered webhook and the last deliveries', async () => {
    await renderPage();
    const repository = screen.getByRole('region', { name: 'Repository' });
    expect(within(repository).getByRole('link', { name: /octo-user\/shop/ })).toHaveAttribute(
      'href',
      'https://github.com/octo-user/shop',
    );
    expect(within(repository).getByText('GitHub')).toBeInTheDocument();
    expect(within(repository).getByText('main')).toBeInTheDocument();

    const deploy = screen.getByRole('region', { name: 'Deploy on push' });
    expect(await within(deploy).findByText('Webhook registered on GitHub')).toBeInTheDocument();
    expect(within(deploy).getByText('https://launchbay.example.com/webhooks/git/5')).toBeInTheDocument();

    const deliveries = screen.getByRole('region', { name: 'Recent deliveries' });
    const pr = await within(deliveries).findByTestId('delivery-2');
    expect(pr).toHaveTextContent('Pull request · opened');
    expect(pr).toHaveTextContent('feature/cart');
    expect(pr).toHaveTextContent('1234567');
    expect(pr).toHaveTextContent('Ignored');
    expect(pr).toHaveTextContent('Pull request previews are off for this project');
    const push = within(deliveries).getByTestId('delivery-1');
    expect(push).toHaveTextContent('Push');
    expect(push).toHaveTextContent('Deployed');
    expect(within(push).getByRole('link', { name: 'Deployment #31' })).toHaveAttribute('href', '/projects/shop/deployments/31');
  });

  it('turns automatic deploys off with POST automatic-deploy and a toast', async () => {
    const { user, calls } = await renderPage();
    const toggle = screen.getByRole('switch', { name: 'Automatic deploys' });
    await vi.waitFor(() => expect(toggle).toBeEnabled());
    expect(toggle).toBeChecked();
    await user.click(toggle);
    await vi.waitFor(() => expect(calls('POST', '/api/projects/5/automatic-deploy')).toEqual([{ enabled: false }]));
    await vi.waitFor(() => expect(toggle).not.toBeChecked());
    expect(toast.success).toHaveBeenCalledWith('Automatic deploys off', expect.anything());
  });

  it("shows the server's detail when the switch is refused", async () => {
    const { user } = await renderPage({ failAutomaticDeploy: true });
    const toggle = screen.getByRole('switch', { name: 'Automatic deploys' });
    await vi.waitFor(() => expect(toggle).toBeEnabled());
    await user.click(toggle);
    await vi.waitFor(() =>
      expect(toast.error).toHaveBeenCalledWith('Failed to update automatic deploys', {
        description: 'Your role (reader) is read-only: you need the user role for this',
      }),
    );
    expect(toggle).toBeChecked();
  });

  it('turns previews on with PATCH deployment-config, and says when the platform has them off', async () => {
    const { user, calls } = await renderPage();
    const previews = screen.getByRole('region', { name: 'Pull request previews' });
    const notice = await within(previews).findByText('Preview environments are off for the platform.');
    expect(notice.closest('[role="note"]')?.querySelector('a[href="/settings"]')).not.toBeNull();
    expect(previews).toHaveTextContent('pr-42-shop.localhost:8080');
    const toggle = within(previews).getByRole('switch', { name: 'Pull request previews' });
    await vi.waitFor(() => expect(toggle).toBeEnabled());
    expect(toggle).not.toBeChecked();
    await user.click(toggle);
    await vi.waitFor(() => expect(calls('PATCH', '/api/projects/5/deployment-config')).toEqual([{ previews_enabled: true }]));
    await vi.waitFor(() => expect(toggle).toBeChecked());
    expect(toast.success).toHaveBeenCalledWith('Pull request previews on', {
      description: 'They start once preview environments are on for the platform.',
    });
  });

  it('says the branch is polled every N seconds (from the settings) when no webhook is registered', async () => {
    await renderPage({
      project: {
        ...PROJECT,
        repository: { ...(PROJECT.repository as NonNullable<ProjectDetail['repository']>), webhook_registered: false },
      },
      settings: { ...SETTINGS, external_url: null, preview_environments_enabled: true },
      webhook: { webhook_url: null, webhook_registered: false },
      deliveries: [],
    });
    const deploy = screen.getByRole('region', { name: 'Deploy on push' });
    expect(await within(deploy).findByText('Polled every 120 seconds')).toBeInTheDocument();
    expect(deploy).toHaveTextContent('No external URL was set when the project was created');
    expect(screen.queryByText('Preview environments are off for the platform.')).not.toBeInTheDocument();
    expect(await screen.findByText('No deliveries yet')).toBeInTheDocument();
  });

  it('registers the webhook again with POST git and says so', async () => {
    const { user, calls } = await renderPage({
      project: {
        ...PROJECT,
        repository: { ...(PROJECT.repository as NonNullable<ProjectDetail['repository']>), webhook_registered: false },
      },
      webhook: { webhook_url: null, webhook_registered: false },
      deliveries: [],
    });
    const deploy = screen.getByRole('region', { name: 'Deploy on push' });
    await user.click(await within(deploy).findByRole('button', { name: 'Register webhook' }));
    await vi.waitFor(() => expect(calls('POST', '/api/projects/5/git')).toHaveLength(1));
    await vi.waitFor(() =>
      expect(toast.success).toHaveBeenCalledWith('Webhook registered', {
        description: 'https://launchbay.example.com/webhooks/git/5',
      }),
    );
  });

  it('shows readers the switches disabled', async () => {
    await renderPage({ roles: ['reader'] });
    expect(await screen.findByTestId('git-read-only')).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: 'Automatic deploys' })).toBeDisabled();
    expect(screen.getByRole('switch', { name: 'Pull request previews' })).toBeDisabled();
  });
});

describe('SettingsGitPage: a project without a provider repository', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('a plain git URL: the repository and an honest note, no switches and no deliveries', async () => {
    const { fetch } = await renderPage({
      project: { ...PROJECT, git_url: 'https://git.example.com/acme/site.git', repository: null },
    });
    const repository = screen.getByRole('region', { name: 'Repository' });
    expect(within(repository).getByRole('link', { name: /git\.example\.com\/acme\/site/ })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Deploy on push' })).toHaveTextContent(
      'This repository is not from a connected git provider',
    );
    expect(screen.queryByRole('switch')).not.toBeInTheDocument();
    expect(fetch.mock.calls.some(([input]) => String(input).includes('webhook-deliveries'))).toBe(false);
  });

  it("the platform's own remote: the remote to push to", async () => {
    await renderPage({ project: { ...PROJECT, git_url: null, has_git_token: false, repository: null } });
    expect(screen.getByRole('region', { name: /Deploy with git push/ })).toHaveTextContent('/git/shop.git');
    expect(screen.getByRole('region', { name: 'Deploy on push' })).toHaveTextContent(
      'Every push to the Launchbay remote deploys.',
    );
    expect(screen.queryByRole('switch')).not.toBeInTheDocument();
  });
});
