import type { Environment, ProjectDetail } from '@launchbay/contract';
import { ArrowRight, ServerOff } from 'lucide-react';
import { useMemo } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { EmptyState } from '@/components/layout/page';
import { LogViewer } from '@/components/log-viewer/log-viewer';
import { StatusBadge } from '@/components/status-badge';
import { buttonVariants } from '@/components/ui/button';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail } from '@/lib/api';
import { useDocumentTitle } from '@/lib/document-title';
import { formatRelativeTime } from '@/lib/format';
import { useProjectBySlug } from '@/lib/project-queries';
import { useDeploymentDetail } from './api';
import { CommitSha } from './deployment-parts';
import { commitTitle, deploymentPath, logFilename, projectBase } from './model';
import { useDeploymentLog } from './use-deployment-log';

const SECTION = 'mx-auto flex w-full max-w-6xl flex-1 flex-col gap-5 px-4 py-6 sm:px-6 lg:px-8';

function RuntimeLog({ project, environment }: { project: ProjectDetail; environment: Environment }) {
  const currentId = environment.current_deployment_id ?? undefined;
  const deployment = useDeploymentDetail(project.id, currentId);
  const log = useDeploymentLog(project.id, currentId);
  // The app's own output and the platform's notes about it (crashes, restarts), not the build.
  const lines = useMemo(
    () =>
      log.lines.filter(
        (line) =>
          line.stream === 'stdout' || line.stream === 'stderr' || (line.stream === 'system' && !line.line.startsWith('── ')),
      ),
    [log.lines],
  );

  if (currentId === undefined) {
    return (
      <EmptyState
        icon={<ServerOff />}
        title={`Nothing runs in ${environment.name}`}
        description="Once a deployment of this environment is live, its output streams here."
        action={
          <Link to={`${projectBase(project.slug)}/deployments`} className={buttonVariants({ variant: 'outline' })}>
            View deployments
          </Link>
        }
      />
    );
  }

  const current = deployment.data;
  return (
    <div className="grid min-w-0 gap-3">
      <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-2 text-sm">
        {current ? (
          <>
            <StatusBadge status={current.status} />
            <Link
              to={deploymentPath(project.slug, current)}
              className="inline-flex min-w-0 items-center gap-1 font-medium underline-offset-4 hover:underline"
            >
              Deployment #{current.id}
              <ArrowRight className="size-3.5 shrink-0 text-muted-foreground" />
            </Link>
            <CommitSha sha={current.commit_sha} />
            <span className="min-w-0 truncate text-muted-foreground">{commitTitle(current.commit_message)}</span>
            {current.ready_at ? (
              <span className="text-muted-foreground">live since {formatRelativeTime(current.ready_at)}</span>
            ) : null}
          </>
        ) : deployment.isError ? (
          <span className="text-destructive">{errorDetail(deployment.error)}</span>
        ) : (
          <Skeleton className="h-5 w-72" />
        )}
      </div>
      <LogViewer
        lines={lines}
        connection={log.connection}
        filename={logFilename(project.slug, currentId, `${environment.slug}-runtime`)}
        label={`Runtime log of ${environment.name}`}
        showProcess
        className="h-[calc(100dvh-20rem)] min-h-96"
        emptyMessage="No output from the app yet."
        notice={
          log.dropped > 0
            ? `The first ${log.dropped.toLocaleString()} lines are not shown: the viewer keeps the latest 50,000.`
            : undefined
        }
      />
    </div>
  );
}

/** /projects/{slug}/runtime: what the app serving an environment writes (stdout, stderr), live. */
export default function RuntimePage() {
  const { slug = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const project = useProjectBySlug(slug);
  useDocumentTitle(project.data ? `Runtime · ${project.data.name}` : 'Runtime');

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
        <Skeleton className="h-96 w-full rounded-xl" />
      </div>
    );
  }
  const environments = project.data.environments;
  const chosen = params.get('environment');
  const environment =
    environments.find((env) => env.slug === chosen) ?? environments.find((env) => env.is_production) ?? environments[0];

  return (
    <div className={SECTION}>
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="min-w-0 space-y-1">
          <h2 className="font-semibold text-xl tracking-tight">Runtime</h2>
          <p className="text-muted-foreground text-sm">Live output of the app serving {environment?.name ?? 'production'}.</p>
        </div>
        {environments.length > 0 ? (
          <Select
            value={environment?.slug}
            onValueChange={(value) =>
              setParams(
                (current) => {
                  const next = new URLSearchParams(current);
                  next.set('environment', value);
                  return next;
                },
                { replace: true },
              )
            }
          >
            <SelectTrigger className="w-full sm:w-48" aria-label="Environment">
              <SelectValue />
            </SelectTrigger>
            <SelectContent>
              {environments.map((env) => (
                <SelectItem key={env.id} value={env.slug}>
                  <span className="capitalize">{env.name}</span>
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
        ) : null}
      </div>
      {environment ? (
        <RuntimeLog key={environment.id} project={project.data} environment={environment} />
      ) : (
        <EmptyState icon={<ServerOff />} title="No environments" description="This project has no environment to run in." />
      )}
    </div>
  );
}
