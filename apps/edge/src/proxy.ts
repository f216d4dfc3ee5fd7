import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import {
  ACME_CHALLENGE_PREFIX,
  type EdgeIdentity,
  IDENTITY_HEADER,
  IDENTITY_PATH,
  normalizeHost,
  type Route,
  type RouteTable,
  type RouteUpstream,
} from '@launchbay/edge-protocol';
import { forward } from './forward';
import { markSeenByNginx } from './headers';
import type { UpstreamHealth } from './health';
import { FALLBACK_CLIENT_HEADER, FALLBACK_PAGE_HEADER, FALLBACK_SCHEME_HEADER } from './nginx/render';
import {
  badRequestPage,
  downPage,
  noAppPage,
  type Page,
  sendPage,
  sendPageOnSocket,
  startingPage,
  timeoutPage,
  unreachablePage,
} from './pages';
import { logWhenDone, type RequestLog, type RequestRecord, rowFor, startRecord } from './request-log';
import type { RouteTableHolder } from './route-table';
import { StaticFiles } from './static';
import type { Certificates } from './tls';
import { proxyUpgrade } from './upgrade';
import { UpstreamPools, type UpstreamTimeouts } from './upstreams';

export const DEFAULT_TIMEOUTS: UpstreamTimeouts = { connectMs: 5000, headersMs: 60_000 };

/** The host a request is for: the Host header (or the HTTP/2-style authority) without its port. */
export function requestHost(req: http.IncomingMessage): string | null {
  const raw = req.headers.host;
  if (!raw) return null;
  const host = raw.startsWith('[') ? raw.slice(0, raw.indexOf(']') + 1) : raw.replace(/:\d*$/, '');
  if (!/^[a-zA-Z0-9.\-_[\]:]{1,253}$/.test(host)) return null;
  return normalizeHost(host);
}

function isIdentityRequest(req: http.IncomingMessage, instanceId: string): boolean {
  if (req.url !== IDENTITY_PATH) return false;
  const claimed = req.headers[IDENTITY_HEADER];
  if (typeof claimed !== 'string' || claimed.length !== instanceId.length) return false;
  return timingSafeEqual(Buffer.from(claimed), Buffer.from(instanceId));
}

type Destination =
  | { kind: 'page'; page: Page }
  | { kind: 'redirect'; location: string }
  | { kind: 'challenge'; keyAuthorization: string }
  | { kind: 'static'; host: string; route: Route & { target: { kind: 'static' } } }
  | { kind: 'upstream'; host: string; path: string; upstream: RouteUpstream };

export type ProxyServerOptions = {
  instanceId: string;
  routes: RouteTableHolder;
  /** Asynchronous in an extra worker, which asks the first process (it answers for the whole edge). */
  identity: () => EdgeIdentity | Promise<EdgeIdentity>;
  timeouts?: Partial<UpstreamTimeouts>;
  /** Where each request's log row goes once it is over (none: requests are not logged). */
  log?: RequestLog;
  /** Active health checks of the routes that ask for them (none: every upstream takes requests). */
  health?: UpstreamHealth;
  /**
   * Asked once per request: true closes the client's connection after this answer (`connection:
   * close`), so the client reconnects and another of the edge's processes may take it (workers.ts).
   */
  shedConnection?: () => boolean;
  /** With certificates the edge also serves HTTPS (SNI), and redirects plain HTTP for names that have one. */
  tls?: { certificates: Certificates; port: () => number | null };
  /**
   * Serving as the nginx driver's fallback, on loopback: nginx terminates TLS and says which scheme
   * the client used, and which page to answer when it could not reach an app (nginx/render.ts).
   */
  behindNginx?: boolean;
};

export type ProxyServers = { http: http.Server; https: https.Server | null };

const socketEncrypted = (req: http.IncomingMessage) => (req.socket as Partial<TLSSocket>).encrypted === true;
const nginxSaysEncrypted = (req: http.IncomingMessage) => req.headers[FALLBACK_SCHEME_HEADER] === 'https';
/** What nginx saw of the client, for the forwarded headers of a request the fallback sends on to an app. */
function seenByNginx(req: http.IncomingMessage): void {
  const client = req.headers[FALLBACK_CLIENT_HEADER];
  markSeenByNginx(req, typeof client === 'string' ? client : '', nginxSaysEncrypted(req));
}

/**
 * The edge's HTTP server: routes each request by Host (and path prefix) to the live deployment's
 * upstreams, a static folder, or one of the edge's own pages. A request keeps the route it found
 * when it arrived, so switching the table to a new deployment never disturbs requests in flight.
 */
export function createProxyServer(options: ProxyServerOptions): ProxyServers {
  const timeouts: UpstreamTimeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const { health } = options;
  const pools = new UpstreamPools(timeouts, health ? (route, upstream) => health.usable(route, upstream) : undefined);
  const files = new StaticFiles();
  const { routes } = options;
  const isEncrypted = options.behindNginx ? nginxSaysEncrypted : socketEncrypted;
  let challenges = new Map<string, string>();
  const onTable = (table: RouteTable) => {
    pools.retain(table);
    health?.sync(table);
    options.tls?.certificates.replace(table);
    challenges = new Map((table.challenges ?? []).map((c) => [c.token, c.keyAuthorization]));
  };
  const stopWatching = routes.onChange(onTable);
  onTable(routes.table);

  const destination = (req: http.IncomingMessage, record: RequestRecord | null): Destination => {
    const host = requestHost(req);
    if (!host) return { kind: 'page', page: badRequestPage('The request has no valid Host header.') };
    if (record) record.host = host;
    const url = req.url ?? '/';
    if (url[0] !== '/') return { kind: 'page', page: badRequestPage('The request target must be a path.') };
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const encrypted = isEncrypted(req);
    // HTTP-01 answers go out over plain HTTP whatever the route says (the CA asks before any certificate exists).
    if (!encrypted && path.startsWith(ACME_CHALLENGE_PREFIX)) {
      const keyAuthorization = challenges.get(path.slice(ACME_CHALLENGE_PREFIX.length));
      if (keyAuthorization) return { kind: 'challenge', keyAuthorization };
    }
    const route = routes.match(host, path);
    if (!route) return { kind: 'page', page: noAppPage(host) };
    if (record) record.route = route;
    const tlsPort = options.tls?.port();
    if (!encrypted && route.redirectToHttps && tlsPort && options.tls?.certificates.has(host)) {
      return { kind: 'redirect', location: `https://${host}${tlsPort === 443 ? '' : `:${tlsPort}`}${url}` };
    }
    if (route.state === 'starting') return { kind: 'page', page: startingPage(host) };
    if (route.state === 'down') return { kind: 'page', page: downPage(host) };
    // nginx waited for the app in vain: the page the embedded edge answers. (One it could not reach
    // goes on by the current table below, as the embedded edge retries.)
    if (options.behindNginx && req.headers[FALLBACK_PAGE_HEADER] === 'timeout') return { kind: 'page', page: timeoutPage(host) };
    if (route.target.kind === 'redirect') {
      const to = route.target.host;
      const secure = tlsPort && options.tls?.certificates.has(to);
      // Plain HTTP keeps the port the client used (a local edge on :8080); HTTPS goes to the TLS port.
      const port = secure ? (tlsPort === 443 ? '' : `:${tlsPort}`) : (req.headers.host?.match(/:\d+$/)?.[0] ?? '');
      return { kind: 'redirect', location: `${secure ? 'https' : 'http'}://${to}${port}${url}` };
    }
    if (route.target.kind === 'static') return { kind: 'static', host, route: route as Route & { target: { kind: 'static' } } };
    const upstream = pools.pick(route);
    // Live with no upstream to send to: as good as down, and said so at once.
    if (!upstream) return { kind: 'page', page: unreachablePage(host) };
    if (record) record.upstream = upstream;
    return { kind: 'upstream', host, path, upstream };
  };

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    // The control plane asking who listens here; without the instance id this path is ordinary traffic.
    if (!isEncrypted(req) && isIdentityRequest(req, options.instanceId)) {
      void Promise.resolve()
        .then(options.identity)
        .then(
          (identity) => {
            res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
            res.end(JSON.stringify(identity));
          },
          () => {
            res.writeHead(503, { 'content-type': 'text/plain', 'cache-control': 'no-store' });
            res.end('The edge is stopping.');
          },
        );
      return;
    }
    if (options.shedConnection?.()) res.shouldKeepAlive = false;
    if (options.behindNginx) seenByNginx(req);
    const record = options.log ? startRecord() : null;
    if (record && options.log) logWhenDone(req, res, record, options.log);
    const to = destination(req, record);
    switch (to.kind) {
      case 'page':
        return sendPage(req, res, to.page);
      case 'redirect':
        res.writeHead(308, { location: to.location, 'content-length': '0', 'cache-control': 'no-store' });
        return res.end();
      case 'challenge':
        res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' });
        return res.end(to.keyAuthorization);
      case 'static':
        return void files.serve(req, res, to.host, to.route.target, to.route.pathPrefix).catch(() => res.destroy());
      case 'upstream':
        return forward(req, res, to.host, to.upstream, {
          pools,
          rematch: () => routes.match(to.host, to.path),
          onRetry: (upstream) => {
            if (record) record.upstream = upstream;
          },
        });
    }
  };
  const onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (options.behindNginx) seenByNginx(req);
    const record = options.log ? startRecord() : null;
    const outcome = { status: 101 };
    if (record && options.log) {
      const log = options.log;
      socket.once('close', () => log.record(rowFor(req, record, outcome.status, req.socket), true));
    }
    const to = destination(req, record);
    if (to.kind === 'page') {
      outcome.status = to.page.status;
      return sendPageOnSocket(req, socket, to.page);
    }
    if (to.kind === 'redirect' || to.kind === 'challenge') {
      outcome.status = 400;
      return sendPageOnSocket(req, socket, badRequestPage('Connect over HTTPS for WebSocket connections here.'));
    }
    if (to.kind === 'static') {
      outcome.status = 400;
      return sendPageOnSocket(req, socket, badRequestPage('This address does not take WebSocket connections.'));
    }
    proxyUpgrade(req, socket, head, to.host, to.upstream, timeouts, outcome);
  };
  const onClientError = (_error: Error, socket: Duplex) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  };
  // No limit on the whole request (an upload streams for as long as it takes); the headers must come quickly.
  const serverOptions = { keepAliveTimeout: 5000, headersTimeout: 30_000, requestTimeout: 0 };
  const plain = http.createServer(serverOptions, onRequest);
  const certificates = options.tls?.certificates;
  const secure = certificates
    ? https.createServer(
        {
          ...serverOptions,
          // The certificate by the name the client asks for; none for names without one (the handshake fails).
          SNICallback: (name, callback) => {
            const context = certificates.contextFor(name);
            if (context) callback(null, context);
            else callback(new Error(`no certificate for ${name}`), undefined);
          },
        },
        onRequest,
      )
    : null;
  for (const server of secure ? [plain, secure] : [plain]) {
    server.on('upgrade', onUpgrade);
    server.on('clientError', onClientError);
  }
  plain.on('close', () => {
    stopWatching();
    health?.close();
    void pools.close();
  });
  return { http: plain, https: secure };
}
