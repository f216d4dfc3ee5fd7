import {
  type Deployment,
  deploymentListResponseSchema,
  deploymentSchema,
  type ProjectDetail,
  projectDetailSchema,
  triggerPipelineResponseSchema,
} from '@launchbay/contract';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, isApiError } from './api';
import { ACTIVE_POLL_MS, isActiveDeployment, projectsQueryKey } from './projects';

/*
 * The queries several features share about one project: its detail (by slug), its deployments and
 * the trigger-pipeline action. Kept apart from lib/projects.ts, which the shell loads on every page
 * and must stay free of zod (these parse with the contract's schemas).
 *
 * Query keys all start with ['projects'], so invalidating `projectsQueryKey` refreshes every one.
 */

export type { Deployment, ProjectDetail };

export const projectBySlugKey = (slug: string) => [...projectsQueryKey, 'by-slug', slug] as const;
export const projectDeploymentsKey = (projectId: number) => [...projectsQueryKey, projectId, 'deployments'] as const;
export const deploymentKey = (projectId: number, deploymentId: number) =>
  [...projectDeploymentsKey(projectId), deploymentId] as const;

export { ACTIVE_POLL_MS, isActiveDeployment };

/** 4xx answers (404 above all) are final: retrying them only delays the not-found state. */
export const retryServerErrors = (failureCount: number, error: unknown) =>
  failureCount < 2 && !(isApiError(error) && error.status >= 400 && error.status < 500);

/**
 * One project by its slug (GET /projects/by-slug/{slug}): git and build settings, its environments
 * with their addresses, and its latest deployment. Polls while that deployment is on its way.
 */
export function useProjectBySlug(slug: string | undefined, options: { poll?: boolean } = {}) {
  const { poll = true } = options;
  return useQuery({
    queryKey: projectBySlugKey(slug ?? ''),
    queryFn: ({ signal }) =>
      api(`/projects/by-slug/${encodeURIComponent(slug ?? '')}`, { signal, response: projectDetailSchema }),
    enabled: !!slug,
    retry: retryServerErrors,
    refetchInterval: (query) => (poll && isActiveDeployment(query.state.data?.last_deployment) ? ACTIVE_POLL_MS : false),
  });
}

/** The query for a page of a project's deployments (shared by useProjectDeployments and the dashboard's useQueries). */
export function projectDeploymentsQuery(
  projectId: number,
  options: { page?: number; perPage?: number; environmentId?: number } = {},
) {
  const { page = 1, perPage = 20, environmentId } = options;
  return queryOptions({
    queryKey: [...projectDeploymentsKey(projectId), { page, per_page: perPage, environment_id: environmentId }],
    queryFn: ({ signal }) =>
      api(`/projects/${projectId}/deployments`, {
        signal,
        query: { page, per_page: perPage, environment_id: environmentId },
        response: deploymentListResponseSchema,
      }),
    retry: retryServerErrors,
    refetchInterval: (query) => (query.state.data?.deployments.some(isActiveDeployment) ? ACTIVE_POLL_MS : false),
  });
}

/** A project's deployments, newest first (GET /projects/{id}/deployments). Polls while one is on its way. */
export function useProjectDeployments(
  projectId: number | undefined,
  options: { page?: number; perPage?: number; environmentId?: number; enabled?: boolean } = {},
) {
  const { enabled = true, ...rest } = options;
  return useQuery({ ...projectDeploymentsQuery(projectId ?? 0, rest), enabled: enabled && projectId !== undefined });
}

/** One deployment (GET /projects/{id}/deployments/{deployment_id}); null id: disabled. */
export function useDeployment(projectId: number | undefined, deploymentId: number | null | undefined) {
  return useQuery({
    queryKey: deploymentKey(projectId ?? 0, deploymentId ?? 0),
    queryFn: ({ signal }) => api(`/projects/${projectId}/deployments/${deploymentId}`, { signal, response: deploymentSchema }),
    enabled: projectId !== undefined && deploymentId !== null && deploymentId !== undefined,
    retry: retryServerErrors,
    refetchInterval: (query) => (isActiveDeployment(query.state.data) ? ACTIVE_POLL_MS : false),
  });
}

export interface TriggerPipelineBody {
  branch?: string;
  commit?: string;
  environment_id?: number;
}

/** POST /projects/{id}/trigger-pipeline: deploys the head of an environment's branch (production by default). */
export function triggerPipeline(projectId: number, body: TriggerPipelineBody = {}) {
  return api(`/projects/${projectId}/trigger-pipeline`, { method: 'POST', body, response: triggerPipelineResponseSchema });
}

/** Redeploy (trigger-pipeline) as a mutation: the project's queries refresh once it is queued. */
export function useTriggerPipeline() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ projectId, ...body }: TriggerPipelineBody & { projectId: number }) => triggerPipeline(projectId, body),
    onSettled: () => queryClient.invalidateQueries({ queryKey: projectsQueryKey }),
  });
}

/** The commit sha as people read it (7 characters). */
export function shortSha(sha: string | null | undefined): string {
  return sha ? sha.slice(0, 7) : '';
}

/** An address without its scheme, for display ('http://app.localhost:8080' -> 'app.localhost:8080'). */
export function displayUrl(url: string): string {
  return url.replace(/^https?:\/\//, '').replace(/\/$/, '');
}

/** 'https://github.com/acme/site.git' -> 'github.com/acme/site'; ssh forms too. */
export function displayRepository(gitUrl: string | null | undefined): string {
  if (!gitUrl) return '';
  return gitUrl
    .replace(/^[a-z+]+:\/\//i, '')
    .replace(/^[^@/]+@/, '')
    .replace(/\.git$/, '')
    .replace(/^([^/:]+):(?!\d)/, '$1/');
}

/** An environment's name as shown: 'production' -> 'Production'. */
export function environmentLabel(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
