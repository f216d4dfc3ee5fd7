import {
  type CreateCronJobRequest,
  type CronExecution,
  type CronJob,
  cronExecutionListResponseSchema,
  cronExecutionSchema,
  cronJobListResponseSchema,
  cronJobSchema,
  messageSchema,
  type UpdateCronJobRequest,
} from '@launchbay/contract';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api';
import { ACTIVE_POLL_MS, retryServerErrors } from '@/lib/project-queries';
import { projectsQueryKey } from '@/lib/projects';

export type { CronExecution, CronJob };

/** How often the list refreshes on its own (next runs move, scheduled executions land). */
const LIST_POLL_MS = 30_000;
export const EXECUTIONS_PER_PAGE = 10;

const base = (projectId: number, environmentId: number) => `/projects/${projectId}/environments/${environmentId}/crons`;

/** Under the project's keys: a change to the project refreshes these too; executions sit under their list. */
export const cronJobsKey = (projectId: number, environmentId: number) =>
  [...projectsQueryKey, projectId, 'environments', environmentId, 'crons'] as const;
const executionsKey = (projectId: number, environmentId: number, cronId: number, page: number) =>
  [...cronJobsKey(projectId, environmentId), cronId, 'executions', { page }] as const;

/** An environment's cron jobs, with their next run and last execution. */
export function useCronJobs(projectId: number | undefined, environmentId: number | undefined) {
  return useQuery({
    queryKey: cronJobsKey(projectId ?? 0, environmentId ?? 0),
    queryFn: ({ signal }) => api(base(projectId ?? 0, environmentId ?? 0), { signal, response: cronJobListResponseSchema }),
    select: (data) => data.crons,
    enabled: projectId !== undefined && environmentId !== undefined,
    retry: retryServerErrors,
    refetchInterval: (query) =>
      query.state.data?.crons.some((cron) => cron.last_execution?.status === 'running') ? ACTIVE_POLL_MS : LIST_POLL_MS,
  });
}

/** A page of one job's executions, newest first. */
export function useCronExecutions(projectId: number, environmentId: number, cronId: number, page: number) {
  return useQuery({
    queryKey: executionsKey(projectId, environmentId, cronId, page),
    queryFn: ({ signal }) =>
      api(`${base(projectId, environmentId)}/${cronId}/executions`, {
        signal,
        query: { page, per_page: EXECUTIONS_PER_PAGE },
        response: cronExecutionListResponseSchema,
      }),
    placeholderData: keepPreviousData,
    retry: retryServerErrors,
    refetchInterval: (query) =>
      query.state.data?.executions.some((execution) => execution.status === 'running') ? ACTIVE_POLL_MS : false,
  });
}

/** Every change refreshes the environment's list (and the executions under it), also after a failure. */
function useCronMutation<TVariables, TResult>(
  projectId: number,
  environmentId: number,
  fn: (variables: TVariables) => Promise<TResult>,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => queryClient.invalidateQueries({ queryKey: cronJobsKey(projectId, environmentId) }),
  });
}

export function useCreateCronJob(projectId: number, environmentId: number) {
  return useCronMutation(projectId, environmentId, (body: CreateCronJobRequest) =>
    api(base(projectId, environmentId), { method: 'POST', body, response: cronJobSchema }),
  );
}

export function useUpdateCronJob(projectId: number, environmentId: number) {
  return useCronMutation(projectId, environmentId, ({ id, ...body }: UpdateCronJobRequest & { id: number }) =>
    api(`${base(projectId, environmentId)}/${id}`, { method: 'PATCH', body, response: cronJobSchema }),
  );
}

export function useDeleteCronJob(projectId: number, environmentId: number) {
  return useCronMutation(projectId, environmentId, (id: number) =>
    api(`${base(projectId, environmentId)}/${id}`, { method: 'DELETE', response: messageSchema }),
  );
}

/** Run now: answers once the call is done, with the finished (or skipped) execution. */
export function useRunCronJob(projectId: number, environmentId: number) {
  return useCronMutation(projectId, environmentId, (id: number) =>
    api(`${base(projectId, environmentId)}/${id}/run`, { method: 'POST', response: cronExecutionSchema }),
  );
}
