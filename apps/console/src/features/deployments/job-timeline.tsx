import { Ban, CircleCheck, CircleDashed, CircleMinus, CircleX, LoaderCircle } from 'lucide-react';
import { Skeleton } from '@/components/ui/skeleton';
import { cn } from '@/lib/utils';
import { useNow } from './deployment-parts';
import { type DeploymentStep, formatElapsed, stepElapsed, stepLabel } from './model';

const STEP_LOOK: Record<DeploymentStep['status'], { label: string; icon: typeof CircleCheck; className: string }> = {
  pending: { label: 'Pending', icon: CircleDashed, className: 'text-muted-foreground/60' },
  running: { label: 'Running', icon: LoaderCircle, className: 'animate-spin text-sky-600 dark:text-sky-400' },
  succeeded: { label: 'Succeeded', icon: CircleCheck, className: 'text-success' },
  failed: { label: 'Failed', icon: CircleX, className: 'text-destructive' },
  skipped: { label: 'Skipped', icon: CircleMinus, className: 'text-muted-foreground/70' },
  cancelled: { label: 'Cancelled', icon: Ban, className: 'text-muted-foreground' },
};
/** A step still 'pending' once its deployment has ended (a step before it failed) never ran. */
const NOT_RUN = { label: 'Not run', icon: CircleMinus, className: 'text-muted-foreground/50' };

function StepRow({
  step,
  now,
  last,
  ended,
  onSelect,
}: {
  step: DeploymentStep;
  now: number;
  last: boolean;
  ended: boolean;
  onSelect?: (step: DeploymentStep) => void;
}) {
  const look = ended && step.status === 'pending' ? NOT_RUN : (STEP_LOOK[step.status] ?? STEP_LOOK.pending);
  const Icon = look.icon;
  const elapsed = stepElapsed(step, now);
  const muted = step.status === 'pending' || step.status === 'skipped';
  const canJump = !!onSelect && step.status !== 'pending' && step.status !== 'skipped';
  const body = (
    <>
      <Icon className={cn('mt-0.5 size-4 shrink-0', look.className)} aria-hidden="true" />
      <span className="grid min-w-0 flex-1 gap-0.5">
        <span className="flex items-baseline justify-between gap-3">
          <span className={cn('truncate font-medium text-sm', muted && 'text-muted-foreground')}>{stepLabel(step.name)}</span>
          <span className="shrink-0 text-muted-foreground text-xs tabular-nums">
            {elapsed !== null ? formatElapsed(elapsed) : step.status === 'skipped' || look === NOT_RUN ? look.label : ''}
          </span>
        </span>
        {step.detail ? (
          <span
            className={cn(
              'line-clamp-2 break-words text-xs',
              step.status === 'failed' ? 'text-destructive' : 'text-muted-foreground',
            )}
            title={step.detail}
          >
            {step.detail}
          </span>
        ) : null}
      </span>
      <span className="sr-only">{look.label}</span>
    </>
  );
  return (
    <li data-step={step.name} data-status={step.status} className="relative">
      {last ? null : (
        // The line from this step's icon to the next one's.
        <span
          aria-hidden="true"
          className={cn(
            'absolute top-7 bottom-[-0.375rem] left-[15.5px] w-px',
            step.status === 'succeeded' ? 'bg-success/40' : 'bg-border',
          )}
        />
      )}
      {canJump ? (
        <button
          type="button"
          onClick={() => onSelect?.(step)}
          aria-label={`${stepLabel(step.name)}: ${look.label.toLowerCase()}${elapsed !== null ? `, ${formatElapsed(elapsed)}` : ''}. Show in the log`}
          className="flex w-full items-start gap-3 rounded-md px-2 py-1.5 text-left outline-none transition-colors hover:bg-accent/60 focus-visible:ring-2 focus-visible:ring-ring/50"
        >
          {body}
        </button>
      ) : (
        <div className="flex items-start gap-3 px-2 py-1.5">{body}</div>
      )}
    </li>
  );
}

/**
 * The pipeline as a list of steps (clone, configure, restore cache, install, build, save cache,
 * start, health check, switch, drain; a rollback starts at start): an icon per state, a spinner
 * on the running one, durations counting while they run, and each step's detail.
 */
export function JobTimeline({
  steps,
  isPending,
  ended = false,
  onSelect,
}: {
  steps: DeploymentStep[] | undefined;
  isPending: boolean;
  /** The deployment has ended (failed, cancelled...): steps still pending will not run. */
  ended?: boolean;
  onSelect?: (step: DeploymentStep) => void;
}) {
  const running = steps?.some((step) => step.status === 'running') ?? false;
  const now = useNow(running, 500);
  if (isPending || !steps) {
    return (
      <div className="grid gap-3 px-2 py-1.5" role="status" aria-busy="true" aria-label="Loading the pipeline">
        {Array.from({ length: 6 }, (_, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
          <div key={index} className="flex items-center gap-3">
            <Skeleton className="size-4 rounded-full" />
            <Skeleton className="h-4 flex-1" />
          </div>
        ))}
      </div>
    );
  }
  if (steps.length === 0) {
    return <p className="px-2 py-1.5 text-muted-foreground text-sm">No steps recorded for this deployment.</p>;
  }
  return (
    <ol className="grid gap-0.5" aria-label="Pipeline steps">
      {steps.map((step, index) => (
        <StepRow key={step.id} step={step} now={now} last={index === steps.length - 1} ended={ended} onSelect={onSelect} />
      ))}
    </ol>
  );
}
