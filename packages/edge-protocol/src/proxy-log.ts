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
/** At most this many rows wait in memory for the database; beyond it rows are dropped and counted. */
export const PROXY_LOG_BUFFER_ROWS = 50_000;
/** Long texts (paths, queries, user agents, referrers) are cut to this many characters. */
export const PROXY_LOG_TEXT_LIMIT = 2048;

/**
 * The INSERT for one batch: the rows travel as one parameter of JSON text ($1, an array of
 * ProxyLogRow; text, so no client library encodes it again), so the statement is the same whatever
 * the batch size and needs no type information.
 */
export const PROXY_LOG_INSERT_SQL = `INSERT INTO ${PROXY_LOG_RELATION}
  (created_at, method, host, path, query, status, duration_ms, bytes_in, bytes_out, client_ip, user_agent, referrer,
   route, project_id, environment_id, deployment_id, upstream, tls_version)
SELECT r."at", r."method", r."host", r."path", r."query", r."status", r."durationMs", r."bytesIn", r."bytesOut",
       r."clientIp", r."userAgent", r."referrer", r."route", r."projectId", r."environmentId", r."deploymentId",
       r."upstream", r."tlsVersion"
FROM json_to_recordset($1::text::json) AS r(
  "at" timestamptz, "method" text, "host" text, "path" text, "query" text, "status" int, "durationMs" real,
  "bytesIn" bigint, "bytesOut" bigint, "clientIp" text, "userAgent" text, "referrer" text, "route" text,
  "projectId" int, "environmentId" int, "deploymentId" int, "upstream" text, "tlsVersion" text)`;

/** Records an episode of dropped rows ($1 count, $2 first, $3 last as ISO text). */
export const PROXY_LOG_DROPS_INSERT_SQL = `INSERT INTO ${PROXY_LOG_DROPS_RELATION} (count, first_at, last_at) VALUES ($1, $2, $3)`;
