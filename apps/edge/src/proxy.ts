import { timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { type EdgeIdentity, IDENTITY_HEADER, IDENTITY_PATH, normalizeHost } from '@launchbay/edge-protocol';
import { sendBadRequest, sendNoApp, sendUnavailable } from './pages';
import type { RouteTableHolder } from './route-table';

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

export function createProxyServer(options: {
  instanceId: string;
  routes: RouteTableHolder;
  identity: () => EdgeIdentity;
}): http.Server {
  const server = http.createServer({ keepAliveTimeout: 5000, requestTimeout: 60_000 }, (req, res) => {
    // The control plane asking who listens here; without the instance id this path is ordinary traffic.
    if (isIdentityRequest(req, options.instanceId)) {
      const body = JSON.stringify(options.identity());
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(body);
      return;
    }
    const host = requestHost(req);
    if (!host) return sendBadRequest(req, res, 'The request has no valid Host header.');
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route = options.routes.match(host, path);
    if (!route) return sendNoApp(req, res, host);
    // Forwarding to the app's upstreams arrives with deployments (the deploy issue).
    sendUnavailable(req, res, host);
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy();
  });
  return server;
}
