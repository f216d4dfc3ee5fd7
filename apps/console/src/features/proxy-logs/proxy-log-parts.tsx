import type { StatusClass } from '@launchbay/contract';
import { ArrowLeft } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { cn } from '@/lib/utils';
import { durationTone, formatDurationMs, statusClassOf } from './model';

const STATUS_LOOK: Record<StatusClass, string> = {
  '1xx': 'border-border bg-muted text-muted-foreground',
  '2xx': 'border-success/25 bg-success/10 text-emerald-700 dark:text-success',
  '3xx': 'border-sky-500/25 bg-sky-500/10 text-sky-700 dark:text-sky-300',
  '4xx': 'border-warning/35 bg-warning/15 text-amber-700 dark:text-warning',
  '5xx': 'border-destructive/25 bg-destructive/10 text-destructive',
};

/** An HTTP status code as a badge coloured by its class (2xx green, 3xx blue, 4xx amber, 5xx red). */
export function HttpStatus({ code, className }: { code: number; className?: string }) {
  const statusClass = statusClassOf(code);
  return (
    <span
      data-slot="http-status"
      data-status-class={statusClass ?? 'other'}
      className={cn(
        'inline-flex w-fit shrink-0 items-center rounded-md border px-1.5 py-px font-medium font-mono text-xs tabular-nums',
        statusClass ? STATUS_LOOK[statusClass] : 'border-border text-muted-foreground',
        className,
      )}
    >
      {code}
    </span>
  );
}

export function Method({ method, className }: { method: string; className?: string }) {
  return (
    <span
      className={cn(
        'font-medium font-mono text-xs',
        method === 'GET' || method === 'HEAD' ? 'text-muted-foreground' : 'text-foreground',
        className,
      )}
    >
      {method}
    </span>
  );
}

export function Duration({ ms, className }: { ms: number; className?: string }) {
  const tone = durationTone(ms);
  return (
    <span
      className={cn(
        'font-mono text-xs tabular-nums',
        tone === 'very-slow' ? 'text-destructive' : tone === 'slow' ? 'text-amber-700 dark:text-warning' : 'text-foreground',
        className,
      )}
    >
      {formatDurationMs(ms)}
    </span>
  );
}

/** A dot for live things: it pulses while `active`; with `settle`, a few times and then it rests. */
export function LiveDot({
  active = true,
  settle = false,
  className,
}: {
  active?: boolean;
  settle?: boolean;
  className?: string;
}) {
  return (
    <span className={cn('relative flex size-2 shrink-0', className)} aria-hidden="true">
      {active ? (
        <span
          className={cn(
            'absolute inline-flex size-full animate-ping rounded-full bg-success opacity-60',
            settle && '[animation-fill-mode:forwards] [animation-iteration-count:4]',
          )}
        />
      ) : null}
      <span className={cn('relative inline-flex size-2 rounded-full', active ? 'bg-success' : 'bg-muted-foreground/40')} />
    </span>
  );
}

export const Mono = ({ children, className }: { children: ReactNode; className?: string }) => (
  <span className={cn('font-mono text-xs', className)}>{children}</span>
);

export const Missing = ({ children = '—' }: { children?: ReactNode }) => (
  <span className="text-muted-foreground">{children}</span>
);

export function BackLink({ to, label }: { to: string; label: string }) {
  return (
    <Link
      to={to}
      className="inline-flex w-fit items-center gap-1.5 rounded-sm text-muted-foreground text-sm outline-none transition-colors hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring/50"
    >
      <ArrowLeft className="size-4" />
      {label}
    </Link>
  );
}

export const linkClass =
  'rounded-sm underline-offset-4 outline-none hover:underline focus-visible:ring-2 focus-visible:ring-ring/50';
