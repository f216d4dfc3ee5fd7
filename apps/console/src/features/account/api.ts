import type { CurrentUser, MfaSetupResponse, UpdateMeRequest } from '@launchbay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { currentUserQueryKey } from '@/features/auth/api';
import { api } from '@/lib/api';

export function useUpdateMe() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateMeRequest) => api<CurrentUser>('/users/me', { method: 'PATCH', body }),
    onSuccess: (user) => queryClient.setQueryData(currentUserQueryKey, user),
  });
}

export function useMfaSetup() {
  return useMutation({
    mutationFn: () => api<MfaSetupResponse>('/users/me/mfa/setup', { method: 'POST' }),
  });
}

export function useMfaVerify() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => api<{ recovery_codes: string[] }>('/users/me/mfa/verify', { method: 'POST', body: { code } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: currentUserQueryKey }),
  });
}

export function useMfaDisable() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => api<undefined>('/users/me/mfa', { method: 'DELETE', body: { code } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: currentUserQueryKey }),
  });
}
