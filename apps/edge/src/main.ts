/**
 * The Launchbay edge: the HTTP reverse proxy in front of deployed apps. The control plane spawns it
 * detached (it keeps serving while the control plane restarts), and finds and adopts it again
 * through the state file in DATA_DIR/edge/. Environment: DATA_DIR, PROXY_HOST, PROXY_PORT,
 * LAUNCHBAY_EDGE_INSTANCE, LAUNCHBAY_EDGE_PREFERRED_PORT.
 */
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  EDGE_EXIT,
  EDGE_PROTOCOL_VERSION,
  type EdgeState,
  edgePaths,
  processStartTime,
  readEdgeState,
} from '@launchbay/edge-protocol';
import { type EdgeConfig, loadEdgeConfig } from './config';
import { HealthChecks, HealthReportWriter } from './health';
import { createProxyServer } from './proxy';
import { ProxyLogWriter } from './proxy-log-writer';
import { PgRouteSource } from './route-source';
import { RouteTableHolder } from './route-table';
import { acquireState, releaseState, updateState } from './state-file';
import { Certificates } from './tls';

/** How often the edge checks that its state file still names it. */
const LEASE_CHECK_MS = 2000;

const log = (message: string) => console.log(`${new Date().toISOString()} [edge ${process.pid}] ${message}`);

function listen(server: http.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** The configured port; with 0, the port an earlier edge of this folder had when it is still free, else any. */
async function listenOnConfiguredPort(
  server: http.Server,
  host: string,
  port: number,
  preferred: number | null,
): Promise<number> {
  if (port === 0 && preferred) {
    try {
      return await listen(server, host, preferred);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      log(`port ${preferred} of the earlier edge is taken now; choosing another`);
    }
  }
  return listen(server, host, port);
}

async function main(): Promise<void> {
  let config: EdgeConfig;
  try {
    config = loadEdgeConfig();
  } catch (error) {
    console.error(`Launchbay edge: ${(error as Error).message}`);
    process.exit(EDGE_EXIT.badConfig);
  }
  const paths = edgePaths(config.dataDir);
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });

  const state: EdgeState = {
    pid: process.pid,
    processStart: processStartTime(process.pid),
    instanceId: config.instanceId,
    status: 'starting',
    host: config.host,
    port: null,
    startedAt: new Date().toISOString(),
    protocolVersion: EDGE_PROTOCOL_VERSION,
  };
  const lock = acquireState(paths.state, state);
  if (!lock.acquired) {
    log(`another edge (pid ${lock.owner.pid}) already serves ${config.dataDir}; leaving it to that one`);
    process.exit(EDGE_EXIT.alreadyRunning);
  }

  const routes = new RouteTableHolder();
  const source = new PgRouteSource(paths.database, routes, log);
  const proxyLog = new ProxyLogWriter({ sink: () => source.client, log });
  const healthReports = new HealthReportWriter(() => source.client, log);
  const health = new HealthChecks((report) => {
    log(`${report.upstream} of ${report.host} is ${report.healthy ? 'healthy again' : `unhealthy: ${report.error}`}`);
    healthReports.add(report);
  });
  let port = 0;
  let tlsPort: number | null = null;
  const certificates = new Certificates(log);
  const servers = createProxyServer({
    instanceId: config.instanceId,
    routes,
    tls: { certificates, port: () => tlsPort },
    ...(config.proxyLog ? { log: proxyLog } : {}),
    health,
    identity: () => ({
      pid: process.pid,
      instanceId: config.instanceId,
      port,
      tlsPort,
      certificates: certificates.fingerprints,
      routes: routes.table.routes.length,
      routeTableVersion: routes.table.version,
      database: source.connected ? 'connected' : 'disconnected',
      proxyLog: proxyLog.stats,
    }),
  });
  try {
    port = await listenOnConfiguredPort(servers.http, config.host, config.port, config.preferredPort);
  } catch (error) {
    const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    log(
      `cannot listen on ${config.host}:${config.port}: ${inUse ? 'the port is in use by another program' : (error as Error).message}`,
    );
    releaseState(paths.state, config.instanceId);
    process.exit(inUse ? EDGE_EXIT.portInUse : 1);
  }
  if (servers.https) {
    try {
      tlsPort = await listenOnConfiguredPort(servers.https, config.host, config.tlsPort, config.preferredTlsPort);
    } catch (error) {
      // Apps keep being served over HTTP; the domains say their certificates are not served.
      log(`cannot listen for HTTPS on ${config.host}:${config.tlsPort}: ${(error as Error).message}; serving HTTP only`);
    }
  }
  updateState(paths.state, { ...state, status: 'ready', port, tlsPort });
  log(`listening on ${config.host}:${port} (HTTPS ${tlsPort ?? 'off'}) for ${config.dataDir}`);
  source.start();
  if (config.proxyLog) proxyLog.start();

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    setTimeout(() => process.exit(0), 5000).unref();
    releaseState(paths.state, config.instanceId);
    for (const server of [servers.http, servers.https]) {
      server?.close();
      server?.closeIdleConnections();
    }
    healthReports.close();
    // What waits in the buffer goes to the database before the connection does.
    void proxyLog
      .close()
      .then(() => source.stop())
      .finally(() => process.exit(0));
  };
  // The state file is how a control plane finds this edge. When it is gone (the data folder was
  // deleted) or names another edge, nobody can adopt or stop this one any more: end it rather than
  // hold the port as an orphan.
  setInterval(() => {
    if (readEdgeState(paths.state)?.instanceId !== config.instanceId) stop('the state file no longer names this edge');
  }, LEASE_CHECK_MS).unref();
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Detached from the control plane's terminal: a closing terminal must not stop the proxy.
  process.on('SIGHUP', () => undefined);
  process.on('uncaughtException', (error) => {
    log(`crashed: ${error.stack ?? error.message}`);
    releaseState(paths.state, config.instanceId);
    process.exit(1);
  });
}

void main();
