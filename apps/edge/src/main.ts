/**
 * The Launchbay edge: the HTTP reverse proxy in front of deployed apps. The control plane spawns it
 * detached (it keeps serving while the control plane restarts), and finds and adopts it again
 * through the state file in DATA_DIR/edge/. Environment: DATA_DIR, PROXY_HOST, PROXY_PORT,
 * LAUNCHBAY_EDGE_INSTANCE, LAUNCHBAY_EDGE_PREFERRED_PORT.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  EDGE_EXIT,
  EDGE_PROTOCOL_VERSION,
  type EdgeIdentity,
  type EdgeState,
  edgePaths,
  processStartTime,
  readEdgeState,
} from '@launchbay/edge-protocol';
import { type EdgeConfig, loadEdgeConfig } from './config';
import { HealthChecks, HealthReportWriter } from './health';
import { edgeLog } from './log';
import { releaseMemoryWhenQuiet } from './memory';
import { NginxAccessLog } from './nginx/access-log';
import { NginxDriver, runningNginxMaster, stopNginx } from './nginx/driver';
import { createProxyServer } from './proxy';
import { pacedProxyLog } from './proxy-log-writer';
import { PgRouteSource } from './route-source';
import { RouteTableHolder } from './route-table';
import { acquireState, releaseState, updateState } from './state-file';
import { Certificates } from './tls';
import { ProcessLoad } from './workers/load';
import { EDGE_WORKER_ENV } from './workers/messages';
import { EdgeWorkers } from './workers/pool';
import { runWorker } from './workers/worker';

/** How long the nginx driver waits for the route table before nginx starts without it (it follows once loaded). */
const FIRST_TABLE_WAIT_MS = 3000;
/** How often the edge checks that its state file still names it. */
const LEASE_CHECK_MS = 2000;

const log = edgeLog('edge');

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

/**
 * The port nginx is to listen on: the configured one, else (0) the earlier one when it is still
 * free (or held by the nginx being adopted), else a free one.
 */
async function portForNginx(host: string, port: number, preferred: number | null, adopting: boolean): Promise<number> {
  if (port !== 0) return port;
  if (preferred && adopting) return preferred;
  const probe = http.createServer();
  const chosen = await listenOnConfiguredPort(probe, host, 0, preferred);
  await new Promise((resolve) => probe.close(resolve));
  return chosen;
}

/** The port the fallback had under the previous edge, so the configuration of an adopted nginx stays right. */
function readFallbackPort(file: string): number | null {
  try {
    const port = Number(fs.readFileSync(file, 'utf8'));
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : null;
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  const loadedAt = Math.round(performance.now());
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
    driver: config.driver,
  };
  const lock = acquireState(paths.state, state);
  if (!lock.acquired) {
    log(`another edge (pid ${lock.owner.pid}) already serves ${config.dataDir}; leaving it to that one`);
    process.exit(EDGE_EXIT.alreadyRunning);
  }

  const routes = new RouteTableHolder();
  const source = new PgRouteSource(paths.database, routes, log);
  /** The requests served since the pacer last looked: the embedded edge's own rows, or what nginx logged (set below). */
  let requestsSince = (): number => proxyLog.takeRecordedCount();
  const { proxyLog, pacer } = pacedProxyLog(source, log, () => requestsSince());
  const healthReports = new HealthReportWriter(() => source.client, log);
  /** Behind nginx, a change of health rewrites its configuration (an unhealthy upstream is left out of it). */
  let healthChanged: () => void = () => undefined;
  const health = new HealthChecks((report) => {
    log(`${report.upstream} of ${report.host} is ${report.healthy ? 'healthy again' : `unhealthy: ${report.error}`}`);
    healthReports.add(report);
    healthChanged();
    workers.healthChanged();
  });
  let port = 0;
  let tlsPort: number | null = null;
  const nginxDir = path.join(paths.dir, 'nginx');
  const behindNginx = config.driver === 'nginx';
  let nginx: NginxDriver | null = null;
  let accessLog: NginxAccessLog | null = null;
  const certificates = new Certificates(log);
  const servers = createProxyServer({
    instanceId: config.instanceId,
    routes,
    tls: { certificates, port: () => tlsPort },
    // Behind nginx, nginx logs every request (its access log becomes the rows); the fallback logs none.
    ...(config.proxyLog && !behindNginx ? { log: proxyLog } : {}),
    health,
    behindNginx,
    shedConnection: () => load.shedConnection(),
    identity,
  });
  const load = new ProcessLoad(servers);
  const workers = new EdgeWorkers({
    maxProcesses: behindNginx ? 1 : config.maxProcesses,
    scaleDownSeconds: config.scaleDownSeconds,
    scaleUpAt: config.scaleUpAt,
    servers,
    tlsPort: () => tlsPort,
    routes,
    health,
    load,
    identity,
    entry: process.argv[1] ?? '',
    log,
  });
  function identity(): EdgeIdentity {
    return {
      pid: process.pid,
      instanceId: config.instanceId,
      port,
      tlsPort,
      certificates: certificates.fingerprints,
      routes: routes.table.routes.length,
      // Behind nginx a table counts as served once nginx has reloaded with it, with workers once every
      // process serves it (the control plane drains the previous deployment after that).
      routeTableVersion: nginx ? nginx.servedVersion : workers.servingVersion(routes.table.version),
      database: source.connected ? 'connected' : 'disconnected',
      proxyLog: workers.proxyLog({ ...proxyLog.stats, waiting: pacer.waiting }),
      driver: config.driver,
      driverError: nginx?.error ?? null,
      processes: workers.processes,
    };
  }
  // The routes are in before the port is taken, when the database answers soon: an edge that takes
  // over (a restart, a switch of driver) then serves every app from its first request instead of
  // answering "no app here" until the table arrives.
  const firstTable = new Promise<void>((resolve) => {
    const off = routes.onChange(() => {
      off();
      resolve();
    });
    // Not unref'd: with no database to wait on, nothing else keeps the process alive until it listens.
    setTimeout(resolve, FIRST_TABLE_WAIT_MS);
  });
  source.start();
  await firstTable;
  if (behindNginx) {
    try {
      const started = await startNginx();
      ({ port, tlsPort } = started);
      accessLog = started.accessLog;
    } catch (error) {
      log(`cannot serve through nginx: ${(error as Error).message}`);
      releaseState(paths.state, config.instanceId);
      process.exit(EDGE_EXIT.badConfig);
    }
  } else {
    await startEmbedded();
  }
  updateState(paths.state, { ...state, status: 'ready', port, tlsPort });
  releaseMemoryWhenQuiet(log);
  // The time since the process began: how much of a restart was Node's start, the table and the port.
  log(
    `${behindNginx ? 'nginx listens' : 'listening'} on ${config.host}:${port} (HTTPS ${tlsPort ?? 'off'}) for ${config.dataDir}, ${Math.round(performance.now())} ms after the process started (the code loaded at ${loadedAt} ms)`,
  );
  if (config.proxyLog) proxyLog.start();
  accessLog?.start();
  workers.start();

  /**
   * nginx serves; this process configures it and answers behind it (pages, HTTP-01, static files,
   * the identity call) on a loopback port of its own, kept across restarts so the configuration of
   * an nginx left running stays right until the next one is written.
   */
  async function startNginx(): Promise<{ port: number; tlsPort: number | null; accessLog: NginxAccessLog | null }> {
    const version = await NginxDriver.version(config.nginxBinary);
    if (!version) throw new Error(`${config.nginxBinary} is not installed (or not on the PATH)`);
    const fallbackFile = path.join(nginxDir, 'fallback.port');
    fs.mkdirSync(nginxDir, { recursive: true, mode: 0o700 });
    const fallbackPort = await listenOnConfiguredPort(servers.http, '127.0.0.1', 0, readFallbackPort(fallbackFile));
    fs.writeFileSync(fallbackFile, String(fallbackPort));
    const adopting = runningNginxMaster(nginxDir) !== null;
    const httpPort = await portForNginx(config.host, config.port, config.preferredPort, adopting);
    const httpsPort = await portForNginx(config.host, config.tlsPort, config.preferredTlsPort, adopting);
    const driver = new NginxDriver({
      binary: config.nginxBinary,
      dir: nginxDir,
      listenHost: config.host,
      httpPort,
      httpsPort,
      fallbackPort,
      accessLog: config.proxyLog,
      table: () => routes.table,
      certificates: () => certificates.served,
      usable: (route, upstream) => health.usable(route, upstream),
      log,
    });
    nginx = driver;
    // The proxy's own listener (registered first) has loaded the certificates by the time this runs.
    routes.onChange(() => driver.schedule());
    healthChanged = () => driver.schedule();
    await driver.start({ keepRunningConfig: adopting });
    driver.watch();
    const reader = !config.proxyLog
      ? null
      : new NginxAccessLog({
          file: driver.paths.accessLog,
          positionFile: driver.paths.position,
          fallbackAddress: `127.0.0.1:${fallbackPort}`,
          sink: proxyLog,
          settled: () => proxyLog.stats,
          reopen: () => driver.reopenLogs(),
          log,
          pacer,
        });
    if (reader) {
      requestsSince = () => {
        proxyLog.takeRecordedCount(); // the rows read from the log are not traffic of now
        return reader.takeRequestEstimate();
      };
    }
    log(`serving through ${version}`);
    return { port: httpPort, tlsPort: httpsPort, accessLog: reader };
  }

  async function startEmbedded(): Promise<void> {
    // Switched back from nginx: the nginx left running holds the ports.
    if (runningNginxMaster(nginxDir)) {
      log('stopping the nginx of the nginx driver (the embedded edge serves now)');
      await stopNginx(nginxDir);
    }
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
  }

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
    // Stopped on purpose (or replaced): nginx goes too, gracefully, and what it logged is read first.
    // Workers stop accepting first: the next edge is to find the port free.
    const nginxStopped = nginx
      ? nginx.stop({ nginx: true }).then(() => accessLog?.close())
      : workers.close().then(() => undefined);
    // What waits in the buffer goes to the database before the connection does.
    void nginxStopped
      .catch((error: Error) => log(`stopping nginx: ${error.message}`))
      .then(() => proxyLog.close(4000))
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

if (process.env[EDGE_WORKER_ENV] === '1') runWorker();
else void main();
