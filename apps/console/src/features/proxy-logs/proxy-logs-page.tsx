import { AlertTriangle, History, Hourglass, RefreshCw, Search, TriangleAlert, Waypoints } from 'lucide-react';
import { useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { EmptyState, Page } from '@/components/layout/page';
import { Button } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { errorDetail } from '@/lib/api';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { cn } from '@/lib/utils';
import { type Dropped, useLiveTail, useProxyLogList } from './api';
import { FilterBar, type FilterUpdate } from './filter-bar';
import {
  DEFAULT_RANGE,
  FILTER_PARAMS,
  filtersFromParams,
  hasActiveFilters,
  type ListFilters,
  type ProxyLogFilter,
  timeRangeLabel,
  toApiFilter,
} from './model';
import { LiveDot } from './proxy-log-parts';
import { LoadMoreFooter, ProxyLogTable, ProxyLogTableSkeleton } from './proxy-log-table';

/** The filters live in the URL, so a link reproduces the view. */
function useListSearch() {
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => filtersFromParams(params), [params]);
  const update = (changes: FilterUpdate) => {
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          if (value) next.set(key, value);
          else next.delete(key);
        }
        return next;
      },
      { replace: true, preventScrollReset: true },
    );
  };
  return { filters, update };
}

interface View {
  key: string;
  /** The moment the time range counts back from. */
  anchor: number;
  filter: ProxyLogFilter;
}

const viewOf = (filters: ListFilters, key: string): View => {
  const anchor = Date.now();
  return { key, anchor, filter: toApiFilter(filters, anchor) };
};

/** Rows the edge holds back during a burst: the requests were served and will be listed, just not yet. */
export function WaitingCallout({ rows }: { rows: number }) {
  return (
    <Callout
      tone="info"
      icon={Hourglass}
      data-testid="waiting-callout"
      title={rows === 1 ? '1 request is waiting to be logged' : `${rows.toLocaleString()} requests are waiting to be logged`}
    >
      The edge is serving a burst of traffic and keeps these rows back so that writing them does not slow it down. They are
      written as soon as the burst is over (within 30 seconds) and appear here then.
    </Callout>
  );
}

export function DroppedCallout({ dropped }: { dropped: Dropped }) {
  const { count, last_at } = dropped;
  return (
    <Callout
      tone="warning"
      icon={TriangleAlert}
      data-testid="dropped-callout"
      title={
        count === 1 ? '1 request was served but not logged' : `${count.toLocaleString()} requests were served but not logged`
      }
    >
      The edge holds log rows in a buffer while it writes them to the database. That buffer filled while the database was slow or
      unavailable, so these requests were answered as usual but left no row here.
      {last_at ? (
        <>
          {' '}
          The last one was <time dateTime={last_at}>{formatRelativeTime(last_at)}</time> ({formatDateTime(last_at)}).
        </>
      ) : null}
    </Callout>
  );
}

function LiveStatus({ error, skipped }: { error: unknown; skipped: boolean }) {
  return (
    <p className="-mb-2 flex flex-wrap items-center gap-x-2 gap-y-1 text-muted-foreground text-xs" aria-live="polite">
      <LiveDot active={!error} />
      {error ? (
        <span className="text-amber-700 dark:text-warning">Live paused: {errorDetail(error)}. Trying again…</span>
      ) : (
        <span>Live: new requests appear at the top as they arrive.</span>
      )}
      {skipped ? <span>Some requests of a burst were skipped; Refresh shows every one.</span> : null}
    </p>
  );
}

export default function ProxyLogsPage() {
  const { filters, update } = useListSearch();
  const filtersKey = JSON.stringify(filters);
  const [view, setView] = useState<View>(() => viewOf(filters, filtersKey));
  if (view.key !== filtersKey) setView(viewOf(filters, filtersKey));
  const [live, setLive] = useState(false);

  const list = useProxyLogList(view.filter, view.anchor);
  const { data, isPending, isError, error, refetch, isFetching, isPlaceholderData } = list;
  const firstPage = isPlaceholderData ? undefined : data?.pages[0];
  const tail = useLiveTail(view.filter, {
    enabled: live,
    startAfterId: firstPage?.latest_id,
    resetKey: `${view.key}@${view.anchor}`,
  });

  const logs = useMemo(() => {
    const listed = data?.pages.flatMap((page) => page.logs) ?? [];
    return tail.rows.length ? [...tail.rows, ...listed.filter((log) => !tail.ids.has(log.id))] : listed;
  }, [data, tail.rows, tail.ids]);

  const dropped = tail.dropped && firstPage && tail.dropped.count > firstPage.dropped.count ? tail.dropped : firstPage?.dropped;
  const waitingRows = tail.waitingRows ?? firstPage?.waiting_rows ?? 0;
  const filtered = hasActiveFilters(filters);
  const clearFilters = () => update(Object.fromEntries(FILTER_PARAMS.map((key) => [key, null])));
  const refresh = () => setView(viewOf(filters, filtersKey));

  return (
    <Page
      title="Proxy Logs"
      documentTitle="Proxy Logs"
      description="Every request the edge served: what was asked for, how it was answered and how long it took."
      actions={
        <>
          <Button
            variant="outline"
            aria-pressed={live}
            onClick={() => setLive((on) => !on)}
            title={live ? 'Stop following new requests' : 'Follow new requests as they arrive'}
            className={cn(live && 'border-success/50 bg-success/10 text-emerald-700 hover:bg-success/15 dark:text-success')}
          >
            <LiveDot active={live} />
            Live
          </Button>
          <Button variant="outline" onClick={refresh} disabled={isFetching && !list.isFetchingNextPage}>
            <RefreshCw className={cn(isFetching && !list.isFetchingNextPage && 'animate-spin')} />
            Refresh
          </Button>
        </>
      }
    >
      <FilterBar filters={filters} update={update} />
      {dropped && dropped.count > 0 ? <DroppedCallout dropped={dropped} /> : null}
      {waitingRows > 0 ? <WaitingCallout rows={waitingRows} /> : null}
      {live ? <LiveStatus error={tail.error} skipped={tail.skipped} /> : null}
      {isPending ? (
        <ProxyLogTableSkeleton />
      ) : isError && !data ? (
        <EmptyState
          icon={<AlertTriangle />}
          title="Could not load the proxy logs"
          description={errorDetail(error)}
          action={
            <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
              Retry
            </Button>
          }
        />
      ) : logs.length === 0 ? (
        filtered ? (
          <EmptyState
            icon={<Search />}
            title="No requests match these filters"
            description="Try a wider time range, another status or a shorter path prefix."
            action={
              <Button variant="outline" onClick={clearFilters}>
                Clear filters
              </Button>
            }
          />
        ) : filters.range === DEFAULT_RANGE && (firstPage?.latest_id ?? 0) > 0 ? (
          <EmptyState
            icon={<History />}
            title={`No requests in the ${timeRangeLabel(DEFAULT_RANGE).toLowerCase()}`}
            description="Older requests are kept for the log retention period set in Settings."
            action={
              <Button variant="outline" onClick={() => update({ range: 'all' })}>
                Show all time
              </Button>
            }
          />
        ) : (
          <EmptyState
            icon={<Waypoints />}
            title="No requests logged yet"
            description="Every request that reaches your apps through the edge appears here within seconds: its status, timing, size and where it came from."
          />
        )
      ) : (
        <div className={cn('grid gap-3 transition-opacity', isPlaceholderData && 'opacity-60')}>
          <ProxyLogTable logs={logs} liveIds={tail.ids} />
          {isError ? (
            <p role="alert" className="text-center text-destructive text-sm">
              Could not load more: {errorDetail(error)}
            </p>
          ) : null}
          <LoadMoreFooter
            shown={logs.length}
            hasMore={list.hasNextPage}
            loading={list.isFetchingNextPage}
            onLoadMore={() => void list.fetchNextPage()}
          />
        </div>
      )}
    </Page>
  );
}
