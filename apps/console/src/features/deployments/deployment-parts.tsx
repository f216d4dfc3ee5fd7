import type { Deployment } from '@launchbay/contract';
import { GitBranch, GitCommitHorizontal } from 'lucide-react';
import { useEffect, useState } from 'react';
import { shortSha } from '@/lib/project-queries';
import { cn } from '@/lib/utils';
import { deploymentElapsed, formatElapsed, isInProgress } from './model';

/** Re-renders every `everyMs` while `active` (live durations). */
export function useNow(active: boolean, everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [active, everyMs]);
  return now;
}

/** Queued to live (or to its end), counting while it is on its way. */
export function DeploymentDuration({ deployment, className }: { deployment: Deployment; className?: string }) {
  const now = useNow(isInProgress(deployment.status));
  const elapsed = deploymentElapsed(deployment, now);
  return <span className={cn('tabular-nums', className)}>{elapsed === null ? '—' : formatElapsed(elapsed)}</span>;
}

export function CurrentBadge({ className }: { className?: string }) {
  return (
    <span
      className={cn(
        'inline-flex items-center rounded-sm border border-success/30 bg-success/10 px-1.5 py-px font-medium text-[10px] text-emerald-700 uppercase tracking-wide dark:text-success',
        className,
      )}
    >
      Current
    </span>
  );
}

export function BranchName({ branch, className }: { branch: string; className?: string }) {
  return (
    <span className={cn('inline-flex min-w-0 items-center gap-1', className)}>
      <GitBranch className="size-3.5 shrink-0 text-muted-foreground" />
      <span className="truncate font-mono text-xs">{branch}</span>
    </span>
  );
}

export function CommitSha({ sha, className }: { sha: string | null; className?: string }) {
  if (!sha) return <span className="text-muted-foreground">—</span>;
  return (
    <span className={cn('inline-flex items-center gap-1 font-mono text-xs', className)} title={sha}>
      <GitCommitHorizontal className="size-3.5 shrink-0 text-muted-foreground" />
      {shortSha(sha)}
    </span>
  );
}
