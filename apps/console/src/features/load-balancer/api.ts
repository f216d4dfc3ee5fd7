import { type LbRoute, lbRouteListResponseSchema, lbRouteSchema, projectDetailSchema } from '@launchbay/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api';
import { retryServerErrors } from '@/lib/project-queries';
import { projectsQueryKey } from '@/lib/projects';
import type { LbRouteRequest, LbRouteUpdate } from './model';

export type { LbRoute };

/** The edge checks upstreams every few seconds: the list follows while the page is open. */
export const ROUTES_POLL_MS = 5000;

export const lbRoutesKey = ['lb', 'routes'] as const;

const routePath = (domain: string) => `/lb/routes/${encodeURIComponent(domain)}`;

/** Every load-balancer route, by domain, with what the edge last saw of each upstream. */
export function useLbRoutes() {
  return useQuery({
    queryKey: lbRoutesKey,
    queryFn: ({ signal }) => api('/lb/routes', { signal, response: lbRouteListResponseSchema }),
    select: (data) => data.routes,
    retry: retryServerErrors,
    refetchInterval: ROUTES_POLL_MS,
  });
}

/** Every change refreshes the list, also after a failure (another admin may have changed it). */
function useRouteMutation<TVariables, TResult>(fn: (variables: TVariables) => Promise<TResult>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => queryClient.invalidateQueries({ queryKey: lbRoutesKey }),
  });
}

export function useCreateLbRoute() {
  return useRouteMutation((body: LbRouteRequest) => api('/lb/routes', { method: 'POST', body, response: lbRouteSchema }));
}

export function useUpdateLbRoute() {
  return useRouteMutation(({ domain, ...body }: LbRouteUpdate & { domain: string }) =>
    api(routePath(domain), { method: 'PUT', body, response: lbRouteSchema }),
  );
}

export function useDeleteLbRoute() {
  return useRouteMutation((domain: string) => api(routePath(domain), { method: 'DELETE' }));
}

/** A project's lasting environments (GET /projects/{id}), for the target's environment select. */
export function useProjectEnvironments(projectId: number | null) {
  return useQuery({
    queryKey: [...projectsQueryKey, projectId ?? 0, 'detail'],
    queryFn: ({ signal }) => api(`/projects/${projectId}`, { signal, response: projectDetailSchema }),
    select: (project) => project.environments,
    enabled: projectId !== null,
    retry: retryServerErrors,
  });
}
