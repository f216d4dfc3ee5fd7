import type { CurrentUser } from '@launchbay/contract';
import { screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { ApiRequestError } from '@/lib/api';
import { toast } from '@/lib/toast';
import { renderWithProviders } from '@/test/render';
import AddGitProviderPage from './add-git-provider-page';
import { ADD_FAILED_TITLE, OauthProviderForm, PatProviderForm } from './add-provider-forms';
import type { OauthFormOutput, PatFormOutput } from './model';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

const BASE_URL_MESSAGE = 'Must be an http(s) address such as https://github.example.com, without credentials';

function renderPat(type: 'github' | 'gitlab' = 'github', onSubmit = vi.fn(async (_body: PatFormOutput) => {})) {
  const result = renderWithProviders(
    <MemoryRouter>
      <PatProviderForm type={type} onSubmit={onSubmit} />
    </MemoryRouter>,
  );
  return { ...result, onSubmit };
}

const add = () => screen.getByRole('button', { name: 'Add provider' });
const tokenField = () => screen.getByLabelText('Token', { selector: 'input' });

describe('PatProviderForm validation (contract messages)', () => {
  it('an empty submit asks for the name and the token, and sends nothing', async () => {
    const { user, onSubmit } = renderPat();
    await user.click(add());
    expect(await screen.findByText('Name is required')).toBeInTheDocument();
    expect(screen.getByText('Token is required')).toBeInTheDocument();
    expect(screen.getByLabelText('Name')).toHaveAttribute('aria-invalid', 'true');
    expect(tokenField()).toHaveAttribute('aria-invalid', 'true');
    // Base URL is optional: an empty one is not an error.
    expect(screen.getByLabelText(/^Base URL/)).not.toHaveAttribute('aria-invalid');
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('refuses a base URL that is not an http(s) address, or carries credentials', async () => {
    const { user, onSubmit } = renderPat();
    await user.type(screen.getByLabelText('Name'), 'GitHub');
    await user.type(tokenField(), 'ghp_x');
    await user.type(screen.getByLabelText(/^Base URL/), 'ftp://git.example.com');
    await user.click(add());
    expect(await screen.findByText(BASE_URL_MESSAGE)).toBeInTheDocument();
    await user.clear(screen.getByLabelText(/^Base URL/));
    await user.type(screen.getByLabelText(/^Base URL/), 'https://me:secret@git.example.com');
    await user.click(add());
    expect(await screen.findByText(BASE_URL_MESSAGE)).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('sends the trimmed values; an empty base URL is left out, a given one loses its trailing slash', async () => {
    const { user, onSubmit } = renderPat();
    await user.type(screen.getByLabelText('Name'), '  Acme GitHub ');
    await user.type(tokenField(), ' ghp_secret ');
    await user.click(add());
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit.mock.calls[0]?.[0]).toEqual({ name: 'Acme GitHub', token: 'ghp_secret' });

    await user.type(screen.getByLabelText(/^Base URL/), 'https://github.example.com/');
    await user.click(add());
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(2));
    expect(onSubmit.mock.calls[1]?.[0]).toEqual({
      name: 'Acme GitHub',
      token: 'ghp_secret',
      base_url: 'https://github.example.com',
    });
  });

  it('keeps the token masked, and its help names the scopes the host must grant', async () => {
    const { user } = renderPat('github');
    expect(tokenField()).toHaveAttribute('type', 'password');
    expect(screen.getByText('repo')).toBeInTheDocument();
    expect(screen.getByText('admin:repo_hook')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Show token' }));
    expect(tokenField()).toHaveAttribute('type', 'text');
    expect(screen.getByRole('link', { name: /Create one on GitHub/ })).toHaveAttribute(
      'href',
      'https://github.com/settings/tokens/new?scopes=repo,admin:repo_hook&description=Launchbay',
    );
  });

  it('names the api scope for GitLab, with gitlab.com as the placeholder', () => {
    renderPat('gitlab');
    expect(screen.getByText('api')).toBeInTheDocument();
    expect(screen.getByLabelText(/^Base URL/)).toHaveAttribute('placeholder', 'https://gitlab.com');
  });

  it("puts the server's field errors under the fields, toasts its detail, and shows a detail no field carries", async () => {
    const refusal = 'GitHub refused the token (HTTP 401): it is wrong, expired or revoked';
    const onSubmit = vi
      .fn(async (_body: PatFormOutput) => {})
      .mockRejectedValueOnce(new ApiRequestError({ status: 400, detail: refusal, errors: [{ path: 'token', message: refusal }] }))
      .mockRejectedValueOnce(new ApiRequestError({ status: 502, detail: 'The host did not answer' }));
    const { user } = renderPat('github', onSubmit);
    await user.type(screen.getByLabelText('Name'), 'GitHub');
    await user.type(tokenField(), 'wrong');
    await user.click(add());
    expect(await screen.findByText(refusal)).toBeInTheDocument();
    expect(tokenField()).toHaveAttribute('aria-invalid', 'true');
    // Said once, under the Token field: not repeated above the buttons.
    expect(screen.getAllByText(refusal)).toHaveLength(1);
    expect(vi.mocked(toast.error)).toHaveBeenCalledWith(ADD_FAILED_TITLE, { description: refusal });

    await user.click(add());
    expect(await screen.findByText('The host did not answer')).toBeInTheDocument();
  });
});

describe('OauthProviderForm', () => {
  it('shows the callback URL to register and asks for the application id and secret', async () => {
    const onSubmit = vi.fn(async (_body: OauthFormOutput) => {});
    const { user } = renderWithProviders(
      <MemoryRouter>
        <OauthProviderForm callbackUrl="https://lb.example.com/api/git-providers/gitlab/oauth/callback" onSubmit={onSubmit} />
      </MemoryRouter>,
    );
    expect(screen.getByTestId('oauth-callback-url')).toHaveTextContent(
      'https://lb.example.com/api/git-providers/gitlab/oauth/callback',
    );
    await user.click(screen.getByRole('button', { name: 'Continue to GitLab' }));
    expect(await screen.findByText('Application ID is required')).toBeInTheDocument();
    expect(screen.getByText('Secret is required')).toBeInTheDocument();
    expect(screen.getByText('Name is required')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();

    await user.type(screen.getByLabelText('Name'), 'GitLab');
    await user.type(screen.getByLabelText('Application ID'), 'app-id');
    await user.type(screen.getByLabelText('Secret', { selector: 'input' }), 'app-secret');
    await user.click(screen.getByRole('button', { name: 'Continue to GitLab' }));
    await vi.waitFor(() =>
      expect(onSubmit).toHaveBeenCalledWith({ name: 'GitLab', client_id: 'app-id', client_secret: 'app-secret' }),
    );
  });
});

const ADMIN: CurrentUser = {
  id: 1,
  username: 'admin',
  email: 'a@example.com',
  avatar_url: null,
  roles: ['admin'],
  mfa_enabled: false,
};
const READER: CurrentUser = { ...ADMIN, roles: ['reader'] };

function renderPage(user: CurrentUser, path = '/git-sources/add') {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) =>
      url === '/api/user/me' ? Response.json(user) : Response.json({ detail: 'Unexpected' }, { status: 404 }),
    ),
  );
  return renderWithProviders(
    <MemoryRouter initialEntries={[path]}>
      <AddGitProviderPage />
    </MemoryRouter>,
  );
}

describe('AddGitProviderPage', () => {
  it('offers OAuth for GitLab only, and shows the reason an OAuth sign-in came back with', async () => {
    const { user } = renderPage(ADMIN, '/git-sources/add?error=The%20user%20denied%20access');
    // The auth gate has loaded the user before any page shows: here the page waits for it.
    expect(await screen.findByRole('radio', { name: 'GitHub' })).toBeChecked();
    expect(screen.getByRole('alert')).toHaveTextContent('GitLab authorisation failed');
    expect(screen.getByRole('alert')).toHaveTextContent('The user denied access');
    expect(screen.getByRole('radio', { name: 'OAuth application' })).toBeDisabled();
    await user.click(screen.getByRole('radio', { name: 'GitLab' }));
    await user.click(screen.getByRole('radio', { name: 'OAuth application' }));
    expect(screen.getByRole('button', { name: 'Continue to GitLab' })).toBeInTheDocument();
    // Back to GitHub: a token again.
    await user.click(screen.getByRole('radio', { name: 'GitHub' }));
    expect(screen.getByRole('radio', { name: 'Personal access token' })).toBeChecked();
    expect(screen.getByRole('button', { name: 'Add provider' })).toBeInTheDocument();
  });

  it('shows no form to a reader', async () => {
    const { queryClient } = renderPage(READER);
    await vi.waitFor(() => expect(queryClient.getQueryData(['user', 'me'])).toBeDefined());
    expect(await screen.findByText('Admins only')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add provider' })).not.toBeInTheDocument();
  });
});
