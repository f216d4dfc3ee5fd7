import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/test/render';
import { LoginScreen } from './login-screen';

describe('LoginScreen validation (spec section 5)', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows both messages and sends nothing when the form is empty', async () => {
    const fetch = vi.fn();
    vi.stubGlobal('fetch', fetch);
    const { user } = renderWithProviders(<LoginScreen />);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Please enter a valid email address')).toBeInTheDocument();
    expect(screen.getByText('Password is required')).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveAttribute('aria-invalid', 'true');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('refuses an address that is not an email', async () => {
    vi.stubGlobal('fetch', vi.fn());
    const { user } = renderWithProviders(<LoginScreen />);
    await user.type(screen.getByLabelText('Email'), 'admin@localhost');
    await user.type(screen.getByLabelText('Password'), 'secret');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Please enter a valid email address')).toBeInTheDocument();
    expect(screen.queryByText('Password is required')).not.toBeInTheDocument();
  });

  it('posts email and password when both are valid', async () => {
    const fetch = vi.fn(async () => Response.json({ detail: 'Invalid email or password' }, { status: 401 }));
    vi.stubGlobal('fetch', fetch);
    const { user } = renderWithProviders(<LoginScreen />);
    await user.type(screen.getByLabelText('Email'), 'admin@example.com');
    await user.type(screen.getByLabelText('Password'), 'secret');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/auth/login');
    expect(JSON.parse(String(init.body))).toEqual({ email: 'admin@example.com', password: 'secret' });
    expect(screen.queryByText('Please enter a valid email address')).not.toBeInTheDocument();
  });
});
