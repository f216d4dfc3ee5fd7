import type { Deployment } from '@launchbay/contract';
import { GitBranch, GitCommitHorizontal } from 'lucide-react';
import { Link } from 'react-router';
import { StatusBadge } from '@/components/status-badge';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { environmentLabel, shortSha } from '@/lib/project-queries';
import { cn } from '@/lib/utils';
import { authorName, commitTitle, deploymentPath } from './model';

/** When a deployment happened, for people: its ready time, else when it was queued. */
export function deploymentTime(deployment: Deployment): string {
  return deployment.ready_at ?? deployment.finished_at ?? deployment.queued_at;
}

/** Branch and short sha, in mono. */
export function CommitRef({ deployment, className }: { deployment: Deployment; className?: string }) {
  return (
    <span className={cn('inline-flex min-w-0 items-center gap-x-2 font-mono text-xs', className)}>
      <span className="inline-flex min-w-0 items-center gap-1">
        <GitBranch className="size-3.5 shrink-0" />
        <span className="truncate">{deployment.branch}</span>
      </span>
      {deployment.commit_sha ? (
        <span className="inline-flex items-center gap-1">
          <GitCommitHorizontal className="size-3.5 shrink-0" />
          {shortSha(deployment.commit_sha)}
        </span>
      ) : null}
    </span>
  );
}

/** One deployment as a row linking to its page: status, commit title, branch/sha, who and when. */
export function DeploymentRow({
  slug,
  deployment,
  showEnvironment,
}: {
  slug: string;
  deployment: Deployment;
  showEnvironment?: boolean;
}) {
  const title = commitTitle(deployment.commit_message) || `Deployment #${deployment.id}`;
  const author = authorName(deployment.commit_author);
  const when = deploymentTime(deployment);
  return (
    <Link
      to={deploymentPath(slug, deployment)}
      className="-mx-2 grid grid-cols-[5.5rem_minmax(0,1fr)] items-start gap-3 rounded-md px-2 py-3 outline-none transition-colors hover:bg-accent/50 focus-visible:ring-2 focus-visible:ring-ring/50 sm:grid-cols-[6rem_minmax(0,1fr)_auto]"
    >
      <StatusBadge status={deployment.status} className="mt-px" />
      <div className="min-w-0 space-y-1">
        <p className="truncate font-medium text-sm">{title}</p>
        <p className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-0.5 text-muted-foreground text-xs">
          {showEnvironment ? <span>{environmentLabel(deployment.environment_name)}</span> : null}
          <CommitRef deployment={deployment} />
          {author ? <span className="truncate">by {author}</span> : null}
          {deployment.is_current ? (
            <span className="rounded-sm bg-muted px-1.5 py-px font-medium text-[10px] text-foreground uppercase tracking-wide">
              Current
            </span>
          ) : null}
        </p>
      </div>
      <span className="col-start-2 text-muted-foreground text-xs sm:col-start-auto sm:text-right" title={formatDateTime(when)}>
        #{deployment.id} · {formatRelativeTime(when)}
      </span>
    </Link>
  );
}
