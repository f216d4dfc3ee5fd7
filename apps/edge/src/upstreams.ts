import type { Socket } from 'node:net';
import type { Route, RouteTable, RouteUpstream } from '@launchbay/edge-protocol';
import { buildConnector, Client, type ClientOptions, type Connector, type Dispatcher, Pool } from './undici';

/** Set on a socket error by the edge's connector: how many bytes the socket had read when it failed. */
export const SOCKET_BYTES_READ = Symbol('socketBytesRead');

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

function originOf(upstream: RouteUpstream): string {
  if (upstream.kind === 'unix') return 'http://localhost';
  return `http://${upstream.host.includes(':') ? `[${upstream.host}]` : upstream.host}:${upstream.port}`;
}

/**
 * The connector of every upstream connection. It marks each socket error with the bytes the socket
 * had read: a request that fails before its own response on a socket that had read something was
 * sent on a reused keep-alive connection the app had just closed (the keep-alive race), and can be
 * sent again on a fresh one.
 */
function connectorFor(upstream: RouteUpstream, timeoutMs: number): Connector {
  const base = buildConnector({
    timeout: timeoutMs,
    ...(upstream.kind === 'unix' ? { socketPath: upstream.socketPath } : {}),
  });
  return (options, callback) =>
    base(options, (error, socket) => {
      if (socket) {
        const s = socket as Socket;
        s.prependListener('error', (cause: Error) => {
          (cause as Error & { [SOCKET_BYTES_READ]?: number })[SOCKET_BYTES_READ] = s.bytesRead;
        });
      }
      (callback as (error: Error | null, socket: Socket | null) => void)(error, socket);
    });
}

/**
 * Keep-alive connection pools, one per upstream, made when a request first needs one and let go
 * (gracefully: requests in flight finish) once no route names the upstream any more. Requests of a
 * new deployment go to its own pool from the moment the table names it; the old deployment's pool
 * only finishes what it has.
 */
export class UpstreamPools {
  #pools = new Map<string, Pool>();
  #retired = new WeakSet<Dispatcher>();
  #roundRobin = new WeakMap<Route, number>();

  constructor(
    private readonly timeouts: UpstreamTimeouts,
    /** Whether a route's upstream may take requests now (its health checks); every one may without. */
    private readonly usable: (route: Route, upstream: RouteUpstream) => boolean = () => true,
  ) {}

  #options(upstream: RouteUpstream): ClientOptions {
    return {
      pipelining: 1,
      headersTimeout: this.timeouts.headersMs,
      // Once the app answers, its response may stream for as long as it likes (server-sent events).
      bodyTimeout: 0,
      connect: connectorFor(upstream, this.timeouts.connectMs),
    };
  }

  get(upstream: RouteUpstream): Dispatcher {
    const key = upstreamKey(upstream);
    let pool = this.#pools.get(key);
    if (!pool) {
      // No cap on connections: a streaming response (server-sent events, a long poll) holds one, and
      // a capped pool would queue the next visitor behind it. The pool grows to the peak concurrency.
      pool = new Pool(originOf(upstream), { ...this.#options(upstream), connections: null });
      this.#pools.set(key, pool);
    }
    return pool;
  }

  /**
   * Whether no route names this pool's upstream any more. A request still waiting for a connection
   * of such a pool has gone nowhere yet: it goes where the table says now instead.
   */
  isRetired(dispatcher: Dispatcher): boolean {
    return this.#retired.has(dispatcher);
  }

  /** A connection of its own for one request (a retry must not meet another stale keep-alive socket); closed after it. */
  oneShot(upstream: RouteUpstream): { dispatcher: Dispatcher; done(): void } {
    const client = new Client(originOf(upstream), this.#options(upstream));
    return { dispatcher: client, done: () => void client.close().catch(() => undefined) };
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
      this.#retired.add(pool);
      void pool.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.destroy().catch(() => undefined)));
  }
}
