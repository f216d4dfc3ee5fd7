import { type ProxyLogRow, proxyLogCopyLine } from '@launchbay/edge-protocol';
import { type ExternalPostgres, startExternalPostgres } from '@launchbay/testkit';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyLogWriter, postgresProxyLogSink } from '../src/proxy-log-writer';

/**
 * The edge's batches go in as COPY text: every value must come back from a real PostgreSQL as it
 * was recorded, whatever characters a client put in its path, query, user agent or referrer.
 */
let server: ExternalPostgres;
let sql: postgres.Sql<Record<string, unknown>>;

beforeAll(async () => {
  server = await startExternalPostgres();
  sql = postgres(server.url('postgres'), { max: 1, onnotice: () => undefined });
  // The columns of the control plane's proxy_logs table (its migrations are not the edge's to run).
  await sql.unsafe(`CREATE TABLE proxy_logs (
    id bigserial PRIMARY KEY, created_at timestamp(3) with time zone NOT NULL, method text NOT NULL, host text NOT NULL,
    path text NOT NULL, query text, status smallint NOT NULL, duration_ms real NOT NULL, bytes_in bigint NOT NULL,
    bytes_out bigint NOT NULL, client_ip text NOT NULL, user_agent text, referrer text, route text, project_id integer,
    environment_id integer, deployment_id integer, upstream text, tls_version text)`);
  await sql.unsafe(
    'CREATE TABLE proxy_log_drops (id bigserial PRIMARY KEY, count integer NOT NULL, first_at timestamptz NOT NULL, last_at timestamptz NOT NULL)',
  );
}, 60_000);

afterAll(async () => {
  await sql?.end({ timeout: 1 });
  server?.stop();
});

const base: ProxyLogRow = {
  at: '2026-11-26T10:00:00.123Z',
  method: 'GET',
  host: 'shop.example.test',
  path: '/',
  query: null,
  status: 200,
  durationMs: 1.5,
  bytesIn: 120,
  bytesOut: 2048,
  clientIp: '203.0.113.9',
  userAgent: null,
  referrer: null,
  route: 'shop.example.test/',
  projectId: 3,
  environmentId: 4,
  deploymentId: 5,
  upstream: '127.0.0.1:4000',
  tlsVersion: 'TLSv1.3',
};

/** Rows as the writer sends them: their COPY lines, in one batch. */
const copy = (rows: ProxyLogRow[]) => postgresProxyLogSink(sql).copyRows(Buffer.from(rows.map(proxyLogCopyLine).join('')));

type Stored = Record<string, unknown>;
const stored = async (): Promise<Stored[]> =>
  sql.unsafe(`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, method, host, path, query,
    status, duration_ms, bytes_in::int, bytes_out::int, client_ip, user_agent, referrer, route, project_id, environment_id,
    deployment_id, upstream, tls_version FROM proxy_logs ORDER BY id`);

describe('proxy-log rows through COPY', () => {
  it('come back exactly as recorded, tabs, line breaks, backslashes, "\\N" and any Unicode included', async () => {
    const nasty = [
      'tab\there',
      'line\nbreak',
      'carriage\rreturn',
      'back\\slash \\N \\t',
      '\\N',
      '',
      'üñí©ødé ✓ 🚀',
      `"quotes" 'and' ;`,
    ];
    const rows = nasty.map((text, i) => ({
      ...base,
      path: `/p/${text}`,
      query: text,
      userAgent: text,
      referrer: text,
      host: `h${i}.example.test`,
      projectId: i % 2 ? null : i,
    }));
    await copy(rows);
    const back = await stored();
    expect(back).toHaveLength(rows.length);
    rows.forEach((row, i) => {
      expect(back[i]).toEqual({
        at: row.at,
        method: row.method,
        host: row.host,
        path: row.path,
        query: row.query,
        status: row.status,
        duration_ms: row.durationMs,
        bytes_in: row.bytesIn,
        bytes_out: row.bytesOut,
        client_ip: row.clientIp,
        user_agent: row.userAgent,
        referrer: row.referrer,
        route: row.route,
        project_id: row.projectId,
        environment_id: row.environmentId,
        deployment_id: row.deploymentId,
        upstream: row.upstream,
        tls_version: row.tlsVersion,
      });
    });
  });

  it("rows of byte strings, as the edge records them, come back as the client's UTF-8, and bytes that are none as U+FFFD", async () => {
    await sql.unsafe('TRUNCATE proxy_logs');
    // Node's HTTP parser gives a request's line and headers one character per byte received.
    const bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
    const writer = new ProxyLogWriter({ sink: () => postgresProxyLogSink(sql), log: () => undefined });
    writer.record({ ...base, path: bytes('/café/🚀'), userAgent: bytes('Agent ü\t'), durationMs: 0.01 }, true);
    // A Latin-1 é (0xE9) alone, and a path cut in the middle of a character: not UTF-8.
    writer.record({ ...base, path: '/caf\u00e9', userAgent: bytes('cut ✓').slice(0, -1) }, true);
    // Rows of Unicode texts (read from nginx's JSON log) in the same batch.
    writer.record({ ...base, path: '/ünï', userAgent: 'ü', durationMs: 1234.56 });
    await writer.flush();
    expect(writer.stats).toMatchObject({ written: 3, dropped: 0, buffered: 0 });
    const back = await stored();
    expect(back.map((row) => [row.path, row.user_agent, row.duration_ms])).toEqual([
      ['/café/🚀', 'Agent ü\t', 0.01],
      ['/caf\ufffd', 'cut \ufffd', 1.5],
      ['/ünï', 'ü', 1234.56],
    ]);
  });

  it('keeps nulls apart from empty text, drops NUL characters (no text column holds one), and writes drop episodes', async () => {
    await sql.unsafe('TRUNCATE proxy_logs');
    const sink = postgresProxyLogSink(sql);
    await copy([{ ...base, path: '/nul\u0000here', query: '', userAgent: null, durationMs: Number.NaN }]);
    const [row] = await stored();
    expect(row).toMatchObject({ path: '/nulhere', query: '', user_agent: null, duration_ms: 0 });
    await sink.recordDrops(7, '2026-11-26T10:00:00.000Z', '2026-11-26T10:00:01.000Z');
    expect(await sql.unsafe('SELECT count FROM proxy_log_drops')).toEqual([{ count: 7 }]);
  });

  it('a value the table cannot hold fails the batch with a data error (SQLSTATE 22...), which the writer drops', async () => {
    const error = await copy([{ ...base, status: 70_000 }]).then(
      () => null,
      (e: unknown) => e as { code?: string },
    );
    expect(error?.code).toMatch(/^22/);
    // The connection is still usable for the next batch.
    await copy([{ ...base, path: '/after' }]);
    expect((await stored()).map((r) => r.path)).toContain('/after');
  });
});
