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
import pg from 'pg';
import type { RouteTableHolder } from './route-table';

type Log = (message: string) => void;

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 10_000;

/**
 * Keeps the route table in step with Postgres: LISTEN for changes, load the whole table at every
 * (re)connect. When the database goes away (the embedded one restarts with the control plane) the
 * edge keeps serving the last table and reconnects, reading the connection file again each time
 * because the restarted database may listen somewhere else.
 */
export class PgRouteSource {
  #client: pg.Client | undefined;
  #retryMs = RETRY_FIRST_MS;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #connected = false;
  #lastProblem = '';

  constructor(
    private readonly databaseFile: string,
    private readonly routes: RouteTableHolder,
    private readonly log: Log,
  ) {}

  get connected(): boolean {
    return this.#connected;
  }

  start(): void {
    void this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
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
    const client = new pg.Client({
      ...database,
      application_name: 'launchbay-edge',
      connectionTimeoutMillis: 5000,
      keepAlive: true,
    });
    let failed = false;
    const lost = (error?: Error) => {
      if (failed) return;
      failed = true;
      this.#connected = false;
      if (this.#client === client) this.#client = undefined;
      client.end().catch(() => undefined);
      if (this.#stopped) return;
      this.#problem(`database connection lost (${error?.message ?? 'closed'}); serving the last route table`);
      this.#retryLater();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel === ROUTE_CHANGE_CHANNEL) void this.#onChange(client, message.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${ROUTE_CHANGE_CHANNEL}`);
      this.#client = client;
      // After LISTEN, so no change committed between the load and the subscription is lost.
      await this.#reload(client);
      this.#connected = true;
      this.#retryMs = RETRY_FIRST_MS;
      this.#lastProblem = '';
      this.log(
        `connected to the database; route table version ${this.routes.table.version}, ${this.routes.table.routes.length} routes`,
      );
    } catch (error) {
      lost(error as Error);
    }
  }

  async #onChange(client: pg.Client, payload: string): Promise<void> {
    try {
      const next = applyRouteChange(this.routes.table, parseRouteChange(payload));
      if (next) this.routes.replace(next);
      else await this.#reload(client);
    } catch (error) {
      this.log(`bad route change (${(error as Error).message}); loading the whole table`);
      await this.#reload(client).catch(() => undefined);
    }
  }

  async #reload(client: pg.Client): Promise<void> {
    this.routes.replace(await loadRouteTable(client));
  }
}

export async function loadRouteTable(client: pg.Client): Promise<RouteTable> {
  const exists = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [
    `public.${ROUTE_TABLE_RELATION}`,
  ]);
  if (!exists.rows[0]?.present) return EMPTY_ROUTE_TABLE;
  const row = await client.query<{ version: string; routes: unknown }>(
    `SELECT version, routes FROM ${ROUTE_TABLE_RELATION} LIMIT 1`,
  );
  const first = row.rows[0];
  return first ? parseRouteTable({ version: Number(first.version), routes: first.routes }) : EMPTY_ROUTE_TABLE;
}
