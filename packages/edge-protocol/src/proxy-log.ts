import { isUtf8 } from 'node:buffer';
/**
 * One row per request the edge served, written by the edge in batches (so a slow database never
 * stalls traffic) and read by the proxy-logs area of the control plane. The nginx driver reads
 * nginx's JSON access log into the same rows.
 */
export type ProxyLogRow = {
  /** When the request arrived, ISO 8601 to the millisecond. */
  at: string;
  method: string;
  host: string;
  /** The path as received, without the query, cut to PROXY_LOG_TEXT_LIMIT characters. */
  path: string;
  /** The query string without its "?", null when there was none. */
  query: string | null;
  status: number;
  durationMs: number;
  /** Request line, headers and body as received (nginx's $request_length). */
  bytesIn: number;
  /** Status line, headers and body as sent (nginx's $bytes_sent). */
  bytesOut: number;
  clientIp: string;
  userAgent: string | null;
  referrer: string | null;
  /** The route that matched as `host` + path prefix (`shop.example.com/`), null when none did. */
  route: string | null;
  projectId: number | null;
  environmentId: number | null;
  deploymentId: number | null;
  /** `host:port` or the socket path the request went to; null when the edge answered itself. */
  upstream: string | null;
  /** e.g. `TLSv1.3`; null for plain HTTP. */
  tlsVersion: string | null;
};

/** The table the rows go to (created by the control plane's migrations). */
export const PROXY_LOG_RELATION = 'proxy_logs';
/** Counts of rows the edge could not keep (its buffer was full): one row per episode. */
export const PROXY_LOG_DROPS_RELATION = 'proxy_log_drops';

/** The edge writes a batch when this many rows wait, or after PROXY_LOG_FLUSH_MS, whichever comes first. */
export const PROXY_LOG_BATCH_ROWS = 1000;
export const PROXY_LOG_FLUSH_MS = 1000;
/**
 * At most this many rows wait in memory for the database (about 35 MB of COPY lines, off the JavaScript
 * heap, and only under load); beyond it rows are dropped and counted. Room for a burst the edge's
 * pacer keeps the writes back through: ten seconds at 15,000 requests a second.
 */
export const PROXY_LOG_BUFFER_ROWS = 200_000;
/** Long texts (paths, queries, user agents, referrers) are cut to this many characters. */
export const PROXY_LOG_TEXT_LIMIT = 2048;

/** The columns a batch fills, in the order of proxyLogCopyLine's fields. */
const PROXY_LOG_COLUMNS =
  'created_at, method, host, path, query, status, duration_ms, bytes_in, bytes_out, client_ip, user_agent, referrer, route, project_id, environment_id, deployment_id, upstream, tls_version';

/**
 * A batch goes in as COPY (text format): PostgreSQL reads tab-separated lines several times cheaper
 * than it parses a parameter of JSON into rows (measured: 5 µs of the database's CPU less per row).
 */
export const PROXY_LOG_COPY_SQL = `COPY ${PROXY_LOG_RELATION} (${PROXY_LOG_COLUMNS}) FROM STDIN`;

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\0': '' };
const NEEDS_ESCAPE = /[\\\n\r\t\0]/;
const NEEDS_ESCAPE_ALL = /[\\\n\r\t\0]/g;

/** A text field of COPY's text format: backslash, tab and line breaks escaped, NUL (which no text column holds) dropped, null as \N. */
function copyText(value: string | null): string {
  if (value === null) return '\\N';
  return NEEDS_ESCAPE.test(value) ? value.replace(NEEDS_ESCAPE_ALL, (c) => COPY_ESCAPES[c] ?? '') : value;
}

/** A number column that may not be null: 0 for anything not finite (one bad field never fails a batch). */
const copyNumber = (value: number): string => (Number.isFinite(value) ? String(value) : '0');

const copyId = (value: number | null): string => (value !== null && Number.isSafeInteger(value) ? String(value) : '\\N');

/**
 * One row as a line of COPY's text format (PROXY_LOG_COPY_SQL's columns). Its texts are either all
 * Unicode (the line goes out as UTF-8) or all byte strings, one character per byte as received, which
 * is how Node's HTTP parser gives a request's line and headers (the line goes out as latin1: the
 * client's own bytes, UTF-8 when it sent UTF-8; a batch that is not valid UTF-8 is repaired before
 * it goes, validProxyLogBatch).
 */
export function proxyLogCopyLine(row: ProxyLogRow): string {
  return `${copyText(row.at)}\t${copyText(row.method)}\t${copyText(row.host)}\t${copyText(row.path)}\t${copyText(row.query)}\t${copyNumber(row.status)}\t${copyNumber(row.durationMs)}\t${copyNumber(row.bytesIn)}\t${copyNumber(row.bytesOut)}\t${copyText(row.clientIp)}\t${copyText(row.userAgent)}\t${copyText(row.referrer)}\t${copyText(row.route)}\t${copyId(row.projectId)}\t${copyId(row.environmentId)}\t${copyId(row.deploymentId)}\t${copyText(row.upstream)}\t${copyText(row.tlsVersion)}\n`;
}

/**
 * A batch of COPY lines as PostgreSQL takes it: valid UTF-8. Lines of byte strings carry what clients
 * sent, which need not be UTF-8 (a Latin-1 user agent, a path cut in the middle of a character): such a
 * batch has its invalid sequences replaced by U+FFFD, as a browser shows them, rather than refused whole.
 */
export function validProxyLogBatch(lines: Buffer): Buffer {
  return isUtf8(lines) ? lines : Buffer.from(lines.toString('utf8'));
}

/** Records an episode of dropped rows ($1 count, $2 first, $3 last as ISO text). */
export const PROXY_LOG_DROPS_INSERT_SQL = `INSERT INTO ${PROXY_LOG_DROPS_RELATION} (count, first_at, last_at) VALUES ($1, $2, $3)`;
