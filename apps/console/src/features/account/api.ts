import { currentUserSchema, mfaSetupResponseSchema, mfaVerifyResponseSchema, type UpdateMeRequest } from '@launchbay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api';
import { currentUserQueryKey } from '@/lib/current-user';

export function useUpdateMe() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateMeRequest) => api('/users/me', { method: 'PATCH', body, response: currentUserSchema }),
    onSuccess: (user) => queryClient.setQueryData(currentUserQueryKey, user),
  });
}

export function useMfaSetup() {
  return useMutation({
    mutationFn: () => api('/users/me/mfa/setup', { method: 'POST', response: mfaSetupResponseSchema }),
  });
}

export function useMfaVerify() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (code: string) =>
      api('/users/me/mfa/verify', { method: 'POST', body: { code }, response: mfaVerifyResponseSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: currentUserQueryKey }),
  });
}

export function useMfaDisable() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => api('/users/me/mfa', { method: 'DELETE', body: { code } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: currentUserQueryKey }),
  });
}
