import net from 'node:net';
import type { Readable } from 'node:stream';
import type { RouteUpstream } from '@launchbay/edge-protocol';
import { type ResponseParser, responseParser } from './http-parser';

/** Set on every error of a connection: how many bytes its socket had read when it failed (forward.ts). */
export const SOCKET_BYTES_READ = Symbol('socketBytesRead');

/** Error codes of the edge's own connection failures, beside the socket's (ECONNREFUSED, ECONNRESET...). */
export const CONNECT_TIMEOUT = 'EDGE_CONNECT_TIMEOUT';
export const HEADERS_TIMEOUT = 'EDGE_HEADERS_TIMEOUT';
/** The app closed the connection before its answer was over (before it began, on a stale keep-alive one). */
export const UPSTREAM_CLOSED = 'EDGE_UPSTREAM_CLOSED';

/**
 * How long an idle connection is trusted when the app did not say (`Keep-Alive: timeout=N`): below
 * Node's own 5 s, the default of most apps, so the edge lets go before the app closes it.
 */
const DEFAULT_KEEP_ALIVE_MS = 4000;
/** Taken off the app's own keep-alive timeout: a request must not arrive as the app closes the socket. */
const KEEP_ALIVE_MARGIN_MS = 1000;
/** Methods whose requests carry a body: sent without one, they say `content-length: 0` (RFC 9110 8.6). */
const PAYLOAD_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export type UpstreamRequest = {
  method: string;
  path: string;
  /** Flat [name, value, ...] list, as the app gets it; the framing of the body is added here. */
  headers: string[];
  /** Streamed with backpressure: with the length the headers give, else chunked. */
  body: Readable | null;
};

/** Who hears of one request's progress; exactly one of onComplete and onError ends it. */
export type UpstreamHandler = {
  /** The connection is ready and nothing is written yet: `abort` here means the app never sees the request. */
  onConnect(abort: (reason: Error) => void): void;
  /** Informational (1xx) answers come here too; returns false to stop reading until `resume`. */
  onHeaders(statusCode: number, headers: string[], resume: () => void): boolean;
  /** Returns false to stop reading until `resume`. */
  onData(chunk: Buffer): boolean;
  onComplete(): void;
  onError(error: Error): void;
};

/** An error with a `code`, as Node's own errors carry one (forward.ts decides by it). */
export const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

/**
 * The requests waiting for their app's headers, checked on one timer for all (a timer per request
 * costs more than the request's forwarding): a wait is over between `headersMs` and a quarter more.
 */
export class HeadersDeadlines {
  readonly #waiting = new Set<UpstreamConnection>();
  readonly #tickMs: number;
  #timer: NodeJS.Timeout | null = null;

  constructor(readonly headersMs: number) {
    this.#tickMs = Math.min(1000, Math.max(10, Math.round(headersMs / 4)));
  }

  add(connection: UpstreamConnection): void {
    this.#waiting.add(connection);
    if (!this.#timer) {
      this.#timer = setInterval(() => this.#check(), this.#tickMs);
      this.#timer.unref();
    }
  }

  delete(connection: UpstreamConnection): void {
    this.#waiting.delete(connection);
  }

  #check(): void {
    if (this.#waiting.size === 0) {
      clearInterval(this.#timer ?? undefined);
      this.#timer = null;
      return;
    }
    const now = Date.now();
    for (const connection of this.#waiting) {
      if (connection.headersDeadline <= now) {
        this.#waiting.delete(connection);
        connection.timeOut();
      }
    }
  }
}

/** The app's idle limit from `Keep-Alive: timeout=N`, less the margin; the default when it says none. */
function keepAliveMs(headers: string[]): number {
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i] as string;
    if (name.length !== 10 || name.toLowerCase() !== 'keep-alive') continue;
    const seconds = /timeout=(\d+)/i.exec(headers[i + 1] as string)?.[1];
    if (seconds !== undefined) return Number(seconds) * 1000 - KEEP_ALIVE_MARGIN_MS;
  }
  return DEFAULT_KEEP_ALIVE_MS;
}

/**
 * One HTTP/1.1 connection to an app, one request at a time (never pipelined), kept alive between
 * them. Requests are written as the edge built their headers; answers are read by Node's native
 * parser (http-parser.ts) and streamed to the handler with backpressure both ways. Bytes the app
 * sends while no request is waiting close the connection: an answer must belong to a request.
 */
export class UpstreamConnection {
  /**
   * Idle connections taken for a request: written to only once a poll phase of the event loop has
   * run after they were taken, so bytes, a FIN or a reset the app sent on one while it was idle
   * close it first instead of passing for the answer to the new request (the concern of undici's
   * GHSA-35p6-xmwp-9g52). Taken during this turn's poll, they move on at its check phase (the poll
   * has already asked the kernel for this turn) and are written at the next one, after the next
   * poll. Two Immediates per turn for all of them, never one per request.
   */
  static #takenThisTurn: UpstreamConnection[] = [];
  static #afterNextPoll: UpstreamConnection[] = [];

  static #startAfterPoll(connection: UpstreamConnection): void {
    if (UpstreamConnection.#takenThisTurn.push(connection) === 1) setImmediate(UpstreamConnection.#turnOver);
  }

  static #turnOver(): void {
    const taken = UpstreamConnection.#takenThisTurn;
    UpstreamConnection.#takenThisTurn = [];
    if (UpstreamConnection.#afterNextPoll.length === 0) setImmediate(UpstreamConnection.#startWaiting);
    for (const connection of taken) UpstreamConnection.#afterNextPoll.push(connection);
  }

  static #startWaiting(): void {
    const waiting = UpstreamConnection.#afterNextPoll;
    UpstreamConnection.#afterNextPoll = [];
    for (const connection of waiting) {
      if (connection.#handler && !connection.#headWritten && !connection.#closed) connection.#start();
    }
  }

  readonly #socket: net.Socket;
  readonly #parser: ResponseParser;
  readonly #deadlines: HeadersDeadlines;
  #connectTimer: NodeJS.Timeout | null;
  #connected = false;
  #closed = false;
  #handler: UpstreamHandler | null = null;
  #request: UpstreamRequest | null = null;
  /** Headers of a long head, as the parser hands them over in parts. */
  #partialHeaders: string[] = [];
  /** The answer being read is informational (1xx): the final one follows on the same request. */
  #informational = false;
  #keepAlive = false;
  #keepAliveMs = DEFAULT_KEEP_ALIVE_MS;
  /** The whole request, body included, is written: only then may the connection carry another. */
  #requestWritten = true;
  /** Something of the current request went out: from then on, giving up on it closes the connection. */
  #headWritten = false;
  #idleUntil = 0;
  readonly #resume = () => this.#socket.resume();
  /** When the app's headers are overdue (HeadersDeadlines). */
  headersDeadline = 0;

  constructor(upstream: RouteUpstream, connectMs: number, deadlines: HeadersDeadlines) {
    this.#deadlines = deadlines;
    const socket =
      upstream.kind === 'unix'
        ? net.connect({ path: upstream.socketPath })
        : net.connect({
            host: upstream.host,
            port: upstream.port,
            noDelay: true,
            keepAlive: true,
            keepAliveInitialDelay: 60_000,
          });
    this.#socket = socket;
    this.#connectTimer = setTimeout(() => this.#fail(withCode('connecting to the app timed out', CONNECT_TIMEOUT)), connectMs);
    this.#parser = responseParser({
      onHeaders: (headers) => {
        for (const value of headers) this.#partialHeaders.push(value);
      },
      onHeadersComplete: (statusCode, headers, shouldKeepAlive) => this.#onHeaders(statusCode, headers, shouldKeepAlive),
      onBody: (chunk) => {
        if (this.#handler && !this.#handler.onData(chunk)) socket.pause();
      },
      onMessageComplete: () => this.#onMessageComplete(),
    });
    socket.on('connect', () => {
      clearTimeout(this.#connectTimer ?? undefined);
      this.#connectTimer = null;
      this.#connected = true;
      if (this.#handler) this.#start();
    });
    socket.on('data', (data: Buffer) => {
      if (!this.#headWritten) {
        // Nobody asked: not an answer the edge passes on (a request waiting to be written goes on a fresh connection).
        this.#fail(withCode('the app sent bytes no request asked for', UPSTREAM_CLOSED));
        return;
      }
      const result = this.#parser.execute(data);
      if (result instanceof Error) this.#fail(result);
    });
    socket.on('end', () => {
      // A body that runs until the connection closes is complete now; any other answer was cut.
      const result = this.#parser.finish();
      if (result instanceof Error) this.#fail(result);
      else this.#fail(withCode('the app closed the connection', UPSTREAM_CLOSED));
    });
    socket.on('drain', () => this.#request?.body?.resume());
    socket.on('error', (error) => this.#fail(error));
    socket.on('close', () => {
      this.#fail(withCode('the app closed the connection', UPSTREAM_CLOSED));
      // Never freed from inside one of its own callbacks (the stack above may still be in it).
      setImmediate(() => this.#parser.close());
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Idle and trusted: no request on it, open (or still connecting), within the app's keep-alive time. */
  reusable(now: number): boolean {
    return !this.#closed && this.#handler === null && this.#requestWritten && now < this.#idleUntil;
  }

  dispatch(request: UpstreamRequest, handler: UpstreamHandler): void {
    this.#handler = handler;
    this.#request = request;
    this.#informational = false;
    this.#headWritten = false;
    if (this.#closed) this.#fail(withCode('the connection to the app is closed', UPSTREAM_CLOSED));
    else if (this.#connected) UpstreamConnection.#startAfterPoll(this); // an idle one: see #afterPoll
    // else: on connect
  }

  /** Closes the connection; a request on it ends with `reason`. */
  destroy(reason?: Error): void {
    if (reason) this.#fail(reason);
    else this.#close();
  }

  /** The app did not send its headers in time (HeadersDeadlines). */
  timeOut(): void {
    this.#fail(withCode('the app did not answer in time', HEADERS_TIMEOUT));
  }

  #start(): void {
    const handler = this.#handler as UpstreamHandler;
    handler.onConnect((reason) => this.#abort(handler, reason));
    if (this.#handler !== handler) return; // aborted before a byte went out
    const { method, path, headers, body } = this.#request as UpstreamRequest;
    let head = `${method} ${path} HTTP/1.1\r\n`;
    let hasLength = false;
    for (let i = 0; i < headers.length; i += 2) {
      const name = headers[i] as string;
      if (name.length === 14 && name.toLowerCase() === 'content-length') hasLength = true;
      head += `${name}: ${headers[i + 1]}\r\n`;
    }
    const chunked = body !== null && !hasLength;
    if (chunked) head += 'transfer-encoding: chunked\r\n';
    else if (body === null && !hasLength && PAYLOAD_METHODS.has(method)) head += 'content-length: 0\r\n';
    this.#socket.write(`${head}\r\n`, 'latin1');
    this.#headWritten = true;
    this.headersDeadline = Date.now() + this.#deadlines.headersMs;
    this.#deadlines.add(this);
    if (body) this.#sendBody(body, chunked);
  }

  #sendBody(body: Readable, chunked: boolean): void {
    this.#requestWritten = false;
    const socket = this.#socket;
    body.on('data', (chunk: Buffer) => {
      if (this.#closed || this.#request?.body !== body) return;
      if (chunked) {
        if (chunk.length === 0) return; // a zero-length chunk would end the body
        socket.cork();
        socket.write(`${chunk.length.toString(16)}\r\n`, 'latin1');
        socket.write(chunk);
        socket.write('\r\n', 'latin1');
        socket.uncork();
      } else {
        socket.write(chunk);
      }
      if (socket.writableNeedDrain) body.pause();
    });
    body.on('end', () => {
      if (this.#closed || this.#request?.body !== body) return;
      if (chunked) socket.write('0\r\n\r\n', 'latin1');
      this.#requestWritten = true;
    });
    body.on('error', (error) => {
      if (this.#request?.body === body) this.#fail(error);
    });
  }

  #onHeaders(statusCode: number, parsed: string[] | undefined, shouldKeepAlive: boolean): 0 | 1 {
    let headers = parsed ?? [];
    if (this.#partialHeaders.length > 0) {
      headers = this.#partialHeaders.concat(headers);
      this.#partialHeaders = [];
    }
    const handler = this.#handler;
    if (!handler) {
      this.#close(); // an answer after the answer (in the same read): the connection is out of step
      return 0;
    }
    if (statusCode < 200) {
      if (statusCode === 101) {
        // Only a WebSocket handshake switches protocols, and those take upgrade.ts's own connection.
        this.#fail(withCode('the app switched protocols on a plain request', 'EDGE_UNEXPECTED_UPGRADE'));
        return 0;
      }
      this.#informational = true;
      handler.onHeaders(statusCode, headers, this.#resume);
      return 0;
    }
    this.#informational = false;
    this.#deadlines.delete(this);
    this.#keepAlive = shouldKeepAlive;
    if (shouldKeepAlive) this.#keepAliveMs = keepAliveMs(headers);
    if (!handler.onHeaders(statusCode, headers, this.#resume) && this.#handler === handler) this.#socket.pause();
    // The answer to a HEAD has the headers of a GET and no body, whatever its content-length says.
    return this.#request?.method === 'HEAD' ? 1 : 0;
  }

  #onMessageComplete(): void {
    // Trailers come through onHeaders after the body: dropped (as hop-by-hop `trailer` says they may be), never kept for the next answer.
    this.#partialHeaders = [];
    if (this.#informational) {
      this.#informational = false;
      return;
    }
    const handler = this.#handler;
    if (!handler) return;
    this.#handler = null;
    this.#request = null;
    this.#headWritten = false;
    if (this.#keepAlive && this.#requestWritten && this.#keepAliveMs > 0) this.#idleUntil = Date.now() + this.#keepAliveMs;
    else this.#close(); // the app closes it, or the body it did not wait for is still on its way
    handler.onComplete();
  }

  /** The handler gave up on its request: before anything was written it is as if never sent. */
  #abort(handler: UpstreamHandler, reason: Error): void {
    if (this.#handler !== handler) return;
    if (!this.#headWritten) {
      this.#handler = null;
      this.#request = null;
      this.#idleUntil = Date.now() + this.#keepAliveMs;
      handler.onError(reason);
      return;
    }
    this.#fail(reason);
  }

  /** Ends the request on this connection (if any) with `error`, and the connection with it. */
  #fail(error: Error): void {
    const handler = this.#handler;
    this.#handler = null;
    this.#request = null;
    this.#close();
    if (handler) {
      (error as Error & { [SOCKET_BYTES_READ]?: number })[SOCKET_BYTES_READ] = this.#socket.bytesRead;
      handler.onError(error);
    }
  }

  #close(): void {
    if (!this.#closed) {
      this.#closed = true;
      this.#deadlines.delete(this);
      clearTimeout(this.#connectTimer ?? undefined);
      this.#socket.destroy();
    }
  }
}
