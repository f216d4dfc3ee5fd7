import type { Domain } from '@launchbay/contract';
import { CircleCheck, CircleHelp, ShieldAlert, ShieldX } from 'lucide-react';
import { DotBadge } from '@/components/status-badge';
import { formatDateTime } from '@/lib/format';
import { cn } from '@/lib/utils';
import { DOMAIN_STATUS_LABEL, type DomainStatus, expiryText, type ServedView, servedView } from './model';

const STATUS_LOOK: Record<DomainStatus, { badge: string; dot: string; active?: boolean }> = {
  active: { badge: 'border-success/25 bg-success/10 text-emerald-700 dark:text-success', dot: 'bg-success' },
  provisioning: {
    badge: 'border-sky-500/25 bg-sky-500/10 text-sky-700 dark:text-sky-300',
    dot: 'bg-sky-500',
    active: true,
  },
  pending: { badge: 'border-border bg-muted text-muted-foreground', dot: 'bg-muted-foreground/70' },
  failed: { badge: 'border-destructive/25 bg-destructive/10 text-destructive', dot: 'bg-destructive' },
};

/** A domain's status: a coloured dot (pulsing while provisioning) and Active / Provisioning / Pending / Failed. */
export function DomainStatusBadge({
  status,
  size = 'default',
  className,
}: {
  status: DomainStatus;
  size?: 'default' | 'lg';
  className?: string;
}) {
  return (
    <DotBadge
      look={STATUS_LOOK[status] ?? STATUS_LOOK.pending}
      label={DOMAIN_STATUS_LABEL[status] ?? status}
      status={status}
      slot="domain-status"
      size={size}
      className={className}
    />
  );
}

/** 'Expires in 29 days' (amber under 14 days, red once expired), or 'No certificate'. */
export function ExpiryLabel({ domain, className }: { domain: Domain; className?: string }) {
  const expiry = expiryText(domain);
  if (!expiry) return <span className={cn('text-muted-foreground', className)}>No certificate</span>;
  return (
    <span
      data-testid="domain-expiry"
      data-tone={expiry.tone}
      title={domain.expires_at ? formatDateTime(domain.expires_at) : undefined}
      className={cn(
        expiry.tone === 'warning' && 'font-medium text-amber-700 dark:text-warning',
        expiry.tone === 'destructive' && 'font-medium text-destructive',
        className,
      )}
    >
      {expiry.text}
    </span>
  );
}

const SERVED_LABEL: Record<ServedView, string> = {
  match: 'Served',
  mismatch: 'Edge serves another certificate',
  none: 'Not served',
  unreachable: 'Not served',
  unchecked: 'Not checked yet',
};

const SERVED_TITLE: Record<ServedView, string> = {
  match: 'The edge serves this certificate',
  mismatch: 'The edge serves a different certificate than the one stored for this domain',
  none: 'The edge serves no certificate for this name',
  unreachable: "The edge's HTTPS port could not be reached",
  unchecked: 'What the edge serves has not been compared with this certificate yet',
};

/**
 * The list's 'Served' column: green when the edge serves the stored certificate, red (never hidden)
 * when it serves another one, none, or cannot be reached.
 */
export function ServedIndicator({ domain }: { domain: Domain }) {
  const view = servedView(domain);
  if (view === 'unchecked' && !domain.fingerprint) return <span className="text-muted-foreground text-sm">—</span>;
  const Icon = view === 'match' ? CircleCheck : view === 'mismatch' ? ShieldAlert : view === 'unchecked' ? CircleHelp : ShieldX;
  const checked = domain.served.checked_at ? ` (checked ${formatDateTime(domain.served.checked_at)})` : '';
  return (
    <span
      data-testid="domain-served"
      data-served={view}
      title={`${SERVED_TITLE[view]}${checked}`}
      className={cn(
        'inline-flex items-start gap-1.5 text-sm',
        view === 'match' && 'text-emerald-700 dark:text-success',
        (view === 'mismatch' || view === 'none' || view === 'unreachable') && 'font-medium text-destructive',
        view === 'unchecked' && 'text-muted-foreground',
      )}
    >
      <Icon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <span className="min-w-0">{SERVED_LABEL[view]}</span>
    </span>
  );
}
