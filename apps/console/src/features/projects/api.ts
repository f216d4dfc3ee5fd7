import {
  type CreateProjectRequest,
  type DetectSettingsRequest,
  detectedSettingsSchema,
  type Environment,
  environmentSchema,
  type ProjectDetail,
  projectDetailSchema,
} from '@launchbay/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';
import { PRESETS_GC_TIME, PRESETS_STALE_TIME } from '@/lib/constants';
import { projectBySlugKey, retryServerErrors } from '@/lib/project-queries';
import { projectsQueryKey } from '@/lib/projects';

export const presetSchema = z.object({
  slug: z.string(),
  name: z.string(),
  kind: z.string(),
  install_command: z.string().nullable(),
  build_command: z.string().nullable(),
  start_command: z.string().nullable(),
  output_directory: z.string().nullable(),
});
export type Preset = z.infer<typeof presetSchema>;
const presetListSchema = z.object({ presets: z.array(presetSchema) });

/** Spec section 9: presets cached 1 hour, kept 24 hours. */
export function usePresets() {
  return useQuery({
    queryKey: ['presets'],
    queryFn: ({ signal }) => api('/presets', { signal, response: presetListSchema }),
    select: (data) => data.presets,
    staleTime: PRESETS_STALE_TIME,
    gcTime: PRESETS_GC_TIME,
    retry: retryServerErrors,
  });
}

/**
 * How a git URL's branch would build, read by the server from its head commit (POST /projects/detect).
 * It clones: asked once per address, token, branch and folder while the form is open, and a refusal
 * (a 400 saying what is wrong) is not asked again.
 */
export function useDetectedSettings(input: DetectSettingsRequest | null) {
  return useQuery({
    queryKey: ['projects', 'detect', input],
    queryFn: ({ signal }) =>
      api('/projects/detect', { method: 'POST', body: input ?? undefined, signal, response: detectedSettingsSchema }),
    enabled: input !== null,
    retry: retryServerErrors,
    staleTime: 5 * 60_000,
  });
}

export function createProject(body: CreateProjectRequest) {
  return api('/projects', { method: 'POST', body, response: projectDetailSchema });
}

/** Writes a fresh project detail into the cache under its slug, and refreshes the lists. */
function useStoreProject() {
  const queryClient = useQueryClient();
  return (project: ProjectDetail) => {
    queryClient.setQueryData(projectBySlugKey(project.slug), project);
    void queryClient.invalidateQueries({ queryKey: projectsQueryKey });
  };
}

export function useRenameProject() {
  const store = useStoreProject();
  return useMutation({
    mutationFn: ({ id, name }: { id: number; name: string }) =>
      api(`/projects/${id}/settings`, { method: 'POST', body: { name }, response: projectDetailSchema }),
    onSuccess: store,
  });
}

export interface DeploymentConfigPatch {
  root_directory?: string | null;
  preset?: string | null;
  install_command?: string | null;
  build_command?: string | null;
  start_command?: string | null;
  output_directory?: string | null;
  port?: number | null;
}

export function useUpdateDeploymentConfig() {
  const store = useStoreProject();
  return useMutation({
    mutationFn: ({ id, ...body }: DeploymentConfigPatch & { id: number }) =>
      api(`/projects/${id}/deployment-config`, { method: 'PATCH', body, response: projectDetailSchema }),
    onSuccess: store,
  });
}

/**
 * Deleting leaves the cache alone: the caller navigates away first, then drops the project's
 * queries (refreshing them while its pages are still shown would flash 'Project not found').
 */
export function useDeleteProject() {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: (project: { id: number; slug: string }) => api(`/projects/${project.id}`, { method: 'DELETE' }),
  });
  const forget = (project: { id: number; slug: string }) => {
    queryClient.removeQueries({ queryKey: projectBySlugKey(project.slug) });
    queryClient.removeQueries({ queryKey: [...projectsQueryKey, project.id] });
    void queryClient.invalidateQueries({ queryKey: projectsQueryKey });
  };
  return { ...mutation, forget };
}

export interface EnvironmentSettings {
  branch?: string;
  memory_mb?: number | null;
  cpu_percent?: number | null;
  instances?: number;
}

/** Environments change the project's detail (it lists them): refresh it. */
function useRefreshProject() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: projectsQueryKey });
}

export function useCreateEnvironment() {
  const refresh = useRefreshProject();
  return useMutation({
    mutationFn: ({ projectId, ...body }: { projectId: number; name: string; branch: string }): Promise<Environment> =>
      api(`/projects/${projectId}/environments`, { method: 'POST', body, response: environmentSchema }),
    onSettled: refresh,
  });
}

export function useUpdateEnvironment() {
  const refresh = useRefreshProject();
  return useMutation({
    mutationFn: ({
      projectId,
      environmentId,
      ...body
    }: EnvironmentSettings & { projectId: number; environmentId: number }): Promise<Environment> =>
      api(`/projects/${projectId}/environments/${environmentId}/settings`, {
        method: 'PUT',
        body,
        response: environmentSchema,
      }),
    onSettled: refresh,
  });
}
