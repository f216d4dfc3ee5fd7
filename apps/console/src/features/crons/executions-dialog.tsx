import { ChevronLeft, ChevronRight, History } from 'lucide-react';
import { useState } from 'react';
import { DataTable, type DataTableColumn } from '@/components/data-table/data-table';
import { LoadFailed } from '@/components/errors/load-failed';
import { EmptyState } from '@/components/layout/page';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { Skeleton } from '@/components/ui/skeleton';
import { useIsNarrow } from '@/lib/use-media-query';
import { type CronExecution, type CronJob, EXECUTIONS_PER_PAGE, useCronExecutions } from './api';
import { ExecutionStatusBadge } from './execution-parts';
import { formatMs, formatUtc, relativeTo } from './schedule';

/** The part of the answer shown in the table (the server keeps its first KB). */
const PREVIEW_CHARS = 120;

function preview(body: string | null): string {
  if (!body) return '';
  const flat = body.replace(/\s+/g, ' ').trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
}

function When({ execution }: { execution: CronExecution }) {
  return (
    <div className="grid gap-0.5">
      <span className="whitespace-nowrap font-mono text-xs">{formatUtc(execution.scheduled_for)}</span>
      <span className="text-muted-foreground text-xs">{relativeTo(execution.scheduled_for)}</span>
    </div>
  );
}

function Trigger({ execution }: { execution: CronExecution }) {
  return <Badge variant="secondary">{execution.trigger === 'manual' ? 'Manual' : 'Scheduled'}</Badge>;
}

function ResponseCell({ execution }: { execution: CronExecution }) {
  const text = preview(execution.response_body);
  if (!text) return <span className="text-muted-foreground text-xs">—</span>;
  return (
    <code className="line-clamp-2 break-all font-mono text-muted-foreground text-xs" title={execution.response_body ?? ''}>
      {text}
    </code>
  );
}

function ErrorCell({ execution }: { execution: CronExecution }) {
  if (!execution.error) return <span className="text-muted-foreground text-xs">—</span>;
  return (
    <span
      className={execution.status === 'skipped' ? 'text-muted-foreground text-xs' : 'text-destructive text-xs'}
      title={execution.error}
    >
      {execution.error}
    </span>
  );
}

const COLUMNS: DataTableColumn<CronExecution>[] = [
  { id: 'scheduled', header: 'Scheduled for', headClassName: 'pl-4', cellClassName: 'pl-4', cell: (e) => <When execution={e} /> },
  { id: 'trigger', header: 'Trigger', cell: (e) => <Trigger execution={e} /> },
  { id: 'status', header: 'Status', cell: (e) => <ExecutionStatusBadge status={e.status} /> },
  {
    id: 'code',
    header: 'Status code',
    cell: (e) => <span className="font-mono text-xs">{e.status_code ?? '—'}</span>,
  },
  {
    id: 'duration',
    header: 'Duration',
    cell: (e) => <span className="whitespace-nowrap text-xs">{formatMs(e.duration_ms)}</span>,
  },
  { id: 'response', header: 'Response', cellClassName: 'max-w-56', cell: (e) => <ResponseCell execution={e} /> },
  {
    id: 'error',
    header: 'Error',
    cellClassName: 'max-w-56 pr-4',
    headClassName: 'pr-4',
    cell: (e) => <ErrorCell execution={e} />,
  },
];

function ExecutionCards({ executions }: { executions: CronExecution[] }) {
  return (
    <ul className="grid grid-cols-[minmax(0,1fr)] gap-2" aria-label="Executions">
      {executions.map((execution) => (
        <li key={execution.id} data-testid={`cron-execution-${execution.id}`}>
          <Card className="gap-2 px-3 py-3">
            <div className="flex items-start justify-between gap-2">
              <When execution={execution} />
              <ExecutionStatusBadge status={execution.status} />
            </div>
            <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
              <Trigger execution={execution} />
              <span>
                <span className="text-muted-foreground">Code </span>
                <span className="font-mono">{execution.status_code ?? '—'}</span>
              </span>
              <span>
                <span className="text-muted-foreground">Duration </span>
                {formatMs(execution.duration_ms)}
              </span>
            </div>
            {execution.response_body ? <ResponseCell execution={execution} /> : null}
            {execution.error ? <ErrorCell execution={execution} /> : null}
          </Card>
        </li>
      ))}
    </ul>
  );
}

function ExecutionsBody({ projectId, cron }: { projectId: number; cron: CronJob }) {
  const [page, setPage] = useState(1);
  const narrow = useIsNarrow();
  const query = useCronExecutions(projectId, cron.environment_id, cron.id, page);
  if (query.isPending) {
    return (
      <div className="grid gap-2">
        {Array.from({ length: 3 }, (_, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
          <Skeleton key={index} className="h-10 w-full" />
        ))}
      </div>
    );
  }
  if (query.isError) {
    return <LoadFailed title="Could not load the executions" query={query} />;
  }
  const { executions, total } = query.data;
  if (total === 0) {
    return (
      <EmptyState
        icon={<History />}
        className="py-10"
        title="No executions yet"
        description={
          cron.next_run_at
            ? `The first one is due ${formatUtc(cron.next_run_at)} (${relativeTo(cron.next_run_at)}).`
            : 'The job is switched off: it runs only when you press Run now.'
        }
      />
    );
  }
  const pages = Math.max(1, Math.ceil(total / EXECUTIONS_PER_PAGE));
  const first = (page - 1) * EXECUTIONS_PER_PAGE + 1;
  const last = Math.min(total, page * EXECUTIONS_PER_PAGE);
  return (
    <div className="grid min-w-0 gap-3">
      {narrow ? (
        <ExecutionCards executions={executions} />
      ) : (
        <Card className="gap-0 overflow-hidden p-0">
          <DataTable
            columns={COLUMNS}
            rows={executions}
            rowKey={(execution) => execution.id}
            rowProps={(execution) => ({ 'data-testid': `cron-execution-${execution.id}` })}
          />
        </Card>
      )}
      <div className="flex items-center justify-between gap-2 text-muted-foreground text-xs">
        <span>
          {first}–{last} of {total}
        </span>
        {pages > 1 ? (
          <div className="flex items-center gap-1">
            <Button
              variant="outline"
              size="icon-sm"
              aria-label="Newer executions"
              disabled={page <= 1}
              onClick={() => setPage((current) => current - 1)}
            >
              <ChevronLeft />
            </Button>
            <span className="px-1">
              Page {page} of {pages}
            </span>
            <Button
              variant="outline"
              size="icon-sm"
              aria-label="Older executions"
              disabled={page >= pages || query.isPlaceholderData}
              onClick={() => setPage((current) => current + 1)}
            >
              <ChevronRight />
            </Button>
          </div>
        ) : null}
      </div>
    </div>
  );
}

/** A job's recent executions, newest first (mounted while open). */
export function ExecutionsDialog({ projectId, cron, onClose }: { projectId: number; cron: CronJob; onClose: () => void }) {
  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="sm:max-w-5xl">
        <DialogHeader className="min-w-0 pr-6">
          <DialogTitle>Executions</DialogTitle>
          <DialogDescription className="[overflow-wrap:anywhere]">
            GET <span className="font-mono text-foreground">{cron.path}</span> on{' '}
            <span className="font-mono text-foreground">{cron.schedule}</span> (UTC). Times are the ticks they were scheduled for.
          </DialogDescription>
        </DialogHeader>
        <ExecutionsBody projectId={projectId} cron={cron} />
      </DialogContent>
    </Dialog>
  );
}
