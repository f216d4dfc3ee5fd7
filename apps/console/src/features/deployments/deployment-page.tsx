import type { Deployment, ProjectDetail } from '@launchbay/contract';
import { ArrowLeft, ArrowUpRight, ChevronDown, CircleAlert, FileQuestion, User } from 'lucide-react';
import { type ReactNode, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { EmptyState } from '@/components/layout/page';
import { LogViewer, type LogViewerHandle } from '@/components/log-viewer/log-viewer';
import { StatusBadge } from '@/components/status-badge';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { CopyButton } from '@/components/ui/copy-button';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail, isApiError } from '@/lib/api';
import { useDocumentTitle } from '@/lib/document-title';
import { formatBytes, formatDateTime, formatRelativeTime } from '@/lib/format';
import { displayUrl, useProjectBySlug } from '@/lib/project-queries';
import { useIsNarrow } from '@/lib/use-media-query';
import { cn } from '@/lib/utils';
import { useDeploymentDetail, useDeploymentJobs, useRefreshWhenFinished } from './api';
import { DeploymentActions } from './deployment-actions';
import { BranchName, CommitSha, CurrentBadge, DeploymentDuration } from './deployment-parts';
import { JobTimeline } from './job-timeline';
import {
  authorName,
  commitTitle,
  type DeploymentStep,
  deploymentPath,
  isInProgress,
  logFilename,
  projectBase,
  stepLabel,
  triggerLabel,
} from './model';
import { useDeploymentLog } from './use-deployment-log';

const SECTION = 'mx-auto flex w-full max-w-6xl flex-1 flex-col gap-6 px-4 py-6 sm:px-6 lg:px-8';

function Field({ label, children, className }: { label: string; children: ReactNode; className?: string }) {
  return (
    <div className={cn('grid min-w-0 content-start gap-1', className)}>
      <dt className="text-muted-foreground text-xs">{label}</dt>
      <dd className="min-w-0 text-sm">{children}</dd>
    </div>
  );
}

function Address({ deployment }: { deployment: Deployment }) {
  if (deployment.status === 'ready' && deployment.is_current) {
    return (
      <span className="flex min-w-0 items-center gap-1">
        <a
          href={deployment.url}
          target="_blank"
          rel="noreferrer"
          className="inline-flex min-w-0 items-center gap-1 font-medium underline-offset-4 hover:underline"
        >
          <span className="truncate">{displayUrl(deployment.url)}</span>
          <ArrowUpRight className="size-3.5 shrink-0 text-muted-foreground" />
        </a>
        <CopyButton value={deployment.url} iconOnly label="Copy address" variant="ghost" size="icon-sm" className="size-7" />
      </span>
    );
  }
  const why =
    deployment.status === 'paused'
      ? 'Paused: not serving'
      : isInProgress(deployment.status)
        ? 'Live once ready'
        : deployment.ready_at && !deployment.is_current
          ? 'Not serving: replaced'
          : 'Not serving';
  return <span className="text-muted-foreground">{why}</span>;
}

function Summary({ slug, deployment }: { slug: string; deployment: Deployment }) {
  const title = commitTitle(deployment.commit_message);
  const author = authorName(deployment.commit_author);
  return (
    <Card className="gap-0 p-0">
      <dl className="grid grid-cols-2 gap-x-6 gap-y-5 px-5 py-4 lg:grid-cols-5">
        <Field label="Commit" className="col-span-2 lg:col-span-3">
          <span className="grid min-w-0 gap-1">
            <span className="min-w-0 break-words font-medium">
              {title || <span className="text-muted-foreground">No message</span>}
            </span>
            <span className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-1 text-muted-foreground text-xs">
              <CommitSha sha={deployment.commit_sha} className="text-foreground" />
              <BranchName branch={deployment.branch} className="text-foreground" />
              {author ? (
                <span className="inline-flex min-w-0 items-center gap-1">
                  <User className="size-3.5 shrink-0" />
                  <span className="truncate">{author}</span>
                </span>
              ) : null}
            </span>
          </span>
        </Field>
        <Field label="Address" className="col-span-2">
          <Address deployment={deployment} />
        </Field>
        <Field label="Environment">
          <span className="flex min-w-0 flex-wrap items-center gap-2">
            <span className="truncate capitalize">{deployment.environment_name}</span>
            {deployment.is_current ? <CurrentBadge /> : null}
          </span>
        </Field>
        <Field label="Trigger">
          {deployment.trigger === 'rollback' && deployment.source_deployment_id ? (
            <span>
              Rollback to{' '}
              <Link
                to={deploymentPath(slug, { id: deployment.source_deployment_id })}
                className="font-medium underline-offset-4 hover:underline"
              >
                #{deployment.source_deployment_id}
              </Link>
            </span>
          ) : (
            triggerLabel(deployment.trigger)
          )}
        </Field>
        <Field label="Created">
          <span title={formatDateTime(deployment.queued_at)}>{formatRelativeTime(deployment.queued_at)}</span>
        </Field>
        <Field label="Duration">
          <DeploymentDuration deployment={deployment} />
        </Field>
        <Field label="Build">
          <span className="text-muted-foreground">
            <span className="text-foreground">{deployment.preset ?? '—'}</span>
            {deployment.artifact_bytes !== null ? ` · ${formatBytes(deployment.artifact_bytes, 1)}` : ''}
          </span>
        </Field>
      </dl>
    </Card>
  );
}

function ErrorBox({ deployment }: { deployment: Deployment }) {
  if (!deployment.error || (deployment.status !== 'failed' && deployment.status !== 'crashed')) return null;
  return (
    <div role="alert" className="flex gap-3 rounded-xl border border-destructive/30 bg-destructive/5 px-4 py-3">
      <CircleAlert className="mt-0.5 size-4 shrink-0 text-destructive" />
      <div className="grid min-w-0 gap-1">
        <p className="font-medium text-destructive text-sm">
          {deployment.status === 'crashed' ? 'The app crashed' : 'The deployment failed'}
        </p>
        <p className="whitespace-pre-wrap break-words font-mono text-xs">{deployment.error}</p>
      </div>
    </div>
  );
}

/** 'Build · 4 of 10' while running, 'Failed at install', 'Cancelled at build', '10 of 10 steps'. */
function pipelineSummary(steps: DeploymentStep[] | undefined): string {
  if (!steps || steps.length === 0) return '';
  // A step skipped because the deployment ended before it (no finished_at) is not done.
  const done = steps.filter(
    (step) => step.status === 'succeeded' || (step.status === 'skipped' && step.finished_at !== null),
  ).length;
  const failed = steps.find((step) => step.status === 'failed');
  if (failed) return `Failed at ${failed.name}`;
  const cancelled = steps.find((step) => step.status === 'cancelled');
  if (cancelled) return `Cancelled at ${cancelled.name}`;
  const running = steps.find((step) => step.status === 'running');
  if (running) return `${stepLabel(running.name)} · ${done + 1} of ${steps.length}`;
  return `${done} of ${steps.length} steps`;
}

function BackLink({ slug }: { slug: string }) {
  return (
    <Link
      to={`${projectBase(slug)}/deployments`}
      className="inline-flex w-fit items-center gap-1 text-muted-foreground text-sm underline-offset-4 hover:text-foreground"
    >
      <ArrowLeft className="size-4" />
      Deployments
    </Link>
  );
}

function Loading() {
  return (
    <div className={SECTION} role="status" aria-busy="true" aria-label="Loading the deployment">
      <Skeleton className="h-8 w-64" />
      <Skeleton className="h-40 w-full rounded-xl" />
      <div className="grid gap-6 lg:grid-cols-[17rem_minmax(0,1fr)]">
        <Skeleton className="h-80 rounded-xl" />
        <Skeleton className="h-80 rounded-xl" />
      </div>
    </div>
  );
}

function DeploymentView({ project, deployment }: { project: ProjectDetail; deployment: Deployment }) {
  const active = isInProgress(deployment.status);
  const jobs = useDeploymentJobs(project.id, deployment);
  useRefreshWhenFinished(deployment);
  const log = useDeploymentLog(project.id, deployment.id);
  const viewer = useRef<LogViewerHandle>(null);
  const narrow = useIsNarrow();
  const [showSteps, setShowSteps] = useState(false);
  const stepsOpen = !narrow || showSteps;

  const jumpTo = (step: DeploymentStep) => {
    const index = log.lines.findIndex((line) => line.stream === 'system' && line.line === `── ${step.name}`);
    if (index >= 0) viewer.current?.revealLine(index);
  };

  return (
    <div className={SECTION}>
      <div className="grid gap-3">
        <BackLink slug={project.slug} />
        <div className="flex flex-wrap items-start justify-between gap-4">
          <div className="flex min-w-0 flex-wrap items-center gap-3" data-testid="deployment-header">
            <h2 className="font-semibold text-xl tracking-tight">Deployment #{deployment.id}</h2>
            <StatusBadge status={deployment.status} size="lg" />
          </div>
          <div className="flex flex-wrap items-center gap-2">
            <DeploymentActions slug={project.slug} deployment={deployment} />
          </div>
        </div>
      </div>
      <ErrorBox deployment={deployment} />
      <Summary slug={project.slug} deployment={deployment} />
      <div className="grid items-start gap-6 lg:grid-cols-[17rem_minmax(0,1fr)]">
        <section aria-labelledby="pipeline-heading" className="grid gap-2 lg:sticky lg:top-20">
          {narrow ? (
            <h3 id="pipeline-heading" className="font-medium text-sm">
              <button
                type="button"
                aria-expanded={stepsOpen}
                onClick={() => setShowSteps(!showSteps)}
                className="flex w-full items-center justify-between gap-3 rounded-md px-2 py-1 text-left outline-none focus-visible:ring-2 focus-visible:ring-ring/50"
              >
                <span>Pipeline</span>
                <span className="flex items-center gap-1 font-normal text-muted-foreground text-xs">
                  {pipelineSummary(jobs.data)}
                  <ChevronDown className={cn('size-4 transition-transform', stepsOpen && 'rotate-180')} />
                </span>
              </button>
            </h3>
          ) : (
            <h3 id="pipeline-heading" className="px-2 font-medium text-sm">
              Pipeline
            </h3>
          )}
          {stepsOpen ? (
            <Card className="gap-0 p-2">
              <JobTimeline
                steps={jobs.data}
                isPending={jobs.isPending}
                ended={deployment.status === 'failed' || deployment.status === 'cancelled'}
                onSelect={jumpTo}
              />
            </Card>
          ) : null}
          {jobs.isError ? <p className="px-2 text-destructive text-xs">{errorDetail(jobs.error)}</p> : null}
        </section>
        <section aria-labelledby="logs-heading" className="grid min-w-0 gap-2">
          <h3 id="logs-heading" className="px-1 font-medium text-sm">
            Logs
          </h3>
          <LogViewer
            ref={viewer}
            lines={log.lines}
            connection={log.connection}
            filename={logFilename(project.slug, deployment.id)}
            label={`Log of deployment #${deployment.id}`}
            showProcess={false}
            className="h-[34rem] max-h-[75vh] min-h-80"
            emptyMessage={active ? 'Waiting for the build to start…' : 'This deployment wrote no log lines.'}
            notice={
              log.dropped > 0
                ? `The first ${log.dropped.toLocaleString()} lines are not shown: the viewer keeps the latest 50,000.`
                : undefined
            }
          />
        </section>
      </div>
    </div>
  );
}

/** /projects/{slug}/deployments/{id}: the deployment's header, pipeline, streaming log and actions. */
export default function DeploymentPage() {
  const { slug = '', deploymentId = '' } = useParams();
  const id = /^\d{1,15}$/.test(deploymentId) ? Number(deploymentId) : undefined;
  const project = useProjectBySlug(slug);
  const deployment = useDeploymentDetail(project.data?.id, id);
  useDocumentTitle(project.data ? `Deployment #${deploymentId} · ${project.data.name}` : `Deployment #${deploymentId}`);

  if (project.isError) {
    return (
      <div className={SECTION}>
        <EmptyState
          title="Could not load the project"
          description={errorDetail(project.error)}
          action={
            <Link to="/projects" className={buttonVariants({ variant: 'outline' })}>
              Back to Projects
            </Link>
          }
        />
      </div>
    );
  }
  if (id === undefined || deployment.isError) {
    const notFound = id === undefined || (isApiError(deployment.error) && deployment.error.status === 404);
    return (
      <div className={SECTION}>
        <BackLink slug={slug} />
        <EmptyState
          icon={<FileQuestion />}
          title={notFound ? 'Deployment not found' : 'Could not load the deployment'}
          description={notFound ? `This project has no deployment #${deploymentId}.` : errorDetail(deployment.error)}
          action={
            notFound ? (
              <Link to={`${projectBase(slug)}/deployments`} className={buttonVariants({ variant: 'outline' })}>
                All deployments
              </Link>
            ) : (
              <Button variant="outline" onClick={() => void deployment.refetch()}>
                Retry
              </Button>
            )
          }
        />
      </div>
    );
  }
  if (!project.data || !deployment.data) return <Loading />;
  return <DeploymentView key={deployment.data.id} project={project.data} deployment={deployment.data} />;
}
