import {
  type Deployment,
  deploymentJobsResponseSchema,
  deploymentSchema,
  triggerPipelineResponseSchema,
} from '@launchbay/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { api } from '@/lib/api';
import { deploymentKey, retryServerErrors } from '@/lib/project-queries';
import { projectsQueryKey } from '@/lib/projects';
import { isInProgress } from './model';

/** While a deployment is on its way, its page polls it and its steps this often (1-2 s). */
export const DEPLOYMENT_POLL_MS = 1500;

const jobsKey = (projectId: number, deploymentId: number) => [...deploymentKey(projectId, deploymentId), 'jobs'] as const;

/** One deployment, polled every 1.5 s until it is finished (ready, failed, crashed, cancelled, paused). */
export function useDeploymentDetail(projectId: number | undefined, deploymentId: number | undefined) {
  return useQuery({
    queryKey: deploymentKey(projectId ?? 0, deploymentId ?? 0),
    queryFn: ({ signal }) => api(`/projects/${projectId}/deployments/${deploymentId}`, { signal, response: deploymentSchema }),
    enabled: projectId !== undefined && deploymentId !== undefined,
    retry: retryServerErrors,
    // Another deployment going live changes this one (no longer current): read it again on each visit.
    staleTime: 0,
    refetchInterval: (query) => (query.state.data && isInProgress(query.state.data.status) ? DEPLOYMENT_POLL_MS : false),
  });
}

/**
 * When a deployment on this page finishes, what the rest of the project shows changes with it
 * (the project's status, its list, the deployment it replaced): those queries are read again.
 */
export function useRefreshWhenFinished(deployment: Deployment | undefined) {
  const queryClient = useQueryClient();
  const previous = useRef<{ id: number; status: Deployment['status'] } | null>(null);
  useEffect(() => {
    if (!deployment) return;
    const before = previous.current;
    previous.current = { id: deployment.id, status: deployment.status };
    if (before?.id === deployment.id && isInProgress(before.status) && !isInProgress(deployment.status)) {
      void queryClient.invalidateQueries({
        queryKey: projectsQueryKey,
        // This deployment's own answer is the news: no need to read it again.
        predicate: (query) => !(query.queryKey.length === 4 && query.queryKey[3] === deployment.id),
      });
    }
  }, [deployment, queryClient]);
}

/** After going live, the previous deployment drains: its step may still be pending or running for a moment. */
const SETTLE_MS = 60_000;

/**
 * The pipeline's steps. Polled while the deployment is on its way, and after it went live while a
 * step still runs or waits (drain), for at most a minute.
 */
export function useDeploymentJobs(projectId: number | undefined, deployment: Deployment | undefined) {
  const deploymentId = deployment?.id;
  const active = deployment ? isInProgress(deployment.status) : false;
  const ended = deployment?.status === 'failed' || deployment?.status === 'cancelled';
  const readyAt = deployment?.ready_at ? new Date(deployment.ready_at).getTime() : null;
  return useQuery({
    queryKey: jobsKey(projectId ?? 0, deploymentId ?? 0),
    queryFn: ({ signal }) =>
      api(`/projects/${projectId}/deployments/${deploymentId}/jobs`, { signal, response: deploymentJobsResponseSchema }),
    enabled: projectId !== undefined && deploymentId !== undefined,
    retry: retryServerErrors,
    select: (data) => data.jobs,
    refetchInterval: (query) => {
      if (active) return DEPLOYMENT_POLL_MS;
      const jobs = query.state.data?.jobs ?? [];
      const waiting = jobs.some((job) => job.status === 'running' || (!ended && job.status === 'pending'));
      const settling = readyAt !== null && Date.now() - readyAt < SETTLE_MS;
      return waiting && (settling || jobs.some((job) => job.status === 'running')) ? DEPLOYMENT_POLL_MS : false;
    },
  });
}

export type DeploymentAction = 'cancel' | 'pause' | 'resume';

/** Cancel, pause or resume: the answer is the deployment as it is now. */
export function useDeploymentAction(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ deploymentId, action }: { deploymentId: number; action: DeploymentAction }) =>
      api(`/projects/${projectId}/deployments/${deploymentId}/${action}`, { method: 'POST', response: deploymentSchema }),
    onSuccess: (deployment: Deployment) => {
      queryClient.setQueryData(deploymentKey(projectId, deployment.id), deployment);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: projectsQueryKey }),
  });
}

/** Rollback: an earlier deployment serves again from its kept build; answers the new deployment's id. */
export function useRollback(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deploymentId: number) =>
      api(`/projects/${projectId}/deployments/${deploymentId}/rollback`, {
        method: 'POST',
        response: triggerPipelineResponseSchema,
      }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: projectsQueryKey }),
  });
}
