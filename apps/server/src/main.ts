// First: V8's flags (see the file), then pg loaded without waking Node's bundled fetch (see the file).
import './v8-flags';
import './db/load-pg';
import { loadConfig } from './config';
import { startEmbeddedDatabase } from './db/embedded';
import { createLogger } from './lib/logger';

/*
 * Only what starts the database is imported up front: the embedded PostgreSQL (initdb on a first
 * start) comes up on its own core while the rest of the platform's code loads (./platform is a
 * separate chunk of the bundle, imported below).
 */
async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  const t0 = performance.now();
  const logger = createLogger(config.logLevel);
  const embeddedStarting = config.databaseUrl ? undefined : startEmbeddedDatabase(config.dataDir, logger);
  // Awaited inside startPlatform; until then a failure must not count as unhandled.
  embeddedStarting?.catch(() => undefined);
  let platform: Awaited<ReturnType<typeof import('./platform').startPlatform>>;
  try {
    const { startPlatform } = await import('./platform');
    platform = await startPlatform(config, logger, { embeddedStarting });
  } catch (error) {
    console.error(`\nLaunchbay could not start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const ms = Math.round(performance.now() - t0);
  const db = platform.embedded ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL from DATABASE_URL';
  console.log(`\n  Launchbay v1.0.0 is ready at ${platform.url} (${db}, started in ${ms} ms)`);
  if (platform.firstAdmin) {
    console.log(`\n  First admin account created: ${platform.firstAdmin.email}`);
    if (platform.firstAdmin.password) {
      console.log(`  Password (shown only this once, change it under Account): ${platform.firstAdmin.password}`);
    } else {
      console.log('  Password: the one you gave in ADMIN_PASSWORD');
    }
    console.log(`  Open ${platform.url} to sign in.\n`);
  }

  let shuttingDown = false;
  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    console.log(`\n  ${signal} received: stopping Launchbay...`);
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    platform.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

void main();
