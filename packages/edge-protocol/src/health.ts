/**
 * What the edge's active health checks found, written by the edge when an upstream turns healthy or
 * unhealthy (not at every check) and read by the load-balancer area of the control plane.
 */
export const UPSTREAM_HEALTH_RELATION = 'lb_upstream_health';

/** $1 host, $2 upstream (`host:port`), $3 healthy, $4 error or null, $5 checked at (ISO). */
export const UPSTREAM_HEALTH_UPSERT_SQL = `INSERT INTO ${UPSTREAM_HEALTH_RELATION} (host, upstream, healthy, error, since, checked_at)
VALUES ($1, $2, $3, $4, $5::timestamptz, $5::timestamptz)
ON CONFLICT (host, upstream) DO UPDATE SET
  since = CASE WHEN ${UPSTREAM_HEALTH_RELATION}.healthy IS DISTINCT FROM EXCLUDED.healthy THEN EXCLUDED.since ELSE ${UPSTREAM_HEALTH_RELATION}.since END,
  healthy = EXCLUDED.healthy, error = EXCLUDED.error, checked_at = EXCLUDED.checked_at`;
