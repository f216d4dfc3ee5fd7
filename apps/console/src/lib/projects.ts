import type { projectListResponseSchema } from '@launchbay/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, declared } from './api';

export const projectsQueryKey = ['projects'] as const;

/**
 * The project list. The shell's sidebar and palette load it on every page, so it is typed from the
 * contract's schema rather than parsed: parsing would put zod and the whole contract into the
 * shell's chunks (see `declared`).
 */
export function useProjects(page: number, perPage: number, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: [...projectsQueryKey, { page, per_page: perPage }],
    queryFn: ({ signal }) =>
      api('/projects', { query: { page, per_page: perPage }, signal, response: declared<typeof projectListResponseSchema>() }),
    placeholderData: keepPreviousData,
    enabled: options.enabled,
  });
}

export function projectFaviconUrl(id: number): string {
  return `/api/projects/${id}/favicon`;
}
