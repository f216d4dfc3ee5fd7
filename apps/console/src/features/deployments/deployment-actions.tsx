import type { Deployment } from '@launchbay/contract';
import { CirclePause, CirclePlay, History, RotateCw, Square } from 'lucide-react';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail } from '@/lib/api';
import { displayUrl, shortSha, useTriggerPipeline } from '@/lib/project-queries';
import { toast } from '@/lib/toast';
import { type DeploymentAction, useDeploymentAction, useRollback } from './api';
import { availableActions, deploymentPath } from './model';

const ACTION_TEXT: Record<DeploymentAction, { success: string; failure: string }> = {
  cancel: { success: 'Deployment cancelled', failure: 'Failed to cancel the deployment' },
  pause: { success: 'Deployment paused', failure: 'Failed to pause the deployment' },
  resume: { success: 'Deployment resumed', failure: 'Failed to resume the deployment' },
};

/**
 * What can be done with a deployment: cancel (on its way), pause (serving; asks first: it stops
 * traffic), resume (paused), redeploy (its commit, built again) and rollback (an earlier live
 * deployment serves again; asks first). The server's detail shows in a toast when one does not
 * apply (409).
 */
export function DeploymentActions({ slug, deployment }: { slug: string; deployment: Deployment }) {
  const navigate = useNavigate();
  const action = useDeploymentAction(deployment.project_id);
  const rollback = useRollback(deployment.project_id);
  const trigger = useTriggerPipeline();
  const [confirm, setConfirm] = useState<'pause' | 'rollback' | null>(null);
  const can = availableActions(deployment);
  const busy = action.isPending || rollback.isPending || trigger.isPending;

  const run = async (kind: DeploymentAction) => {
    try {
      await action.mutateAsync({ deploymentId: deployment.id, action: kind });
      toast.success(ACTION_TEXT[kind].success);
    } catch (error) {
      toast.error(ACTION_TEXT[kind].failure, { description: errorDetail(error) });
    } finally {
      setConfirm(null);
    }
  };

  const redeploy = async () => {
    if (!deployment.commit_sha) return;
    try {
      const { deployment_id } = await trigger.mutateAsync({
        projectId: deployment.project_id,
        commit: deployment.commit_sha,
        environment_id: deployment.environment_id,
      });
      toast.success('Redeploy started', {
        description: `Deployment #${deployment_id} builds ${shortSha(deployment.commit_sha)} again.`,
      });
      navigate(deploymentPath(slug, { id: deployment_id }));
    } catch (error) {
      toast.error('Failed to redeploy', { description: errorDetail(error) });
    }
  };

  const rollBack = async () => {
    try {
      const { deployment_id } = await rollback.mutateAsync(deployment.id);
      toast.success('Rollback started', {
        description: `Deployment #${deployment_id} serves the build of #${deployment.id} again.`,
      });
      navigate(deploymentPath(slug, { id: deployment_id }));
    } catch (error) {
      toast.error('Failed to roll back', { description: errorDetail(error) });
    } finally {
      setConfirm(null);
    }
  };

  const pending = (kind: DeploymentAction) => action.isPending && action.variables?.action === kind;

  return (
    <>
      {can.cancel ? (
        <Button variant="outline" onClick={() => void run('cancel')} disabled={busy}>
          {pending('cancel') ? <Spinner /> : <Square />}
          Cancel deployment
        </Button>
      ) : null}
      {can.resume ? (
        <Button variant="outline" onClick={() => void run('resume')} disabled={busy}>
          {pending('resume') ? <Spinner /> : <CirclePlay />}
          Resume
        </Button>
      ) : null}
      {can.pause ? (
        <Button variant="outline" onClick={() => setConfirm('pause')} disabled={busy}>
          <CirclePause />
          Pause
        </Button>
      ) : null}
      {can.rollback ? (
        <Button variant="outline" onClick={() => setConfirm('rollback')} disabled={busy}>
          <History />
          Rollback
        </Button>
      ) : null}
      {can.redeploy ? (
        <Button onClick={() => void redeploy()} disabled={busy}>
          {trigger.isPending ? <Spinner /> : <RotateCw />}
          Redeploy
        </Button>
      ) : null}

      <ConfirmDialog
        open={confirm === 'pause'}
        onOpenChange={(open) => !open && setConfirm(null)}
        title="Pause this deployment?"
        description={
          <>
            The {deployment.environment_name} environment stops serving traffic: the app&apos;s processes stop and visitors to{' '}
            <span className="font-medium text-foreground">{displayUrl(deployment.url)}</span> see a paused page until you resume
            it.
          </>
        }
        confirmLabel="Pause deployment"
        onConfirm={() => run('pause')}
      />
      <ConfirmDialog
        open={confirm === 'rollback'}
        onOpenChange={(open) => !open && setConfirm(null)}
        title={`Roll back to deployment #${deployment.id}?`}
        description={
          <>
            Serve this deployment again: its kept build of{' '}
            <span className="font-mono text-foreground">{shortSha(deployment.commit_sha)}</span> starts and{' '}
            {deployment.environment_name} traffic switches to it once it is healthy. What serves now is stopped after the switch.
          </>
        }
        confirmLabel="Roll back"
        destructive={false}
        onConfirm={rollBack}
      />
    </>
  );
}
