import { ipAddressSchema, type ProxyLog, STATUS_CLASSES, type StatusClass } from '@launchbay/contract';

/** The filters GET /proxy-logs takes (besides paging), as this console sends them. */
export interface ProxyLogFilter {
  from?: string;
  status_class?: StatusClass;
  host?: string;
  path?: string;
  client_ip?: string;
  project_id?: number;
}

export const TIME_RANGES = [
  { value: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { value: '1h', label: 'Last hour', ms: 3_600_000 },
  { value: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { value: 'all', label: 'All time', ms: null },
] as const;
export type TimeRange = (typeof TIME_RANGES)[number]['value'];
export const DEFAULT_RANGE: TimeRange = '24h';

export function isTimeRange(value: string | null): value is TimeRange {
  return TIME_RANGES.some((range) => range.value === value);
}

export function timeRangeLabel(range: TimeRange): string {
  return TIME_RANGES.find((r) => r.value === range)?.label ?? range;
}

/** The start of a range as the API wants it (ISO 8601), counted back from `now`; undefined for all time. */
export function rangeStart(range: TimeRange, now: number): string | undefined {
  const ms = TIME_RANGES.find((r) => r.value === range)?.ms;
  return ms ? new Date(now - ms).toISOString() : undefined;
}

export function isStatusClass(value: string | null): value is StatusClass {
  return (STATUS_CLASSES as readonly (string | null)[]).includes(value);
}

export function isIpAddress(value: string): boolean {
  return ipAddressSchema.safeParse(value).success;
}

/** The keys of the list's filters in the page's URL (a link reproduces the view). */
export const FILTER_PARAMS = ['range', 'status_class', 'host', 'path', 'client_ip', 'project_id'] as const;
export type FilterParam = (typeof FILTER_PARAMS)[number];

export interface ListFilters {
  range: TimeRange;
  status_class: StatusClass | null;
  host: string;
  path: string;
  client_ip: string;
  project_id: number | null;
}

function positiveInt(value: string | null): number | null {
  if (!value || !/^[1-9]\d{0,9}$/.test(value)) return null;
  const n = Number(value);
  return n <= 2_147_483_647 ? n : null;
}

/** The filters from the URL; unknown or malformed values fall back to their defaults. */
export function filtersFromParams(params: URLSearchParams): ListFilters {
  const range = params.get('range');
  const statusClass = params.get('status_class');
  return {
    range: isTimeRange(range) ? range : DEFAULT_RANGE,
    status_class: isStatusClass(statusClass) ? statusClass : null,
    host: params.get('host')?.trim() ?? '',
    path: params.get('path')?.trim() ?? '',
    client_ip: params.get('client_ip')?.trim() ?? '',
    project_id: positiveInt(params.get('project_id')),
  };
}

/** True when the view is narrowed beyond the default (the default time range alone is no filter). */
export function hasActiveFilters(filters: ListFilters): boolean {
  return (
    filters.range !== DEFAULT_RANGE ||
    !!filters.status_class ||
    !!filters.host ||
    !!filters.path ||
    !!filters.client_ip ||
    filters.project_id !== null
  );
}

/** A path prefix always starts with '/': 'api' is taken as '/api'. */
export function normalizePathPrefix(path: string): string {
  const trimmed = path.trim();
  if (!trimmed) return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** The API query for the filters; `now` anchors the time range. Values the API would refuse are left out. */
export function toApiFilter(filters: ListFilters, now: number): ProxyLogFilter {
  const path = normalizePathPrefix(filters.path);
  return {
    from: rangeStart(filters.range, now),
    status_class: filters.status_class ?? undefined,
    host: filters.host ? filters.host.toLowerCase().slice(0, 253) : undefined,
    path: path ? path.slice(0, 2048) : undefined,
    client_ip: filters.client_ip && isIpAddress(filters.client_ip) ? filters.client_ip : undefined,
    project_id: filters.project_id ?? undefined,
  };
}

/** '14:03:27' on today's rows, 'Nov 22, 14:03:27' before, with the year when it is not this year. */
export function formatLogTime(iso: string, now = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const sameDay = date.toDateString() === now.toDateString();
  const sameYear = date.getFullYear() === now.getFullYear();
  return date.toLocaleString(undefined, {
    year: sameYear ? undefined : 'numeric',
    month: sameDay ? undefined : 'short',
    day: sameDay ? undefined : 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

/** The full local time, to the millisecond, for the detail page. */
export function formatFullTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, {
    weekday: 'short',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  });
}

/** '0.4 ms', '12 ms', '1,234 ms'. */
export function formatDurationMs(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 10) return `${ms.toLocaleString(undefined, { maximumFractionDigits: 1 })} ms`;
  return `${Math.round(ms).toLocaleString()} ms`;
}

/** Slow answers stand out in the list. */
export function durationTone(ms: number): 'normal' | 'slow' | 'very-slow' {
  if (ms >= 5000) return 'very-slow';
  if (ms >= 1000) return 'slow';
  return 'normal';
}

/** The path with its query string, as the client asked for it. */
export function pathWithQuery(log: Pick<ProxyLog, 'path' | 'query'>): string {
  return log.query ? `${log.path}?${log.query}` : log.path;
}

export function statusClassOf(code: number): StatusClass | null {
  const digit = Math.floor(code / 100);
  return digit >= 1 && digit <= 5 ? (`${digit}xx` as StatusClass) : null;
}

/** The flag emoji for a two-letter country code ('US' -> 🇺🇸); empty for anything else. */
export function flagEmoji(countryCode: string | null | undefined): string {
  if (!countryCode || !/^[A-Za-z]{2}$/.test(countryCode)) return '';
  const base = 0x1f1e6;
  return String.fromCodePoint(...[...countryCode.toUpperCase()].map((c) => base + c.charCodeAt(0) - 65));
}

/** Links into the rest of the console. */
export const proxyLogPath = (id: number) => `/proxy-logs/${id}`;
export const ipPath = (ip: string) => `/ip/${encodeURIComponent(ip)}`;
export const projectPath = (slug: string) => `/projects/${encodeURIComponent(slug)}`;
export const deploymentPath = (slug: string, deploymentId: number) => `${projectPath(slug)}/deployments/${deploymentId}`;
