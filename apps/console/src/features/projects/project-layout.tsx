import { ArrowUpRight, FolderX, GitBranch, Github } from 'lucide-react';
import { Link, Outlet } from 'react-router';
import { EmptyState } from '@/components/layout/page';
import { SubNav, type SubNavItem } from '@/components/layout/sub-nav';
import { ProjectAvatar } from '@/components/project-avatar';
import { StatusBadge } from '@/components/status-badge';
import { Button, buttonVariants } from '@/components/ui/button';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail, isApiError } from '@/lib/api';
import { useDocumentTitle } from '@/lib/document-title';
import { displayRepository, displayUrl, type ProjectDetail } from '@/lib/project-queries';
import { projectBase, useCurrentDeployment, useRouteProject } from './model';

function projectTabs(slug: string): SubNavItem[] {
  const base = projectBase(slug);
  return [
    { title: 'Overview', to: base },
    { title: 'Deployments', to: `${base}/deployments`, end: false },
    { title: 'Runtime', to: `${base}/runtime` },
    { title: 'Settings', to: `${base}/settings`, end: false },
  ];
}

const CONTAINER = 'mx-auto w-full max-w-6xl px-4 sm:px-6 lg:px-8';

function HeaderStatus({ project }: { project: ProjectDetail }) {
  const { deployment } = useCurrentDeployment(project);
  const shown = deployment ?? project.last_deployment;
  if (!shown) {
    return (
      <span className="inline-flex items-center rounded-full border px-2 py-0.5 font-medium text-muted-foreground text-xs">
        No deployments
      </span>
    );
  }
  return <StatusBadge status={shown.status} />;
}

function ProjectHeader({ project }: { project: ProjectDetail }) {
  const repository = displayRepository(project.git_url);
  const isGithub = /(^|\.)github\.com\//.test(repository);
  return (
    <div className="flex flex-wrap items-start justify-between gap-4">
      <div className="flex min-w-0 max-w-full items-start gap-3">
        <ProjectAvatar project={project} className="mt-0.5 size-10 rounded-lg text-base" />
        <div className="min-w-0 space-y-1">
          <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1">
            <h1 className="truncate font-semibold text-2xl tracking-tight">{project.name}</h1>
            <HeaderStatus project={project} />
          </div>
          <p className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1 text-muted-foreground text-sm">
            <span>
              Project: <span className="font-mono">{project.slug}</span>
            </span>
            {repository ? (
              <>
                <span aria-hidden="true" className="hidden sm:inline">
                  ·
                </span>
                <span className="inline-flex min-w-0 items-center gap-1">
                  {isGithub ? <Github className="size-3.5 shrink-0" /> : null}
                  <span className="truncate">{repository}</span>
                </span>
                <span aria-hidden="true" className="hidden sm:inline">
                  ·
                </span>
                <span className="inline-flex items-center gap-1">
                  <GitBranch className="size-3.5 shrink-0" />
                  <span className="font-mono">{project.branch}</span>
                </span>
              </>
            ) : null}
          </p>
          {project.url ? (
            <a
              href={project.url}
              target="_blank"
              rel="noreferrer"
              className="inline-flex max-w-full items-center gap-1 font-medium text-sm underline-offset-4 hover:underline"
            >
              <span className="truncate">{displayUrl(project.url)}</span>
              <ArrowUpRight className="size-3.5 shrink-0 text-muted-foreground" />
            </a>
          ) : null}
        </div>
      </div>
      {project.url ? (
        <a
          href={project.url}
          target="_blank"
          rel="noreferrer"
          className={buttonVariants({ variant: 'outline', className: 'shrink-0' })}
        >
          Visit
          <ArrowUpRight />
        </a>
      ) : null}
    </div>
  );
}

function HeaderSkeleton() {
  return (
    <div className="flex items-start gap-3" aria-busy="true">
      <Skeleton className="size-10 rounded-lg" />
      <div className="grid gap-2">
        <Skeleton className="h-7 w-48" />
        <Skeleton className="h-4 w-72 max-w-[60vw]" />
        <Skeleton className="h-4 w-40" />
      </div>
    </div>
  );
}

function ProjectMissing({ slug, error, retry }: { slug: string; error: unknown; retry: () => void }) {
  const notFound = isApiError(error) && (error.status === 404 || error.status === 400);
  useDocumentTitle(notFound ? 'Project not found' : 'Project');
  return (
    <div className={`${CONTAINER} py-10`}>
      <EmptyState
        icon={<FolderX />}
        title={notFound ? 'Project not found' : 'Could not load the project'}
        description={notFound ? `There is no project at /projects/${slug}. It may have been deleted.` : errorDetail(error)}
        action={
          <div className="flex flex-wrap justify-center gap-2">
            {notFound ? null : (
              <Button variant="outline" onClick={retry}>
                Retry
              </Button>
            )}
            <Link to="/projects" className={buttonVariants()}>
              Back to Projects
            </Link>
          </div>
        }
      />
    </div>
  );
}

/**
 * /projects/{slug}/*: the project's header (name, production address, status of what it serves)
 * and its sections, then the section's page. Pages below render once the project has loaded
 * (useProjectBySlug from lib/project-queries answers from the cache there).
 */
export default function ProjectLayout() {
  const { slug, data: project, isPending, isError, error, refetch } = useRouteProject();

  if (isError) return <ProjectMissing slug={slug} error={error} retry={() => void refetch()} />;

  return (
    <div className="flex flex-1 flex-col">
      <div className={`${CONTAINER} grid grid-cols-[minmax(0,1fr)] gap-5 pt-6`}>
        {isPending ? <HeaderSkeleton /> : <ProjectHeader project={project} />}
        <SubNav items={projectTabs(slug)} label="Project sections" />
      </div>
      {isPending ? (
        <div className={`${CONTAINER} grid gap-4 py-6`}>
          <Skeleton className="h-48 w-full rounded-xl" />
          <Skeleton className="h-32 w-full rounded-xl" />
        </div>
      ) : (
        <Outlet />
      )}
    </div>
  );
}
