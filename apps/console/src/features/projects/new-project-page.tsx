import { useQueryClient } from '@tanstack/react-query';
import { ArrowLeft } from 'lucide-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Page } from '@/components/layout/page';
import { projectBySlugKey } from '@/lib/project-queries';
import { projectsQueryKey } from '@/lib/projects';
import { toast } from '@/lib/toast';
import { createProject, usePresets } from './api';
import { NewProjectForm } from './new-project-form';
import type { NewProjectSubmission } from './new-project-schema';

export default function NewProjectPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const presets = usePresets();
  const [progress, setProgress] = useState<string | null>(null);

  const submit = async (body: NewProjectSubmission) => {
    const count = body.env_vars?.length ?? 0;
    setProgress(
      count > 0
        ? `Checking the repository and saving ${count} environment variable${count === 1 ? '' : 's'}…`
        : 'Checking the repository…',
    );
    try {
      const project = await createProject(body);
      queryClient.setQueryData(projectBySlugKey(project.slug), project);
      void queryClient.invalidateQueries({ queryKey: projectsQueryKey });
      const deploymentId = project.last_deployment?.id ?? null;
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
