import type net from 'node:net';
import { type EdgeIdentity, edgePaths } from '@launchbay/edge-protocol';
import { loadEdgeConfig } from '../config';
import { HealthFromPrimary } from '../health';
import { edgeLog } from '../log';
import { releaseMemoryWhenQuiet } from '../memory';
import { createProxyServer } from '../proxy';
import { pacedProxyLog } from '../proxy-log-writer';
import { PgRouteSource } from '../route-source';
import { RouteTableHolder } from '../route-table';
import { Certificates } from '../tls';
import { ProcessLoad } from './load';
import type { FromWorker, ToWorker } from './messages';

/**
 * How often a worker reports its load to the first process: often enough that the identity's
 * proxy-log figures (rows waiting, written) are never more than a quarter of a second behind.
 */
const REPORT_MS = 250;
/** How long the first process may take to answer an identity request that reached a worker. */
const IDENTITY_WAIT_MS = 2000;
/** A retiring worker closes the connections still open after this long. */
const FINISH_WAIT_MS = 10_000;
/** And has this long to write its proxy-log rows (the first process gives a stopping edge 5 s). */
const LOG_CLOSE_MS = 3000;

/**
 * An extra worker of the embedded edge (pool.ts): the same proxy as the first process, on the listening
 * sockets that process hands it, with the route table and upstream health it sends. It writes its own
 * proxy-log rows and stops when told to, or at once when the first process is gone (its IPC channel
 * closes): it must not hold the port a restarted edge is to take.
 */
export function runWorker(): void {
  const config = loadEdgeConfig();
  const paths = edgePaths(config.dataDir);
  const log = edgeLog('edge worker');
  const send = (message: FromWorker) => {
    if (process.connected) process.send?.(message);
  };

  const routes = new RouteTableHolder();
  const database = new PgRouteSource(paths.database, null, log);
  const { proxyLog, pacer } = pacedProxyLog(database, log);
  const health = new HealthFromPrimary();
  const certificates = new Certificates(log);
  let tlsPort: number | null = null;
  let nextIdentity = 0;
  const identityWaiters = new Map<number, (identity: EdgeIdentity) => void>();
  const servers = createProxyServer({
    instanceId: config.instanceId,
    routes,
    tls: { certificates, port: () => tlsPort },
    ...(config.proxyLog ? { log: proxyLog } : {}),
    health,
    shedConnection: () => load.shedConnection(),
    identity: () =>
      new Promise<EdgeIdentity>((resolve, reject) => {
        const id = nextIdentity++;
        identityWaiters.set(id, resolve);
        send({ type: 'identity?', id });
        setTimeout(() => {
          if (identityWaiters.delete(id)) reject(new Error('the first process did not answer'));
        }, IDENTITY_WAIT_MS).unref();
      }),
  });
  const load = new ProcessLoad(servers);

  // The event loop is weighed over a second, as the first process weighs its own.
  let reports = 0;
  let eventLoop = 0;
  const report = () => {
    if (reports++ % Math.round(1000 / REPORT_MS) === 0) eventLoop = load.sampleEventLoop();
    send({
      type: 'load',
      load: {
        eventLoop,
        connections: load.connections,
        proxyLog: { ...proxyLog.stats, waiting: pacer.waiting },
      },
    });
  };
  const parent = process.ppid;
  const reporter = setInterval(() => {
    // The IPC channel's 'disconnect' is the first sign the first process is gone; a new parent (the
    // orphan is adopted by init) is the sure one, whatever happened to the channel.
    if (process.ppid !== parent || !process.connected) return stop('the first process is gone');
    report();
  }, REPORT_MS);

  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    log(`${why}: stopping`);
    // The listening sockets first, at once: from now on only the first process (or the next edge) accepts.
    const open = [servers.http, servers.https].filter((server) => server?.listening) as net.Server[];
    const finished = Promise.all(open.map((server) => new Promise<void>((resolve) => server.once('close', resolve))));
    for (const server of open) server.close();
    send({ type: 'closed' });
    load.shedAll();
    servers.http.closeIdleConnections();
    servers.https?.closeIdleConnections();
    const idleSweep = setInterval(() => {
      servers.http.closeIdleConnections();
      servers.https?.closeIdleConnections();
    }, 250);
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, FINISH_WAIT_MS).unref());
    void Promise.race([finished, deadline])
      .then(() => {
        clearInterval(idleSweep);
        servers.http.closeAllConnections();
        servers.https?.closeAllConnections();
        return proxyLog.close(LOG_CLOSE_MS);
      })
      .then(() => {
        clearInterval(reporter);
        report();
        return database.stop();
      })
      .catch((error: Error) => log(`stopping: ${error.message}`))
      .finally(() => process.exit(0));
    setTimeout(() => process.exit(0), FINISH_WAIT_MS + LOG_CLOSE_MS + 1000).unref();
  };

  process.on('message', (message: ToWorker, handle?: net.Server) => {
    switch (message.type) {
      case 'table':
        routes.replace(message.table);
        send({ type: 'serving', version: message.table.version });
        return;
      case 'health':
        health.set(message.unhealthy);
        return;
      case 'listen': {
        if (!handle || stopping) return;
        tlsPort = message.tlsPort;
        const server = message.server === 'http' ? servers.http : servers.https;
        if (!server) return;
        // The handed socket, already listening: this process's server accepts on it too.
        server.listen(handle);
        return;
      }
      case 'identity': {
        const waiter = identityWaiters.get(message.id);
        identityWaiters.delete(message.id);
        waiter?.(message.identity);
        return;
      }
      case 'shed':
        load.shed(message.connections);
        return;
      case 'retire':
        return stop('retiring');
    }
  });
  // The first process is gone (stopped, or killed): the port must be free for the edge that replaces it.
  process.on('disconnect', () => stop('the first process is gone'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => undefined);
  process.on('SIGHUP', () => undefined);
  process.on('uncaughtException', (error) => {
    log(`crashed: ${error.stack ?? error.message}`);
    process.exit(1);
  });

  database.start();
  if (config.proxyLog) proxyLog.start();
  send({ type: 'ready' });
  releaseMemoryWhenQuiet(log);
}
