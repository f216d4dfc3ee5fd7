import type { LoginRequest, loginResponseSchema, VerifyMfaRequest, verifyMfaResponseSchema } from '@launchbay/contract';
import { useMutation } from '@tanstack/react-query';
import { api, declared } from '@/lib/api';

// The sign-in calls are on the login page: typed from the contract's schemas, not parsed (see `declared`).

export function useLogin() {
  return useMutation({
    mutationFn: (body: LoginRequest) =>
      api('/auth/login', { method: 'POST', body, response: declared<typeof loginResponseSchema>() }),
    meta: { authCall: true },
  });
}

export function useVerifyMfa() {
  return useMutation({
    mutationFn: (body: VerifyMfaRequest) =>
      api('/auth/verify-mfa', { method: 'POST', body, response: declared<typeof verifyMfaResponseSchema>() }),
    meta: { authCall: true },
  });
}

export async function logout(): Promise<void> {
  await api('/logout', { method: 'POST' });
}
