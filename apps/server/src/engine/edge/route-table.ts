import {
  type AcmeChallengeAnswer,
  askEdgeIdentity,
  type EdgeState,
  ROUTE_CHANGE_CHANNEL,
  type Route,
  type RouteChange,
  type TlsCertificate,
} from '@launchbay/edge-protocol';
import type pg from 'pg';

/**
 * Writes the edge's whole route table and tells the edge. The table is computed inside the same
 * transaction, under the table row's lock, so two nodes publishing at once write one after the
 * other and the last one reflects everything committed before it. The NOTIFY is delivered at
 * commit; an edge that missed it (reconnecting) loads the table again by its version.
 */
export type RouteTableContent = { routes: Route[]; certificates: TlsCertificate[]; challenges: AcmeChallengeAnswer[] };

export async function publishRouteTable(
  pool: pg.Pool,
  compute: (client: pg.PoolClient) => Promise<RouteTableContent>,
): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT version FROM edge_route_table WHERE id = 1 FOR UPDATE');
    const { routes, certificates, challenges } = await compute(client);
    const { rows } = await client.query<{ version: string }>(
      `UPDATE edge_route_table SET version = version + 1, routes = $1::jsonb, certificates = $2::jsonb, challenges = $3::jsonb
       WHERE id = 1 RETURNING version`,
      [JSON.stringify(routes), JSON.stringify(certificates), JSON.stringify(challenges)],
    );
    const version = Number(rows[0]?.version ?? 0);
    const change: RouteChange = { kind: 'reload', version };
    await client.query('SELECT pg_notify($1, $2)', [ROUTE_CHANGE_CHANNEL, JSON.stringify(change)]);
    await client.query('COMMIT');
    return version;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Waits until the edge serves route table `version` (or a later one), so traffic has moved
 * before the previous deployment is drained. Answers false after `timeoutMs` (no edge running,
 * or it cannot reach the database): the caller then drains after a longer grace instead.
 */
export async function waitForEdgeVersion(current: () => EdgeState | null, version: number, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const state = current();
    const identity = state ? await askEdgeIdentity(state, 500) : null;
    if (identity && identity.routeTableVersion >= version) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}
