import type { Environment, ProjectDetail } from '@launchbay/contract';
import { ArrowRight, ArrowUpRight, KeyRound, Layers, Rocket, RotateCw, TriangleAlert } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { EmptyState } from '@/components/layout/page';
import { isDeploymentActive, StatusBadge } from '@/components/status-badge';
import { Badge } from '@/components/ui/badge';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card, CardAction, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { CopyButton } from '@/components/ui/copy-button';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail } from '@/lib/api';
import { useDocumentTitle } from '@/lib/document-title';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import {
  type Deployment,
  displayRepository,
  displayUrl,
  environmentLabel,
  shortSha,
  useProjectDeployments,
} from '@/lib/project-queries';
import { usePresets } from './api';
import { CommitRef, DeploymentRow, deploymentTime } from './deployment-bits';
import { GitRemoteCard } from './git-remote-card';
import {
  authorName,
  commitTitle,
  deploymentPath,
  productionOf,
  projectBase,
  SECTION,
  useCurrentDeployment,
  useRouteProject,
} from './model';
import { PreviewsCard } from './previews-card';
import { useRedeploy } from './redeploy';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid min-w-0 content-start gap-1.5">
      <dt className="text-muted-foreground text-xs">{label}</dt>
      <dd className="min-w-0 text-sm">{children}</dd>
    </div>
  );
}

function LiveAddress({ url }: { url: string }) {
  return (
    <div className="flex min-w-0 items-center gap-1">
      <a
        href={url}
        target="_blank"
        rel="noreferrer"
        className="inline-flex min-w-0 items-center gap-1 font-medium underline-offset-4 hover:underline"
      >
        <span className="truncate">{displayUrl(url)}</span>
        <ArrowUpRight className="size-3.5 shrink-0 text-muted-foreground" />
      </a>
      <CopyButton value={url} iconOnly label="Copy address" variant="ghost" size="icon-sm" className="size-7" />
    </div>
  );
}

/** The newest deployment when it is not what production serves: on its way, or failed. */
function PendingNotice({ project, latest, current }: { project: ProjectDetail; latest: Deployment; current: Deployment | null }) {
  if (current && latest.id === current.id) return null;
  if (latest.environment_id !== productionOf(project)?.id) return null;
  const active = isDeploymentActive(latest.status);
  const failed = latest.status === 'failed' || latest.status === 'crashed';
  if (!active && !failed) return null;
  return (
    <div
      className={
        failed
          ? 'flex flex-wrap items-center gap-3 rounded-lg border border-destructive/30 bg-destructive/5 px-4 py-3 text-sm'
          : 'flex flex-wrap items-center gap-3 rounded-lg border bg-muted/40 px-4 py-3 text-sm'
      }
    >
      {failed ? (
        <TriangleAlert className="size-4 shrink-0 text-destructive" />
      ) : (
        <Spinner className="size-3.5 text-muted-foreground" />
      )}
      <p className="min-w-0 flex-1">
        {failed ? (
          <>
            <span className="font-medium">The latest deployment {latest.status === 'crashed' ? 'crashed' : 'failed'}.</span>{' '}
            <span className="text-muted-foreground">
              {latest.error ?? ''}
              {current ? ' Production still serves the previous deployment.' : ''}
            </span>
          </>
        ) : (
          <>
            <span className="font-medium">
              Deployment #{latest.id} is {latest.status}.
            </span>{' '}
            <span className="text-muted-foreground">
              {current ? 'Production switches to it once it is ready.' : 'The address goes live once it is ready.'}
            </span>
          </>
        )}
      </p>
      <Link to={deploymentPath(project.slug, latest)} className={buttonVariants({ variant: 'outline', size: 'sm' })}>
        {failed ? 'View logs' : 'View progress'}
      </Link>
    </div>
  );
}

function ProductionCard({ project }: { project: ProjectDetail }) {
  const { deployment: current, isPending } = useCurrentDeployment(project);
  const latest = project.last_deployment;
  const { redeploy, pending } = useRedeploy(project);
  const shown = current ?? latest;

  const redeployButton = (
    <Button variant="outline" size="sm" onClick={() => void redeploy()} disabled={pending}>
      {pending ? <Spinner /> : <RotateCw />}
      Redeploy
    </Button>
  );

  return (
    <Card className="gap-5" role="region" aria-labelledby="production-deployment-title">
      <CardHeader>
        <CardTitle id="production-deployment-title">Production deployment</CardTitle>
        <CardDescription>
          {current
            ? 'What the production address serves now.'
            : 'The production address goes live with the first ready deployment.'}
        </CardDescription>
        {shown ? <CardAction>{redeployButton}</CardAction> : null}
      </CardHeader>
      <CardContent className="grid grid-cols-[minmax(0,1fr)] gap-5">
        {latest ? <PendingNotice project={project} latest={latest} current={current} /> : null}
        {isPending ? (
          <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
            {Array.from({ length: 4 }, (_, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
              <Skeleton key={index} className="h-10 w-full" />
            ))}
          </div>
        ) : !shown ? (
          <EmptyState
            icon={<Rocket />}
            title="Not deployed yet"
            description={
              project.deploy_key_public
                ? 'Add the deploy key below to the repository, then deploy.'
                : `Deploy the head of ${project.branch} to give the project its address.`
            }
            action={
              <Button onClick={() => void redeploy()} disabled={pending}>
                {pending ? <Spinner /> : <Rocket />}
                Deploy
              </Button>
            }
            className="py-10"
          />
        ) : (
          <dl className="grid grid-cols-2 gap-x-6 gap-y-5 lg:grid-cols-[minmax(0,1.6fr)_repeat(3,minmax(0,1fr))]">
            <div className="col-span-2 grid min-w-0 content-start gap-1.5 lg:col-span-1">
              <dt className="text-muted-foreground text-xs">Live address</dt>
              <dd className="min-w-0 text-sm">
                {project.url && current ? (
                  <LiveAddress url={project.url} />
                ) : (
                  <span className="text-muted-foreground">{project.url ? displayUrl(project.url) : '—'} (not live yet)</span>
                )}
              </dd>
            </div>
            <Field label="Status">
              <div className="flex flex-wrap items-center gap-2">
                <StatusBadge status={shown.status} />
                <span className="text-muted-foreground text-xs" title={formatDateTime(deploymentTime(shown))}>
                  {formatRelativeTime(deploymentTime(shown))}
                </span>
              </div>
            </Field>
            <Field label="Source">
              <CommitRef deployment={shown} className="text-foreground" />
            </Field>
            <Field label="Author">
              <span className="block truncate">{authorName(shown.commit_author) || '—'}</span>
            </Field>
            <div className="col-span-2 grid min-w-0 gap-1.5 lg:col-span-4">
              <dt className="text-muted-foreground text-xs">Current deployment</dt>
              <dd className="flex min-w-0 flex-wrap items-center justify-between gap-2 rounded-lg border bg-muted/30 px-3 py-2.5">
                <span className="min-w-0 text-sm">
                  <span className="font-mono text-muted-foreground text-xs">{shortSha(shown.commit_sha) || `#${shown.id}`}</span>{' '}
                  <span className="font-medium">{commitTitle(shown.commit_message) || `Deployment #${shown.id}`}</span>
                </span>
                <Link
                  to={deploymentPath(project.slug, shown)}
                  className="inline-flex items-center gap-1 text-muted-foreground text-sm hover:text-foreground"
                >
                  Deployment #{shown.id}
                  <ArrowRight className="size-3.5" />
                </Link>
              </dd>
            </div>
          </dl>
        )}
      </CardContent>
    </Card>
  );
}

function EnvironmentItem({ project, environment }: { project: ProjectDetail; environment: Environment }) {
  const { deployment, isPending } = useCurrentDeployment(project, environment);
  return (
    <li className="grid gap-1.5 py-3 first:pt-0 last:pb-0">
      <div className="flex items-center justify-between gap-2">
        <span className="flex min-w-0 items-center gap-2">
          <span className="truncate font-medium text-sm">{environmentLabel(environment.name)}</span>
          {environment.is_production && environment.name !== 'production' ? <Badge variant="secondary">Production</Badge> : null}
        </span>
        {isPending ? (
          <Skeleton className="h-5 w-16 rounded-full" />
        ) : deployment ? (
          <StatusBadge status={deployment.status} />
        ) : (
          <span className="text-muted-foreground text-xs">Not deployed</span>
        )}
      </div>
      {deployment ? (
        <a
          href={environment.url}
          target="_blank"
          rel="noreferrer"
          className="inline-flex min-w-0 items-center gap-1 text-sm underline-offset-4 hover:underline"
        >
          <span className="truncate">{displayUrl(environment.url)}</span>
          <ArrowUpRight className="size-3.5 shrink-0 text-muted-foreground" />
        </a>
      ) : (
        <span className="truncate text-muted-foreground text-sm">{displayUrl(environment.url)}</span>
      )}
      <p className="flex min-w-0 flex-wrap items-center gap-x-2 text-muted-foreground text-xs">
        <span className="font-mono">{environment.branch}</span>
        {deployment ? (
          <>
            <span aria-hidden="true">·</span>
            <Link to={deploymentPath(project.slug, deployment)} className="font-mono hover:text-foreground">
              {shortSha(deployment.commit_sha) || `#${deployment.id}`}
            </Link>
            <span aria-hidden="true">·</span>
            <span title={formatDateTime(deploymentTime(deployment))}>{formatRelativeTime(deploymentTime(deployment))}</span>
          </>
        ) : null}
      </p>
    </li>
  );
}

function EnvironmentsCard({ project }: { project: ProjectDetail }) {
  return (
    <Card className="gap-4" role="region" aria-labelledby="environments-title">
      <CardHeader>
        <CardTitle id="environments-title">Environments</CardTitle>
        <CardDescription>Each deploys a branch to its own address.</CardDescription>
        <CardAction>
          <Link
            to={`${projectBase(project.slug)}/settings/environments`}
            className={buttonVariants({ variant: 'ghost', size: 'sm' })}
          >
            Manage
          </Link>
        </CardAction>
      </CardHeader>
      <CardContent>
        {project.environments.length === 0 ? (
          <p className="text-muted-foreground text-sm">No environments yet.</p>
        ) : (
          <ul className="divide-y" aria-label="Environments">
            {project.environments.map((environment) => (
              <EnvironmentItem key={environment.id} project={project} environment={environment} />
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}

function LatestDeploymentsCard({ project }: { project: ProjectDetail }) {
  const deployments = useProjectDeployments(project.id, { perPage: 5 });
  const multiEnv = project.environments.length > 1;
  return (
    <Card className="gap-3" role="region" aria-labelledby="latest-deployments-title">
      <CardHeader>
        <CardTitle id="latest-deployments-title">Latest deployments</CardTitle>
        <CardDescription>
          {deployments.data ? `${deployments.data.total} in total.` : 'The five most recent, newest first.'}
        </CardDescription>
        <CardAction>
          <Link to={`${projectBase(project.slug)}/deployments`} className={buttonVariants({ variant: 'ghost', size: 'sm' })}>
            View all
            <ArrowRight />
          </Link>
        </CardAction>
      </CardHeader>
      <CardContent>
        {deployments.isPending ? (
          <div className="grid gap-3">
            {Array.from({ length: 3 }, (_, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
              <Skeleton key={index} className="h-11 w-full" />
            ))}
          </div>
        ) : deployments.isError ? (
          <div className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-dashed p-4 text-sm">
            <span className="text-muted-foreground">Could not load deployments: {errorDetail(deployments.error)}</span>
            <Button variant="outline" size="sm" onClick={() => void deployments.refetch()}>
              Retry
            </Button>
          </div>
        ) : deployments.data.deployments.length === 0 ? (
          <p className="py-6 text-center text-muted-foreground text-sm">No deployments yet.</p>
        ) : (
          <ul className="divide-y" aria-label="Latest deployments">
            {deployments.data.deployments.map((deployment) => (
              <li key={deployment.id}>
                <DeploymentRow slug={project.slug} deployment={deployment} showEnvironment={multiEnv} />
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}

function SourceCard({ project }: { project: ProjectDetail }) {
  const repository = displayRepository(project.git_url);
  const webUrl = project.git_url?.startsWith('https://') ? project.git_url.replace(/\.git$/, '') : null;
  const presets = usePresets();
  const frameworkSlug = project.last_deployment?.preset ?? project.preset;
  const framework = presets.data?.find((preset) => preset.slug === frameworkSlug)?.name ?? frameworkSlug;
  return (
    <Card className="gap-4">
      <CardHeader>
        <CardTitle>Source</CardTitle>
        <CardDescription>Where the code comes from and how it is built.</CardDescription>
      </CardHeader>
      <CardContent>
        <dl className="grid grid-cols-[minmax(0,1fr)] gap-4">
          <Field label="Repository">
            {webUrl ? (
              <a
                href={webUrl}
                target="_blank"
                rel="noreferrer"
                className="inline-flex max-w-full items-center gap-1 underline-offset-4 hover:underline"
              >
                <span className="truncate">{repository}</span>
                <ArrowUpRight className="size-3.5 shrink-0 text-muted-foreground" />
              </a>
            ) : (
              <span className="block truncate">{repository || (project.git_url ? '—' : 'git push to Launchbay')}</span>
            )}
          </Field>
          <div className="grid grid-cols-2 gap-4">
            <Field label="Production branch">
              <span className="font-mono">{project.branch}</span>
            </Field>
            <Field label="Root directory">
              <span className="font-mono">{project.root_directory === '.' ? './' : project.root_directory}</span>
            </Field>
          </div>
          <Field label="Framework">
            <span className="inline-flex items-center gap-1.5">
              <Layers className="size-3.5 text-muted-foreground" />
              {framework ?? 'Detected at build time'}
            </span>
          </Field>
        </dl>
        <Link
          to={`${projectBase(project.slug)}/settings/general`}
          className="mt-4 inline-flex items-center gap-1 text-muted-foreground text-sm hover:text-foreground"
        >
          Build settings <ArrowRight className="size-3.5" />
        </Link>
      </CardContent>
    </Card>
  );
}

function DeployKeyCard({ publicKey }: { publicKey: string }) {
  return (
    <Card className="gap-4 border-warning/40">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <KeyRound className="size-4" />
          Deploy key
        </CardTitle>
        <CardDescription>
          This project reads its repository over SSH. Add this public key to the repository's deploy keys (read-only is enough),
          then deploy.
        </CardDescription>
        <CardAction>
          <CopyButton value={publicKey} label="Copy key" />
        </CardAction>
      </CardHeader>
      <CardContent>
        <pre className="overflow-x-auto whitespace-pre-wrap break-all rounded-lg border bg-muted/40 p-3 font-mono text-xs">
          {publicKey}
        </pre>
      </CardContent>
    </Card>
  );
}

/** /projects/{slug}: what production serves, the environments and the latest deployments. */
export default function ProjectOverviewPage() {
  const { data: project } = useRouteProject();
  useDocumentTitle(project?.name ?? 'Project');
  if (!project) return null;
  return (
    <div className={SECTION}>
      <ProductionCard project={project} />
      {project.deploy_key_public ? <DeployKeyCard publicKey={project.deploy_key_public} /> : null}
      <div className="grid grid-cols-[minmax(0,1fr)] items-start gap-6 lg:grid-cols-3">
        <div className="grid grid-cols-[minmax(0,1fr)] gap-6 lg:col-span-2">
          <LatestDeploymentsCard project={project} />
          {project.repository ? <PreviewsCard project={project} /> : null}
        </div>
        <div className="grid grid-cols-[minmax(0,1fr)] gap-6">
          <EnvironmentsCard project={project} />
          {project.git_url ? null : <GitRemoteCard project={project} />}
          <SourceCard project={project} />
        </div>
      </div>
    </div>
  );
}
