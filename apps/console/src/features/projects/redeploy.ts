import type { Environment, ProjectDetail } from '@launchbay/contract';
import { useNavigate } from 'react-router';
import { errorDetail } from '@/lib/api';
import { useTriggerPipeline } from '@/lib/project-queries';
import { toast } from '@/lib/toast';
import { deploymentPath } from './model';

/** Redeploy (trigger-pipeline) with its toasts; the success toast links to the new deployment. */
export function useRedeploy(project: ProjectDetail | undefined) {
  const trigger = useTriggerPipeline();
  const navigate = useNavigate();
  const redeploy = async (environment?: Environment) => {
    if (!project) return null;
    try {
      const { deployment_id } = await trigger.mutateAsync({
        projectId: project.id,
        ...(environment && !environment.is_production ? { environment_id: environment.id } : {}),
      });
      toast.success('Deployment started', {
        description: `Deployment #${deployment_id} of ${environment?.name ?? 'production'} is queued.`,
        action: { label: 'View', onClick: () => navigate(deploymentPath(project.slug, { id: deployment_id })) },
      });
      return deployment_id;
    } catch (error) {
      toast.error('Failed to start a deployment', { description: errorDetail(error) });
      return null;
    }
  };
  return { redeploy, pending: trigger.isPending };
}
