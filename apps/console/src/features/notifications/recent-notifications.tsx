import type { NotificationRecord } from '@launchbay/contract';
import { History, RefreshCw } from 'lucide-react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardAction, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail } from '@/lib/api';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { cn } from '@/lib/utils';
import { useRecentNotifications } from './api';

const STATUS: Record<
  NotificationRecord['status'],
  { label: string; variant: 'success' | 'destructive' | 'warning' | 'secondary' }
> = {
  sent: { label: 'Sent', variant: 'success' },
  partial: { label: 'Partly sent', variant: 'warning' },
  failed: { label: 'Failed', variant: 'destructive' },
  pending: { label: 'Pending', variant: 'secondary' },
  no_providers: { label: 'No provider', variant: 'secondary' },
};

const SEVERITY_TEXT: Record<NotificationRecord['severity'], string> = {
  critical: 'text-destructive',
  warning: 'text-amber-700 dark:text-warning',
  info: 'text-muted-foreground',
};

/** The record of what was sent (GET /api/notifications), newest first. */
export function RecentNotifications() {
  const { data, isPending, isError, error, refetch, isFetching } = useRecentNotifications(10);
  return (
    <Card className="gap-4">
      <CardHeader>
        <CardTitle>Recent notifications</CardTitle>
        <CardDescription>The latest alerts and tests, and how each provider took them.</CardDescription>
        <CardAction>
          <Button variant="ghost" size="icon-sm" aria-label="Refresh notifications" onClick={() => void refetch()}>
            <RefreshCw className={cn(isFetching && 'animate-spin')} />
          </Button>
        </CardAction>
      </CardHeader>
      <CardContent>
        {isPending ? (
          <div className="grid gap-2">
            <Skeleton className="h-12" />
            <Skeleton className="h-12" />
          </div>
        ) : isError ? (
          <p className="text-destructive text-sm">Failed to load notifications: {errorDetail(error)}</p>
        ) : data.notifications.length === 0 ? (
          <div className="flex flex-col items-center gap-2 rounded-lg border border-dashed py-10 text-center text-muted-foreground text-sm">
            <History className="size-5" />
            Nothing sent yet. Send a test from a provider to see it here.
          </div>
        ) : (
          <ul className="divide-y rounded-lg border" aria-label="Recent notifications">
            {data.notifications.map((note) => {
              const status = STATUS[note.status];
              return (
                <li key={note.id} className="grid gap-1.5 px-4 py-3">
                  <div className="flex items-start justify-between gap-3">
                    <span className="min-w-0 break-words font-medium text-sm">
                      {note.title}
                      {note.occurrences > 1 ? <span className="text-muted-foreground"> ({note.occurrences} times)</span> : null}
                    </span>
                    <time
                      className="shrink-0 text-muted-foreground text-xs"
                      dateTime={note.created_at}
                      title={formatDateTime(note.created_at)}
                    >
                      {formatRelativeTime(note.created_at)}
                    </time>
                  </div>
                  <div className="flex flex-wrap items-center gap-2">
                    <Badge variant={status.variant}>{status.label}</Badge>
                    <span className={cn('font-medium text-xs capitalize', SEVERITY_TEXT[note.severity])}>{note.severity}</span>
                  </div>
                  {note.deliveries.length > 0 ? (
                    <ul className="grid gap-0.5 text-xs">
                      {note.deliveries.map((delivery) => (
                        <li key={delivery.id} className="text-muted-foreground">
                          <span className="text-foreground">{delivery.provider_name}</span> · {delivery.status}
                          {delivery.attempts > 1 ? ` after ${delivery.attempts} attempts` : ''}
                          {delivery.last_error ? (
                            <span className={cn(delivery.status === 'failed' && 'text-destructive')}>
                              {' '}
                              — {delivery.last_error}
                            </span>
                          ) : null}
                        </li>
                      ))}
                    </ul>
                  ) : null}
                </li>
              );
            })}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
