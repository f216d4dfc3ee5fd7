import type { Preview, ProjectDetail } from '@launchbay/contract';
import { ArrowRight, ArrowUpRight, GitBranch, GitCommitHorizontal, GitPullRequest, ShieldCheck } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { Link } from 'react-router';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { StatusBadge } from '@/components/status-badge';
import { Badge } from '@/components/ui/badge';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card, CardAction, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail } from '@/lib/api';
import { displayUrl, shortSha } from '@/lib/project-queries';
import { useCanManage, useIsAdmin } from '@/lib/roles';
import { toast } from '@/lib/toast';
import { useApprovePreview, usePreviews } from './git-api';
import { deploymentPath, projectBase } from './model';
import { PREVIEW_STATUS_LABEL, type PreviewStatus, previewIsLive, previewStatus } from './preview-status';

const textLink =
  'rounded-sm font-medium text-foreground underline underline-offset-4 outline-none hover:text-foreground/80 focus-visible:ring-2 focus-visible:ring-ring/50';

/** A preview's state: Awaiting approval, Building, Ready, Failed (the deployment badges' looks). */
export function PreviewStatusBadge({ status }: { status: PreviewStatus }) {
  if (status === 'awaiting_approval') {
    return (
      <span
        data-slot="status-badge"
        data-status={status}
        className="inline-flex w-fit shrink-0 items-center gap-1.5 whitespace-nowrap rounded-full border border-warning/30 bg-warning/15 px-2 py-0.5 font-medium text-amber-700 text-xs dark:text-warning"
      >
        <span className="relative inline-flex size-2 shrink-0 rounded-full bg-warning" aria-hidden="true" />
        {PREVIEW_STATUS_LABEL[status]}
      </span>
    );
  }
  return <StatusBadge status={status} />;
}

function PreviewItem({
  project,
  preview,
  canApprove,
  onApprove,
}: {
  project: ProjectDetail;
  preview: Preview;
  canApprove: boolean;
  onApprove: (preview: Preview) => void;
}) {
  const status = previewStatus(preview);
  const live = previewIsLive(preview);
  const waiting = status === 'awaiting_approval';
  const title = (
    <>
      <span className="text-muted-foreground">#{preview.pr_number}</span> {preview.title}
    </>
  );
  return (
    <li className="grid grid-cols-[minmax(0,1fr)] gap-1.5 py-3 first:pt-0 last:pb-0" data-testid={`preview-${preview.pr_number}`}>
      <div className="flex items-start justify-between gap-3">
        <p className="flex min-w-0 items-center gap-2 font-medium text-sm">
          <GitPullRequest className="size-4 shrink-0 text-muted-foreground" />
          {preview.pr_url ? (
            <a
              href={preview.pr_url}
              target="_blank"
              rel="noreferrer"
              className="min-w-0 truncate underline-offset-4 hover:underline"
              title={`#${preview.pr_number} ${preview.title}`}
            >
              {title}
            </a>
          ) : (
            <span className="min-w-0 truncate" title={`#${preview.pr_number} ${preview.title}`}>
              {title}
            </span>
          )}
        </p>
        <PreviewStatusBadge status={status} />
      </div>
      <p className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-0.5 pl-6 text-muted-foreground text-xs">
        {preview.from_fork ? (
          <Badge variant="outline" className="px-1.5 py-0 font-normal">
            Fork
          </Badge>
        ) : null}
        {preview.author ? <span className="truncate">by {preview.author}</span> : null}
        <span className="inline-flex min-w-0 max-w-full items-center gap-1 font-mono">
          <GitBranch className="size-3.5 shrink-0" />
          <span className="truncate">{preview.branch}</span>
        </span>
        {preview.head_sha ? (
          <span className="inline-flex items-center gap-1 font-mono" title={preview.head_sha}>
            <GitCommitHorizontal className="size-3.5 shrink-0" />
            {shortSha(preview.head_sha)}
          </span>
        ) : null}
      </p>
      <div className="flex min-w-0 flex-wrap items-center justify-between gap-x-3 gap-y-1.5 pl-6 text-sm">
        {live ? (
          <a
            href={preview.url}
            target="_blank"
            rel="noreferrer"
            className="inline-flex min-w-0 max-w-full items-center gap-1 underline-offset-4 hover:underline"
          >
            <span className="truncate">{displayUrl(preview.url)}</span>
            <ArrowUpRight className="size-3.5 shrink-0 text-muted-foreground" />
          </a>
        ) : (
          <span className="min-w-0 max-w-full truncate text-muted-foreground" title="Not serving yet">
            {displayUrl(preview.url)}
          </span>
        )}
        <div className="flex items-center gap-3">
          {preview.deployment_id !== null ? (
            <Link
              to={deploymentPath(project.slug, { id: preview.deployment_id })}
              className="inline-flex items-center gap-1 text-muted-foreground text-xs hover:text-foreground"
            >
              {waiting && preview.deployment_commit_sha
                ? `Serves ${shortSha(preview.deployment_commit_sha)} until approved`
                : `Deployment #${preview.deployment_id}`}
              <ArrowRight className="size-3.5" />
            </Link>
          ) : waiting ? (
            <span className="text-muted-foreground text-xs">Nothing builds until someone approves it.</span>
          ) : null}
          {waiting && canApprove ? (
            <Button size="sm" variant="outline" onClick={() => onApprove(preview)} aria-label={`Approve #${preview.pr_number}`}>
              <ShieldCheck />
              Approve
            </Button>
          ) : null}
        </div>
      </div>
    </li>
  );
}

function EmptyPreviews({ project, projectOn, platformOn }: { project: ProjectDetail; projectOn: boolean; platformOn: boolean }) {
  const isAdmin = useIsAdmin();
  const gitSettings = `${projectBase(project.slug)}/settings/git`;
  let how: ReactNode;
  if (projectOn && platformOn) {
    how = `Open a pull request on ${project.repository?.full_name ?? 'the repository'}: it deploys to an address of its own.`;
  } else if (!platformOn && !projectOn) {
    how = (
      <>
        Turn on pull request previews in{' '}
        <Link to={gitSettings} className={textLink}>
          Git settings
        </Link>
        , and have an admin turn on preview environments in{' '}
        <Link to="/settings" className={textLink}>
          Settings
        </Link>
        .
      </>
    );
  } else if (!projectOn) {
    how = (
      <>
        Turn on pull request previews in{' '}
        <Link to={gitSettings} className={textLink}>
          Git settings
        </Link>{' '}
        to deploy each pull request to an address of its own.
      </>
    );
  } else {
    how = (
      <>
        Previews are on for this project, but preview environments are off for the platform:{' '}
        {isAdmin ? 'turn them on' : 'an admin turns them on'} in{' '}
        <Link to="/settings" className={textLink}>
          Settings
        </Link>
        .
      </>
    );
  }
  return (
    <div className="grid gap-1 rounded-lg border border-dashed px-4 py-5 text-center text-sm">
      <p className="font-medium">No previews</p>
      <p className="text-muted-foreground">{how}</p>
    </div>
  );
}

/** The overview's pull-request previews of a project from a git provider, with the approval of forks' ones. */
export function PreviewsCard({ project }: { project: ProjectDetail }) {
  const previews = usePreviews(project.id);
  const approve = useApprovePreview(project.id);
  const canApprove = useCanManage();
  const [approving, setApproving] = useState<Preview | null>(null);
  const list = previews.data?.previews ?? [];
  return (
    <Card className="gap-4" role="region" aria-labelledby="previews-title">
      <CardHeader>
        <CardTitle id="previews-title">Previews</CardTitle>
        <CardDescription>
          {list.length > 0
            ? `${list.length} open pull request${list.length === 1 ? '' : 's'}, each at its own address.`
            : 'Each open pull request at its own address.'}
        </CardDescription>
        <CardAction>
          <Link to={`${projectBase(project.slug)}/settings/git`} className={buttonVariants({ variant: 'ghost', size: 'sm' })}>
            Manage
          </Link>
        </CardAction>
      </CardHeader>
      <CardContent>
        {previews.isPending ? (
          <div className="grid gap-3">
            <Skeleton className="h-12 w-full" />
            <Skeleton className="h-12 w-full" />
          </div>
        ) : previews.isError ? (
          <div className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-dashed p-4 text-sm">
            <span className="text-muted-foreground">Could not load previews: {errorDetail(previews.error)}</span>
            <Button variant="outline" size="sm" onClick={() => void previews.refetch()} disabled={previews.isFetching}>
              Retry
            </Button>
          </div>
        ) : list.length === 0 ? (
          <EmptyPreviews
            project={project}
            projectOn={previews.data.previews_enabled}
            platformOn={previews.data.platform_previews_enabled}
          />
        ) : (
          <ul className="divide-y" aria-label="Previews">
            {list.map((preview) => (
              <PreviewItem
                key={preview.environment_id}
                project={project}
                preview={preview}
                canApprove={canApprove}
                onApprove={setApproving}
              />
            ))}
          </ul>
        )}
      </CardContent>
      <ConfirmDialog
        open={approving !== null}
        onOpenChange={(open) => !open && setApproving(null)}
        title={`Approve the preview of #${approving?.pr_number ?? ''}?`}
        description={
          <>
            Pull request #{approving?.pr_number} comes from a fork. Approving builds and runs its code
            {approving?.head_sha ? ` at ${shortSha(approving.head_sha)}` : ''} on this platform, with the environment variables
            marked for previews. Approve only code you have read; a new commit asks again.
          </>
        }
        confirmLabel="Approve and deploy"
        destructive={false}
        onConfirm={async () => {
          if (!approving) return;
          try {
            const preview = await approve.mutateAsync(approving);
            toast.success('Preview approved', {
              description: `Pull request #${preview.pr_number} is building at ${displayUrl(preview.url)}.`,
            });
            setApproving(null);
          } catch (error) {
            toast.error('Failed to approve preview', { description: errorDetail(error) });
          }
        }}
      />
    </Card>
  );
}
