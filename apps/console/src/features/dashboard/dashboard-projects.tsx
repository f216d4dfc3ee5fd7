import type { Deployment, ProjectListItem } from '@launchbay/contract';
import { useQueries } from '@tanstack/react-query';
import { ArrowRight, FolderGit2, GitBranch, GitCommitHorizontal, Plus, Rocket } from 'lucide-react';
import { Link } from 'react-router';
import { EmptyState } from '@/components/layout/page';
import { ProjectAvatar } from '@/components/project-avatar';
import { StatusBadge } from '@/components/status-badge';
import { buttonVariants } from '@/components/ui/button';
import { Card, CardAction, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail } from '@/lib/api';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { displayUrl, projectDeploymentsQuery, shortSha } from '@/lib/project-queries';

/**
 * How many projects the dashboard lists (the most recently deployed first), and how many of them it
 * reads recent deployments from.
 */
export const DASHBOARD_PROJECTS = 6;
export const DEPLOYMENT_SOURCES = 10;
const RECENT_DEPLOYMENTS = 8;
/** As many as are shown: the newest ones may all be of one project. */
const PER_PROJECT = RECENT_DEPLOYMENTS;

const projectPath = (slug: string) => `/projects/${encodeURIComponent(slug)}`;

/** One project, from the list's own answer: its production address (live or not) and its latest deployment. */
function ProjectRow({ project }: { project: ProjectListItem }) {
  const latest = project.last_deployment;
  const live = !!project.current_deployment;
  return (
    <li>
      <Link
        to={projectPath(project.slug)}
        className="-mx-2 flex items-center gap-3 rounded-md px-2 py-2.5 outline-none hover:bg-accent/50 focus-visible:ring-2 focus-visible:ring-ring/50"
      >
        <ProjectAvatar project={project} className="size-8 rounded-md text-xs" />
        <div className="min-w-0 flex-1">
          <p className="truncate font-medium text-sm">{project.name}</p>
          <p className="truncate text-muted-foreground text-xs">
            {project.url ? `${displayUrl(project.url)}${live ? '' : ' (not live)'}` : 'No address yet'}
          </p>
        </div>
        {latest ? (
          <div className="flex shrink-0 flex-col items-end gap-1">
            <StatusBadge status={latest.status} />
            <span className="hidden text-muted-foreground text-xs sm:inline">{formatRelativeTime(latest.queued_at)}</span>
          </div>
        ) : (
          <span className="shrink-0 text-muted-foreground text-xs">No deployments</span>
        )}
      </Link>
    </li>
  );
}

export function ProjectsCard({
  projects,
  total,
  isPending,
  error,
}: {
  projects: ProjectListItem[] | undefined;
  total: number;
  isPending: boolean;
  error: unknown;
}) {
  const shown = (projects ?? []).slice(0, DASHBOARD_PROJECTS);
  return (
    <Card className="lg:col-span-2">
      <CardHeader>
        <CardTitle>Projects</CardTitle>
        <CardDescription>The most recently deployed, with their address and latest deployment.</CardDescription>
        {total > 0 ? (
          <CardAction>
            <Link to="/projects" className={buttonVariants({ variant: 'ghost', size: 'sm' })}>
              View all ({total})
              <ArrowRight />
            </Link>
          </CardAction>
        ) : null}
      </CardHeader>
      <CardContent>
        {isPending ? (
          <div className="space-y-3">
            <Skeleton className="h-10 w-full" />
            <Skeleton className="h-10 w-full" />
            <Skeleton className="h-10 w-full" />
          </div>
        ) : error ? (
          <p className="text-muted-foreground text-sm">Could not load projects: {errorDetail(error)}</p>
        ) : shown.length === 0 ? (
          <EmptyState
            icon={<FolderGit2 />}
            title="No projects yet"
            description="Create a project from a git repository: Launchbay builds it and gives it an address."
            action={
              <Link to="/projects/new" className={buttonVariants()}>
                <Plus />
                Create Project
              </Link>
            }
            className="py-10"
          />
        ) : (
          <ul className="divide-y" aria-label="Projects">
            {shown.map((project) => (
              <ProjectRow key={project.id} project={project} />
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}

/**
 * The newest deployments across projects. There is no cross-project deployments route: the last
 * deployments of the most recently deployed projects are read and merged. Each of the newest
 * RECENT_DEPLOYMENTS belongs to one of the RECENT_DEPLOYMENTS most recently deployed projects, so
 * DEPLOYMENT_SOURCES of them miss none, however many projects there are.
 */
export function RecentDeploymentsCard({
  projects,
  isPending: projectsPending,
}: {
  projects: ProjectListItem[] | undefined;
  isPending: boolean;
}) {
  const sources = (projects ?? []).slice(0, DEPLOYMENT_SOURCES);
  const results = useQueries({
    queries: sources.map((project) => projectDeploymentsQuery(project.id, { perPage: PER_PROJECT })),
  });
  const byId = new Map(sources.map((project) => [project.id, project]));
  const pending = projectsPending || results.some((result) => result.isPending);
  const failed = results.filter((result) => result.isError).length;
  const deployments: Deployment[] = results
    .flatMap((result) => result.data?.deployments ?? [])
    .sort((a, b) => b.queued_at.localeCompare(a.queued_at) || b.id - a.id)
    .slice(0, RECENT_DEPLOYMENTS);

  return (
    <Card>
      <CardHeader>
        <CardTitle>Recent deployments</CardTitle>
        <CardDescription>The newest deployments across your projects.</CardDescription>
      </CardHeader>
      <CardContent>
        {pending && deployments.length === 0 ? (
          <div className="space-y-3">
            <Skeleton className="h-11 w-full" />
            <Skeleton className="h-11 w-full" />
            <Skeleton className="h-11 w-full" />
          </div>
        ) : deployments.length === 0 ? (
          <EmptyState
            icon={<Rocket />}
            title="No deployments yet"
            description={
              failed > 0 ? 'Deployments could not be loaded. Try again later.' : 'Deployments of your projects show up here.'
            }
            className="py-10"
          />
        ) : (
          <ul className="divide-y" aria-label="Recent deployments">
            {deployments.map((deployment) => {
              const project = byId.get(deployment.project_id);
              if (!project) return null;
              const title = (deployment.commit_message ?? '').split('\n')[0]?.trim() || `Deployment #${deployment.id}`;
              return (
                <li key={deployment.id}>
                  <Link
                    to={`${projectPath(project.slug)}/deployments/${deployment.id}`}
                    className="-mx-2 grid grid-cols-[auto_minmax(0,1fr)] items-center gap-3 rounded-md px-2 py-2.5 outline-none hover:bg-accent/50 focus-visible:ring-2 focus-visible:ring-ring/50 sm:grid-cols-[auto_minmax(0,1fr)_6.5rem_auto]"
                  >
                    <ProjectAvatar project={project} className="size-8 rounded-md text-xs" />
                    <div className="min-w-0">
                      <p className="truncate font-medium text-sm">{title}</p>
                      <p className="flex min-w-0 items-center gap-x-2 text-muted-foreground text-xs">
                        <span className="truncate">{project.name}</span>
                        <span className="inline-flex items-center gap-1 font-mono">
                          <GitBranch className="size-3" />
                          {deployment.branch}
                        </span>
                        {deployment.commit_sha ? (
                          <span className="hidden items-center gap-1 font-mono sm:inline-flex">
                            <GitCommitHorizontal className="size-3" />
                            {shortSha(deployment.commit_sha)}
                          </span>
                        ) : null}
                      </p>
                    </div>
                    <StatusBadge status={deployment.status} className="col-start-2 sm:col-start-auto sm:justify-self-end" />
                    <span
                      className="hidden text-right text-muted-foreground text-xs sm:inline"
                      title={formatDateTime(deployment.queued_at)}
                    >
                      {formatRelativeTime(deployment.queued_at)}
                    </span>
                  </Link>
                </li>
              );
            })}
          </ul>
        )}
        {failed > 0 && deployments.length > 0 ? (
          <p className="mt-3 text-muted-foreground text-xs">
            The deployments of {failed} project{failed === 1 ? '' : 's'} could not be loaded.
          </p>
        ) : null}
      </CardContent>
    </Card>
  );
}
