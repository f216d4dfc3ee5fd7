import {
  type ApiKey,
  apiKeyListResponseSchema,
  apiKeySchema,
  type CreateApiKeyRequest,
  createApiKeyResponseSchema,
  type Permission,
  permissionListResponseSchema,
  userListResponseSchema,
} from '@launchbay/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import { api, isApiError } from '@/lib/api';
import { HOUR } from '@/lib/constants';

export const apiKeysQueryKey = ['api-keys'] as const;
const apiKeyQueryKey = (id: number) => ['api-keys', id] as const;

export type PermissionCatalogue = z.infer<typeof permissionListResponseSchema>;
export type PermissionInfo = PermissionCatalogue['permissions'][number];
export type PermissionPreset = PermissionCatalogue['presets'][number];
export type CreatedApiKey = z.infer<typeof createApiKeyResponseSchema>;

export interface UpdateApiKeyBody {
  name?: string;
  permissions?: Permission[];
  expires_at?: string | null;
}

/** 4xx answers (404 above all) are final: retrying them only delays the not-found state. */
const retryServerErrors = (failureCount: number, error: unknown) =>
  failureCount < 2 && !(isApiError(error) && error.status >= 400 && error.status < 500);

export function useApiKeys() {
  return useQuery({
    queryKey: apiKeysQueryKey,
    queryFn: ({ signal }) => api('/api-keys', { signal, response: apiKeyListResponseSchema }),
    select: (data) => data.api_keys,
    retry: retryServerErrors,
  });
}

export function useApiKey(id: number | null) {
  return useQuery({
    queryKey: apiKeyQueryKey(id ?? 0),
    queryFn: ({ signal }) => api(`/api-keys/${id}`, { signal, response: apiKeySchema }),
    enabled: id !== null,
    retry: retryServerErrors,
  });
}

/** The permission catalogue only changes with a server upgrade. */
export function usePermissionCatalogue() {
  return useQuery({
    queryKey: ['api-key-permissions'],
    queryFn: ({ signal }) => api('/api-keys/permissions', { signal, response: permissionListResponseSchema }),
    staleTime: HOUR,
    retry: retryServerErrors,
  });
}

/** Who owns each key: only an admin sees other people's keys, and only an admin may list users. */
export function useKeyOwners(enabled: boolean) {
  return useQuery({
    queryKey: ['api-keys', 'owners'],
    queryFn: ({ signal }) => api('/users', { signal, response: userListResponseSchema }),
    select: (data) => new Map(data.users.map((user) => [user.id, user])),
    enabled,
    retry: false,
    staleTime: 5 * 60_000,
  });
}

function useKeyMutation<TVariables, TResult extends ApiKey | undefined>(
  fn: (variables: TVariables) => Promise<TResult>,
  options: { gcTime?: number } = {},
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    ...options,
    onSuccess: (key) => {
      if (key) {
        const { secret: _secret, ...stored } = key as ApiKey & { secret?: string };
        queryClient.setQueryData(apiKeyQueryKey(key.id), stored);
      }
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: apiKeysQueryKey, exact: true }),
  });
}

/** The answer carries the secret: it is dropped from the mutation cache as soon as nobody shows it. */
export function useCreateApiKey() {
  return useKeyMutation(
    (body: CreateApiKeyRequest) => api('/api-keys', { method: 'POST', body, response: createApiKeyResponseSchema }),
    {
      gcTime: 0,
    },
  );
}

export function useUpdateApiKey() {
  return useKeyMutation(({ id, ...body }: UpdateApiKeyBody & { id: number }) =>
    api(`/api-keys/${id}`, { method: 'PUT', body, response: apiKeySchema }),
  );
}

export function useSetApiKeyActive() {
  return useKeyMutation(({ id, active }: { id: number; active: boolean }) =>
    api(`/api-keys/${id}/${active ? 'activate' : 'deactivate'}`, { method: 'POST', response: apiKeySchema }),
  );
}

export function useDeleteApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api(`/api-keys/${id}`, { method: 'DELETE' }),
    onSuccess: (_result, id) => queryClient.removeQueries({ queryKey: apiKeyQueryKey(id), exact: true }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: apiKeysQueryKey, exact: true }),
  });
}
