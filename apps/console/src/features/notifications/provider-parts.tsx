import type { NotificationProvider, ProviderType } from '@launchbay/contract';
import { AlertTriangle, CheckCircle2, Clock, Mail, MinusCircle, Slack, XCircle } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { cn } from '@/lib/utils';

export const PROVIDER_TYPE_LABEL: Record<ProviderType, string> = { email: 'Email', slack: 'Slack' };

export function ProviderIcon({ type, className }: { type: ProviderType; className?: string }) {
  return (
    <span
      aria-hidden
      className={cn('flex size-10 shrink-0 items-center justify-center rounded-lg border bg-muted/50 text-foreground', className)}
    >
      {type === 'email' ? <Mail className="size-5" /> : <Slack className="size-5" />}
    </span>
  );
}

export function ProviderTypeBadge({ type }: { type: ProviderType }) {
  return <Badge variant="secondary">{PROVIDER_TYPE_LABEL[type]}</Badge>;
}

/** The email's sender or the Slack webhook (masked by the server), as shown on cards. */
export function providerTarget(provider: NotificationProvider): { label: string; value: string } {
  if (provider.provider_type === 'email') return { label: 'From', value: provider.config.from_address };
  return { label: 'Webhook', value: provider.config.webhook_url };
}

/** Re-renders every 30 s so relative times stay true while the page is open. */
function useNow(intervalMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** 'Last delivery: sent 5 minutes ago', or the failure in red. */
export function LastDelivery({ delivery, className }: { delivery: NotificationProvider['last_delivery']; className?: string }) {
  const now = useNow();
  if (!delivery) {
    return (
      <p className={cn('flex items-center gap-1.5 text-muted-foreground text-xs', className)}>
        <MinusCircle className="size-3.5 shrink-0" />
        No deliveries yet
      </p>
    );
  }
  const when = formatRelativeTime(delivery.at, now);
  const title = formatDateTime(delivery.at);
  if (delivery.status === 'failed') {
    return (
      <p className={cn('flex items-start gap-1.5 text-destructive text-xs', className)} title={title}>
        <XCircle className="mt-px size-3.5 shrink-0" />
        <span className="min-w-0 break-words">
          Last delivery failed {when}
          {delivery.error ? `: ${delivery.error}` : ''}
        </span>
      </p>
    );
  }
  if (delivery.status === 'sent') {
    return (
      <div className={cn('grid gap-1 text-xs', className)} title={title}>
        <p className="flex items-center gap-1.5 text-muted-foreground">
          <CheckCircle2 className="size-3.5 shrink-0 text-success" />
          Last delivery: sent {when}
        </p>
        {delivery.error ? (
          <p className="flex items-start gap-1.5 text-amber-700 dark:text-warning">
            <AlertTriangle className="mt-px size-3.5 shrink-0" />
            <span className="min-w-0 break-words">{delivery.error}</span>
          </p>
        ) : null}
      </div>
    );
  }
  if (delivery.status === 'cancelled') {
    return (
      <p className={cn('flex items-center gap-1.5 text-muted-foreground text-xs', className)} title={title}>
        <MinusCircle className="size-3.5 shrink-0" />
        Last delivery cancelled {when}
      </p>
    );
  }
  return (
    <p className={cn('flex items-start gap-1.5 text-muted-foreground text-xs', className)} title={title}>
      <Clock className="mt-px size-3.5 shrink-0" />
      <span className="min-w-0 break-words">
        Last delivery: {delivery.status === 'sending' ? 'sending' : 'waiting to retry'} ({when})
        {delivery.error ? ` — ${delivery.error}` : ''}
      </span>
    </p>
  );
}
