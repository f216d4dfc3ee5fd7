import type { CronExecutionStatus } from '@launchbay/contract';
import { cn } from '@/lib/utils';
import type { CronExecution } from './api';
import { formatMs } from './schedule';

const LOOK: Record<CronExecutionStatus, { label: string; badge: string; dot: string; active?: boolean }> = {
  running: {
    label: 'Running',
    badge: 'border-sky-500/25 bg-sky-500/10 text-sky-700 dark:text-sky-300',
    dot: 'bg-sky-500',
    active: true,
  },
  succeeded: {
    label: 'Succeeded',
    badge: 'border-success/25 bg-success/10 text-emerald-700 dark:text-success',
    dot: 'bg-success',
  },
  failed: {
    label: 'Failed',
    badge: 'border-destructive/25 bg-destructive/10 text-destructive',
    dot: 'bg-destructive',
  },
  skipped: {
    label: 'Skipped',
    badge: 'border-warning/30 bg-warning/15 text-amber-700 dark:text-warning',
    dot: 'bg-warning',
  },
};

export function executionStatusLabel(status: CronExecutionStatus): string {
  return LOOK[status]?.label ?? status;
}

/** An execution's status: a coloured dot and its label, like the deployments' badge. */
export function ExecutionStatusBadge({ status, className }: { status: CronExecutionStatus; className?: string }) {
  const look = LOOK[status] ?? LOOK.running;
  return (
    <span
      data-status={status}
      className={cn(
        'inline-flex w-fit shrink-0 items-center gap-1.5 whitespace-nowrap rounded-full border px-2 py-0.5 font-medium text-xs',
        look.badge,
        className,
      )}
    >
      <span className="relative flex size-2 shrink-0" aria-hidden="true">
        {look.active ? (
          <span className={cn('absolute inline-flex size-full animate-ping rounded-full opacity-60', look.dot)} />
        ) : null}
        <span className={cn('relative inline-flex size-2 rounded-full', look.dot)} />
      </span>
      {look.label}
    </span>
  );
}

/** '200 · 12 ms' (what is known of the answer). */
export function executionOutcome(execution: Pick<CronExecution, 'status_code' | 'duration_ms'>): string {
  const parts = [
    execution.status_code !== null ? String(execution.status_code) : null,
    execution.duration_ms !== null ? formatMs(execution.duration_ms) : null,
  ].filter(Boolean);
  return parts.join(' · ');
}
