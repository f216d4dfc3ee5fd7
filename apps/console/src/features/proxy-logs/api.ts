import {
  geoLocationSchema,
  type ProxyLog,
  type ProxyLogList,
  proxyLogListResponseSchema,
  proxyLogSchema,
} from '@launchbay/contract';
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api } from '@/lib/api';
import { retryServerErrors } from '@/lib/project-queries';
import type { ProxyLogFilter } from './model';

export const PROXY_LOG_PAGE_SIZE = 50;
/** While Live is on, the list asks for newer rows this often. */
export const LIVE_POLL_MS = 2000;
/** The most rows one live poll brings (the API's maximum). */
export const LIVE_BATCH = 200;
/** Rows the live tail keeps on screen before it lets the oldest go. */
const LIVE_KEEP = 1000;

export const proxyLogsKey = ['proxy-logs'] as const;

export type Dropped = ProxyLogList['dropped'];

function fetchProxyLogs(
  filter: ProxyLogFilter & { limit: number; cursor?: string; after_id?: number },
  signal: AbortSignal | undefined,
): Promise<ProxyLogList> {
  return api('/proxy-logs', { signal, query: { ...filter }, response: proxyLogListResponseSchema });
}

/**
 * The list, newest first, a page at a time (keyset: each page asks for the rows older than the
 * previous page's `next_cursor`). `anchor` is the moment the time range counts back from: a new
 * anchor (Refresh) starts again from the newest rows.
 */
export function useProxyLogList(filter: ProxyLogFilter, anchor: number) {
  return useInfiniteQuery({
    queryKey: [...proxyLogsKey, 'list', filter, anchor],
    queryFn: ({ pageParam, signal }) => fetchProxyLogs({ ...filter, limit: PROXY_LOG_PAGE_SIZE, cursor: pageParam }, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    placeholderData: keepPreviousData,
    retry: retryServerErrors,
  });
}

export interface LiveTail {
  /** Rows that arrived while Live was on, newest first. */
  rows: ProxyLog[];
  ids: ReadonlySet<number>;
  /** The newest `dropped` answer, once a poll came back. */
  dropped: Dropped | null;
  /** The newest `waiting_rows` answer, once a poll came back. */
  waitingRows: number | null;
  /** A poll brought a full batch: more arrived than it could bring, older ones of that burst are not shown. */
  skipped: boolean;
  /** The last poll failed (the next one is already planned). */
  error: unknown;
}

interface TailState extends LiveTail {
  key: string;
}

const emptyTail = (key: string): TailState => ({
  key,
  rows: [],
  ids: new Set(),
  dropped: null,
  waitingRows: null,
  skipped: false,
  error: null,
});

/**
 * Live tail: while `enabled`, asks every 2 s for the rows stored after the newest id seen
 * (`after_id`), starting at the list's `latest_id`, and keeps them (newest first). Everything
 * starts over when `resetKey` changes (other filters, Refresh).
 */
export function useLiveTail(
  filter: ProxyLogFilter,
  { enabled, startAfterId, resetKey }: { enabled: boolean; startAfterId: number | undefined; resetKey: string },
): LiveTail {
  const [state, setState] = useState<TailState>(() => emptyTail(resetKey));
  // The newest id seen for this view, kept across turning Live off and on again.
  const after = useRef<{ key: string; id: number } | null>(null);

  const current = state.key === resetKey ? state : emptyTail(resetKey);
  if (state.key !== resetKey) setState(current);

  useEffect(() => {
    if (!enabled || startAfterId === undefined) return;
    if (after.current?.key !== resetKey) after.current = { key: resetKey, id: startAfterId };
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;

    const poll = async () => {
      const since = after.current?.id ?? startAfterId;
      try {
        const page = await fetchProxyLogs({ ...filter, limit: LIVE_BATCH, after_id: since }, controller.signal);
        if (controller.signal.aborted) return;
        const arrived = page.logs.filter((log) => log.id > since);
        const newest = arrived.reduce((max, log) => Math.max(max, log.id), since);
        after.current = { key: resetKey, id: newest };
        setState((previous) => {
          const base = previous.key === resetKey ? previous : emptyTail(resetKey);
          const fresh = arrived.filter((log) => !base.ids.has(log.id));
          const rows = fresh.length ? [...fresh, ...base.rows].slice(0, LIVE_KEEP) : base.rows;
          return {
            key: resetKey,
            rows,
            ids: fresh.length ? new Set(rows.map((log) => log.id)) : base.ids,
            dropped: page.dropped,
            waitingRows: page.waiting_rows,
            skipped: base.skipped || page.logs.length >= LIVE_BATCH,
            error: null,
          };
        });
      } catch (error) {
        if (controller.signal.aborted) return;
        setState((previous) => ({ ...(previous.key === resetKey ? previous : emptyTail(resetKey)), error }));
      }
      timer = setTimeout(() => void poll(), LIVE_POLL_MS);
    };

    // The first poll at once: it catches up with what arrived while Live was off.
    void poll();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [enabled, startAfterId, resetKey, filter]);

  return current;
}

/** One row (GET /proxy-logs/{id}); null id: disabled. */
export function useProxyLog(id: number | null) {
  return useQuery({
    queryKey: [...proxyLogsKey, 'one', id],
    queryFn: ({ signal }) => api(`/proxy-logs/${id}`, { signal, response: proxyLogSchema }),
    enabled: id !== null,
    retry: retryServerErrors,
    // A logged request never changes.
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** Where an address is (GET /geo/{ip}); null: disabled. */
export function useGeoLocation(ip: string | null) {
  return useQuery({
    queryKey: ['geo', ip],
    queryFn: ({ signal }) => api(`/geo/${encodeURIComponent(ip ?? '')}`, { signal, response: geoLocationSchema }),
    enabled: ip !== null,
    retry: retryServerErrors,
    staleTime: 60 * 60_000,
  });
}
