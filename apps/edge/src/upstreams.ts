import type { Route, RouteTable, RouteUpstream } from '@launchbay/edge-protocol';
import { HeadersDeadlines, UpstreamConnection } from './upstream-connection';

export type UpstreamTimeouts = {
  /** Connecting to the app (a loopback port or a socket file: this is long). */
  connectMs: number;
  /** From sending the request to the app's response headers; after that a response may stream for as long as it likes. */
  headersMs: number;
};

export function upstreamKey(upstream: RouteUpstream): string {
  return upstream.kind === 'tcp' ? `tcp:${upstream.host}:${upstream.port}` : `unix:${upstream.socketPath}`;
}

/** How an upstream is named in logs and proxy-log rows: `host:port` or the socket path. */
export function upstreamLabel(upstream: RouteUpstream): string {
  return upstream.kind === 'tcp' ? `${upstream.host}:${upstream.port}` : upstream.socketPath;
}

/** How often a pool lets go of idle connections the app closed or whose keep-alive time is up. */
export const IDLE_SWEEP_MS = 30_000;

/**
 * Where one request gets its connection to an upstream: `take` gives a connection (one request at a
 * time on it) and `give` hands it back once the request is over (answered, failed or aborted).
 */
export interface UpstreamConnections {
  take(): UpstreamConnection;
  give(connection: UpstreamConnection): void;
  /** No route names this upstream any more: a request not yet sent goes where the table says now. */
  readonly retired: boolean;
}

/**
 * The keep-alive connections to one upstream: a stack of idle connections, the most recently used on
 * top (its socket is the warmest, and the ones below go idle long enough to pass their keep-alive
 * time, and are let go). A request takes the top one or a new one, so there is no cap and no queue: a
 * streaming response (server-sent events, a long poll) holds its connection, and the next visitor
 * never waits behind it. (undici's Pool, used before, scanned all its clients on every request.)
 */
class UpstreamPool implements UpstreamConnections {
  readonly #idle: UpstreamConnection[] = [];
  /** Every connection open now, idle or busy: closing the edge destroys them all. */
  readonly #open = new Set<UpstreamConnection>();
  #retired = false;
  readonly #sweep: NodeJS.Timeout;

  constructor(
    private readonly upstream: RouteUpstream,
    private readonly connectMs: number,
    private readonly deadlines: HeadersDeadlines,
    sweepMs: number,
  ) {
    this.#sweep = setInterval(() => this.#dropStale(), sweepMs);
    this.#sweep.unref();
  }

  get retired(): boolean {
    return this.#retired;
  }

  take(): UpstreamConnection {
    if (this.#idle.length > 0) {
      const now = Date.now();
      for (let idle = this.#idle.pop(); idle; idle = this.#idle.pop()) {
        if (idle.reusable(now)) return idle;
        this.#close(idle);
      }
    }
    const connection = new UpstreamConnection(this.upstream, this.connectMs, this.deadlines);
    this.#open.add(connection);
    return connection;
  }

  give(connection: UpstreamConnection): void {
    if (this.#retired || !connection.reusable(Date.now())) this.#close(connection);
    else this.#idle.push(connection);
  }

  /** Idle connections close now, busy ones when their request ends. */
  retire(): void {
    this.#retired = true;
    clearInterval(this.#sweep);
    for (const connection of this.#idle.splice(0)) this.#close(connection);
  }

  destroy(): void {
    this.retire();
    for (const connection of this.#open) connection.destroy(new Error('the edge is closing'));
    this.#open.clear();
  }

  /** Idle connections the app closed, or kept past its keep-alive time, are only memory now. */
  #dropStale(): void {
    const now = Date.now();
    const idle = this.#idle.splice(0);
    for (const connection of idle) {
      if (connection.reusable(now)) this.#idle.push(connection);
      else this.#close(connection);
    }
  }

  #close(connection: UpstreamConnection): void {
    this.#open.delete(connection);
    connection.destroy();
  }
}

/** A connection of its own for one request, closed after it: a retry must not meet another stale keep-alive socket. */
class OneShot implements UpstreamConnections {
  readonly retired = false;

  constructor(
    private readonly upstream: RouteUpstream,
    private readonly connectMs: number,
    private readonly deadlines: HeadersDeadlines,
  ) {}

  take(): UpstreamConnection {
    return new UpstreamConnection(this.upstream, this.connectMs, this.deadlines);
  }

  give(connection: UpstreamConnection): void {
    connection.destroy();
  }
}

/**
 * The keep-alive connections of every upstream, made when a request first needs one and let go
 * (gracefully: requests in flight finish) once no route names the upstream any more. Requests of a
 * new deployment go to its own pool from the moment the table names it; the old deployment's pool
 * only finishes what it has.
 */
export class UpstreamPools {
  #pools = new Map<string, UpstreamPool>();
  #roundRobin = new WeakMap<Route, number>();
  readonly #deadlines: HeadersDeadlines;

  constructor(
    private readonly timeouts: UpstreamTimeouts,
    /** Whether a route's upstream may take requests now (its health checks); every one may without. */
    private readonly usable: (route: Route, upstream: RouteUpstream) => boolean = () => true,
    private readonly sweepMs = IDLE_SWEEP_MS,
  ) {
    this.#deadlines = new HeadersDeadlines(timeouts.headersMs);
  }

  get(upstream: RouteUpstream): UpstreamConnections {
    const key = upstreamKey(upstream);
    let pool = this.#pools.get(key);
    if (!pool) {
      pool = new UpstreamPool(upstream, this.timeouts.connectMs, this.#deadlines, this.sweepMs);
      this.#pools.set(key, pool);
    }
    return pool;
  }

  /** A connection of its own for one request (a retry must not meet another stale keep-alive socket); closed after it. */
  oneShot(upstream: RouteUpstream): UpstreamConnections {
    return new OneShot(upstream, this.timeouts.connectMs, this.#deadlines);
  }

  /** The next usable upstream of a route, taking turns; undefined when it has none. */
  pick(route: Route): RouteUpstream | undefined {
    if (route.target.kind !== 'upstreams') return undefined;
    const { upstreams } = route.target;
    if (upstreams.length === 1) return this.usable(route, upstreams[0] as RouteUpstream) ? upstreams[0] : undefined;
    const turn = this.#roundRobin.get(route) ?? 0;
    for (let i = 0; i < upstreams.length; i++) {
      const index = (turn + i) % upstreams.length;
      const upstream = upstreams[index] as RouteUpstream;
      if (!this.usable(route, upstream)) continue;
      this.#roundRobin.set(route, (index + 1) % upstreams.length);
      return upstream;
    }
    return undefined;
  }

  /** Closes the pools of upstreams the table no longer names: idle connections now, busy ones when their request ends. */
  retain(table: RouteTable): void {
    const named = new Set<string>();
    for (const route of table.routes) {
      if (route.target.kind === 'upstreams') for (const upstream of route.target.upstreams) named.add(upstreamKey(upstream));
    }
    for (const [key, pool] of this.#pools) {
      if (named.has(key)) continue;
      this.#pools.delete(key);
      pool.retire();
    }
  }

  close(): void {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    for (const pool of pools) pool.destroy();
  }
}
