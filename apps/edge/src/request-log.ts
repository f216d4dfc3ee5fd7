import type http from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { PROXY_LOG_TEXT_LIMIT, type ProxyLogRow, type Route, type RouteUpstream } from '@launchbay/edge-protocol';

/** What one request's log row needs beyond the request itself: filled in as the request is routed. */
export type RequestRecord = {
  at: number;
  start: number;
  host: string | null;
  route: Route | undefined;
  upstream: RouteUpstream | undefined;
};

/** `byteStrings`: the row's texts are one character per byte received (ProxyLogWriter.record). */
export type RequestLog = { record(row: ProxyLogRow, byteStrings?: boolean): void };

/** The socket's byte counters when its previous request was logged (keep-alive carries many requests). */
const LOGGED_READ = Symbol('loggedRead');
const LOGGED_WRITTEN = Symbol('loggedWritten');
type CountedSocket = Socket & { [LOGGED_READ]?: number; [LOGGED_WRITTEN]?: number };

/**
 * The ISO time of the last millisecond asked: a busy edge logs tens of requests per millisecond, and
 * formatting the date is a tenth of the CPU a row costs it.
 */
let isoMs = Number.NaN;
let isoText = '';
function isoTime(ms: number): string {
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}

export function startRecord(): RequestRecord {
  return { at: Date.now(), start: performance.now(), host: null, route: undefined, upstream: undefined };
}

const cut = (text: string) => (text.length > PROXY_LOG_TEXT_LIMIT ? text.slice(0, PROXY_LOG_TEXT_LIMIT) : text);

function header(req: http.IncomingMessage, name: 'user-agent' | 'referer'): string | null {
  const value = req.headers[name];
  return typeof value === 'string' && value.length > 0 ? cut(value) : null;
}

/** The client's address as text: an IPv4 client on a dual-stack socket is shown as IPv4. */
export function clientAddress(socket: Socket): string {
  const address = socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** Each route's and upstream's text in the log rows, made once per table entry rather than once per request. */
const texts = new WeakMap<Route | RouteUpstream, string>();

function textOf<T extends Route | RouteUpstream>(entry: T | undefined, make: (entry: T) => string): string | null {
  if (!entry) return null;
  let text = texts.get(entry);
  if (text === undefined) {
    text = make(entry);
    texts.set(entry, text);
  }
  return text;
}

/** A text of the route table as the bytes of its UTF-8, one character each: the request's own texts are so. */
const asByteString = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
const makeRouteText = (route: Route) => asByteString(`${route.host}${route.pathPrefix}`);
const makeUpstreamText = (upstream: RouteUpstream) =>
  asByteString(upstream.kind === 'tcp' ? `${upstream.host}:${upstream.port}` : `unix:${upstream.socketPath}`);
const routeText = (route: Route | undefined) => textOf(route, makeRouteText);
const upstreamText = (upstream: RouteUpstream | undefined) => textOf(upstream, makeUpstreamText);

/**
 * The log row of a request that is over. Its texts are byte strings: one character per byte received,
 * as Node's HTTP parser gives the request line and headers (the route's texts are made so). Its bytes
 * are what its socket carried since the previous request on it was logged (so they include the
 * request line, headers and framing, as nginx counts). `status` overrides the response's (an upgrade
 * has no ServerResponse).
 */
export function rowFor(req: http.IncomingMessage, record: RequestRecord, status: number, socket: Socket): ProxyLogRow {
  const counted = socket as CountedSocket;
  const readBefore = counted[LOGGED_READ] ?? 0;
  const writtenBefore = counted[LOGGED_WRITTEN] ?? 0;
  const read = socket.bytesRead;
  const written = socket.bytesWritten;
  counted[LOGGED_READ] = read;
  counted[LOGGED_WRITTEN] = written;
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const { route } = record;
  const tls = (socket as Partial<TLSSocket>).encrypted ? ((socket as TLSSocket).getProtocol() ?? null) : null;
  return {
    at: isoTime(record.at),
    method: req.method ?? 'GET',
    host: record.host ?? cut(req.headers.host ?? ''),
    path: cut(q === -1 ? url : url.slice(0, q)),
    query: q === -1 || q === url.length - 1 ? null : cut(url.slice(q + 1)),
    status,
    durationMs: Math.round((performance.now() - record.start) * 100) / 100,
    bytesIn: Math.max(0, read - readBefore),
    bytesOut: Math.max(0, written - writtenBefore),
    clientIp: clientAddress(socket),
    userAgent: header(req, 'user-agent'),
    referrer: header(req, 'referer'),
    route: routeText(route),
    projectId: route?.projectId ?? null,
    environmentId: route?.environmentId ?? null,
    deploymentId: route?.deploymentId ?? null,
    upstream: upstreamText(record.upstream),
    tlsVersion: tls,
  };
}

/** Logs the request once its answer is over (sent whole, or cut: a client gone before the headers is 499, as nginx says). */
export function logWhenDone(req: http.IncomingMessage, res: http.ServerResponse, record: RequestRecord, log: RequestLog): void {
  // 'close' comes once per response (`on` spares the wrapper `once` makes per request).
  res.on('close', () => {
    const status = res.headersSent ? res.statusCode : 499;
    log.record(rowFor(req, record, status, req.socket), true);
  });
}
