import type { ProjectListResponse } from '@launchbay/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api';

export const projectsQueryKey = ['projects'] as const;

export function useProjects(page: number, perPage: number, options: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: [...projectsQueryKey, { page, per_page: perPage }],
    queryFn: ({ signal }) => api<ProjectListResponse>('/projects', { query: { page, per_page: perPage }, signal }),
    placeholderData: keepPreviousData,
    enabled: options.enabled,
  });
}

export function projectFaviconUrl(id: number): string {
  return `/api/projects/${id}/favicon`;
}
