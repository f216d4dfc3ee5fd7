import type { WebhookDelivery } from '@launchbay/contract';
import { ArrowRight } from 'lucide-react';
import { Link } from 'react-router';
import { DataTable, type DataTableColumn } from '@/components/data-table/data-table';
import { Card } from '@/components/ui/card';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { shortSha } from '@/lib/project-queries';
import { useIsNarrow } from '@/lib/use-media-query';
import { cn } from '@/lib/utils';
import { deploymentPath } from './model';

type Outcome = WebhookDelivery['outcome'];

const OUTCOME: Record<Outcome, { label: string; className: string }> = {
  deployed: { label: 'Deployed', className: 'border-success/25 bg-success/10 text-emerald-700 dark:text-success' },
  ignored: { label: 'Ignored', className: 'border-border bg-muted text-muted-foreground' },
  duplicate: { label: 'Duplicate', className: 'border-border bg-transparent text-muted-foreground' },
  rejected: { label: 'Rejected', className: 'border-destructive/25 bg-destructive/10 text-destructive' },
  failed: { label: 'Failed', className: 'border-destructive/25 bg-destructive/10 text-destructive' },
  awaiting_approval: {
    label: 'Awaiting approval',
    className: 'border-warning/30 bg-warning/15 text-amber-700 dark:text-warning',
  },
  removed: { label: 'Removed', className: 'border-sky-500/25 bg-sky-500/10 text-sky-700 dark:text-sky-300' },
};

/** What came of a delivery: Deployed, Ignored, Rejected, ... */
export function OutcomeBadge({ outcome }: { outcome: Outcome }) {
  const look = OUTCOME[outcome] ?? OUTCOME.ignored;
  return (
    <span
      data-slot="outcome-badge"
      data-outcome={outcome}
      className={cn(
        'inline-flex w-fit shrink-0 items-center whitespace-nowrap rounded-full border px-2 py-0.5 font-medium text-xs',
        look.className,
      )}
    >
      {look.label}
    </span>
  );
}

const EVENTS: Record<string, string> = {
  push: 'Push',
  pull_request: 'Pull request',
  ping: 'Ping',
  'Push Hook': 'Push',
  'Merge Request Hook': 'Merge request',
  poll: 'Poll',
};

/** 'pull_request' + 'opened' -> 'Pull request · opened'. */
export function eventLabel(delivery: Pick<WebhookDelivery, 'event' | 'action'>): string {
  const event = EVENTS[delivery.event] ?? delivery.event;
  return delivery.action ? `${event} · ${delivery.action}` : event;
}

/** 'refs/heads/main' -> 'main'; tags and other refs stay as sent. */
export function refLabel(ref: string | null): string {
  if (!ref) return '';
  return ref.replace(/^refs\/heads\//, '');
}

function When({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={formatDateTime(iso)} className="whitespace-nowrap">
      {formatRelativeTime(iso)}
    </time>
  );
}

function DeploymentLink({ slug, id }: { slug: string; id: number }) {
  return (
    <Link
      to={deploymentPath(slug, { id })}
      className="inline-flex items-center gap-1 whitespace-nowrap font-medium text-sm underline-offset-4 hover:underline"
      aria-label={`Deployment #${id}`}
    >
      #{id}
      <ArrowRight className="size-3.5 text-muted-foreground" />
    </Link>
  );
}

/** The project's last webhook deliveries: a table, or cards on small screens. */
export function DeliveriesList({ slug, deliveries }: { slug: string; deliveries: WebhookDelivery[] }) {
  const narrow = useIsNarrow();
  if (narrow) {
    return (
      <ul className="grid grid-cols-[minmax(0,1fr)] gap-3" aria-label="Webhook deliveries">
        {deliveries.map((delivery) => (
          <li key={delivery.id} data-testid={`delivery-${delivery.id}`}>
            <Card className="gap-2 px-4 py-3">
              <div className="flex items-start justify-between gap-2">
                <div className="grid min-w-0 gap-0.5">
                  <span className="font-medium text-sm">{eventLabel(delivery)}</span>
                  <span className="flex min-w-0 flex-wrap gap-x-2 font-mono text-muted-foreground text-xs">
                    {delivery.ref ? <span className="truncate">{refLabel(delivery.ref)}</span> : null}
                    {delivery.commit_sha ? <span>{shortSha(delivery.commit_sha)}</span> : null}
                  </span>
                </div>
                <OutcomeBadge outcome={delivery.outcome} />
              </div>
              <p className="text-muted-foreground text-sm">{delivery.detail}</p>
              <div className="flex items-center justify-between gap-2 text-muted-foreground text-xs">
                <When iso={delivery.received_at} />
                {delivery.deployment_id !== null ? <DeploymentLink slug={slug} id={delivery.deployment_id} /> : null}
              </div>
            </Card>
          </li>
        ))}
      </ul>
    );
  }
  const columns: DataTableColumn<WebhookDelivery>[] = [
    {
      id: 'event',
      header: 'Event',
      headClassName: 'pl-4',
      cellClassName: 'pl-4 align-top',
      cell: (delivery) => (
        <div className="grid gap-0.5">
          <span className="font-medium">{eventLabel(delivery)}</span>
          <span className="text-muted-foreground text-xs">
            <When iso={delivery.received_at} />
          </span>
        </div>
      ),
    },
    {
      id: 'ref',
      header: 'Ref and commit',
      cellClassName: 'max-w-36 align-top',
      cell: (delivery) => (
        <div className="grid min-w-0 gap-0.5 font-mono text-xs">
          {delivery.ref || delivery.commit_sha ? (
            <>
              <span className="truncate" title={delivery.ref ?? undefined}>
                {refLabel(delivery.ref) || '—'}
              </span>
              <span className="text-muted-foreground" title={delivery.commit_sha ?? undefined}>
                {shortSha(delivery.commit_sha) || '—'}
              </span>
            </>
          ) : (
            <span className="text-muted-foreground">—</span>
          )}
        </div>
      ),
    },
    {
      id: 'outcome',
      header: 'Outcome',
      cellClassName: 'align-top',
      cell: (delivery) => <OutcomeBadge outcome={delivery.outcome} />,
    },
    {
      id: 'detail',
      header: 'Detail',
      cellClassName: 'min-w-48 whitespace-normal align-top text-muted-foreground',
      cell: (delivery) => delivery.detail,
    },
    {
      id: 'deployment',
      header: 'Deployment',
      headClassName: 'pr-4 text-right',
      cellClassName: 'pr-4 text-right align-top',
      cell: (delivery) =>
        delivery.deployment_id !== null ? (
          <DeploymentLink slug={slug} id={delivery.deployment_id} />
        ) : (
          <span className="text-muted-foreground">—</span>
        ),
    },
  ];
  return (
    <DataTable
      columns={columns}
      rows={deliveries}
      rowKey={(delivery) => delivery.id}
      rowProps={(delivery) => ({ 'data-testid': `delivery-${delivery.id}` })}
    />
  );
}
