import { useQueryClient } from '@tanstack/react-query';
import { ArrowLeft, FolderGit2, Link2 } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Page } from '@/components/layout/page';
import { projectBySlugKey } from '@/lib/project-queries';
import { projectsQueryKey } from '@/lib/projects';
import { toast } from '@/lib/toast';
import { cn } from '@/lib/utils';
import { createProject, usePresets } from './api';
import { NewProjectForm } from './new-project-form';
import type { NewProjectSubmission } from './new-project-schema';
import { RepositoryProjectForm } from './repository-project-form';

/** Where the new project's code comes from: a git URL, or a repository of a connected git provider. */
type Source = 'url' | 'repository';

const SOURCES: { id: Source; title: string; icon: ReactNode }[] = [
  { id: 'url', title: 'Git URL', icon: <Link2 /> },
  { id: 'repository', title: 'Connected repository', icon: <FolderGit2 /> },
];

function SourceTabs({ source, onChange }: { source: Source; onChange: (source: Source) => void }) {
  return (
    <div
      role="tablist"
      aria-label="Source"
      className="inline-flex w-full rounded-lg border bg-muted/50 p-1 sm:w-fit"
      onKeyDown={(event) => {
        if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
        event.preventDefault();
        const next = source === 'url' ? 'repository' : 'url';
        onChange(next);
        document.getElementById(`project-source-${next}`)?.focus();
      }}
    >
      {SOURCES.map((item) => {
        const selected = item.id === source;
        return (
          <button
            key={item.id}
            id={`project-source-${item.id}`}
            type="button"
            role="tab"
            aria-selected={selected}
            aria-controls="project-source-panel"
            tabIndex={selected ? 0 : -1}
            onClick={() => onChange(item.id)}
            className={cn(
              'inline-flex flex-1 items-center justify-center gap-2 whitespace-nowrap rounded-md px-3 py-1.5 font-medium text-sm outline-none transition-colors focus-visible:ring-[3px] focus-visible:ring-ring/50 sm:flex-none [&_svg]:size-4',
              selected ? 'bg-background text-foreground shadow-xs' : 'text-muted-foreground hover:text-foreground',
            )}
          >
            {item.icon}
            {item.title}
          </button>
        );
      })}
    </div>
  );
}

export default function NewProjectPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const presets = usePresets();
  const [progress, setProgress] = useState<string | null>(null);
  const [params, setParams] = useSearchParams();
  const source: Source = params.get('source') === 'repository' ? 'repository' : 'url';
  const chooseSource = (next: Source) => {
    setParams(
      (current) => {
        const updated = new URLSearchParams(current);
        if (next === 'url') updated.delete('source');
        else updated.set('source', next);
        return updated;
      },
      { replace: true },
    );
  };

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
      <SourceTabs source={source} onChange={chooseSource} />
      {/* Not labelled by its tab: a label 'Git URL' here would make the Git URL field's label ambiguous. */}
      <div id="project-source-panel" role="tabpanel" className="-mt-2">
        {source === 'url' ? (
          <NewProjectForm presets={presets.data} presetsLoading={presets.isPending} onSubmit={submit} progress={progress} />
        ) : (
          <RepositoryProjectForm onSubmit={submit} progress={progress} />
        )}
      </div>
    </Page>
  );
}
