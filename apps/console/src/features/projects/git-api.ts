import {
  type Preview,
  type ProjectDetail,
  previewListResponseSchema,
  previewSchema,
  projectDetailSchema,
  projectGitResponseSchema,
  type WebhookDelivery,
  webhookDeliveryListResponseSchema,
} from '@launchbay/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api';
import { ACTIVE_POLL_MS, projectBySlugKey, retryServerErrors } from '@/lib/project-queries';
import { projectsQueryKey } from '@/lib/projects';
import { previewStatus } from './preview-status';

/*
 * Deploy on push and pull-request previews of a project from a git provider: its webhook's
 * deliveries, the automatic-deploy and previews switches, its previews and their approval.
 * Keys start with ['projects', id], so a project's refresh refreshes them too.
 */

export type { Preview, WebhookDelivery };

/** While the page is open, new deliveries and pull requests show up this often. */
export const GIT_EVENTS_POLL_MS = 10_000;

export const webhookDeliveriesKey = (projectId: number) => [...projectsQueryKey, projectId, 'webhook-deliveries'] as const;
export const previewsKey = (projectId: number) => [...projectsQueryKey, projectId, 'previews'] as const;

/** GET /projects/{id}/webhook-deliveries: the last deliveries, where the host sends them and whether the hook is registered. */
export function useWebhookDeliveries(projectId: number | undefined, options: { enabled?: boolean } = {}) {
  const { enabled = true } = options;
  return useQuery({
    queryKey: webhookDeliveriesKey(projectId ?? 0),
    queryFn: ({ signal }) =>
      api(`/projects/${projectId}/webhook-deliveries`, { signal, response: webhookDeliveryListResponseSchema }),
    enabled: enabled && projectId !== undefined,
    retry: retryServerErrors,
    refetchInterval: GIT_EVENTS_POLL_MS,
  });
}

/** GET /projects/{id}/previews: the open pull requests' previews and both switches (project, platform). */
export function usePreviews(projectId: number | undefined, options: { enabled?: boolean } = {}) {
  const { enabled = true } = options;
  return useQuery({
    queryKey: previewsKey(projectId ?? 0),
    queryFn: ({ signal }) => api(`/projects/${projectId}/previews`, { signal, response: previewListResponseSchema }),
    enabled: enabled && projectId !== undefined,
    retry: retryServerErrors,
    refetchInterval: (query) =>
      query.state.data?.previews.some((preview) => previewStatus(preview) === 'building') ? ACTIVE_POLL_MS : GIT_EVENTS_POLL_MS,
  });
}

/** A fresh project detail goes into the cache under its slug; the lists and its git queries refresh. */
function useStoreProject() {
  const queryClient = useQueryClient();
  return (project: ProjectDetail) => {
    queryClient.setQueryData(projectBySlugKey(project.slug), project);
    void queryClient.invalidateQueries({ queryKey: projectsQueryKey });
  };
}

/** POST /projects/{id}/automatic-deploy: deploy on push (webhook or polling) on or off. */
export function useSetAutomaticDeploy() {
  const store = useStoreProject();
  return useMutation({
    mutationFn: ({ projectId, enabled }: { projectId: number; enabled: boolean }) =>
      api(`/projects/${projectId}/automatic-deploy`, { method: 'POST', body: { enabled }, response: projectDetailSchema }),
    onSuccess: store,
  });
}

/** PATCH /projects/{id}/deployment-config { previews_enabled }: pull request previews on or off for the project. */
export function useSetPreviewsEnabled() {
  const store = useStoreProject();
  return useMutation({
    mutationFn: ({ projectId, enabled }: { projectId: number; enabled: boolean }) =>
      api(`/projects/${projectId}/deployment-config`, {
        method: 'PATCH',
        body: { previews_enabled: enabled },
        response: projectDetailSchema,
      }),
    onSuccess: store,
  });
}

/** POST /projects/{id}/previews/{environment_id}/approve: a fork's pull request builds its current commit. */
export function useApprovePreview(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (preview: Pick<Preview, 'environment_id'>) =>
      api(`/projects/${projectId}/previews/${preview.environment_id}/approve`, { method: 'POST', response: previewSchema }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: [...projectsQueryKey, projectId] }),
  });
}

/** POST /projects/{id}/git: register the project's webhook on the host again (once an external URL is set, say). */
export function useRegisterWebhook(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api(`/projects/${projectId}/git`, { method: 'POST', response: projectGitResponseSchema }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: [...projectsQueryKey, projectId] }),
  });
}
