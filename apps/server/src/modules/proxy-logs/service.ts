import type { ProxyLog, ProxyLogList, proxyLogQuerySchema } from '@launchbay/contract';
import { askEdgeIdentity } from '@launchbay/edge-protocol';
import type { z } from 'zod';
import type { AppContext } from '../../context';
import { proxyLogFilterTokens } from './filter-tokens';

type Query = z.output<typeof proxyLogQuerySchema>;

type Row = {
  id: string;
  at_ms: string;
  method: string;
  host: string;
  path: string;
  query: string | null;
  status: number;
  duration_ms: number;
  bytes_in: string;
  bytes_out: string;
  client_ip: string;
  user_agent: string | null;
  referrer: string | null;
  route: string | null;
  project_id: number | null;
  project_name: string | null;
  project_slug: string | null;
  environment_id: number | null;
  environment_name: string | null;
  deployment_id: number | null;
  upstream: string | null;
  tls_version: string | null;
};

const SELECT = `SELECT l.id, (extract(epoch FROM l.created_at) * 1000)::bigint AS at_ms, l.method, l.host, l.path, l.query,
       l.status, l.duration_ms, l.bytes_in, l.bytes_out, l.client_ip, l.user_agent, l.referrer, l.route,
       l.project_id, p.name AS project_name, p.slug AS project_slug, l.environment_id, e.name AS environment_name,
       l.deployment_id, l.upstream, l.tls_version
FROM proxy_logs l
LEFT JOIN projects p ON p.id = l.project_id
LEFT JOIN environments e ON e.id = l.environment_id`;

function toDto(row: Row): ProxyLog {
  return {
    id: Number(row.id),
    created_at: new Date(Number(row.at_ms)).toISOString(),
    method: row.method,
    host: row.host,
    path: row.path,
    query: row.query,
    status_code: row.status,
    duration_ms: row.duration_ms,
    bytes_in: Number(row.bytes_in),
    bytes_out: Number(row.bytes_out),
    client_ip: row.client_ip,
    user_agent: row.user_agent,
    referrer: row.referrer,
    route: row.route,
    project_id: row.project_id,
    project_name: row.project_name,
    project_slug: row.project_slug,
    environment_id: row.environment_id,
    environment_name: row.environment_name,
    deployment_id: row.deployment_id,
    upstream: row.upstream,
    tls_version: row.tls_version,
  };
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The time bound as SQL on a parameter of epoch milliseconds (exact, unlike a float of seconds). */
const fromMs = (param: string) => `('epoch'::timestamptz + ${param} * interval '1 millisecond')`;

/**
 * The proxy-log list, newest first. Older pages by keyset on (created_at, id), so every page costs
 * one index range scan however deep it is; `after_id` answers only rows stored since (the live tail).
 */
export async function listProxyLogs(ctx: AppContext, q: Query): Promise<Omit<ProxyLogList, 'waiting_rows'>> {
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const fromTime = q.from ? new Date(q.from).getTime() : null;
  const toTime = q.to ? new Date(q.to).getTime() : null;
  if (fromTime !== null) where.push(`l.created_at >= ${fromMs(param(fromTime))}`);
  if (toTime !== null) where.push(`l.created_at <= ${fromMs(param(toTime))}`);
  // Every equality filter is a token of the GIN index; several at once are one containment test.
  const tokens = [
    q.host ? `h:${q.host}` : null,
    q.client_ip ? `i:${q.client_ip}` : null,
    q.project_id !== undefined ? `p:${q.project_id}` : null,
    q.environment_id !== undefined ? `e:${q.environment_id}` : null,
    q.status_class ? `c:${q.status_class[0]}` : null,
    q.status_code !== undefined ? `s:${q.status_code}` : null,
  ].filter((token) => token !== null);
  if (tokens.length > 0) where.push(`${proxyLogFilterTokens('l.')} @> ${param(tokens)}::text[]`);
  if (q.path) where.push(`l.path LIKE ${param(`${escapeLike(q.path)}%`)}`);
  const tail = q.after_id !== undefined;
  if (tail) where.push(`l.id > ${param(q.after_id)}`);
  if (q.cursor && !tail) {
    const [ms, id] = q.cursor.split('.');
    where.push(`(l.created_at, l.id) < (${fromMs(param(Number(ms)))}, ${param(id)}::bigint)`);
  }
  // NULLS LAST as the indexes are built: PostgreSQL uses an index only when the null order matches
  // too (DESC alone means NULLS FIRST), even on columns that are never null.
  const order = tail ? 'l.id DESC' : 'l.created_at DESC NULLS LAST, l.id DESC NULLS LAST';
  const sql = `${SELECT}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ${param(q.limit + 1)}`;

  const dropParams: unknown[] = [];
  const dropWhere: string[] = [];
  if (fromTime !== null) {
    dropParams.push(fromTime);
    dropWhere.push(`last_at >= ${fromMs(`$${dropParams.length}`)}`);
  }
  if (toTime !== null) {
    dropParams.push(toTime);
    dropWhere.push(`first_at <= ${fromMs(`$${dropParams.length}`)}`);
  }
  const [list, latest, drops] = await Promise.all([
    ctx.pool.query<Row>(sql, params),
    ctx.pool.query<{ id: string | null }>('SELECT max(id) AS id FROM proxy_logs'),
    ctx.pool.query<{ count: string; last_at: Date | null }>(
      `SELECT coalesce(sum(count), 0) AS count, max(last_at) AS last_at FROM proxy_log_drops${
        dropWhere.length ? ` WHERE ${dropWhere.join(' AND ')}` : ''
      }`,
      dropParams,
    ),
  ]);
  const rows = list.rows.slice(0, q.limit);
  const last = rows.at(-1);
  return {
    logs: rows.map(toDto),
    next_cursor: !tail && list.rows.length > q.limit && last ? `${last.at_ms}.${last.id}` : null,
    // The three queries run side by side, each on its own snapshot: a row stored meanwhile may be in
    // the list but not yet in max(id), and the live tail must not start before a row already shown.
    latest_id: rows.reduce((newest, row) => Math.max(newest, Number(row.id)), Number(latest.rows[0]?.id ?? 0)),
    dropped: {
      count: Number(drops.rows[0]?.count ?? 0),
      last_at: drops.rows[0]?.last_at ? new Date(drops.rows[0].last_at).toISOString() : null,
    },
  };
}

export async function getProxyLog(ctx: AppContext, id: number): Promise<ProxyLog | null> {
  const { rows } = await ctx.pool.query<Row>(`${SELECT} WHERE l.id = $1`, [id]);
  return rows[0] ? toDto(rows[0]) : null;
}

/** The live tail asks every few seconds: the edge is asked at most once a second. */
const WAITING_CACHE_MS = 1000;
const waitingAsked = new WeakMap<object, { at: number; rows: Promise<number> }>();

/**
 * The rows the edge holds back right now (its pacer keeps them while a burst saturates it), so the
 * list can say requests are missing from it for now rather than let them look unlogged; 0 when none
 * wait or the edge does not answer.
 */
export function proxyLogsWaiting(ctx: Pick<AppContext, 'edge'>): Promise<number> {
  const last = waitingAsked.get(ctx.edge);
  if (last && Date.now() - last.at < WAITING_CACHE_MS) return last.rows;
  const current = ctx.edge.current();
  const rows = current
    ? askEdgeIdentity(current, 500).then(
        (identity) => (identity?.proxyLog?.waiting ? identity.proxyLog.buffered : 0),
        () => 0,
      )
    : Promise.resolve(0);
  waitingAsked.set(ctx.edge, { at: Date.now(), rows });
  return rows;
}
