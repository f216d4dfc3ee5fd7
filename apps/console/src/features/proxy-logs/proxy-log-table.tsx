import type { ProxyLog } from '@launchbay/contract';
import type { MouseEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { DataTable, type DataTableColumn } from '@/components/data-table/data-table';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { formatBytes } from '@/lib/format';
import { useIsNarrow } from '@/lib/use-media-query';
import { cn } from '@/lib/utils';
import { formatLogTime, ipPath, pathWithQuery, proxyLogPath } from './model';
import { Duration, HttpStatus, LiveDot, linkClass, Method } from './proxy-log-parts';

export type ProxyLogColumn = 'time' | 'status' | 'method' | 'host' | 'path' | 'duration' | 'bytes_out' | 'client_ip';

function rowLabel(log: ProxyLog): string {
  return `${log.method} ${log.host}${pathWithQuery(log)}, ${log.status_code}, ${formatLogTime(log.created_at)}`;
}

function LogTime({ log, live }: { log: ProxyLog; live: boolean }) {
  return (
    <span className="inline-flex items-center gap-2">
      {live ? (
        <>
          <LiveDot settle />
          <span className="sr-only">Live:</span>
        </>
      ) : null}
      <Link
        to={proxyLogPath(log.id)}
        className={cn(linkClass, 'font-mono text-xs tabular-nums hover:no-underline')}
        title={new Date(log.created_at).toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'long' })}
        aria-label={`Open request ${rowLabel(log)}`}
      >
        {formatLogTime(log.created_at)}
      </Link>
    </span>
  );
}

function columnsFor(liveIds: ReadonlySet<number>): DataTableColumn<ProxyLog>[] {
  return [
    {
      id: 'time',
      header: 'Time',
      headClassName: 'pl-4',
      cellClassName: 'pl-4',
      cell: (log) => <LogTime log={log} live={liveIds.has(log.id)} />,
    },
    { id: 'status', header: 'Status', cell: (log) => <HttpStatus code={log.status_code} /> },
    { id: 'method', header: 'Method', cell: (log) => <Method method={log.method} /> },
    {
      id: 'host',
      header: 'Host',
      cellClassName: 'max-w-56',
      cell: (log) => <span className="block truncate font-mono text-xs">{log.host}</span>,
      cellProps: (log) => ({ title: log.host }),
    },
    {
      id: 'path',
      header: 'Path',
      cellClassName: 'w-full max-w-0 min-w-48',
      cell: (log) => (
        <span className="block truncate font-mono text-xs">
          {log.path}
          {log.query ? <span className="text-muted-foreground">?{log.query}</span> : null}
        </span>
      ),
      cellProps: (log) => ({ title: pathWithQuery(log) }),
    },
    {
      id: 'duration',
      header: 'Duration',
      headClassName: 'text-right',
      cellClassName: 'text-right',
      cell: (log) => <Duration ms={log.duration_ms} />,
    },
    {
      id: 'bytes_out',
      header: 'Bytes out',
      headClassName: 'text-right',
      cellClassName: 'text-right font-mono text-muted-foreground text-xs tabular-nums',
      cell: (log) => formatBytes(log.bytes_out),
    },
    {
      id: 'client_ip',
      header: 'Client IP',
      headClassName: 'pr-4',
      cellClassName: 'pr-4',
      cell: (log) => (
        <Link
          to={ipPath(log.client_ip)}
          className={cn(linkClass, 'font-mono text-muted-foreground text-xs hover:text-foreground')}
        >
          {log.client_ip}
        </Link>
      ),
    },
  ];
}

function LogCards({ logs, liveIds, hide }: { logs: ProxyLog[]; liveIds: ReadonlySet<number>; hide: ProxyLogColumn[] }) {
  return (
    <ul className="grid gap-2" aria-label="Requests">
      {logs.map((log) => (
        <li key={log.id}>
          <Link
            to={proxyLogPath(log.id)}
            aria-label={`Open request ${rowLabel(log)}`}
            data-live={liveIds.has(log.id) || undefined}
            className="grid w-full gap-1.5 rounded-xl border bg-card p-3 text-sm shadow-xs outline-none transition-colors hover:bg-accent/40 focus-visible:ring-2 focus-visible:ring-ring/50 data-[live]:border-success/40"
          >
            <span className="flex min-w-0 items-center gap-2">
              <HttpStatus code={log.status_code} />
              <Method method={log.method} />
              <span className="min-w-0 flex-1 truncate font-mono text-xs">{pathWithQuery(log)}</span>
            </span>
            {hide.includes('host') ? null : <span className="truncate font-mono text-muted-foreground text-xs">{log.host}</span>}
            <span className="flex flex-wrap items-center gap-x-3 gap-y-1 text-muted-foreground text-xs">
              <span className="inline-flex items-center gap-1.5 font-mono tabular-nums">
                {liveIds.has(log.id) ? <LiveDot settle /> : null}
                {formatLogTime(log.created_at)}
              </span>
              <Duration ms={log.duration_ms} />
              <span className="font-mono tabular-nums">{formatBytes(log.bytes_out)}</span>
              {hide.includes('client_ip') ? null : <span className="ml-auto font-mono">{log.client_ip}</span>}
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** Clicks on the row open the request, unless they were on a link or made a text selection. */
function isPlainRowClick(event: MouseEvent<HTMLTableRowElement>): boolean {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return false;
  if ((event.target as Element).closest('a, button')) return false;
  return !window.getSelection()?.toString();
}

/**
 * The requests as a dense table (cards below 768 px wide). Each row opens its request; rows that
 * arrived through the live tail (`liveIds`) carry a green dot.
 */
export function ProxyLogTable({
  logs,
  liveIds = new Set(),
  hide = [],
  className,
}: {
  logs: ProxyLog[];
  liveIds?: ReadonlySet<number>;
  /** Columns left out (the IP page knows the client). */
  hide?: ProxyLogColumn[];
  className?: string;
}) {
  const narrow = useIsNarrow();
  const navigate = useNavigate();
  if (narrow) return <LogCards logs={logs} liveIds={liveIds} hide={hide} />;
  const columns = columnsFor(liveIds).filter((column) => !hide.includes(column.id as ProxyLogColumn));
  return (
    <Card className={cn('gap-0 overflow-hidden p-0', className)}>
      <DataTable
        columns={columns}
        rows={logs}
        rowKey={(log) => log.id}
        className="text-sm [&_td]:py-2"
        rowProps={(log) => ({
          'data-testid': `proxy-log-${log.id}`,
          'data-live': liveIds.has(log.id) || undefined,
          className: 'cursor-pointer data-[live]:bg-success/[0.04] dark:data-[live]:bg-success/[0.06]',
          onClick: (event) => {
            if (isPlainRowClick(event)) navigate(proxyLogPath(log.id));
          },
        })}
      />
    </Card>
  );
}

export function ProxyLogTableSkeleton({ rows = 8 }: { rows?: number }) {
  return (
    <Card className="gap-0 p-0" aria-busy="true" aria-label="Loading requests">
      {Array.from({ length: rows }, (_, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
        <div key={index} className="flex items-center gap-4 border-b px-4 py-3 last:border-0">
          <Skeleton className="h-4 w-20" />
          <Skeleton className="h-5 w-10" />
          <Skeleton className="h-4 w-10" />
          <Skeleton className="hidden h-4 w-32 sm:block" />
          <Skeleton className="h-4 flex-1" />
          <Skeleton className="hidden h-4 w-14 md:block" />
          <Skeleton className="hidden h-4 w-24 md:block" />
        </div>
      ))}
    </Card>
  );
}

/** Under the table: how many rows are shown, and 'Load more' while older rows remain. */
export function LoadMoreFooter({
  shown,
  hasMore,
  loading,
  onLoadMore,
}: {
  shown: number;
  hasMore: boolean;
  loading: boolean;
  onLoadMore: () => void;
}) {
  return (
    <div className="flex flex-col items-center gap-2 pt-1">
      {hasMore ? (
        <Button variant="outline" onClick={onLoadMore} disabled={loading} className="min-w-36">
          {loading ? <Spinner label="Loading older requests" className="size-3.5" /> : null}
          Load more
        </Button>
      ) : null}
      <p className="text-muted-foreground text-xs tabular-nums" aria-live="polite">
        {shown.toLocaleString()} {shown === 1 ? 'request' : 'requests'} shown
        {hasMore ? '' : ' · that is all of them'}
      </p>
    </div>
  );
}
