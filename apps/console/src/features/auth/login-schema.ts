import type { LoginRequest } from '@launchbay/contract';
import type { Resolver } from 'react-hook-form';

/**
 * The login form's rules, the same as the contract's loginRequestSchema (spec section 5), written
 * without zod: even zod/mini with its resolver costs ~16 KB gzipped, and the login page has a
 * 110 KB budget. The server validates the same body with the contract's zod schema.
 * The pattern is zod's own email pattern, so both sides accept exactly the same addresses.
 */
const EMAIL_PATTERN = /^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

export const LOGIN_MESSAGES = {
  email: 'Please enter a valid email address',
  password: 'Password is required',
} as const;

export const loginResolver: Resolver<LoginRequest> = async (values) => {
  const errors: Partial<Record<keyof LoginRequest, { type: string; message: string }>> = {};
  if (!EMAIL_PATTERN.test(values.email)) errors.email = { type: 'pattern', message: LOGIN_MESSAGES.email };
  if (values.password.length === 0) errors.password = { type: 'required', message: LOGIN_MESSAGES.password };
  return Object.keys(errors).length > 0 ? { values: {}, errors } : { values, errors: {} };
};
