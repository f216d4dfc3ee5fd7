import { FolderGit2, Plus } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { EmptyState, Page } from '@/components/layout/page';
import { ProjectAvatar } from '@/components/project-avatar';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail } from '@/lib/api';
import { formatRelativeTime } from '@/lib/format';
import { useProjects } from '@/lib/projects';

const PER_PAGE = 24;

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
          <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {data.projects.map((project) => (
              <li key={project.id}>
                <Link
                  to={`/projects/${encodeURIComponent(project.slug)}`}
                  className="block rounded-xl outline-none focus-visible:ring-2 focus-visible:ring-ring"
                >
                  <Card className="gap-3 px-5 py-5 transition-colors hover:bg-accent/40">
                    <div className="flex items-center gap-3">
                      <ProjectAvatar project={project} className="size-9 rounded-md text-sm" />
                      <div className="min-w-0">
                        <p className="truncate font-medium">{project.name}</p>
                        <p className="truncate text-muted-foreground text-xs">{project.slug}</p>
                      </div>
                    </div>
                    <p className="text-muted-foreground text-xs">Created {formatRelativeTime(project.created_at)}</p>
                  </Card>
                </Link>
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
