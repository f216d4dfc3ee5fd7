import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Route, RouteTarget, RouteUpstream } from '@launchbay/edge-protocol';
import { createProxyServer } from '../src/proxy';
import { RouteTableHolder } from '../src/route-table';
import type { UpstreamTimeouts } from '../src/upstreams';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export type Upstream = { port: number; server: http.Server; upstream: RouteUpstream; close(): Promise<void> };

/** A real HTTP server the edge forwards to. */
export async function startUpstream(handler: http.RequestListener, options: http.ServerOptions = {}): Promise<Upstream> {
  const server = http.createServer({ keepAliveTimeout: 5000, ...options }, handler);
  const port = await listen(server);
  return { port, server, upstream: { kind: 'tcp', host: '127.0.0.1', port }, close: () => closeServer(server) };
}

export function route(host: string, target: RouteTarget | RouteUpstream[], extra: Partial<Route> = {}): Route {
  return {
    host,
    pathPrefix: '/',
    target: Array.isArray(target) ? { kind: 'upstreams', upstreams: target } : target,
    state: 'live',
    projectId: 1,
    environmentId: 1,
    deploymentId: 1,
    redirectToHttps: false,
    ...extra,
  };
}

export type Edge = {
  port: number;
  server: http.Server;
  routes: RouteTableHolder;
  setRoutes(routes: Route[]): void;
  close(): Promise<void>;
};

export async function startEdge(routes: Route[] = [], timeouts: Partial<UpstreamTimeouts> = {}): Promise<Edge> {
  const holder = new RouteTableHolder();
  let version = 0;
  const setRoutes = (next: Route[]) => holder.replace({ version: ++version, routes: next });
  setRoutes(routes);
  const { http: server } = createProxyServer({
    instanceId: 'test-instance',
    routes: holder,
    timeouts,
    identity: () => ({
      pid: process.pid,
      instanceId: 'test-instance',
      port: 0,
      routes: holder.table.routes.length,
      routeTableVersion: holder.table.version,
      database: 'disconnected',
    }),
  });
  const port = await listen(server);
  return { port, server, routes: holder, setRoutes, close: () => closeServer(server) };
}

export type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string };

/** A request with a Host header of the test's choosing (fetch does not let one set it). */
export function request(
  port: number,
  options: {
    host: string;
    path?: string;
    method?: string;
    headers?: http.OutgoingHttpHeaders;
    body?: string | Buffer;
    agent?: http.Agent | false;
  },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: { host: options.host, ...options.headers },
        agent: options.agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
