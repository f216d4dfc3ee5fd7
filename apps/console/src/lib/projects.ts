import type { Deployment, ProjectListSort, projectListResponseSchema } from '@launchbay/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, declared } from './api';

export const projectsQueryKey = ['projects'] as const;

/** While something is on its way, screens poll this often. */
export const ACTIVE_POLL_MS = 3000;

const ACTIVE = new Set(['queued', 'building', 'deploying']);
export const isActiveDeployment = (deployment: Pick<Deployment, 'status'> | null | undefined) =>
  !!deployment && ACTIVE.has(deployment.status);

/**
 * The project list, each project with its production address, latest deployment and the one
 * production serves (what the projects page and the dashboard show without asking per project).
 * Polls while a listed deployment is on its way. The shell's sidebar and palette load it on every
 * page, so it is typed from the contract's schema rather than parsed: parsing would put zod and
 * the whole contract into the shell's chunks (see `declared`).
 */
export function useProjects(page: number, perPage: number, options: { enabled?: boolean; sort?: ProjectListSort } = {}) {
  const query = { page, per_page: perPage, ...(options.sort ? { sort: options.sort } : {}) };
  return useQuery({
    queryKey: [...projectsQueryKey, query],
    queryFn: ({ signal }) => api('/projects', { query, signal, response: declared<typeof projectListResponseSchema>() }),
    placeholderData: keepPreviousData,
    enabled: options.enabled,
    refetchInterval: (query) =>
      query.state.data?.projects.some(
        (project) => isActiveDeployment(project.last_deployment) || isActiveDeployment(project.current_deployment),
      )
        ? ACTIVE_POLL_MS
        : false,
  });
}

export function projectFaviconUrl(id: number): string {
  return `/api/projects/${id}/favicon`;
}
