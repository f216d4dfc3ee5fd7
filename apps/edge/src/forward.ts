import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Route, RouteUpstream } from '@launchbay/edge-protocol';
import { clientResponseHeaders, upstreamRequestHeaders } from './headers';
import { downPage, type Page, sendPage, startingPage, timeoutPage, unreachablePage } from './pages';
import {
  CONNECT_TIMEOUT,
  HEADERS_TIMEOUT,
  SOCKET_BYTES_READ,
  UPSTREAM_CLOSED,
  type UpstreamConnection,
  type UpstreamHandler,
  withCode,
} from './upstream-connection';
import type { UpstreamConnections, UpstreamPools } from './upstreams';

/** Methods whose effect is the same sent once or twice (RFC 9110 9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** Errors that say the connection failed (refused, reset, closed), as opposed to an app that answered nonsense. */
const CONNECTION_FAILURES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ENOENT', // a unix socket file that is gone
  UPSTREAM_CLOSED,
  CONNECT_TIMEOUT,
]);
/** An attempt stopped by the edge before it was sent, because its upstream left the table. */
const REROUTE = 'EDGE_REROUTE';
const TIMEOUTS = new Set([HEADERS_TIMEOUT, CONNECT_TIMEOUT]);

/**
 * The first bytes of a request body are kept until the app answers, so a request that met a
 * closing keep-alive connection can be sent again. A larger body is not kept, and a request whose
 * body went out beyond this is never sent twice.
 */
const REPLAY_LIMIT = 64 * 1024;

const errorCode = (error: Error): string => (error as NodeJS.ErrnoException).code ?? '';

/**
 * A request body read from the client as the app takes it (backpressure both ways, nothing
 * buffered beyond REPLAY_LIMIT), each attempt reading it through a stream of its own that starts
 * with what earlier attempts already took.
 */
class RequestBody {
  #saved: Buffer[] | null = [];
  #savedBytes = 0;
  #ended = false;
  #current: Readable | null = null;

  constructor(private readonly req: IncomingMessage) {
    req.on('data', (chunk: Buffer) => {
      if (this.#saved) {
        this.#savedBytes += chunk.length;
        if (this.#savedBytes <= REPLAY_LIMIT) this.#saved.push(chunk);
        else this.#saved = null;
      }
      if (this.#current && !this.#current.push(chunk)) req.pause();
    });
    req.on('end', () => {
      this.#ended = true;
      this.#current?.push(null);
    });
    req.on('error', (error) => this.#current?.destroy(error));
    req.pause();
  }

  /** Whether all of the body that went out so far can go out again. */
  get replayable(): boolean {
    return this.#saved !== null;
  }

  /** The app answered: what went out is never sent again, so stop keeping it. */
  settle(): void {
    this.#saved = null;
  }

  stream(): Readable {
    const previous = this.#current;
    this.#current = null;
    previous?.destroy();
    const stream = new Readable({ read: () => this.req.resume() });
    for (const chunk of this.#saved ?? []) stream.push(chunk);
    if (this.#ended) stream.push(null);
    this.#current = stream;
    return stream;
  }

  destroy(): void {
    this.#current?.destroy();
    this.#current = null;
    this.#saved = null;
  }

  /**
   * Nobody takes the rest of the body (the app answered without it, or the edge answers itself):
   * it is read and dropped, as Node does, so the client's connection stays usable.
   */
  discard(): void {
    this.destroy();
    if (!this.#ended) this.req.resume();
  }
}

export type ForwardContext = {
  pools: UpstreamPools;
  /** The route for the host and path as the table says now: a retry goes where a new request would. */
  rematch(): Route | undefined;
  /** The request goes to another upstream than the first (for its log row). */
  onRetry?(upstream: RouteUpstream): void;
};

/**
 * One request on its way to the app: at most two attempts, the second on a fresh connection and
 * only when the first certainly did nothing the app could have acted on twice.
 */
class Exchange {
  readonly body: RequestBody | null;
  readonly headers: string[];
  attempts = 0;
  clientGone = false;
  current: Attempt | null = null;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly host: string,
    readonly context: ForwardContext,
  ) {
    const hasBody =
      req.headers['transfer-encoding'] !== undefined ||
      (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
    this.body = hasBody ? new RequestBody(req) : null;
    this.headers = upstreamRequestHeaders(req, false);
    res.on('close', () => {
      if (res.writableFinished) return;
      // The client went away: the app's request goes too (its socket is closed, not reused).
      this.clientGone = true;
      this.current?.abort();
      this.body?.destroy();
    });
  }

  send(upstream: RouteUpstream, fresh: boolean): void {
    this.attempts++;
    const connections = fresh ? this.context.pools.oneShot(upstream) : this.context.pools.get(upstream);
    const connection = connections.take();
    const attempt = new Attempt(this, connections, connection);
    this.current = attempt;
    connection.dispatch(
      {
        method: this.req.method ?? 'GET',
        // Node's parser took the target and headers only if they are clean (no CR, LF or NUL), so they go out as they came.
        path: this.req.url ?? '/',
        headers: this.headers,
        body: this.body ? this.body.stream() : null,
      },
      attempt,
    );
  }

  /** The attempt failed before the app answered: once more where that is safe, else a page. */
  fail(error: Error, attempt: Attempt): void {
    if (this.clientGone) return;
    let page: Page = TIMEOUTS.has(errorCode(error)) ? timeoutPage(this.host) : unreachablePage(this.host);
    if (this.attempts === 1 && this.#mayRetry(error, attempt)) {
      const route = this.context.rematch();
      if (route?.state === 'live') {
        const upstream = this.context.pools.pick(route);
        if (upstream) {
          this.context.onRetry?.(upstream);
          this.send(upstream, true);
          return;
        }
      }
      // The table moved on to a starting or stopped app meanwhile: say so rather than "down".
      if (route?.state === 'starting') page = startingPage(this.host);
      if (route?.state === 'down') page = downPage(this.host);
    }
    this.body?.discard();
    sendPage(this.req, this.res, page);
  }

  #mayRetry(error: Error, attempt: Attempt): boolean {
    const code = errorCode(error);
    if (code === REROUTE) return true;
    if (code === HEADERS_TIMEOUT || !CONNECTION_FAILURES.has(code)) return false;
    // Never written to a socket (the connection failed): the app saw nothing.
    if (!attempt.started) return true;
    if (this.body && !this.body.replayable) return false;
    if (IDEMPOTENT.has(this.req.method ?? '')) return true;
    // A keep-alive connection that had served earlier requests, closed by the app as this one went
    // out: the app closed it idle, so it never took the request.
    return ((error as Error & { [SOCKET_BYTES_READ]?: number })[SOCKET_BYTES_READ] ?? 0) > 0;
  }
}

/** One attempt on one connection (upstream-connection.ts): writes the app's answer to the client as it streams in. */
class Attempt implements UpstreamHandler {
  started = false;
  responded = false;
  #given = false;
  #abort: ((reason: Error) => void) | null = null;
  #resume: (() => void) | null = null;
  #aborted = false;
  #waitingForDrain = false;

  constructor(
    private readonly exchange: Exchange,
    private readonly connections: UpstreamConnections,
    private readonly connection: UpstreamConnection,
  ) {}

  /** The request is over on its connection: the connection goes back (once). */
  done(): void {
    if (this.#given) return;
    this.#given = true;
    this.connections.give(this.connection);
  }

  abort(): void {
    this.#aborted = true;
    this.#abort?.(new Error('the client went away'));
  }

  onConnect(abort: (reason: Error) => void): void {
    this.#abort = abort;
    if (this.#aborted) {
      abort(new Error('the client went away'));
    } else if (this.connections.retired) {
      // The table moved on while this request waited for a connection: not a byte has gone to the
      // old deployment, so it goes to the new one (aborted here, nothing is written).
      abort(withCode('the route moved on', REROUTE));
    } else {
      this.started = true;
    }
  }

  /** Returns false to pause reading the app's answer (as onData does). */
  onHeaders(statusCode: number, rawHeaders: string[], resume: () => void): boolean {
    if (statusCode < 200) return true; // 1xx informational: the final answer follows
    const { res, body } = this.exchange;
    this.#resume = resume;
    this.responded = true;
    body?.settle();
    try {
      res.writeHead(statusCode, clientResponseHeaders(rawHeaders));
    } catch {
      // A header Node refuses to send: the app's answer cannot be passed on as it is.
      this.responded = false;
      this.#abort?.(withCode('the app sent a header that cannot be forwarded', 'EBADHEADER'));
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    const { res } = this.exchange;
    if (!res.write(chunk) && !this.#waitingForDrain) {
      this.#waitingForDrain = true;
      res.once('drain', () => {
        this.#waitingForDrain = false;
        this.#resume?.();
      });
    }
    return !this.#waitingForDrain;
  }

  onComplete(): void {
    this.done();
    this.exchange.body?.discard();
    this.exchange.res.end();
  }

  onError(error: Error): void {
    this.done();
    const { res } = this.exchange;
    if (this.exchange.clientGone) return;
    if (this.responded || res.headersSent) {
      // Cut in the middle of the answer: the client must see a cut, not a shorter answer that looks whole.
      res.destroy();
      return;
    }
    this.exchange.fail(error, this);
  }
}

/** Sends a request to one of the route's upstreams and its answer back, streaming both ways. */
export function forward(
  req: IncomingMessage,
  res: ServerResponse,
  host: string,
  upstream: RouteUpstream,
  context: ForwardContext,
): void {
  new Exchange(req, res, host, context).send(upstream, false);
}
