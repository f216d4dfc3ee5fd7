import type { GitConnection, LivePreset, Repository } from '@launchbay/contract';
import { screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { ApiRequestError } from '@/lib/api';
import { toast } from '@/lib/toast';
import { renderWithProviders } from '@/test/render';
import type { NewProjectSubmission } from './new-project-schema';
import { RepositoryProjectForm } from './repository-project-form';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

const CONNECTION: GitConnection = {
  id: 7,
  provider_id: 3,
  provider_name: 'GitHub',
  provider_type: 'github',
  account_login: 'octo-user',
  account_type: 'User',
  repository_count: 12,
  last_synced_at: '2025-01-01T00:00:00.000Z',
  sync_error: null,
  created_at: '2025-01-01T00:00:00.000Z',
};

const repo = (id: number, name: string, extra: Partial<Repository> = {}): Repository => ({
  id,
  connection_id: CONNECTION.id,
  external_id: String(1000 + id),
  owner: 'acme',
  name,
  full_name: `acme/${name}`,
  description: `The ${name}`,
  default_branch: 'main',
  private: false,
  clone_url: `https://github.com/acme/${name}.git`,
  html_url: `https://github.com/acme/${name}`,
  pushed_at: '2025-01-01T00:00:00.000Z',
  ...extra,
});

/** Twelve repositories: site, blog (default branch trunk), then app-1..app-10. */
const REPOSITORIES = [
  repo(1, 'site'),
  repo(2, 'blog', { default_branch: 'trunk', private: true }),
  ...Array.from({ length: 10 }, (_, index) => repo(10 + index, `app-${index + 1}`)),
];

const PRESET: LivePreset = {
  repository_id: 2,
  branch: 'trunk',
  commit_sha: 'abcdef1234567890abcdef1234567890abcdef12',
  preset: 'static',
  preset_name: 'Static HTML',
  install_command: null,
  build_command: 'node build.js',
  start_command: null,
  output_directory: 'dist',
  port: null,
  has_launchbay_json: true,
  has_procfile: false,
  errors: [],
};

/** The git API as the server answers it: connections, a searchable and paged repository list, branches, the live preset. */
function stubApi(connections: GitConnection[] = [CONNECTION]) {
  const fetch = vi.fn(async (input: string) => {
    const url = new URL(input, 'http://console.test');
    if (url.pathname === '/api/git-connections') return Response.json({ connections });
    if (url.pathname === `/api/git-connections/${CONNECTION.id}/repositories`) {
      const search = url.searchParams.get('search') ?? '';
      const page = Number(url.searchParams.get('page') ?? 1);
      const perPage = Number(url.searchParams.get('per_page') ?? 30);
      const matching = REPOSITORIES.filter((item) => item.full_name.includes(search));
      return Response.json({
        repositories: matching.slice((page - 1) * perPage, page * perPage),
        total: matching.length,
        page,
        per_page: perPage,
      });
    }
    if (url.pathname === '/api/repositories/acme/blog/branches') {
      return Response.json({
        branches: [
          { name: 'trunk', commit_sha: PRESET.commit_sha, protected: true },
          { name: 'feature-x', commit_sha: PRESET.commit_sha, protected: false },
        ],
        default_branch: 'trunk',
      });
    }
    if (url.pathname === '/api/repositories/2/preset/live') {
      return Response.json({ ...PRESET, branch: url.searchParams.get('branch') ?? 'trunk' });
    }
    return Response.json({ detail: `Unexpected call ${input}` }, { status: 404 });
  });
  vi.stubGlobal('fetch', fetch);
  const calls = (pathname: string) =>
    fetch.mock.calls.map(([input]) => new URL(input, 'http://console.test')).filter((url) => url.pathname === pathname);
  return { fetch, calls };
}

function renderForm(onSubmit = vi.fn(async (_submission: NewProjectSubmission) => {})) {
  const result = renderWithProviders(
    <MemoryRouter>
      <RepositoryProjectForm onSubmit={onSubmit} />
    </MemoryRouter>,
  );
  return { ...result, onSubmit };
}

describe('RepositoryProjectForm: the repository picker', () => {
  it('lists the connection’s repositories a page at a time, and searches them (debounced)', async () => {
    const api = stubApi();
    const { user } = renderForm();
    const list = await screen.findByRole('list', { name: 'Repositories' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(10);
    expect(screen.getByText('12 repositories · page 1 of 2')).toBeInTheDocument();
    expect(screen.getByText(/Repositories of/)).toHaveTextContent('Repositories of @octo-user on GitHub');

    await user.click(screen.getByRole('button', { name: 'Next' }));
    await vi.waitFor(() =>
      expect(within(screen.getByRole('list', { name: 'Repositories' })).getAllByRole('listitem')).toHaveLength(2),
    );
    expect(screen.getByText('12 repositories · page 2 of 2')).toBeInTheDocument();

    await user.type(screen.getByLabelText('Search repositories'), 'blo');
    expect(await screen.findByText('1 match')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Select acme/blog' })).toBeInTheDocument();
    // One request for the search once typing stopped (not one a keystroke), from its first page.
    const searches = api
      .calls(`/api/git-connections/${CONNECTION.id}/repositories`)
      .filter((url) => url.searchParams.has('search'));
    expect(searches.map((url) => url.searchParams.get('search'))).toEqual(['blo']);
    expect(searches[0]?.searchParams.get('page')).toBe('1');

    await user.clear(screen.getByLabelText('Search repositories'));
    await user.type(screen.getByLabelText('Search repositories'), 'nothing-like-it');
    expect(await screen.findByText('nothing-like-it', { exact: false })).toBeInTheDocument();
    expect(screen.getByText(/No repositories match/)).toBeInTheDocument();
  });

  it('picks a repository: its default branch preselected, the detected preset shown, the name prefilled, then creates with repository_id and branch', async () => {
    const api = stubApi();
    const { user, onSubmit } = renderForm();
    await user.click(await screen.findByRole('button', { name: 'Select acme/blog' }));

    expect(screen.getByTestId('picked-repository')).toHaveTextContent('acme/blog');
    expect(screen.queryByRole('list', { name: 'Repositories' })).not.toBeInTheDocument();
    expect(screen.getByLabelText('Project name')).toHaveValue('blog');
    const branch = screen.getByLabelText('Branch');
    await vi.waitFor(() => expect(branch).toHaveTextContent('trunk'));
    expect(await screen.findByText("Production deploys this branch (the repository's default: trunk).")).toBeInTheDocument();

    const detected = screen.getByRole('region', { name: 'Detected settings' });
    expect(await within(detected).findByText('Static HTML')).toBeInTheDocument();
    expect(within(detected).getByText('node build.js')).toBeInTheDocument();
    expect(within(detected).getByText('dist')).toBeInTheDocument();
    expect(within(detected).getByText('abcdef1')).toBeInTheDocument();
    expect(detected).toHaveTextContent('launchbay.json decides these settings');
    expect(api.calls('/api/repositories/2/preset/live')[0]?.searchParams.get('branch')).toBe('trunk');

    await user.click(screen.getByRole('button', { name: 'Deploy' }));
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith({ name: 'blog', repository_id: 2, branch: 'trunk' });
  });

  it('asks for a repository first, and Change goes back to the list', async () => {
    stubApi();
    const { user, onSubmit } = renderForm();
    await screen.findByRole('list', { name: 'Repositories' });
    await user.click(screen.getByRole('button', { name: 'Deploy' }));
    expect(await screen.findByText('Pick a repository')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();

    await user.click(screen.getByRole('button', { name: 'Select acme/site' }));
    expect(screen.queryByText('Pick a repository')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Change' }));
    expect(await screen.findByRole('list', { name: 'Repositories' })).toBeInTheDocument();
  });

  it("puts the server's field errors under the fields and its detail in a toast", async () => {
    stubApi();
    const onSubmit = vi.fn(async () => {
      throw new ApiRequestError({
        status: 400,
        detail: 'The branch "trunk" does not exist',
        errors: [{ path: 'branch', message: 'No branch named trunk' }],
      });
    });
    const { user } = renderForm(onSubmit);
    await user.click(await screen.findByRole('button', { name: 'Select acme/blog' }));
    await user.click(screen.getByRole('button', { name: 'Deploy' }));
    expect(await screen.findByText('No branch named trunk')).toBeInTheDocument();
    expect(vi.mocked(toast.error)).toHaveBeenCalledWith('Failed to create project', {
      description: 'The branch "trunk" does not exist',
    });
  });

  it('without a connected git provider, says so and links to adding one', async () => {
    stubApi([]);
    renderForm();
    expect(await screen.findByText(/No git provider is connected yet/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Add Git Provider' })).toHaveAttribute('href', '/git-sources/add');
    expect(screen.getByRole('button', { name: 'Deploy' })).toBeDisabled();
  });
});
