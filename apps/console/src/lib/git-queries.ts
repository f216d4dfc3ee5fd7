import {
  branchListResponseSchema,
  type GitConnection,
  type GitProvider,
  gitConnectionListResponseSchema,
  gitProviderListResponseSchema,
  gitProviderSchema,
  livePresetSchema,
  REPOSITORIES_PER_PAGE,
  type Repository,
  repositoryListResponseSchema,
} from '@launchbay/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, isApiError } from './api';

/*
 * The git-provider queries two features share: the git providers pages (features/git-providers)
 * and the new-project form's repository picker (features/projects). The mutations live with the
 * git providers feature. Keys start with ['git-providers'] or ['git-connections'], so invalidating
 * `gitConnectionsQueryKey` refreshes every connection, repository list, branch list and preset.
 */

export type { GitConnection, GitProvider, Repository };

/** The git providers list, and where one is added (the header's 'Add Git Provider'). */
export const GIT_SOURCES_PATH = '/git-sources';
export const ADD_GIT_PROVIDER_PATH = '/git-sources/add';

export const gitProvidersQueryKey = ['git-providers'] as const;
export const gitProviderQueryKey = (id: number) => [...gitProvidersQueryKey, id] as const;
export const gitConnectionsQueryKey = ['git-connections'] as const;

/** 4xx answers (404 above all) are final: retrying them only delays the not-found state. */
const retryServerErrors = (failureCount: number, error: unknown) =>
  failureCount < 2 && !(isApiError(error) && error.status >= 400 && error.status < 500);

/** GET /git-providers. */
export function useGitProviders() {
  return useQuery({
    queryKey: gitProvidersQueryKey,
    queryFn: ({ signal }) => api('/git-providers', { signal, response: gitProviderListResponseSchema }),
    select: (data) => data.providers,
    retry: retryServerErrors,
  });
}

/** GET /git-providers/{id}; null id: disabled. */
export function useGitProvider(id: number | null) {
  return useQuery({
    queryKey: gitProviderQueryKey(id ?? 0),
    queryFn: ({ signal }) => api(`/git-providers/${id}`, { signal, response: gitProviderSchema }),
    enabled: id !== null,
    retry: retryServerErrors,
  });
}

/** GET /git-connections (of one provider, or all of them). */
export function useGitConnections(providerId?: number) {
  return useQuery({
    queryKey: [...gitConnectionsQueryKey, { provider_id: providerId }],
    queryFn: ({ signal }) =>
      api('/git-connections', { signal, query: { provider_id: providerId }, response: gitConnectionListResponseSchema }),
    select: (data) => data.connections,
    retry: retryServerErrors,
  });
}

export interface RepositoryListParams {
  search?: string;
  page?: number;
  perPage?: number;
}

/** A page of a connection's repositories as last synced (GET /git-connections/{id}/repositories). */
export function useRepositories(connectionId: number | null, params: RepositoryListParams = {}) {
  const search = params.search?.trim() || undefined;
  const page = params.page ?? 1;
  const perPage = params.perPage ?? REPOSITORIES_PER_PAGE;
  return useQuery({
    queryKey: [...gitConnectionsQueryKey, connectionId ?? 0, 'repositories', { search, page, per_page: perPage }],
    queryFn: ({ signal }) =>
      api(`/git-connections/${connectionId}/repositories`, {
        signal,
        query: { search, page, per_page: perPage },
        response: repositoryListResponseSchema,
      }),
    enabled: connectionId !== null,
    // The previous page stays on screen while the next one (or the next search) loads.
    placeholderData: keepPreviousData,
    retry: retryServerErrors,
  });
}

/** A repository's branches, read from the host now, the default one first. */
export function useBranches(repository: Pick<Repository, 'id' | 'owner' | 'name' | 'connection_id'> | null) {
  return useQuery({
    queryKey: [...gitConnectionsQueryKey, repository?.connection_id ?? 0, 'branches', repository?.id ?? 0],
    queryFn: ({ signal }) =>
      api(`/repositories/${encodeURIComponent(repository?.owner ?? '')}/${encodeURIComponent(repository?.name ?? '')}/branches`, {
        signal,
        query: { connection_id: repository?.connection_id },
        response: branchListResponseSchema,
      }),
    enabled: repository !== null,
    retry: retryServerErrors,
  });
}

/** What a repository's branch would build as (framework, commands), read from its head commit now. */
export function useLivePreset(repositoryId: number | null, branch: string | null) {
  return useQuery({
    queryKey: [...gitConnectionsQueryKey, 'preset', repositoryId ?? 0, branch ?? ''],
    queryFn: ({ signal }) =>
      api(`/repositories/${repositoryId}/preset/live`, {
        signal,
        query: { branch: branch ?? undefined },
        response: livePresetSchema,
      }),
    enabled: repositoryId !== null && !!branch,
    retry: retryServerErrors,
    // It clones the head commit: not again for the same branch while the form is open.
    staleTime: 5 * 60_000,
  });
}
