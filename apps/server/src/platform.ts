import type pg from 'pg';
import type { Logger } from 'pino';
import { buildApp } from './app';
import type { Config } from './config';
import type { AppContext } from './context';
import { createDb, createPool } from './db/client';
import { type EmbeddedPostgres, startEmbeddedDatabase } from './db/embedded';
import { runMigrations } from './db/migrate';
import { scopedDb } from './db/request-transaction';
import { type EdgeSupervisor, startEdgeSupervisor } from './engine/edge/supervisor';
import { createRuntimeDriver } from './engine/runtime/create';
import { startJobRuntime } from './jobs';
import { createSecretBox, loadEncryptionKey } from './lib/crypto';
import type { App } from './lib/http';
import { createLogger } from './lib/logger';
import { createPrincipalResolver } from './modules/auth/service';
import { startCronScheduler } from './modules/crons/scheduler';
import { deploymentLogWriter } from './modules/deployments/logs';
import { adoptRunningDeployments, followRuntime, stopAllDeployments } from './modules/deployments/runtime-events';
import { followEdgeDriverSetting, getSettings } from './modules/settings/service';
import { ensureFirstAdmin } from './modules/users/bootstrap';
import { startBranchPoller } from './modules/webhooks/poller';
import { PLATFORM_JOBS } from './platform-jobs';

export type Platform = {
  app: App;
  url: string;
  ctx: AppContext;
  embedded: EmbeddedPostgres | undefined;
  firstAdmin: { email: string; password: string | null } | null;
  edge: EdgeSupervisor;
  /** Leaves the edge proxy running (apps keep serving through a restart) unless `includeEdge`. */
  stop(options?: { includeEdge?: boolean }): Promise<void>;
};

/** Starts everything the control plane needs, in order: database, migrations, first admin, HTTP. */
export async function startPlatform(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
  options: {
    /** The embedded database, already starting (main.ts starts it before loading the rest of the code). */
    embeddedStarting?: Promise<EmbeddedPostgres>;
  } = {},
): Promise<Platform> {
  const startedAt = Date.now();
  let embedded: EmbeddedPostgres | undefined;
  let connection: pg.PoolConfig;
  if (config.databaseUrl) {
    connection = { connectionString: config.databaseUrl };
  } else {
    embedded = await (options.embeddedStarting ?? startEmbeddedDatabase(config.dataDir, logger));
    connection = embedded.connection;
  }
  // The edge needs nothing else from the start: it comes up (or is adopted) beside the rest.
  const edgeStarting = startEdgeSupervisor({
    dataDir: config.dataDir,
    host: config.proxyHost,
    port: config.proxyPort,
    tlsPort: config.proxyTlsPort,
    proxyLog: config.proxyLog,
    processes: config.edgeProcesses,
    scaleDownSeconds: config.edgeScaleDownSeconds,
    scaleUpAt: config.edgeScaleUpAt,
    nginxBinary: config.nginxBinary,
    database: connection,
    log: { info: (m) => logger.info(m), warn: (m) => logger.warn(m), error: (m) => logger.error(m) },
  });
  let edgeSupervisor: EdgeSupervisor | undefined;
  edgeStarting.then(
    (supervisor) => {
      edgeSupervisor = supervisor;
    },
    () => undefined, // awaited below; this only keeps an early failure from being "unhandled"
  );
  const pool = createPool(connection);
  try {
    const applied = await runMigrations(pool);
    if (applied.length > 0) logger.info(`Applied database migrations: ${applied.join(', ')}`);
    // Follows the request transaction of a mutating API call (db/request-transaction.ts).
    const db = scopedDb(createDb(pool));
    const firstAdmin = await ensureFirstAdmin(db, { email: config.adminEmail, password: config.adminPassword });
    const runtime = createRuntimeDriver({
      kind: config.runtimeDriver,
      dataDir: config.dataDir,
      dockerHost: config.dockerHost,
      dockerImage: config.dockerImage,
      log: (message) => logger.info(message),
    });
    const ctx: AppContext = {
      config,
      runtime,
      db,
      pool,
      box: createSecretBox(loadEncryptionKey(config.dataDir)),
      principals: createPrincipalResolver({ db }),
      databaseKind: embedded ? 'embedded' : 'external',
      edge: {
        port: () => edgeSupervisor?.current()?.port ?? config.proxyPort,
        tlsPort: () => edgeSupervisor?.current()?.tlsPort ?? null,
        current: () => edgeSupervisor?.current() ?? null,
        driver: () => edgeSupervisor?.driver() ?? 'embedded',
        setDriver: async (driver) => (await edgeStarting).setDriver(driver),
      },
      startedAt,
    };
    await getSettings(ctx); // primes the synchronous readers (proxy trust follows the access mode)
    // Apps kept serving while the control plane was away: watch them again before any deploy job runs.
    const unfollow = followRuntime(ctx, logger);
    await adoptRunningDeployments(ctx, logger).catch((error: Error) =>
      logger.error(`Could not adopt the running deployments: ${error.message}`),
    );
    const app = await buildApp(ctx, logger);
    const address = await app.listen({ port: config.port, host: config.host });
    const port = new URL(address).port;
    const url = `http://localhost:${port}`;
    const jobs = startJobRuntime(ctx, logger, PLATFORM_JOBS);
    const crons = startCronScheduler(ctx, logger);
    const poller = startBranchPoller(ctx, logger);
    const edge = await edgeStarting;
    const edgeDriver = followEdgeDriverSetting(ctx, (message) => logger.error(message));
    await edgeDriver.ready;
    let stopping: Promise<void> | undefined;
    return {
      app,
      url,
      ctx,
      embedded,
      firstAdmin,
      edge,
      stop(options) {
        stopping ??= (async () => {
          edgeDriver.stop();
          await edge.stop(options);
          await crons.stop();
          await poller.stop();
          await jobs.stop();
          // Apps keep serving through a restart of the control plane; taking the edge down takes them down too.
          if (options?.includeEdge) await stopAllDeployments(ctx).catch(() => undefined);
          unfollow();
          await runtime.close();
          await deploymentLogWriter(pool).close();
          await app.close();
          await pool.end();
          await embedded?.stop();
        })();
        return stopping;
      },
    };
  } catch (error) {
    await (await edgeStarting.catch(() => undefined))?.stop();
    await pool.end().catch(() => undefined);
    await embedded?.stop();
    throw error;
  }
}
