import {
  type CreateGitlabOauthProviderRequest,
  type CreatePatProviderRequest,
  type GitProvider,
  type GitProviderType,
  gitConnectionSchema,
  gitlabOauthStartResponseSchema,
  gitProviderDeletionCheckSchema,
  gitProviderSchema,
  gitSyncResponseSchema,
  messageSchema,
} from '@launchbay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api';
import { gitConnectionsQueryKey, gitProviderQueryKey, gitProvidersQueryKey } from '@/lib/git-queries';

export {
  useBranches,
  useGitConnections,
  useGitProvider,
  useGitProviders,
  useRepositories,
} from '@/lib/git-queries';

/** A provider or its connections changed: its list, its page and everything read through its connections. */
function useRefreshGit() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: gitProvidersQueryKey }),
      queryClient.invalidateQueries({ queryKey: gitConnectionsQueryKey }),
    ]);
}

/** POST /git-providers/{github|gitlab}/pat: the server checks the token against the host first. */
export function useCreatePatProvider() {
  const queryClient = useQueryClient();
  const refresh = useRefreshGit();
  return useMutation({
    mutationFn: ({ type, body }: { type: GitProviderType; body: CreatePatProviderRequest }) =>
      api(`/git-providers/${type}/pat`, { method: 'POST', body, response: gitProviderSchema }),
    onSuccess: (provider) => queryClient.setQueryData(gitProviderQueryKey(provider.id), provider),
    onSettled: refresh,
  });
}

/** POST /git-providers/gitlab/oauth: the provider, and the GitLab address to send the browser to. */
export function useCreateGitlabOauthProvider() {
  const refresh = useRefreshGit();
  return useMutation({
    mutationFn: (body: CreateGitlabOauthProviderRequest) =>
      api('/git-providers/gitlab/oauth', { method: 'POST', body, response: gitlabOauthStartResponseSchema }),
    onSettled: refresh,
  });
}

/** POST /git-providers/{id}/authorize: a new GitLab authorisation for an OAuth provider (abandoned sign-in, revoked token). */
export function useAuthorizeGitProvider() {
  return useMutation({
    mutationFn: (id: number) =>
      api(`/git-providers/${id}/authorize`, { method: 'POST', response: gitlabOauthStartResponseSchema }),
  });
}

/** GET /git-providers/{id}/deletion-check, asked fresh each time Delete is pressed. */
export function useDeletionCheck() {
  return useMutation({
    mutationFn: (id: number) => api(`/git-providers/${id}/deletion-check`, { response: gitProviderDeletionCheckSchema }),
  });
}

/**
 * DELETE /git-providers/{id}/safe-delete (409 naming the projects while any uses it). The list
 * drops it at once; the caller leaves the provider's page, then `forget` drops its queries
 * (refreshing them while the page is still shown would flash 'not found').
 */
export function useDeleteGitProvider() {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: (id: number) => api(`/git-providers/${id}/safe-delete`, { method: 'DELETE', response: messageSchema }),
    onSuccess: (_result, id) =>
      queryClient.setQueryData<{ providers: GitProvider[] }>(gitProvidersQueryKey, (data) =>
        data ? { providers: data.providers.filter((provider) => provider.id !== id) } : data,
      ),
  });
  const forget = (id: number) => {
    queryClient.removeQueries({ queryKey: gitProviderQueryKey(id) });
    void queryClient.invalidateQueries({ queryKey: gitProvidersQueryKey, exact: true });
    void queryClient.invalidateQueries({ queryKey: gitConnectionsQueryKey });
  };
  return { ...mutation, forget };
}

/** POST /git-connections/{id}/sync: reads the repositories from the host again. */
export function useSyncConnection() {
  const refresh = useRefreshGit();
  return useMutation({
    mutationFn: (connectionId: number) =>
      api(`/git-connections/${connectionId}/sync`, { method: 'POST', response: gitSyncResponseSchema }),
    // A failed sync is recorded on the connection (sync_error): refresh either way.
    onSettled: refresh,
  });
}

/** POST /git-connections/{id}/update-token: checked against the host (same account), then synced. */
export function useUpdateConnectionToken() {
  const refresh = useRefreshGit();
  return useMutation({
    mutationFn: ({ connectionId, token }: { connectionId: number; token: string }) =>
      api(`/git-connections/${connectionId}/update-token`, { method: 'POST', body: { token }, response: gitConnectionSchema }),
    onSettled: refresh,
  });
}

/** DELETE /git-connections/{id} (409 while projects use it). */
export function useDeleteConnection() {
  const refresh = useRefreshGit();
  return useMutation({
    mutationFn: (connectionId: number) => api(`/git-connections/${connectionId}`, { method: 'DELETE', response: messageSchema }),
    onSettled: refresh,
  });
}
