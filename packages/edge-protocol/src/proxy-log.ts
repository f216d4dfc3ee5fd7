/**
 * One row per request the edge served, written by the edge in batches (so a slow database never
 * stalls traffic) and read by the proxy-logs area of the control plane.
 */
export type ProxyLogRow = {
  /** When the request arrived, ISO 8601. */
  at: string;
  host: string;
  method: string;
  /** Path and query as received, cut to 2048 characters. */
  path: string;
  status: number;
  durationMs: number;
  bytesIn: number;
  bytesOut: number;
  clientIp: string;
  userAgent: string | null;
  referer: string | null;
  /** Null when no route matched (the edge's own 404 page). */
  projectId: number | null;
  environmentId: number | null;
  deploymentId: number | null;
  /** `host:port` or the socket path the request went to; null when it went nowhere. */
  upstream: string | null;
  tls: boolean;
};

/** The edge writes a batch when this many rows wait, or after PROXY_LOG_FLUSH_MS, whichever comes first. */
export const PROXY_LOG_BATCH_ROWS = 500;
export const PROXY_LOG_FLUSH_MS = 1000;
