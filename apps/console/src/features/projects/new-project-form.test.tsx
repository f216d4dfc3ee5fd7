import { fireEvent, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { ApiRequestError } from '@/lib/api';
import { toast } from '@/lib/toast';
import { renderWithProviders } from '@/test/render';
import type { Preset } from './api';
import { mergeEnvRows, NewProjectForm } from './new-project-form';
import type { NewProjectSubmission } from './new-project-schema';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

const PRESETS: Preset[] = [
  {
    slug: 'nextjs',
    name: 'Next.js',
    kind: 'node',
    install_command: null,
    build_command: 'next build',
    start_command: 'next start',
    output_directory: null,
  },
  {
    slug: 'static',
    name: 'Static site',
    kind: 'static',
    install_command: null,
    build_command: null,
    start_command: null,
    output_directory: '.',
  },
];

function renderForm(onSubmit: (submission: NewProjectSubmission) => Promise<void> = vi.fn(async () => {})) {
  const result = renderWithProviders(
    <MemoryRouter>
      <NewProjectForm presets={PRESETS} onSubmit={onSubmit} />
    </MemoryRouter>,
  );
  return { ...result, onSubmit };
}

const deploy = () => screen.getByRole('button', { name: 'Deploy' });

describe('NewProjectForm validation', () => {
  it('an empty submit asks for the Git URL and the name, and sends nothing', async () => {
    const { user, onSubmit } = renderForm();
    expect(screen.getByLabelText('Branch')).toHaveValue('main');
    await user.click(deploy());
    expect(await screen.findByText('Git URL is required')).toBeInTheDocument();
    expect(screen.getByText('Name is required')).toBeInTheDocument();
    expect(screen.getByLabelText('Git URL')).toHaveAttribute('aria-invalid', 'true');
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("refuses a bad branch, a root directory outside the repository and a port out of range, with the contract's messages", async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Git URL'), 'https://git.example.com/acme/site.git');
    const branch = screen.getByLabelText('Branch');
    await user.clear(branch);
    await user.type(branch, 'feature..x');
    await user.type(screen.getByLabelText(/^Root directory/), '../elsewhere');
    await user.type(screen.getByLabelText(/^Port/), '70000');
    await user.click(deploy());
    expect(await screen.findByText('Not a valid branch name')).toBeInTheDocument();
    expect(screen.getByText('The root directory must be a folder inside the repository')).toBeInTheDocument();
    expect(screen.getByText('Port is 1 to 65535')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('checks each environment variable row: a valid key, no key twice', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Git URL'), 'https://git.example.com/acme/site.git');
    await user.type(screen.getByLabelText('Key 1'), '1BAD');
    await user.type(screen.getByLabelText('Value 1'), 'x');
    await user.click(screen.getByRole('button', { name: 'Add another' }));
    await user.type(screen.getByLabelText('Key 2'), 'API_KEY');
    await user.click(screen.getByRole('button', { name: 'Add another' }));
    await user.type(screen.getByLabelText('Key 3'), 'API_KEY');
    await user.click(deploy());
    expect(await screen.findByText('Letters, digits and underscores, not starting with a digit')).toBeInTheDocument();
    expect(screen.getByText('API_KEY is already in the list')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('sends only what was set, the name taken from the repository, and the variables (empty rows dropped)', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Git URL'), 'https://git.example.com/acme/my-site.git');
    expect(screen.getByLabelText('Project name')).toHaveValue('my-site');
    await user.type(screen.getByLabelText(/^Access token/), 'secret-token');
    await user.type(screen.getByLabelText(/^Build command/), 'npm run build:prod');
    await user.type(screen.getByLabelText('Key 1'), 'GREETING');
    await user.type(screen.getByLabelText('Value 1'), 'hello world');
    await user.click(screen.getByRole('button', { name: 'Add another' }));
    await user.click(deploy());
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith({
      name: 'my-site',
      git_url: 'https://git.example.com/acme/my-site.git',
      git_token: 'secret-token',
      branch: 'main',
      build_command: 'npm run build:prod',
      env_vars: [{ key: 'GREETING', value: 'hello world' }],
    });
  });

  it('sends every build setting overridden: preset, install, build and start commands, output folder, port, root directory', async () => {
    // Radix Select asks the pointer and scrolls its items: jsdom has neither.
    Element.prototype.hasPointerCapture ??= () => false;
    Element.prototype.scrollIntoView ??= () => undefined;
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Git URL'), 'https://git.example.com/acme/shop.git');
    await user.click(screen.getByRole('combobox', { name: 'Framework preset' }));
    await user.click(await screen.findByRole('option', { name: 'Static site' }));
    expect(screen.getByText('Static site: a static site served from its output folder.')).toBeInTheDocument();
    await user.type(screen.getByLabelText(/^Install command/), 'pnpm install --frozen-lockfile');
    await user.type(screen.getByLabelText(/^Build command/), 'pnpm build');
    await user.type(screen.getByLabelText(/^Start command/), 'pnpm serve');
    await user.type(screen.getByLabelText(/^Output directory/), 'public');
    await user.type(screen.getByLabelText(/^Port/), '4321');
    await user.type(screen.getByLabelText(/^Root directory/), 'apps/web');
    await user.click(deploy());
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith({
      name: 'shop',
      git_url: 'https://git.example.com/acme/shop.git',
      branch: 'main',
      root_directory: 'apps/web',
      preset: 'static',
      install_command: 'pnpm install --frozen-lockfile',
      build_command: 'pnpm build',
      start_command: 'pnpm serve',
      output_directory: 'public',
      port: 4321,
    });
  });

  it('fills the rows from a pasted .env and says how many were added and updated', async () => {
    const { user } = renderForm();
    await user.type(screen.getByLabelText('Key 1'), 'A');
    await user.type(screen.getByLabelText('Value 1'), 'old');
    await user.click(screen.getByRole('button', { name: 'Paste .env' }));
    const textarea = screen.getByLabelText('Paste the contents of a .env file');
    fireEvent.change(textarea, { target: { value: '# comment\nexport A=new\nB="two words"\nnot a line' } });
    await user.click(screen.getByRole('button', { name: 'Add to the list' }));
    expect(screen.getByText('2 variables read: 1 added, 1 updated.')).toBeInTheDocument();
    expect(screen.getByText('Line 4 is not KEY=VALUE')).toBeInTheDocument();
    const rows = within(screen.getByRole('list', { name: 'Environment variables to add' })).getAllByRole('listitem');
    expect(rows).toHaveLength(2);
    expect(screen.getByLabelText('Value 1')).toHaveValue('new');
    expect(screen.getByLabelText('Key 2')).toHaveValue('B');
    expect(screen.getByLabelText('Value 2')).toHaveValue('two words');
  });

  it("puts the server's field errors under the fields and its detail in a toast", async () => {
    const onSubmit = vi.fn(async () => {
      throw new ApiRequestError({
        status: 400,
        detail: 'Branch main does not exist in the repository',
        errors: [{ path: 'branch', message: 'No branch named main' }],
      });
    });
    const { user } = renderForm(onSubmit);
    await user.type(screen.getByLabelText('Git URL'), 'https://git.example.com/acme/site.git');
    await user.click(deploy());
    expect(await screen.findByText('No branch named main')).toBeInTheDocument();
    expect(vi.mocked(toast.error)).toHaveBeenCalledWith('Failed to create project', {
      description: 'Branch main does not exist in the repository',
    });
  });
});

describe('mergeEnvRows', () => {
  it('updates keys in place, fills an empty row, then appends', () => {
    const merged = mergeEnvRows(
      [
        { key: 'A', value: '1' },
        { key: '', value: '' },
      ],
      [
        { key: 'A', value: '2' },
        { key: 'B', value: '3' },
        { key: 'C', value: '4' },
      ],
    );
    expect(merged).toEqual({
      rows: [
        { key: 'A', value: '2' },
        { key: 'B', value: '3' },
        { key: 'C', value: '4' },
      ],
      added: 2,
      updated: 1,
    });
  });
});

describe('NewProjectForm detected settings', () => {
  const detected = {
    branch: 'main',
    commit_sha: '0123456789abcdef0123456789abcdef01234567',
    preset: 'vite',
    preset_name: 'Vite',
    install_command: 'npm ci',
    build_command: 'npm run build',
    start_command: null,
    output_directory: 'dist',
    port: null,
    has_launchbay_json: false,
    has_procfile: false,
    errors: [],
  };

  function stubDetect(answer: (body: Record<string, unknown>) => Response) {
    const fetch = vi.fn(async (input: string, init?: RequestInit) => {
      if (input === '/api/projects/detect' && init?.method === 'POST') return answer(JSON.parse(String(init.body)));
      return Response.json({ detail: `Unexpected call ${input}` }, { status: 404 });
    });
    vi.stubGlobal('fetch', fetch);
    return fetch;
  }

  it('reads the branch once the address stops changing, with the token, and shows the framework and commands', async () => {
    const fetch = stubDetect(() => Response.json(detected));
    const { user } = renderForm();
    expect(screen.getByText("Enter the repository's address and branch to see how it would build.")).toBeInTheDocument();
    await user.type(screen.getByLabelText('Git URL'), 'https://git.example.com/acme/site.git');
    await user.type(screen.getByLabelText(/^Access token/), 'secret-token');
    const section = await screen.findByRole('region', { name: 'Detected settings' });
    expect(await within(section).findByText('Vite')).toBeInTheDocument();
    expect(within(section).getByText('npm run build')).toBeInTheDocument();
    expect(within(section).getByText('dist')).toBeInTheDocument();
    expect(within(section).getByText('0123456')).toBeInTheDocument();
    // Asked once, after typing stopped: not for every keystroke.
    const calls = fetch.mock.calls.filter(([input]) => input === '/api/projects/detect');
    expect(calls).toHaveLength(1);
    expect(JSON.parse(String(calls[0]?.[1]?.body))).toEqual({
      git_url: 'https://git.example.com/acme/site.git',
      git_token: 'secret-token',
      branch: 'main',
    });
    vi.unstubAllGlobals();
  });

  it('shows why the repository cannot be read, and says an ssh address is read at the first deployment', async () => {
    stubDetect(() =>
      Response.json(
        {
          detail: 'The repository https://git.example.com/acme/gone.git does not exist, or the credentials given cannot see it',
          errors: [{ path: 'git_url', message: 'x' }],
        },
        { status: 400 },
      ),
    );
    const { user } = renderForm();
    await user.type(screen.getByLabelText('Git URL'), 'https://git.example.com/acme/gone.git');
    const section = await screen.findByRole('region', { name: 'Detected settings' });
    expect(await within(section).findByRole('alert')).toHaveTextContent(
      'Could not read main: The repository https://git.example.com/acme/gone.git does not exist, or the credentials given cannot see it',
    );
    await user.clear(screen.getByLabelText('Git URL'));
    await user.type(screen.getByLabelText('Git URL'), 'git@git.example.com:acme/site.git');
    expect(
      await screen.findByText(/An ssh repository is read with the deploy key the project gets when it is created/),
    ).toBeInTheDocument();
    vi.unstubAllGlobals();
  });
});
