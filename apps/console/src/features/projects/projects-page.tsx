import type { ProjectListItem } from '@launchbay/contract';
import { FolderGit2, Globe, Plus } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { EmptyState, Page } from '@/components/layout/page';
import { ProjectAvatar } from '@/components/project-avatar';
import { StatusBadge } from '@/components/status-badge';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail } from '@/lib/api';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { displayUrl } from '@/lib/project-queries';
import { useProjects } from '@/lib/projects';
import { authorName, commitTitle, projectBase } from './model';

const PER_PAGE = 24;

/**
 * One project, from the list's own answer: its production address, the deployment production
 * serves (its status) or else the latest one, and that latest deployment's commit.
 */
function ProjectCard({ project }: { project: ProjectListItem }) {
  const current = project.current_deployment;
  const latest = project.last_deployment;
  const shown = current ?? latest;
  const live = !!current && !!project.url;
  return (
    <Card className="relative h-full gap-4 px-5 py-5 transition-colors focus-within:ring-2 focus-within:ring-ring/50 hover:bg-accent/40">
      <div className="flex items-start justify-between gap-3">
        <Link
          to={projectBase(project.slug)}
          className="flex min-w-0 items-center gap-3 outline-none after:absolute after:inset-0 after:rounded-xl"
        >
          <ProjectAvatar project={project} className="size-9 rounded-md text-sm" />
          <div className="min-w-0">
            <p className="truncate font-medium">{project.name}</p>
            <p className="truncate text-muted-foreground text-xs">{project.slug}</p>
          </div>
        </Link>
        {shown ? (
          <StatusBadge status={shown.status} />
        ) : (
          <span className="rounded-full border px-2 py-0.5 font-medium text-muted-foreground text-xs">No deployments</span>
        )}
      </div>
      <div className="grid gap-1.5 text-sm">
        <div className="flex min-w-0 items-center gap-1.5">
          <Globe className="size-3.5 shrink-0 text-muted-foreground" />
          {live ? (
            <a
              href={project.url}
              target="_blank"
              rel="noreferrer"
              className="relative z-10 truncate underline-offset-4 hover:underline"
            >
              {displayUrl(project.url)}
            </a>
          ) : (
            <span className="truncate text-muted-foreground">
              {project.url ? `${displayUrl(project.url)} (not live)` : 'No address yet'}
            </span>
          )}
        </div>
        <p className="truncate text-muted-foreground text-xs">
          {latest ? (
            <span title={formatDateTime(latest.queued_at)}>
              {commitTitle(latest.commit_message) || `Deployment #${latest.id}`} · {formatRelativeTime(latest.queued_at)}
              {authorName(latest.commit_author) ? ` by ${authorName(latest.commit_author)}` : ''}
            </span>
          ) : (
            <span title={formatDateTime(project.created_at)}>Created {formatRelativeTime(project.created_at)}</span>
          )}
        </p>
      </div>
    </Card>
  );
}

export default function ProjectsPage() {
  const [page, setPage] = useState(1);
  const { data, isPending, isError, error, refetch, isFetching } = useProjects(page, PER_PAGE);
  const total = data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PER_PAGE));

  return (
    <Page
      title="Projects"
      documentTitle="Projects"
      description="Applications deployed from your git repositories."
      actions={
        <Link to="/projects/new" className={buttonVariants()}>
          <Plus />
          Create Project
        </Link>
      }
    >
      {isPending ? (
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {Array.from({ length: 3 }, (_, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
            <Skeleton key={index} className="h-24 rounded-xl" />
          ))}
        </div>
      ) : isError ? (
        <EmptyState
          title="Could not load projects"
          description={errorDetail(error)}
          action={
            <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
              Retry
            </Button>
          }
        />
      ) : data.projects.length === 0 ? (
        <EmptyState
          icon={<FolderGit2 />}
          title="No projects yet"
          description="Create a project from a git repository to deploy it with Launchbay."
          action={
            <Link to="/projects/new" className={buttonVariants()}>
              <Plus />
              Create Project
            </Link>
          }
        />
      ) : (
        <>
          <ul className="grid grid-cols-[minmax(0,1fr)] gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {data.projects.map((project) => (
              <li key={project.id}>
                <ProjectCard project={project} />
              </li>
            ))}
          </ul>
          {pages > 1 ? (
            <div className="flex items-center justify-between text-muted-foreground text-sm">
              <span>
                Page {page} of {pages} · {total} projects
              </span>
              <div className="flex gap-2">
                <Button variant="outline" size="sm" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                  Previous
                </Button>
                <Button variant="outline" size="sm" disabled={page >= pages} onClick={() => setPage(page + 1)}>
                  Next
                </Button>
              </div>
            </div>
          ) : null}
        </>
      )}
    </Page>
  );
}
