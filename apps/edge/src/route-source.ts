import fs from 'node:fs';
import {
  applyRouteChange,
  type EdgeDatabase,
  EMPTY_ROUTE_TABLE,
  parseRouteChange,
  parseRouteTable,
  ROUTE_CHANGE_CHANNEL,
  ROUTE_TABLE_RELATION,
  type RouteTable,
} from '@launchbay/edge-protocol';
import postgres from 'postgres';
import type { RouteTableHolder } from './route-table';

type Log = (message: string) => void;

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 10_000;
/**
 * Seconds without a query before the queries' connection closes: proxy-log flushes keep it open under
 * traffic, and a site with a request every few seconds does not pay a new connection per batch.
 */
const QUERIES_IDLE_S = 30;

/**
 * Keeps the route table in step with Postgres: LISTEN for changes, load the whole table at every
 * (re)connect. When the database goes away (the embedded one restarts with the control plane) the
 * edge keeps serving the last table and reconnects, reading the connection file again each time
 * because the restarted database may listen somewhere else.
 */
export class PgRouteSource {
  /** The queries' client while the database is up. */
  #client: EdgeSql | undefined;
  #listener: EdgeSql | undefined;
  #retryMs = RETRY_FIRST_MS;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #connected = false;
  #lastProblem = '';

  /** `routes` null: a connection for the proxy-log rows only (an extra worker gets its table from the first process). */
  constructor(
    private readonly databaseFile: string,
    private readonly routes: RouteTableHolder | null,
    private readonly log: Log,
  ) {}

  get connected(): boolean {
    return this.#connected;
  }

  /** The queries' client while the database is up (proxy-log rows and health reports use it), undefined while it is away. */
  get client(): EdgeSql | undefined {
    return this.#connected ? this.#client : undefined;
  }

  start(): void {
    void this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    const clients = [this.#listener, this.#client];
    this.#listener = undefined;
    this.#client = undefined;
    await Promise.all(clients.map((client) => client?.end({ timeout: 1 }).catch(() => undefined)));
  }

  #readDatabase(): EdgeDatabase | null {
    try {
      return JSON.parse(fs.readFileSync(this.databaseFile, 'utf8')) as EdgeDatabase;
    } catch {
      return null;
    }
  }

  /** Logs a problem once, not at every retry. */
  #problem(message: string): void {
    if (message !== this.#lastProblem) this.log(message);
    this.#lastProblem = message;
  }

  #retryLater(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#connect(), this.#retryMs);
    this.#timer.unref();
    this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
  }

  async #connect(): Promise<void> {
    if (this.#stopped) return;
    const database = this.#readDatabase();
    if (!database) {
      this.#problem(`no database connection in ${this.databaseFile} yet; serving the last route table`);
      return this.#retryLater();
    }
    let failed = false;
    // Two postgres.js clients (rather than pg, which costs the edge process about 12 MB more):
    // - the listener, one connection never closed for idleness, that only LISTENs (an extra worker's
    //   runs SELECT 1): it is how the edge learns of changes and notices the database going away.
    //   Only listening, its server process stays 2.5 MB smaller than one that also read the table.
    // - the queries (the table's loads, proxy-log rows, health reports), one connection at most that
    //   closes after QUERIES_IDLE_S without work, so an edge with no traffic keeps no second one.
    // The reconnect loop is ours: a lost listener drops both, and new ones are made from the database
    // file read again. `onnotify` and `onclose` are the options postgres.js's own listen() is built on
    // (not in its typings): listen() keeps a second connection and re-listens to the same address by itself.
    const common: postgres.Options<Record<string, postgres.PostgresType>> = {
      ...connectionOptions(database),
      max: 1,
      max_lifetime: null,
      connect_timeout: 5,
      fetch_types: false,
      prepare: false,
      onnotice: () => undefined,
      // The edge writes only proxy-log rows and health changes: they need not wait for the WAL flush
      // (a crash of the database loses at most its last fraction of a second of them).
      connection: { application_name: 'launchbay-edge', synchronous_commit: 'off' },
    };
    const listenerOptions: ConnectionHooks = {
      ...common,
      idle_timeout: 0,
      onnotify: (channel: string, payload: string) => {
        // A table that cannot be read now is not left stale until the next change: both connections
        // are made again, and the load at connect brings the table up to date.
        if (channel === ROUTE_CHANGE_CHANNEL && this.routes) this.#onChange(queries, this.routes, payload).catch(lost);
      },
      onclose: () => lost(),
    };
    const listener: EdgeSql = postgres(listenerOptions as postgres.Options<Record<string, postgres.PostgresType>>);
    const queries: EdgeSql = postgres({ ...common, idle_timeout: QUERIES_IDLE_S });
    const lost = (error?: Error) => {
      if (failed) return;
      failed = true;
      this.#connected = false;
      if (this.#client === queries) this.#client = undefined;
      void listener.end({ timeout: 0 }).catch(() => undefined);
      void queries.end({ timeout: 0 }).catch(() => undefined);
      if (this.#stopped) return;
      this.#problem(`database connection lost (${error?.message ?? 'closed'}); serving the last route table`);
      this.#retryLater();
    };
    this.#listener = listener;
    try {
      const { routes } = this;
      await listener.unsafe(routes ? `LISTEN ${ROUTE_CHANGE_CHANNEL}` : 'SELECT 1');
      if (failed) return;
      this.#client = queries;
      // After LISTEN, so no change committed between the load and the subscription is lost.
      if (routes) routes.replace(await loadRouteTable(queries));
      this.#connected = true;
      this.#retryMs = RETRY_FIRST_MS;
      this.#lastProblem = '';
      this.log(
        routes
          ? `connected to the database; route table version ${routes.table.version}, ${routes.table.routes.length} routes`
          : 'connected to the database',
      );
    } catch (error) {
      lost(error as Error);
    }
  }

  async #onChange(client: EdgeSql, routes: RouteTableHolder, payload: string): Promise<void> {
    let next: RouteTable | null = null;
    try {
      next = applyRouteChange(routes.table, parseRouteChange(payload));
    } catch (error) {
      this.log(`bad route change (${(error as Error).message}); loading the whole table`);
    }
    if (next) routes.replace(next);
    else await this.#reload(client, routes);
  }

  /**
   * A reload asked for by a change. Notifications come on the listener's connection and loads on the
   * queries' one, so a change can be applied from its notification while a load that read the table
   * just before it is still on its way: that older load must not undo it (versions only grow while
   * connected; the load at each connect is taken as it is).
   */
  async #reload(client: EdgeSql, routes: RouteTableHolder): Promise<void> {
    const loaded = await loadRouteTable(client);
    if (loaded.version >= routes.table.version) routes.replace(loaded);
  }
}

type EdgeSql = postgres.Sql<Record<string, unknown>>;
type ConnectionHooks = postgres.Options<Record<string, postgres.PostgresType>> & {
  onnotify: (channel: string, payload: string) => void;
  onclose: () => void;
};

/** postgres.js options for the connection file's contents (a Unix socket directory, as pg takes it, becomes the socket's path). */
function connectionOptions(database: EdgeDatabase): postgres.Options<Record<string, postgres.PostgresType>> {
  if ('connectionString' in database) {
    const url = new URL(database.connectionString);
    const socketDir = url.searchParams.get('host');
    return {
      host: socketDir ? undefined : url.hostname,
      port: url.port ? Number(url.port) : 5432,
      ...(socketDir ? { path: `${socketDir}/.s.PGSQL.${url.port || 5432}` } : {}),
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: decodeURIComponent(url.pathname.slice(1)),
      ...(url.searchParams.get('sslmode') && url.searchParams.get('sslmode') !== 'disable' ? { ssl: 'prefer' as const } : {}),
    };
  }
  const common = { username: database.user, password: database.password, database: database.database, port: database.port };
  return database.host.startsWith('/')
    ? { ...common, path: `${database.host}/.s.PGSQL.${database.port}` }
    : { ...common, host: database.host };
}

export async function loadRouteTable(client: EdgeSql): Promise<RouteTable> {
  const [exists] = await client.unsafe<{ present: boolean }[]>('SELECT to_regclass($1) IS NOT NULL AS present', [
    `public.${ROUTE_TABLE_RELATION}`,
  ]);
  if (!exists?.present) return EMPTY_ROUTE_TABLE;
  // The whole row as JSON: the columns a newer control plane added (certificates, challenges) come
  // along when they exist, and a database not migrated yet still gives routes.
  const [first] = await client.unsafe<{ row: Record<string, unknown> }[]>(
    `SELECT to_jsonb(t) AS row FROM ${ROUTE_TABLE_RELATION} t LIMIT 1`,
  );
  return first ? parseRouteTable({ ...first.row, version: Number(first.row.version) }) : EMPTY_ROUTE_TABLE;
}
