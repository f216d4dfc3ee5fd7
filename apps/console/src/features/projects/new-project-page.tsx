import { useQueryClient } from '@tanstack/react-query';
import { ArrowLeft } from 'lucide-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Page } from '@/components/layout/page';
import { errorDetail } from '@/lib/api';
import { isActiveDeployment, projectBySlugKey, triggerPipeline } from '@/lib/project-queries';
import { projectsQueryKey } from '@/lib/projects';
import { toast } from '@/lib/toast';
import { cancelDeployment, createEnvVar, createProject, usePresets } from './api';
import { NewProjectForm } from './new-project-form';
import type { NewProjectSubmission } from './new-project-schema';

export default function NewProjectPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const presets = usePresets();
  const [progress, setProgress] = useState<string | null>(null);

  /**
   * The server starts the first deployment as it creates the project, before any variable exists.
   * So: create the project, then its variables, then (when any were added) deploy again with them
   * and stop the first deployment if it is still on its way.
   */
  const submit = async ({ project: body, envVars }: NewProjectSubmission) => {
    setProgress('Checking the repository…');
    try {
      const project = await createProject(body);
      queryClient.setQueryData(projectBySlugKey(project.slug), project);
      void queryClient.invalidateQueries({ queryKey: projectsQueryKey });
      const first = project.last_deployment;
      let deploymentId = first?.id ?? null;

      if (envVars.length > 0) {
        setProgress(`Adding ${envVars.length} environment variable${envVars.length === 1 ? '' : 's'}…`);
        const failures: string[] = [];
        let added = 0;
        for (const envVar of envVars) {
          try {
            await createEnvVar(project.id, envVar);
            added++;
          } catch (error) {
            failures.push(`${envVar.key}: ${errorDetail(error)}`);
          }
        }
        if (failures.length > 0) {
          toast.error(`Failed to add ${failures.length} environment variable${failures.length === 1 ? '' : 's'}`, {
            description: failures.join('\n'),
          });
        }
        // Without a first deployment (an ssh address whose deploy key is not added yet) there is nothing to redo.
        if (added > 0 && first) {
          setProgress('Starting the deployment with your variables…');
          try {
            const { deployment_id } = await triggerPipeline(project.id);
            deploymentId = deployment_id;
            if (first.id !== deployment_id && isActiveDeployment(first)) {
              // It may have finished or been superseded meanwhile: then there is nothing to stop.
              await cancelDeployment(project.id, first.id).catch(() => undefined);
            }
          } catch (error) {
            toast.error('Failed to start a deployment with the variables', { description: errorDetail(error) });
          }
        }
      }

      toast.success('Project created', {
        description: deploymentId ? `Deploying ${project.name} from ${project.branch}.` : project.name,
      });
      const base = `/projects/${encodeURIComponent(project.slug)}`;
      navigate(deploymentId ? `${base}/deployments/${deploymentId}` : base);
    } finally {
      setProgress(null);
    }
  };

  return (
    <Page
      title="Create Project"
      documentTitle="Create Project"
      description="Deploy an application from a git repository: Launchbay clones it, builds it and serves it at its own address."
      className="max-w-3xl"
      back={
        <Link
          to="/projects"
          className="inline-flex w-fit items-center gap-1.5 rounded-sm text-muted-foreground text-sm outline-none transition-colors hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring/50"
        >
          <ArrowLeft className="size-4" />
          Projects
        </Link>
      }
    >
      <NewProjectForm presets={presets.data} presetsLoading={presets.isPending} onSubmit={submit} progress={progress} />
    </Page>
  );
}
