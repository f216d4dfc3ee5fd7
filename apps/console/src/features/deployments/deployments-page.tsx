import type { Deployment, ProjectDetail } from '@launchbay/contract';
import { ChevronLeft, ChevronRight, Rocket, RotateCw } from 'lucide-react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { DataTable, type DataTableColumn } from '@/components/data-table/data-table';
import { EmptyState } from '@/components/layout/page';
import { StatusBadge } from '@/components/status-badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail } from '@/lib/api';
import { useDocumentTitle } from '@/lib/document-title';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { useProjectBySlug, useProjectDeployments, useTriggerPipeline } from '@/lib/project-queries';
import { toast } from '@/lib/toast';
import { useIsNarrow } from '@/lib/use-media-query';
import { cn } from '@/lib/utils';
import { BranchName, CommitSha, CurrentBadge, DeploymentDuration } from './deployment-parts';
import { authorName, commitTitle, deploymentPath, triggerLabel } from './model';

export const DEPLOYMENTS_PER_PAGE = 20;
const ALL = 'all';
const SECTION = 'mx-auto flex w-full max-w-6xl flex-1 flex-col gap-6 px-4 py-6 sm:px-6 lg:px-8';

function positiveInt(value: string | null): number | undefined {
  if (!value || !/^\d{1,9}$/.test(value)) return undefined;
  const n = Number(value);
  return n > 0 ? n : undefined;
}

function Commit({ deployment }: { deployment: Deployment }) {
  const title = commitTitle(deployment.commit_message);
  const author = authorName(deployment.commit_author);
  return (
    <span className="grid min-w-0 gap-0.5">
      <span className="truncate font-medium" title={title || undefined}>
        {title || `Deployment #${deployment.id}`}
      </span>
      <span className="flex min-w-0 items-center gap-2 text-muted-foreground text-xs">
        <CommitSha sha={deployment.commit_sha} />
        {author ? <span className="truncate">by {author}</span> : null}
      </span>
    </span>
  );
}

function Created({ deployment }: { deployment: Deployment }) {
  return (
    <span className="whitespace-nowrap text-muted-foreground" title={formatDateTime(deployment.queued_at)}>
      {formatRelativeTime(deployment.queued_at)}
    </span>
  );
}

const COLUMNS: DataTableColumn<Deployment>[] = [
  {
    id: 'status',
    header: 'Status',
    headClassName: 'w-32 pl-4',
    cellClassName: 'pl-4',
    cell: (d) => <StatusBadge status={d.status} />,
  },
  {
    id: 'commit',
    header: 'Commit',
    cellClassName: 'w-full max-w-0',
    cell: (d) => <Commit deployment={d} />,
  },
  {
    id: 'branch',
    header: 'Branch',
    cellClassName: 'max-w-40',
    cell: (d) => <BranchName branch={d.branch} />,
  },
  {
    id: 'environment',
    header: 'Environment',
    cellClassName: 'whitespace-nowrap',
    cell: (d) => (
      <span className="flex items-center gap-2">
        <span className="capitalize">{d.environment_name}</span>
        {d.is_current ? <CurrentBadge /> : null}
      </span>
    ),
  },
  {
    id: 'trigger',
    header: 'Trigger',
    cellClassName: 'whitespace-nowrap text-muted-foreground',
    cell: (d) =>
      d.trigger === 'rollback' && d.source_deployment_id ? `Rollback to #${d.source_deployment_id}` : triggerLabel(d.trigger),
  },
  {
    id: 'created',
    header: 'Created',
    cell: (d) => <Created deployment={d} />,
  },
  {
    id: 'duration',
    header: 'Duration',
    headClassName: 'pr-4 text-right',
    cellClassName: 'pr-4 text-right text-muted-foreground',
    cell: (d) => <DeploymentDuration deployment={d} />,
  },
];

function DeploymentCards({ slug, deployments }: { slug: string; deployments: Deployment[] }) {
  return (
    <ul className="grid gap-2" aria-label="Deployments">
      {deployments.map((d) => (
        <li key={d.id}>
          <Link
            to={deploymentPath(slug, d)}
            className="grid gap-2 rounded-xl border bg-card p-3 text-sm shadow-xs outline-none transition-colors hover:bg-accent/40 focus-visible:ring-2 focus-visible:ring-ring/50"
          >
            <span className="flex items-center justify-between gap-2">
              <span className="flex items-center gap-2">
                <StatusBadge status={d.status} />
                {d.is_current ? <CurrentBadge /> : null}
              </span>
              <span className="text-muted-foreground text-xs tabular-nums">#{d.id}</span>
            </span>
            <Commit deployment={d} />
            <span className="flex flex-wrap items-center gap-x-3 gap-y-1 text-muted-foreground text-xs">
              <BranchName branch={d.branch} />
              <span className="capitalize">{d.environment_name}</span>
              <span>{triggerLabel(d.trigger)}</span>
              <span title={formatDateTime(d.queued_at)}>{formatRelativeTime(d.queued_at)}</span>
              <DeploymentDuration deployment={d} />
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

function TableSkeleton() {
  return (
    <Card className="gap-0 p-0" role="status" aria-busy="true" aria-label="Loading deployments">
      {Array.from({ length: 5 }, (_, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
        <div key={index} className="flex items-center gap-4 border-b p-4 last:border-0">
          <Skeleton className="h-5 w-20 rounded-full" />
          <Skeleton className="h-4 flex-1" />
          <Skeleton className="h-4 w-16" />
          <Skeleton className="h-4 w-12" />
        </div>
      ))}
    </Card>
  );
}

function DeploymentsList({ project }: { project: ProjectDetail }) {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const narrow = useIsNarrow();
  const page = positiveInt(params.get('page')) ?? 1;
  const environmentId = positiveInt(params.get('environment'));
  const environment = project.environments.find((env) => env.id === environmentId);
  const { data, isPending, isError, error, refetch, isFetching, isPlaceholderData } = useProjectDeployments(project.id, {
    page,
    perPage: DEPLOYMENTS_PER_PAGE,
    environmentId: environment?.id,
  });
  const trigger = useTriggerPipeline();

  const update = (changes: Record<string, string | null>) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          if (value) next.set(key, value);
          else next.delete(key);
        }
        return next;
      },
      { preventScrollReset: true },
    );

  const target = environment ?? project.environments.find((env) => env.is_production);
  const redeploy = async () => {
    try {
      const { deployment_id } = await trigger.mutateAsync({
        projectId: project.id,
        ...(target ? { environment_id: target.id } : {}),
      });
      toast.success('Deployment started', {
        description: `Deployment #${deployment_id} builds the head of ${target?.branch ?? project.branch}.`,
      });
      navigate(deploymentPath(project.slug, { id: deployment_id }));
    } catch (err) {
      toast.error('Failed to redeploy', { description: errorDetail(err) });
    }
  };

  const total = data?.total ?? 0;
  const first = total === 0 ? 0 : (page - 1) * DEPLOYMENTS_PER_PAGE + 1;
  const last = data ? (page - 1) * DEPLOYMENTS_PER_PAGE + data.deployments.length : 0;

  return (
    <div className={SECTION}>
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="min-w-0 space-y-1">
          <h2 className="font-semibold text-xl tracking-tight">Deployments</h2>
          <p className="text-muted-foreground text-sm">Every build of {project.name}, newest first.</p>
        </div>
        <div className="flex w-full flex-wrap items-center gap-2 sm:w-auto">
          {project.environments.length > 1 ? (
            <Select
              value={environment ? String(environment.id) : ALL}
              onValueChange={(value) => update({ environment: value === ALL ? null : value, page: null })}
            >
              <SelectTrigger className="min-w-0 flex-1 sm:w-44 sm:flex-none" aria-label="Environment">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                <SelectItem value={ALL}>All environments</SelectItem>
                {project.environments.map((env) => (
                  <SelectItem key={env.id} value={String(env.id)}>
                    <span className="capitalize">{env.name}</span>
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          ) : null}
          <Button onClick={() => void redeploy()} disabled={trigger.isPending} className="flex-1 sm:flex-none">
            {trigger.isPending ? <Spinner /> : <RotateCw />}
            Redeploy
          </Button>
        </div>
      </div>

      {isPending ? (
        <TableSkeleton />
      ) : isError ? (
        <EmptyState
          title="Could not load the deployments"
          description={errorDetail(error)}
          action={
            <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
              Retry
            </Button>
          }
        />
      ) : data.deployments.length === 0 ? (
        <EmptyState
          icon={<Rocket />}
          title={page > 1 && total > 0 ? 'No deployments on this page' : 'No deployments yet'}
          description={
            page > 1 && total > 0
              ? `There are ${total} deployments, on fewer pages.`
              : environment
                ? `Nothing has been deployed to ${environment.name} yet.`
                : 'Deploy the head of the branch to create the first deployment.'
          }
          action={
            page > 1 && total > 0 ? (
              <Button variant="outline" onClick={() => update({ page: null })}>
                Go to the first page
              </Button>
            ) : undefined
          }
        />
      ) : (
        <div className={cn('grid gap-3 transition-opacity', isPlaceholderData && 'opacity-60')}>
          {narrow ? (
            <DeploymentCards slug={project.slug} deployments={data.deployments} />
          ) : (
            <Card className="gap-0 overflow-hidden p-0">
              <DataTable
                columns={COLUMNS}
                rows={data.deployments}
                rowKey={(d) => d.id}
                rowProps={(d) => ({
                  'data-testid': `deployment-row-${d.id}`,
                  className: 'cursor-pointer',
                  tabIndex: 0,
                  'aria-label': `Deployment #${d.id}: ${commitTitle(d.commit_message) || d.status}`,
                  onClick: () => navigate(deploymentPath(project.slug, d)),
                  onKeyDown: (event) => {
                    if (event.key === 'Enter') navigate(deploymentPath(project.slug, d));
                  },
                })}
              />
            </Card>
          )}
          <nav aria-label="Pagination" className="flex flex-wrap items-center justify-between gap-3">
            <p className="text-muted-foreground text-sm tabular-nums" aria-live="polite">
              Showing {first}–{last} of {total}
            </p>
            <div className="flex gap-2">
              <Button
                variant="outline"
                size="sm"
                disabled={page <= 1 || isFetching}
                onClick={() => update({ page: page > 2 ? String(page - 1) : null })}
              >
                <ChevronLeft />
                Prev
              </Button>
              <Button
                variant="outline"
                size="sm"
                disabled={last >= total || isFetching}
                onClick={() => update({ page: String(page + 1) })}
              >
                Next
                <ChevronRight />
              </Button>
            </div>
          </nav>
        </div>
      )}
    </div>
  );
}

/** /projects/{slug}/deployments: the project's deployments, paginated, by environment. */
export default function DeploymentsPage() {
  const { slug = '' } = useParams();
  const project = useProjectBySlug(slug);
  useDocumentTitle(project.data ? `Deployments · ${project.data.name}` : 'Deployments');
  if (project.isError) {
    return (
      <div className={SECTION}>
        <EmptyState title="Could not load the project" description={errorDetail(project.error)} />
      </div>
    );
  }
  if (!project.data) {
    return (
      <div className={SECTION}>
        <Skeleton className="h-8 w-48" />
        <TableSkeleton />
      </div>
    );
  }
  return <DeploymentsList project={project.data} />;
}
