import type { AuditLog } from '@launchbay/contract';
import { ChevronLeft, ChevronRight, ClipboardList, RefreshCw, Search, ShieldAlert, X } from 'lucide-react';
import { type FormEvent, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { EmptyState, Page } from '@/components/layout/page';
import { SettingsNav } from '@/components/layout/sub-nav';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { Skeleton } from '@/components/ui/skeleton';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table';
import { errorDetail, isApiError } from '@/lib/api';
import { formatRelativeTime } from '@/lib/format';
import { useIsNarrow } from '@/lib/use-media-query';
import { cn } from '@/lib/utils';
import { ACTION_SUGGESTIONS, TARGET_TYPES } from './actions';
import { AUDIT_PAGE_SIZE, type AuditQuery, useAuditLogs } from './api';
import { AuditDetailSheet } from './audit-detail-sheet';
import { ActionBadge, Actor, formatLogTime, StatusCode, Target } from './audit-parts';
import { SuggestInput } from './suggest-input';

const FILTER_KEYS = ['actor', 'action', 'target_type', 'target_id', 'from', 'to'] as const;
type FilterKey = (typeof FILTER_KEYS)[number];
type Filters = Record<FilterKey, string>;
const ANY_TARGET = '__any__';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A local calendar day ('2025-11-22') to the ISO instant of its start or end. */
function dayBound(value: string, end: boolean): string | undefined {
  const match = DATE.exec(value);
  if (!match) return undefined;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (end) date.setHours(23, 59, 59, 999);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function positiveInt(value: string | null): number | null {
  if (!value || !/^\d{1,9}$/.test(value)) return null;
  const n = Number(value);
  return n > 0 ? n : null;
}

/** The filters, page and open entry live in the URL, so a filtered view can be shared as a link. */
function useAuditSearch() {
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => Object.fromEntries(FILTER_KEYS.map((key) => [key, params.get(key) ?? ''])) as Filters, [params]);
  const page = positiveInt(params.get('page')) ?? 1;
  const openId = positiveInt(params.get('log'));

  const update = (changes: Record<string, string | null>, options: { push?: boolean; keepPage?: boolean } = {}) => {
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          if (value) next.set(key, value);
          else next.delete(key);
        }
        if (!options.keepPage) next.delete('page');
        return next;
      },
      { replace: !options.push, preventScrollReset: true },
    );
  };
  return { filters, page, openId, update };
}

/** Text typed into a filter reaches the URL (and the query) after a short pause, or at once on Enter. */
function useDebouncedFilter(urlValue: string, commit: (value: string) => void, delay = 350) {
  const [text, setText] = useState(urlValue);
  const committed = useRef(urlValue);
  const commitRef = useRef(commit);
  commitRef.current = commit;

  // The URL changed from elsewhere (back/forward, a link, Clear filters): show its value.
  useEffect(() => {
    if (urlValue !== committed.current) {
      committed.current = urlValue;
      setText(urlValue);
    }
  }, [urlValue]);

  useEffect(() => {
    if (text === committed.current) return;
    const timer = setTimeout(() => {
      committed.current = text;
      commitRef.current(text.trim());
    }, delay);
    return () => clearTimeout(timer);
  }, [text, delay]);

  const flush = () => {
    if (text === committed.current) return;
    committed.current = text;
    commitRef.current(text.trim());
  };
  return { text, setText, flush };
}

function FilterBar({ filters, update }: { filters: Filters; update: (changes: Record<string, string | null>) => void }) {
  const actor = useDebouncedFilter(filters.actor, (value) => update({ actor: value }));
  const action = useDebouncedFilter(filters.action, (value) => update({ action: value }));
  const active = FILTER_KEYS.some((key) => filters[key]);
  const targetTypes =
    TARGET_TYPES.some((t) => t.value === filters.target_type) || !filters.target_type
      ? TARGET_TYPES
      : [...TARGET_TYPES, { value: filters.target_type, label: filters.target_type }];

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    actor.flush();
    action.flush();
  };

  return (
    <search aria-label="Filter the audit log">
      <form onSubmit={onSubmit} className="grid gap-3">
        <div className="grid grid-cols-2 gap-3 lg:grid-cols-[minmax(0,1.2fr)_minmax(0,1.2fr)_minmax(0,0.9fr)_auto_auto]">
          <div className="grid gap-1.5 col-span-2 sm:col-span-1">
            <Label htmlFor="audit-actor" className="text-muted-foreground text-xs">
              Actor
            </Label>
            <div className="relative">
              <Search className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground" />
              <Input
                id="audit-actor"
                type="search"
                placeholder="Email, user ID or key"
                className="pl-8"
                value={actor.text}
                onChange={(event) => actor.setText(event.target.value)}
              />
            </div>
          </div>
          <div className="grid gap-1.5 col-span-2 sm:col-span-1">
            <Label htmlFor="audit-action" className="text-muted-foreground text-xs">
              Action
            </Label>
            <SuggestInput
              id="audit-action"
              placeholder="e.g. settings.update"
              className="font-mono text-sm md:text-xs"
              value={action.text}
              onValueChange={action.setText}
              suggestions={ACTION_SUGGESTIONS.map((s) => ({ value: s.value, description: s.description }))}
            />
          </div>
          <div className="grid gap-1.5 col-span-2 lg:col-span-1">
            <Label htmlFor="audit-target-type" className="text-muted-foreground text-xs">
              Target type
            </Label>
            <Select
              value={filters.target_type || ANY_TARGET}
              onValueChange={(value) => update({ target_type: value === ANY_TARGET ? null : value, target_id: null })}
            >
              <SelectTrigger id="audit-target-type">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                <SelectItem value={ANY_TARGET}>Any target</SelectItem>
                {targetTypes.map((type) => (
                  <SelectItem key={type.value} value={type.value}>
                    {type.label}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </div>
          <div className="grid gap-1.5">
            <Label htmlFor="audit-from" className="text-muted-foreground text-xs">
              From
            </Label>
            <Input
              id="audit-from"
              type="date"
              className="lg:w-40"
              value={filters.from}
              max={filters.to || undefined}
              onChange={(event) => update({ from: event.target.value })}
            />
          </div>
          <div className="grid gap-1.5">
            <Label htmlFor="audit-to" className="text-muted-foreground text-xs">
              To
            </Label>
            <Input
              id="audit-to"
              type="date"
              className="lg:w-40"
              value={filters.to}
              min={filters.from || undefined}
              onChange={(event) => update({ to: event.target.value })}
            />
          </div>
        </div>
        {active ? (
          <div className="flex flex-wrap items-center gap-2">
            {filters.target_id ? (
              <Badge variant="secondary" className="gap-1.5 pr-1">
                Target ID <span className="font-mono">{filters.target_id}</span>
                <button
                  type="button"
                  className="rounded-sm p-0.5 hover:bg-background/60"
                  aria-label="Remove the target ID filter"
                  onClick={() => update({ target_id: null })}
                >
                  <X className="size-3" />
                </button>
              </Badge>
            ) : null}
            <Button
              variant="ghost"
              size="sm"
              className="h-7 px-2 text-muted-foreground"
              onClick={() => update(Object.fromEntries(FILTER_KEYS.map((key) => [key, null])))}
            >
              <X />
              Clear filters
            </Button>
          </div>
        ) : null}
        {/* Enter in a text filter applies it at once. */}
        <button type="submit" hidden tabIndex={-1} aria-hidden="true" />
      </form>
    </search>
  );
}

function LogTime({ log }: { log: AuditLog }) {
  return (
    <span className="grid gap-0.5 text-left">
      <span className="tabular-nums">{formatLogTime(log.created_at)}</span>
      <span className="text-muted-foreground text-xs">{formatRelativeTime(log.created_at)}</span>
    </span>
  );
}

function LogTable({ logs, onOpen, openId }: { logs: AuditLog[]; onOpen: (id: number) => void; openId: number | null }) {
  return (
    <Card className="gap-0 overflow-hidden p-0">
      <Table>
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead className="pl-4">Time</TableHead>
            <TableHead>Actor</TableHead>
            <TableHead>Action</TableHead>
            <TableHead>Target</TableHead>
            <TableHead>Status</TableHead>
            <TableHead className="pr-4">IP address</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {logs.map((log) => (
            <TableRow
              key={log.id}
              data-state={log.id === openId ? 'selected' : undefined}
              className="cursor-pointer"
              // Keyboard users open the entry with the button in the first cell.
              onClick={() => onOpen(log.id)}
            >
              <TableCell className="pl-4">
                <button
                  type="button"
                  className="rounded-sm outline-none focus-visible:ring-2 focus-visible:ring-ring/50"
                  aria-label={`Open entry ${log.id}: ${log.action}, ${formatLogTime(log.created_at)}`}
                  onClick={(event) => {
                    event.stopPropagation();
                    onOpen(log.id);
                  }}
                >
                  <LogTime log={log} />
                </button>
              </TableCell>
              <TableCell className="max-w-64">
                <Actor log={log} />
              </TableCell>
              <TableCell className="max-w-64">
                <ActionBadge log={log} />
              </TableCell>
              <TableCell>
                <Target log={log} />
              </TableCell>
              <TableCell>
                <StatusCode code={log.status_code} />
              </TableCell>
              <TableCell className="pr-4 font-mono text-muted-foreground text-xs">{log.ip ?? '—'}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Card>
  );
}

function LogCards({ logs, onOpen }: { logs: AuditLog[]; onOpen: (id: number) => void }) {
  return (
    <ul className="grid gap-2" aria-label="Audit entries">
      {logs.map((log) => (
        <li key={log.id}>
          <button
            type="button"
            onClick={() => onOpen(log.id)}
            aria-label={`Open entry ${log.id}: ${log.action}, ${formatLogTime(log.created_at)}`}
            className="grid w-full gap-2 rounded-xl border bg-card p-3 text-left text-sm shadow-xs outline-none transition-colors hover:bg-accent/40 focus-visible:ring-2 focus-visible:ring-ring/50"
          >
            <span className="flex items-center justify-between gap-2">
              <ActionBadge log={log} />
              <StatusCode code={log.status_code} />
            </span>
            <Actor log={log} />
            <span className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 text-muted-foreground text-xs">
              <span>
                {formatLogTime(log.created_at)} · {formatRelativeTime(log.created_at)}
              </span>
              <span className="flex items-center gap-2">
                <Target log={log} />
                {log.ip ? <span className="font-mono">{log.ip}</span> : null}
              </span>
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}

export default function AuditLogsPage() {
  const { filters, page, openId, update } = useAuditSearch();
  const narrow = useIsNarrow();
  const query: AuditQuery = {
    page,
    actor: filters.actor || undefined,
    action: filters.action || undefined,
    target_type: filters.target_type || undefined,
    target_id: filters.target_id || undefined,
    from: dayBound(filters.from, false),
    to: dayBound(filters.to, true),
  };
  const { data, isPending, isError, error, refetch, isFetching, isPlaceholderData } = useAuditLogs(query);
  const forbidden = isApiError(error) && error.status === 403;
  const filtered = FILTER_KEYS.some((key) => filters[key]);
  const total = data?.total ?? 0;
  const first = total === 0 ? 0 : (page - 1) * AUDIT_PAGE_SIZE + 1;
  const last = data ? (page - 1) * AUDIT_PAGE_SIZE + data.logs.length : 0;
  const open = (id: number) => update({ log: String(id) }, { push: true, keepPage: true });

  return (
    <Page
      title="Audit Logs"
      documentTitle="Audit Logs"
      description="Every change made on this platform: who did what, to what, when and from where."
      actions={
        forbidden ? null : (
          <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
            <RefreshCw className={cn(isFetching && 'animate-spin')} />
            Refresh
          </Button>
        )
      }
    >
      <SettingsNav />
      {forbidden ? (
        <EmptyState
          icon={<ShieldAlert />}
          title="You need the admin role to view the audit log"
          description="Ask an administrator of this Launchbay platform to grant you the admin role."
        />
      ) : (
        <>
          <FilterBar filters={filters} update={update} />
          {isPending ? (
            <Card className="gap-0 p-0">
              {Array.from({ length: 6 }, (_, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
                <div key={index} className="flex items-center gap-4 border-b p-4 last:border-0">
                  <Skeleton className="h-4 w-32" />
                  <Skeleton className="h-4 w-40" />
                  <Skeleton className="h-5 w-28" />
                  <Skeleton className="ml-auto h-4 w-10" />
                </div>
              ))}
            </Card>
          ) : isError ? (
            <EmptyState
              title="Could not load the audit log"
              description={errorDetail(error)}
              action={
                <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
                  Retry
                </Button>
              }
            />
          ) : data.logs.length === 0 ? (
            page > 1 && total > 0 ? (
              <EmptyState
                icon={<ClipboardList />}
                title="No entries on this page"
                description={`There are ${total} matching entries, on fewer pages.`}
                action={
                  <Button variant="outline" onClick={() => update({}, { push: true })}>
                    Go to the first page
                  </Button>
                }
              />
            ) : filtered ? (
              <EmptyState
                icon={<Search />}
                title="No entries match these filters"
                description="Try a broader action prefix such as users., another actor or a wider date range."
                action={
                  <Button variant="outline" onClick={() => update(Object.fromEntries(FILTER_KEYS.map((key) => [key, null])))}>
                    Clear filters
                  </Button>
                }
              />
            ) : (
              <EmptyState
                icon={<ClipboardList />}
                title="No audit entries yet"
                description="Sign-ins and every change made through the console or the API appear here."
              />
            )
          ) : (
            <div className={cn('grid gap-3 transition-opacity', isPlaceholderData && 'opacity-60')}>
              {narrow ? <LogCards logs={data.logs} onOpen={open} /> : <LogTable logs={data.logs} onOpen={open} openId={openId} />}
              <nav aria-label="Pagination" className="flex flex-wrap items-center justify-between gap-3">
                <p className="text-muted-foreground text-sm tabular-nums" aria-live="polite">
                  Showing {first}–{last} of {total}
                </p>
                <div className="flex gap-2">
                  <Button
                    variant="outline"
                    size="sm"
                    disabled={page <= 1 || isFetching}
                    onClick={() => update({ page: page > 2 ? String(page - 1) : null }, { push: true, keepPage: true })}
                  >
                    <ChevronLeft />
                    Prev
                  </Button>
                  <Button
                    variant="outline"
                    size="sm"
                    disabled={last >= total || isFetching}
                    onClick={() => update({ page: String(page + 1) }, { push: true, keepPage: true })}
                  >
                    Next
                    <ChevronRight />
                  </Button>
                </div>
              </nav>
            </div>
          )}
        </>
      )}
      <AuditDetailSheet
        id={forbidden ? null : openId}
        initial={data?.logs.find((log) => log.id === openId)}
        onClose={() => update({ log: null }, { keepPage: true })}
        onFilter={(filter) => update({ ...filter, log: null })}
      />
    </Page>
  );
}
