import type { CurrentUser, Preview, ProjectDetail } from '@launchbay/contract';
import { screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toast } from '@/lib/toast';
import { providerProject } from '@/test/fixtures';
import { renderWithProviders } from '@/test/render';
import { PreviewsCard } from './previews-card';
import ProjectOverviewPage from './project-overview-page';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

const NOW = new Date().toISOString();

const PROJECT: ProjectDetail = providerProject({ environments: [] });

const preview = (pr: number, extra: Partial<Preview>): Preview => ({
  environment_id: 100 + pr,
  pr_number: pr,
  title: `Pull request ${pr}`,
  pr_url: `https://github.com/octo-user/shop/pull/${pr}`,
  author: 'octocat',
  branch: `feature-${pr}`,
  head_sha: `${String(pr).padStart(2, '0')}cdef1234567890abcdef1234567890abcdef12`,
  from_fork: false,
  head_repo: null,
  state: 'active',
  url: `http://pr-${pr}-shop.localhost:8080`,
  deployment_id: 200 + pr,
  deployment_status: 'ready',
  deployment_commit_sha: null,
  created_at: NOW,
  updated_at: NOW,
  ...extra,
});

const PREVIEWS = [
  preview(42, { title: 'Add a cart' }),
  preview(41, { deployment_status: 'building' }),
  preview(40, { deployment_status: 'failed' }),
  preview(77, { from_fork: true, head_repo: null, state: 'awaiting_approval', deployment_id: null, deployment_status: null }),
];

const user = (roles: CurrentUser['roles']): CurrentUser => ({
  id: 1,
  username: 'someone',
  email: 'someone@example.com',
  avatar_url: null,
  roles,
  mfa_enabled: false,
});

interface Options {
  roles?: CurrentUser['roles'];
  previews?: Preview[];
  previewsEnabled?: boolean;
  platformPreviewsEnabled?: boolean;
}

function stubApi(options: Options = {}) {
  let previews = options.previews ?? PREVIEWS;
  const fetch = vi.fn(async (input: string, init?: RequestInit) => {
    const url = new URL(input, 'http://console.test');
    const method = init?.method ?? 'GET';
    if (url.pathname === '/api/user/me') return Response.json(user(options.roles ?? ['user']));
    if (url.pathname === `/api/projects/by-slug/${PROJECT.slug}`) return Response.json(PROJECT);
    if (url.pathname === `/api/projects/${PROJECT.id}/previews`) {
      return Response.json({
        previews,
        previews_enabled: options.previewsEnabled ?? true,
        platform_previews_enabled: options.platformPreviewsEnabled ?? true,
      });
    }
    const approve = /^\/api\/projects\/5\/previews\/(\d+)\/approve$/.exec(url.pathname);
    if (approve && method === 'POST') {
      const id = Number(approve[1]);
      previews = previews.map((item) =>
        item.environment_id === id ? { ...item, state: 'active', deployment_id: 300, deployment_status: 'queued' } : item,
      );
      return Response.json(previews.find((item) => item.environment_id === id));
    }
    if (url.pathname === `/api/projects/${PROJECT.id}/deployments`) {
      return Response.json({ deployments: [], total: 0, page: 1, per_page: 5 });
    }
    if (url.pathname === '/api/presets') return Response.json({ presets: [] });
    return Response.json({ detail: `Unexpected call ${method} ${url.pathname}` }, { status: 404 });
  });
  vi.stubGlobal('fetch', fetch);
  return { fetch };
}

function renderCard(options: Options = {}) {
  const api = stubApi(options);
  const result = renderWithProviders(
    <MemoryRouter>
      <PreviewsCard project={PROJECT} />
    </MemoryRouter>,
  );
  return { ...result, ...api };
}

describe('PreviewsCard', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('lists each pull request with its link, author, branch, commit, state and address', async () => {
    renderCard();
    const card = screen.getByRole('region', { name: 'Previews' });
    const ready = await within(card).findByTestId('preview-42');
    expect(within(ready).getByRole('link', { name: /#42 Add a cart/ })).toHaveAttribute(
      'href',
      'https://github.com/octo-user/shop/pull/42',
    );
    expect(ready).toHaveTextContent('by octocat');
    expect(ready).toHaveTextContent('feature-42');
    expect(ready).toHaveTextContent('42cdef1');
    expect(within(ready).getByText('Ready')).toBeInTheDocument();
    expect(within(ready).getByRole('link', { name: /pr-42-shop\.localhost:8080/ })).toHaveAttribute(
      'href',
      'http://pr-42-shop.localhost:8080',
    );
    expect(within(ready).queryByRole('button', { name: /Approve/ })).not.toBeInTheDocument();

    expect(within(within(card).getByTestId('preview-41')).getByText('Building')).toBeInTheDocument();
    // Not serving yet: the address is text, not a link.
    expect(within(within(card).getByTestId('preview-41')).queryByRole('link', { name: /pr-41-shop/ })).toBeNull();
    expect(within(within(card).getByTestId('preview-40')).getByText('Failed')).toBeInTheDocument();
    const fork = within(card).getByTestId('preview-77');
    expect(within(fork).getByText('Awaiting approval')).toBeInTheDocument();
    expect(within(fork).getByText('Fork')).toBeInTheDocument();
    expect(fork).toHaveTextContent('Nothing builds until someone approves it.');
  });

  it("approves a fork's preview after a confirmation that says what runs, with a toast", async () => {
    const { user, fetch } = renderCard();
    const fork = await screen.findByTestId('preview-77');
    await user.click(within(fork).getByRole('button', { name: 'Approve #77' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Approve the preview of #77?' });
    expect(dialog).toHaveTextContent('comes from a fork');
    expect(dialog).toHaveTextContent('with the environment variables marked for previews');
    await user.click(within(dialog).getByRole('button', { name: 'Approve and deploy' }));
    await vi.waitFor(() =>
      expect(toast.success).toHaveBeenCalledWith('Preview approved', {
        description: 'Pull request #77 is building at pr-77-shop.localhost:8080.',
      }),
    );
    expect(
      fetch.mock.calls.filter(
        ([input, init]) => init?.method === 'POST' && String(input) === '/api/projects/5/previews/177/approve',
      ),
    ).toHaveLength(1);
    await vi.waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    await vi.waitFor(() => expect(within(screen.getByTestId('preview-77')).getByText('Building')).toBeInTheDocument());
  });

  it('offers readers no Approve button', async () => {
    const { fetch } = renderCard({ roles: ['reader'] });
    const fork = await screen.findByTestId('preview-77');
    // The current user arrives with the previews: give it a moment before asserting an absence.
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledWith('/api/user/me', expect.anything()));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(within(fork).queryByRole('button', { name: /Approve/ })).not.toBeInTheDocument();
  });

  it('says how to turn previews on when there are none', async () => {
    const first = renderCard({ previews: [], previewsEnabled: false });
    expect(await screen.findByText('No previews')).toBeInTheDocument();
    const card = screen.getByRole('region', { name: 'Previews' });
    expect(card).toHaveTextContent('Turn on pull request previews in Git settings');
    expect(within(card).getByRole('link', { name: 'Git settings' })).toHaveAttribute('href', '/projects/shop/settings/git');
    first.unmount();
    vi.unstubAllGlobals();

    renderCard({ previews: [], previewsEnabled: true, platformPreviewsEnabled: false });
    const off = await screen.findByRole('region', { name: 'Previews' });
    await vi.waitFor(() => expect(off).toHaveTextContent('preview environments are off for the platform'));
    expect(within(off).getByRole('link', { name: 'Settings' })).toHaveAttribute('href', '/settings');
  });
});

describe('ProjectOverviewPage: the Previews card', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('is hidden for a project without a provider repository', async () => {
    const plain = { ...PROJECT, repository: null, git_url: 'https://git.example.com/acme/site.git' };
    const fetch = vi.fn(async (input: string) => {
      const url = new URL(input, 'http://console.test');
      if (url.pathname === '/api/projects/by-slug/shop') return Response.json(plain);
      if (url.pathname === '/api/projects/5/deployments')
        return Response.json({ deployments: [], total: 0, page: 1, per_page: 5 });
      if (url.pathname === '/api/presets') return Response.json({ presets: [] });
      if (url.pathname === '/api/user/me') return Response.json(user(['admin']));
      return Response.json({ detail: 'Not found' }, { status: 404 });
    });
    vi.stubGlobal('fetch', fetch);
    renderWithProviders(
      <MemoryRouter initialEntries={['/projects/shop']}>
        <Routes>
          <Route path="/projects/:slug" element={<ProjectOverviewPage />} />
        </Routes>
      </MemoryRouter>,
    );
    expect(await screen.findByRole('region', { name: 'Latest deployments' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Previews' })).not.toBeInTheDocument();
    expect(fetch.mock.calls.some(([input]) => String(input).includes('/previews'))).toBe(false);
  });

  it('shows for a project from a git provider', async () => {
    stubApi();
    renderWithProviders(
      <MemoryRouter initialEntries={['/projects/shop']}>
        <Routes>
          <Route path="/projects/:slug" element={<ProjectOverviewPage />} />
        </Routes>
      </MemoryRouter>,
    );
    const card = await screen.findByRole('region', { name: 'Previews' });
    expect(await within(card).findByTestId('preview-42')).toBeInTheDocument();
  });
});
