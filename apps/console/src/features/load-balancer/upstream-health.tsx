import type { LbHealthCheck } from '@launchbay/contract';
import { Tooltip, TooltipContent, TooltipTrigger } from '@/components/ui/tooltip';
import { formatDateTime } from '@/lib/format';
import { cn } from '@/lib/utils';
import { healthCheckSummary, type LbUpstreamHealth, relativeSeconds } from './model';

export type HealthState = 'healthy' | 'unhealthy' | 'unchecked' | 'off';

const LOOK: Record<HealthState, { label: string; badge: string; dot: string }> = {
  healthy: {
    label: 'Healthy',
    badge: 'border-success/25 bg-success/10 text-emerald-700 dark:text-success',
    dot: 'bg-success',
  },
  unhealthy: {
    label: 'Unhealthy',
    badge: 'border-destructive/25 bg-destructive/10 text-destructive',
    dot: 'bg-destructive',
  },
  unchecked: {
    label: 'Not checked yet',
    badge: 'border-border bg-muted text-muted-foreground',
    dot: 'bg-muted-foreground/60',
  },
  off: {
    label: 'Health checks off',
    badge: 'border-border bg-transparent text-muted-foreground',
    dot: 'bg-muted-foreground/40',
  },
};

export function healthState(health: Pick<LbUpstreamHealth, 'healthy'> | undefined, checksEnabled: boolean): HealthState {
  if (!checksEnabled) return 'off';
  if (!health || health.healthy === null) return 'unchecked';
  return health.healthy ? 'healthy' : 'unhealthy';
}

/** One upstream's health: a coloured dot and 'Healthy', 'Unhealthy', 'Not checked yet' or 'Health checks off'. */
export function HealthBadge({ state, className }: { state: HealthState; className?: string }) {
  const look = LOOK[state];
  return (
    <span
      data-slot="health-badge"
      data-state={state}
      className={cn(
        'inline-flex w-fit shrink-0 items-center gap-1.5 whitespace-nowrap rounded-full border px-2 py-0.5 font-medium text-xs',
        look.badge,
        className,
      )}
    >
      <span className={cn('inline-flex size-2 shrink-0 rounded-full', look.dot)} aria-hidden="true" />
      {look.label}
    </span>
  );
}

function tooltipText(health: LbUpstreamHealth, state: HealthState, check: LbHealthCheck): string {
  if (state === 'off') return 'The edge sends requests in turn without checking this upstream.';
  if (state === 'unchecked') return `Waiting for the first check (${healthCheckSummary(check) ?? ''}).`;
  const since = `${state === 'healthy' ? 'Healthy' : 'Unhealthy'} since ${formatDateTime(health.since)}`;
  const checked = health.checked_at ? `, last checked ${relativeSeconds(health.checked_at)}` : '';
  return state === 'unhealthy'
    ? `${since}${checked}. It gets no requests until it answers its health check again.`
    : `${since}${checked}.`;
}

/**
 * One upstream and what the edge last saw of it: the address, its badge (the tooltip says since
 * when and when it was last checked) and, when unhealthy, the error and since when under it.
 */
export function UpstreamHealthItem({ health, check }: { health: LbUpstreamHealth; check: LbHealthCheck }) {
  const state = healthState(health, check.enabled);
  return (
    <li className="grid min-w-0 gap-1" data-testid="upstream-health" data-upstream={health.upstream}>
      <div className="flex min-w-0 flex-wrap items-center justify-between gap-x-3 gap-y-1">
        <code className="min-w-0 truncate font-mono text-xs" title={health.upstream}>
          {health.upstream}
        </code>
        <Tooltip>
          <TooltipTrigger asChild>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the badge's tooltip must be reachable by keyboard */}
            <span tabIndex={0} className="rounded-full outline-none focus-visible:ring-2 focus-visible:ring-ring/50">
              <HealthBadge state={state} />
            </span>
          </TooltipTrigger>
          <TooltipContent className="max-w-72">{tooltipText(health, state, check)}</TooltipContent>
        </Tooltip>
      </div>
      {state === 'unhealthy' ? (
        <p className="min-w-0 text-destructive text-xs">
          <span className="break-words">{health.error ?? 'Health check failed'}</span>
          <span className="text-muted-foreground"> · since {relativeSeconds(health.since)}</span>
        </p>
      ) : null}
    </li>
  );
}

/** Every upstream of a route; an environment not checked yet has none listed, so its state shows alone. */
export function UpstreamHealthList({ upstreams, check }: { upstreams: LbUpstreamHealth[]; check: LbHealthCheck }) {
  if (upstreams.length === 0) {
    return <HealthBadge state={healthState(undefined, check.enabled)} />;
  }
  return (
    <ul className="grid min-w-0 gap-2" aria-label="Upstream health">
      {upstreams.map((health) => (
        <UpstreamHealthItem key={health.upstream} health={health} check={check} />
      ))}
    </ul>
  );
}
