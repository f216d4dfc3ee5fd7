import type { DeploymentStatus } from '@launchbay/contract';
import { cn } from '@/lib/utils';

export interface StatusLook {
  label: string;
  /** Badge background, border and text. */
  badge: string;
  /** The dot before the label. */
  dot: string;
  /** Still moving: the dot pulses. */
  active?: boolean;
}

/** One look per deployment status, shared by every screen that shows a deployment. */
export const DEPLOYMENT_STATUS: Record<DeploymentStatus, StatusLook> = {
  queued: {
    label: 'Queued',
    badge: 'border-border bg-muted text-muted-foreground',
    dot: 'bg-muted-foreground/70',
    active: true,
  },
  building: {
    label: 'Building',
    badge: 'border-sky-500/25 bg-sky-500/10 text-sky-700 dark:text-sky-300',
    dot: 'bg-sky-500',
    active: true,
  },
  deploying: {
    label: 'Deploying',
    badge: 'border-violet-500/25 bg-violet-500/10 text-violet-700 dark:text-violet-300',
    dot: 'bg-violet-500',
    active: true,
  },
  ready: {
    label: 'Ready',
    badge: 'border-success/25 bg-success/10 text-emerald-700 dark:text-success',
    dot: 'bg-success',
  },
  failed: {
    label: 'Failed',
    badge: 'border-destructive/25 bg-destructive/10 text-destructive',
    dot: 'bg-destructive',
  },
  crashed: {
    label: 'Crashed',
    badge: 'border-orange-500/25 bg-orange-500/10 text-orange-700 dark:text-orange-300',
    dot: 'bg-orange-500',
  },
  cancelled: {
    label: 'Cancelled',
    badge: 'border-border bg-transparent text-muted-foreground',
    dot: 'bg-muted-foreground/40',
  },
  paused: {
    label: 'Paused',
    badge: 'border-warning/30 bg-warning/15 text-amber-700 dark:text-warning',
    dot: 'bg-warning',
  },
};

/** Statuses of a deployment still on its way (queued, building, deploying). */
export function isDeploymentActive(status: DeploymentStatus): boolean {
  return DEPLOYMENT_STATUS[status]?.active === true;
}

export function deploymentStatusLabel(status: DeploymentStatus): string {
  return DEPLOYMENT_STATUS[status]?.label ?? status;
}

/**
 * A status as a pill: a coloured dot (pulsing while the thing is still moving) and its label.
 * `size="lg"` for page headers. Every status badge of the console (deployments, domains) is one.
 */
export function DotBadge({
  look,
  label,
  status,
  slot = 'status-badge',
  size = 'default',
  className,
}: {
  look: Omit<StatusLook, 'label'>;
  label: string;
  status: string;
  slot?: string;
  size?: 'default' | 'lg';
  className?: string;
}) {
  return (
    <span
      data-slot={slot}
      data-status={status}
      className={cn(
        'inline-flex w-fit shrink-0 items-center gap-1.5 whitespace-nowrap rounded-full border font-medium',
        size === 'lg' ? 'px-2.5 py-1 text-sm' : 'px-2 py-0.5 text-xs',
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
      {label}
    </span>
  );
}

/** A deployment's status ('Ready', 'Building', ...). */
export function StatusBadge({
  status,
  size = 'default',
  className,
}: {
  status: DeploymentStatus;
  size?: 'default' | 'lg';
  className?: string;
}) {
  const look = DEPLOYMENT_STATUS[status] ?? DEPLOYMENT_STATUS.queued;
  return <DotBadge look={look} label={look.label} status={status} size={size} className={className} />;
}
