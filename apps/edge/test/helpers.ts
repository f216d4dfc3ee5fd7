import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { EdgeDriver, ProxyLogRow, Route, RouteTable, RouteTarget, RouteUpstream } from '@launchbay/edge-protocol';
import { afterEach } from 'vitest';
import { NginxDriver } from '../src/nginx/driver';
import { createProxyServer } from '../src/proxy';
import { RouteTableHolder } from '../src/route-table';
import { Certificates } from '../src/tls';
import type { UpstreamTimeouts } from '../src/upstreams';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The i-th proxy-log row of a test: a GET of `/{i}`, a millisecond after the one before. */
export const proxyLogRow = (i: number): ProxyLogRow => ({
  at: new Date(1_700_000_000_000 + i).toISOString(),
  method: 'GET',
  host: 'a.localhost',
  path: `/${i}`,
  query: null,
  status: 200,
  durationMs: 1,
  bytesIn: 10,
  bytesOut: 20,
  clientIp: '127.0.0.1',
  userAgent: null,
  referrer: null,
  route: null,
  projectId: null,
  environmentId: null,
  deploymentId: null,
  upstream: null,
  tlsVersion: null,
});

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
  /** With `tls`: the HTTPS port. */
  tlsPort: number | null;
  /** Resolves once the edge serves the new routes (at once for the embedded edge; after nginx's reload). */
  setRoutes(routes: Route[]): Promise<void>;
  /** The nginx driver behind the edge (EDGE_TEST_DRIVER=nginx). */
  nginx?: NginxDriver;
  /** A whole table (routes, certificates, HTTP-01 answers); resolves as setRoutes does. */
  setTable(table: Omit<RouteTable, 'version'>): Promise<void>;
  close(): Promise<void>;
};

/**
 * The driver the edge tests run with: the embedded proxy, or (EDGE_TEST_DRIVER=nginx, the
 * `nginx` vitest project) nginx configured by the nginx driver with this proxy behind it.
 */
export const TEST_DRIVER: EdgeDriver = process.env.EDGE_TEST_DRIVER === 'nginx' ? 'nginx' : 'embedded';

async function freePort(): Promise<number> {
  const probe = http.createServer();
  const port = await listen(probe);
  await closeServer(probe);
  return port;
}

export async function startEdge(
  routes: Route[] = [],
  timeouts: Partial<UpstreamTimeouts> = {},
  options: { tls?: boolean; accessLog?: boolean; shedConnection?: () => boolean } = {},
): Promise<Edge> {
  const holder = new RouteTableHolder();
  let version = 0;
  let nginx: NginxDriver | null = null;
  const setTable = async (table: Omit<RouteTable, 'version'>) => {
    holder.replace({ ...table, version: ++version });
    await nginx?.served(version);
  };
  const setRoutes = (next: Route[]) => setTable({ routes: next });
  void setRoutes(routes);
  const certificates = new Certificates((message) => console.log(`[edge] ${message}`));
  let tlsPort: number | null = null;
  const { http: server, https: secure } = createProxyServer({
    instanceId: 'test-instance',
    routes: holder,
    timeouts,
    behindNginx: TEST_DRIVER === 'nginx',
    ...(options.tls ? { tls: { certificates, port: () => tlsPort } } : {}),
    ...(options.shedConnection ? { shedConnection: options.shedConnection } : {}),
    identity: () => ({
      pid: process.pid,
      instanceId: 'test-instance',
      port: 0,
      routes: holder.table.routes.length,
      routeTableVersion: holder.table.version,
      database: 'disconnected',
    }),
  });
  const fallbackPort = await listen(server);
  if (TEST_DRIVER === 'embedded') {
    if (secure) tlsPort = await listen(secure);
    return {
      port: fallbackPort,
      tlsPort,
      server,
      routes: holder,
      setRoutes,
      setTable,
      async close() {
        if (secure) await closeServer(secure);
        await closeServer(server);
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'launchbay-nginx-'));
  const port = await freePort();
  if (options.tls) tlsPort = await freePort();
  const driver = new NginxDriver({
    binary: 'nginx',
    dir,
    listenHost: '127.0.0.1',
    httpPort: port,
    httpsPort: tlsPort,
    fallbackPort,
    accessLog: options.accessLog === true,
    table: () => holder.table,
    certificates: () => certificates.served,
    usable: () => true,
    log: (message) => console.log(`[nginx driver] ${message}`),
    workerProcesses: 1,
  });
  nginx = driver;
  holder.onChange(() => driver.schedule());
  await driver.start();
  driver.watch();
  return {
    port,
    tlsPort,
    nginx: driver,
    server,
    routes: holder,
    setRoutes,
    setTable,
    async close() {
      await driver.stop({ nginx: true });
      await closeServer(server);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
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
    // Whether the request went out on a kept-alive connection (a client may send it again when that
    // connection was closed before any answer, as browsers do).
    req.on('error', (error: Error & { reusedSocket?: boolean }) => {
      error.reusedSocket = req.reusedSocket;
      reject(error);
    });
    req.end(options.body);
  });
}

/** A port nothing listens on. */
export async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Upstreams and edges a test file starts, each closed after its test (call once, at the top of the
 * file): `named` answers its name and the request path.
 */
export function closedAfterEachTest() {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const upstream = async (handler: http.RequestListener, options?: http.ServerOptions): Promise<Upstream> => {
    const started = await startUpstream(handler, options);
    cleanups.push(started.close);
    return started;
  };
  const edge = async (...args: Parameters<typeof startEdge>): Promise<Edge> => {
    const started = await startEdge(...args);
    cleanups.push(started.close);
    return started;
  };
  const named = (name: string) =>
    upstream((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${name} ${req.url}`);
    });
  return { cleanups, upstream, edge, named };
}
