import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { inject } from 'vitest';
import { loadConfig } from '../../src/config';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { type Platform, startPlatform } from '../../src/platform';

export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'correct-horse-battery';

export type TestPlatform = Platform & { dataDir: string; databaseUrl: string | undefined; close(): Promise<void> };

/** A fresh database for one test file on the external server, when the suite runs in that mode. */
export async function freshExternalDatabase(): Promise<string | undefined> {
  const base = inject('externalPostgresUrl');
  if (!base) return undefined;
  const name = `lb_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  return base.replace(/\/postgres$/, `/${name}`);
}

/** A connection URL for a pool config (a Unix socket directory goes in the `host` parameter). */
export function connectionUrl(connection: pg.PoolConfig): string {
  const host = String(connection.host ?? '127.0.0.1');
  const auth = `${encodeURIComponent(String(connection.user))}:${encodeURIComponent(String(connection.password))}`;
  const base = `postgres://${auth}@${host.startsWith('/') ? 'localhost' : host}:${connection.port}/${connection.database}`;
  return host.startsWith('/') ? `${base}?host=${encodeURIComponent(host)}` : base;
}

/**
 * A database several platform processes can share: a fresh one on the external server when the
 * suite runs in that mode, else an embedded server of the test's own (outside any platform's data
 * folder, so stopping a platform leaves it running).
 */
export async function sharedDatabase(): Promise<{ url: string; close(): Promise<void> }> {
  const external = await freshExternalDatabase();
  if (external) return { url: external, close: async () => undefined };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-shared-db-'));
  const embedded = await startEmbeddedPostgres(dir, { info() {}, warn() {}, debug() {} });
  return {
    url: connectionUrl(embedded.connection),
    async close() {
      await embedded.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function testEnv(dataDir: string, databaseUrl: string | undefined, extra: Record<string, string> = {}) {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    // Many platforms run side by side: each edge proxy takes a free port (recorded in DATA_DIR/edge/state.json).
    PROXY_PORT: '0',
    PROXY_TLS_PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...extra,
  };
}

/**
 * The real platform, in this process, on a real port: its embedded PostgreSQL in a temp data
 * folder, or a fresh database on the external server when LAUNCHBAY_TEST_EXTERNAL_PG=1.
 */
export async function startTestPlatform(
  extraEnv: Record<string, string> = {},
  options: { logger?: Logger } = {},
): Promise<TestPlatform> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-test-'));
  const databaseUrl = await freshExternalDatabase();
  const config = loadConfig(testEnv(dataDir, databaseUrl, extraEnv));
  const platform = await (options.logger ? startPlatform(config, options.logger) : startPlatform(config));
  const url = platform.url.replace('localhost', '127.0.0.1');
  return {
    ...platform,
    url,
    dataDir,
    databaseUrl,
    async close() {
      await platform.stop({ includeEdge: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
