import { envVarListResponseSchema, envVarSchema } from '@launchbay/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api';
import { retryServerErrors } from '@/lib/project-queries';
import { projectsQueryKey } from '@/lib/projects';

export type EnvVar = z.infer<typeof envVarSchema>;

const valueSchema = z.object({ key: z.string(), value: z.string(), environment_ids: z.array(z.number().int()) });

export const envVarsKey = (projectId: number) => [...projectsQueryKey, projectId, 'env-vars'] as const;

/** A project's variables, values masked. */
export function useEnvVars(projectId: number | undefined) {
  return useQuery({
    queryKey: envVarsKey(projectId ?? 0),
    queryFn: ({ signal }) => api(`/projects/${projectId}/env-vars`, { signal, response: envVarListResponseSchema }),
    select: (data) => data.env_vars,
    enabled: projectId !== undefined,
    retry: retryServerErrors,
  });
}

/** One value in clear (GET env-vars/{key}/value), for the environment given when the key has several. */
export function readEnvVarValue(projectId: number, key: string, environmentId?: number) {
  return api(`/projects/${projectId}/env-vars/${encodeURIComponent(key)}/value`, {
    query: { environment_id: environmentId },
    response: valueSchema,
  });
}

export interface EnvVarBody {
  key?: string;
  value?: string;
  environment_ids?: number[];
  /** Given to pull-request previews too. */
  include_in_previews?: boolean;
}

export function createEnvVar(projectId: number, body: EnvVarBody & { key: string; value: string }) {
  return api(`/projects/${projectId}/env-vars`, { method: 'POST', body, response: envVarSchema });
}

export function updateEnvVar(projectId: number, id: number, body: EnvVarBody) {
  return api(`/projects/${projectId}/env-vars/${id}`, { method: 'PUT', body, response: envVarSchema });
}

export function deleteEnvVar(projectId: number, id: number) {
  return api(`/projects/${projectId}/env-vars/${id}`, { method: 'DELETE' });
}

/** The list refreshes after every change (also after a failure: part of an import may have landed). */
function useEnvVarMutation<TVariables, TResult>(projectId: number, fn: (variables: TVariables) => Promise<TResult>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => queryClient.invalidateQueries({ queryKey: envVarsKey(projectId) }),
  });
}

export function useCreateEnvVar(projectId: number) {
  return useEnvVarMutation(projectId, (body: EnvVarBody & { key: string; value: string }) => createEnvVar(projectId, body));
}

export function useUpdateEnvVar(projectId: number) {
  return useEnvVarMutation(projectId, ({ id, ...body }: EnvVarBody & { id: number }) => updateEnvVar(projectId, id, body));
}

export function useDeleteEnvVar(projectId: number) {
  return useEnvVarMutation(projectId, (id: number) => deleteEnvVar(projectId, id));
}

/** Runs a list of calls one after another (an import), refreshing the list once at the end. */
export function useEnvVarBatch(projectId: number) {
  return useEnvVarMutation(projectId, async (steps: (() => Promise<unknown>)[]) => {
    const failures: unknown[] = [];
    for (const step of steps) {
      try {
        await step();
      } catch (error) {
        failures.push(error);
      }
    }
    return failures;
  });
}
