import { ArrowDown, ChevronDown, ChevronUp, Clock, Download, Search, WrapText, X } from 'lucide-react';
import {
  type KeyboardEvent,
  memo,
  type ReactNode,
  type Ref,
  useCallback,
  useDeferredValue,
  useEffect,
  useImperativeHandle,
  useMemo,
  useRef,
  useState,
} from 'react';
import { Virtualizer, type VirtualizerHandle } from 'virtua';
import { Button } from '@/components/ui/button';
import { Tooltip, TooltipContent, TooltipTrigger } from '@/components/ui/tooltip';
import type { StreamState } from '@/lib/stream';
import { cn } from '@/lib/utils';
import { parseAnsi, stripAnsi } from './ansi';

/** One log line as the server streams it (deployment logs, job logs). */
export interface LogLine {
  id: number;
  /** ISO time the line was written. */
  at: string;
  stream: 'build' | 'stdout' | 'stderr' | 'system';
  /** The process that wrote it ('web', 'worker'), or null for build and platform lines. */
  process: string | null;
  line: string;
}

export interface LogViewerHandle {
  /** Scrolls a line (by index in `lines`) into view and stops following. */
  revealLine(index: number): void;
}

export interface LogViewerProps {
  lines: readonly LogLine[];
  /** The stream's state: 'Live', 'Connecting…', 'Reconnecting in Ns'. Omitted: no indicator. */
  connection?: StreamState;
  /** The downloaded file's name, without '.log'. */
  filename: string;
  /** Shown while there are no lines. */
  emptyMessage?: ReactNode;
  /** A note above the lines (older lines dropped, a filter in effect). */
  notice?: ReactNode;
  /** Show the process column ('web'): for runtime logs. */
  showProcess?: boolean;
  /** Sets the height: the viewer fills it. */
  className?: string;
  /** An accessible name for the log region. */
  label?: string;
  ref?: Ref<LogViewerHandle>;
}

/** Matches beyond this are not counted (a one-letter query over 20,000 lines). */
export const MAX_SEARCH_MATCHES = 10_000;
/** Within this many pixels of the end, the viewer counts as at the bottom (and follows). */
const BOTTOM_SLACK_PX = 24;
const ROW_HEIGHT_PX = 20;
const TIMESTAMPS_KEY = 'launchbay.logs.timestamps';
const WRAP_KEY = 'launchbay.logs.wrap';

function readFlag(key: string, fallback: boolean | (() => boolean)): boolean {
  const byDefault = () => (typeof fallback === 'function' ? fallback() : fallback);
  try {
    const value = localStorage.getItem(key);
    return value === null ? byDefault() : value === '1';
  } catch {
    return byDefault();
  }
}

/** Timestamps are on by default where they fit (not on a phone). */
function wideScreen(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia('(min-width: 640px)').matches;
}

function useStoredFlag(key: string, fallback: boolean | (() => boolean)) {
  const [value, setValue] = useState(() => readFlag(key, fallback));
  const update = useCallback(
    (next: boolean) => {
      setValue(next);
      try {
        localStorage.setItem(key, next ? '1' : '0');
      } catch {
        // private mode: the choice lasts for this page only
      }
    },
    [key],
  );
  return [value, update] as const;
}

const pad = (value: number, length = 2) => String(value).padStart(length, '0');

/** '14:03:07.042' in local time. */
export function formatLogTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** Plain text of each line object, computed once per line. */
const plainCache = new WeakMap<LogLine, string>();
function plainOf(line: LogLine): string {
  let text = plainCache.get(line);
  if (text === undefined) {
    text = stripAnsi(line.line).toLowerCase();
    plainCache.set(line, text);
  }
  return text;
}

export interface SearchMatch {
  /** Index of the line in `lines`. */
  line: number;
  /** Which occurrence within that line (0-based). */
  nth: number;
}

/** Every occurrence of `query` (case-insensitive, ANSI codes ignored), up to MAX_SEARCH_MATCHES. */
export function findMatches(lines: readonly LogLine[], query: string): SearchMatch[] {
  const needle = query.toLowerCase();
  if (!needle) return [];
  const matches: SearchMatch[] = [];
  for (let index = 0; index < lines.length; index++) {
    const text = plainOf(lines[index] as LogLine);
    let from = text.indexOf(needle);
    let nth = 0;
    while (from >= 0) {
      matches.push({ line: index, nth });
      if (matches.length >= MAX_SEARCH_MATCHES) return matches;
      nth += 1;
      from = text.indexOf(needle, from + needle.length);
    }
  }
  return matches;
}

/** The text of the download: one line per entry, as the server's text/plain log reads. */
export function logText(lines: readonly LogLine[]): string {
  return lines.map((l) => `${l.at} ${l.process ?? l.stream} ${stripAnsi(l.line)}`).join('\n') + (lines.length ? '\n' : '');
}

function downloadText(text: string, filename: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = filename.endsWith('.log') ? filename : `${filename}.log`;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const STREAM_ROW: Record<LogLine['stream'], string> = {
  build: 'border-l-transparent',
  stdout: 'border-l-transparent',
  stderr: 'border-l-red-500/70 bg-red-500/[0.06] dark:bg-red-500/[0.08]',
  system: 'border-l-sky-500/70 text-muted-foreground',
};

const isStepHeader = (line: LogLine) => line.stream === 'system' && line.line.startsWith('── ');

/** The line's text with its ANSI colours, and the search matches marked. */
function LineText({ line, query, current }: { line: LogLine; query: string; current: number }) {
  const segments = useMemo(() => parseAnsi(line.line), [line.line]);
  if (!query) {
    return (
      <>
        {segments.map((segment, index) =>
          segment.className || segment.style ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: segments of one line never reorder
            <span key={index} className={segment.className} style={segment.style}>
              {segment.text}
            </span>
          ) : (
            segment.text
          ),
        )}
      </>
    );
  }
  // Cut the segments at the match boundaries of the joined text.
  const full = segments.map((s) => s.text).join('');
  const lower = full.toLowerCase();
  const needle = query.toLowerCase();
  const ranges: [number, number][] = [];
  for (let from = lower.indexOf(needle); from >= 0; from = lower.indexOf(needle, from + needle.length)) {
    ranges.push([from, from + needle.length]);
  }
  const out: ReactNode[] = [];
  let offset = 0;
  let key = 0;
  for (const segment of segments) {
    const start = offset;
    const end = offset + segment.text.length;
    offset = end;
    let cursor = start;
    const pieces: ReactNode[] = [];
    for (const [index, [from, to]] of ranges.entries()) {
      if (to <= cursor || from >= end) continue;
      const a = Math.max(from, cursor);
      const b = Math.min(to, end);
      if (a > cursor) pieces.push(full.slice(cursor, a));
      pieces.push(
        <mark
          key={`m${key++}`}
          data-current={index === current ? 'true' : undefined}
          className={cn(
            'rounded-[2px] text-inherit',
            index === current ? 'bg-amber-400/90 text-black ring-1 ring-amber-500' : 'bg-amber-300/40 dark:bg-amber-400/30',
          )}
        >
          {full.slice(a, b)}
        </mark>,
      );
      cursor = b;
    }
    if (cursor < end) pieces.push(full.slice(cursor, end));
    out.push(
      <span key={`s${key++}`} className={segment.className || undefined} style={segment.style}>
        {pieces}
      </span>,
    );
  }
  return <>{out}</>;
}

const LogRow = memo(function LogRow({
  line,
  timestamps,
  wrap,
  showProcess,
  query,
  current,
  first,
}: {
  line: LogLine;
  timestamps: boolean;
  wrap: boolean;
  showProcess: boolean;
  query: string;
  /** The occurrence in this line that is the current match, or -1. */
  current: number;
  first: boolean;
}) {
  const header = isStepHeader(line);
  return (
    <div
      data-stream={line.stream}
      className={cn(
        'flex gap-3 border-l-2 py-px pr-4 pl-3 font-mono text-xs leading-[18px] hover:bg-muted/60',
        STREAM_ROW[line.stream],
        header && 'text-foreground',
        header && !first && 'mt-1.5 border-t border-t-border/60 pt-1.5',
        !wrap && 'w-max min-w-full',
      )}
    >
      {timestamps ? (
        <time dateTime={line.at} className="w-[5.75rem] shrink-0 select-none text-muted-foreground/70 tabular-nums">
          {formatLogTime(line.at)}
        </time>
      ) : null}
      {showProcess ? (
        <span className="w-14 shrink-0 select-none truncate text-muted-foreground" title={line.process ?? line.stream}>
          {line.process ?? line.stream}
        </span>
      ) : null}
      <span
        className={cn('min-w-0 flex-1', wrap ? 'whitespace-pre-wrap wrap-anywhere' : 'whitespace-pre', header && 'font-semibold')}
      >
        {line.line ? <LineText line={line} query={query} current={current} /> : '\u00a0'}
      </span>
    </div>
  );
});

function useSecondsUntil(at: number | undefined): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (at === undefined) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [at]);
  return at === undefined ? 0 : Math.max(0, Math.ceil((at - now) / 1000));
}

/** 'Live', 'Connecting…', 'Reconnecting in 6s' (the stream client's 3 s, doubling to 30 s). */
export function ConnectionStatus({ connection }: { connection: StreamState }) {
  const retryAt = connection.state === 'retrying' ? connection.retryAt : undefined;
  const seconds = useSecondsUntil(retryAt);
  let dot = 'bg-muted-foreground/50';
  let text = 'Disconnected';
  if (connection.state === 'open') {
    dot = 'bg-success';
    text = 'Live';
  } else if (connection.state === 'connecting') {
    dot = 'bg-muted-foreground/60 animate-pulse';
    text = 'Connecting…';
  } else if (connection.state === 'retrying') {
    dot = 'bg-warning';
    text = seconds > 0 ? `Reconnecting in ${seconds}s` : 'Reconnecting…';
  } else if (connection.error) {
    dot = 'bg-destructive';
    text = connection.error.status === 404 ? 'Log not found' : 'Disconnected';
  }
  return (
    <span className="inline-flex items-center gap-1.5 whitespace-nowrap text-muted-foreground text-xs" role="status">
      <span className="relative flex size-2" aria-hidden="true">
        {connection.state === 'open' ? (
          <span className="absolute inline-flex size-full animate-ping rounded-full bg-success opacity-50" />
        ) : null}
        <span className={cn('relative inline-flex size-2 rounded-full', dot)} />
      </span>
      {text}
    </span>
  );
}

function ToolbarToggle({
  pressed,
  onPressedChange,
  label,
  children,
}: {
  pressed: boolean;
  onPressedChange: (pressed: boolean) => void;
  label: string;
  children: ReactNode;
}) {
  return (
    <Tooltip>
      <TooltipTrigger asChild>
        <Button
          variant="ghost"
          size="icon-sm"
          aria-label={label}
          aria-pressed={pressed}
          className={cn('text-muted-foreground', pressed && 'bg-accent text-foreground')}
          onClick={() => onPressedChange(!pressed)}
        >
          {children}
        </Button>
      </TooltipTrigger>
      <TooltipContent>{label}</TooltipContent>
    </Tooltip>
  );
}

/**
 * A log viewer for build and runtime output: virtualised (20,000 lines scroll like 20), ANSI
 * colours, follow mode (sticks to the end until the user scrolls up; 'Follow' resumes), search
 * with a count and next/previous, timestamps and line wrapping toggles (remembered), and a
 * download of what is loaded.
 */
export function LogViewer({
  lines,
  connection,
  filename,
  emptyMessage = 'Waiting for logs…',
  notice,
  showProcess = false,
  className,
  label = 'Log',
  ref,
}: LogViewerProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useRef<VirtualizerHandle>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const lastScrollTop = useRef(0);
  const [following, setFollowing] = useState(true);
  const followingRef = useRef(true);
  followingRef.current = following;
  const [timestamps, setTimestamps] = useStoredFlag(TIMESTAMPS_KEY, wideScreen);
  const [wrap, setWrap] = useStoredFlag(WRAP_KEY, true);
  const [query, setQuery] = useState('');
  const deferredQuery = useDeferredValue(query.trim());
  const [currentMatch, setCurrentMatch] = useState(0);

  const matches = useMemo(() => findMatches(lines, deferredQuery), [lines, deferredQuery]);
  const matchCount = matches.length;
  const current = matchCount === 0 ? -1 : Math.min(currentMatch, matchCount - 1);
  const currentAt = current >= 0 ? matches[current] : undefined;

  const scrollToEnd = useCallback(() => {
    const element = scrollRef.current;
    if (!element) return;
    if (lines.length > 0) virtualizer.current?.scrollToIndex(lines.length - 1, { align: 'end' });
    element.scrollTop = element.scrollHeight;
  }, [lines.length]);

  // Following: every new line scrolls the view to the end.
  useEffect(() => {
    if (following) scrollToEnd();
  }, [following, scrollToEnd]);

  const reveal = useCallback((index: number) => {
    setFollowing(false);
    virtualizer.current?.scrollToIndex(index, { align: 'center' });
  }, []);

  useImperativeHandle(ref, () => ({ revealLine: reveal }), [reveal]);

  // A new query starts at its first match.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset only when the query changes
  useEffect(() => {
    setCurrentMatch(0);
  }, [deferredQuery]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: reveal when the current match moves, not on every new line
  useEffect(() => {
    if (currentAt) reveal(currentAt.line);
  }, [currentAt?.line, currentAt?.nth, deferredQuery, reveal]);

  const step = (delta: number) => {
    if (matchCount === 0) return;
    setCurrentMatch((value) => (Math.min(value, matchCount - 1) + delta + matchCount) % matchCount);
  };

  const onScroll = () => {
    const element = scrollRef.current;
    if (!element) return;
    const top = element.scrollTop;
    const distance = element.scrollHeight - top - element.clientHeight;
    if (distance <= BOTTOM_SLACK_PX) {
      if (!followingRef.current) setFollowing(true);
    } else if (top < lastScrollTop.current - 1 && followingRef.current) {
      // The user scrolled up: stop following (a programmatic scroll only ever goes down).
      setFollowing(false);
    }
    lastScrollTop.current = top;
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if ((event.metaKey || event.ctrlKey) && event.key.toLowerCase() === 'f') {
      event.preventDefault();
      searchRef.current?.focus();
      searchRef.current?.select();
    }
  };

  const onSearchKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      step(event.shiftKey ? -1 : 1);
    } else if (event.key === 'Escape' && query) {
      event.preventDefault();
      event.stopPropagation();
      setQuery('');
    }
  };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Ctrl/Cmd+F inside the viewer focuses its search
    <div
      className={cn('flex h-[32rem] min-h-0 flex-col overflow-hidden rounded-xl border bg-card shadow-xs', className)}
      onKeyDown={onKeyDown}
      data-slot="log-viewer"
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1.5 border-b px-2 py-1.5">
        <div className="flex min-w-0 flex-1 basis-56 items-center gap-1">
          <div className="relative min-w-0 flex-1 sm:max-w-72">
            <Search className="pointer-events-none absolute top-1/2 left-2.5 size-3.5 -translate-y-1/2 text-muted-foreground" />
            <input
              ref={searchRef}
              type="search"
              value={query}
              onChange={(event) => setQuery(event.target.value)}
              onKeyDown={onSearchKeyDown}
              placeholder="Search logs"
              aria-label="Search logs"
              spellCheck={false}
              className="h-8 w-full min-w-0 rounded-md border border-input bg-transparent pr-2 pl-8 text-sm outline-none transition-[color,box-shadow] placeholder:text-muted-foreground focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 dark:bg-input/30 [&::-webkit-search-cancel-button]:hidden"
            />
          </div>
          {deferredQuery ? (
            <>
              <span className="shrink-0 px-1 text-muted-foreground text-xs tabular-nums" aria-live="polite">
                {matchCount === 0
                  ? 'No matches'
                  : `${current + 1} of ${matchCount >= MAX_SEARCH_MATCHES ? `${MAX_SEARCH_MATCHES}+` : matchCount}`}
              </span>
              <Button
                variant="ghost"
                size="icon-sm"
                aria-label="Previous match"
                disabled={matchCount === 0}
                onClick={() => step(-1)}
              >
                <ChevronUp />
              </Button>
              <Button variant="ghost" size="icon-sm" aria-label="Next match" disabled={matchCount === 0} onClick={() => step(1)}>
                <ChevronDown />
              </Button>
              <Button variant="ghost" size="icon-sm" aria-label="Clear search" onClick={() => setQuery('')}>
                <X />
              </Button>
            </>
          ) : null}
        </div>
        <div className="ml-auto flex items-center gap-1">
          {connection ? (
            <span className="mr-1.5">
              <ConnectionStatus connection={connection} />
            </span>
          ) : null}
          <ToolbarToggle pressed={timestamps} onPressedChange={setTimestamps} label="Show timestamps">
            <Clock />
          </ToolbarToggle>
          <ToolbarToggle pressed={wrap} onPressedChange={setWrap} label="Wrap lines">
            <WrapText />
          </ToolbarToggle>
          <Tooltip>
            <TooltipTrigger asChild>
              <Button
                variant="ghost"
                size="icon-sm"
                className="text-muted-foreground"
                aria-label="Download log"
                disabled={lines.length === 0}
                onClick={() => downloadText(logText(lines), filename)}
              >
                <Download />
              </Button>
            </TooltipTrigger>
            <TooltipContent>Download log</TooltipContent>
          </Tooltip>
        </div>
      </div>
      {notice ? <div className="border-b bg-muted/40 px-3 py-1.5 text-muted-foreground text-xs">{notice}</div> : null}
      <div className="relative min-h-0 flex-1">
        {lines.length === 0 ? (
          <div className="absolute inset-0 flex items-center justify-center px-6 text-center text-muted-foreground text-sm">
            {emptyMessage}
          </div>
        ) : null}
        <div
          ref={scrollRef}
          onScroll={onScroll}
          role="log"
          aria-label={label}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: the log scrolls with the keyboard
          tabIndex={0}
          className="absolute inset-0 overflow-auto overscroll-contain py-2 outline-none focus-visible:ring-2 focus-visible:ring-ring/50 focus-visible:ring-inset"
        >
          <Virtualizer
            ref={virtualizer}
            scrollRef={scrollRef}
            data={lines as LogLine[]}
            itemSize={ROW_HEIGHT_PX}
            startMargin={8}
            onResize={() => {
              if (followingRef.current) scrollToEnd();
            }}
          >
            {(line: LogLine, index: number) => (
              <LogRow
                key={line.id}
                line={line}
                first={index === 0}
                timestamps={timestamps}
                wrap={wrap}
                showProcess={showProcess}
                query={deferredQuery}
                current={currentAt && currentAt.line === index ? currentAt.nth : -1}
              />
            )}
          </Virtualizer>
        </div>
        {!following && lines.length > 0 ? (
          <Button
            size="sm"
            variant="secondary"
            className="absolute right-4 bottom-3 rounded-full border shadow-md"
            onClick={() => {
              setFollowing(true);
              scrollToEnd();
            }}
          >
            <ArrowDown />
            Follow
          </Button>
        ) : null}
      </div>
    </div>
  );
}
