import fs from 'node:fs';
import path from 'node:path';
import type { Response } from '@playwright/test';
import pg from 'pg';
import { expect, type Platform, signIn, test } from '../fixtures';

/*
 * Monitoring & Alerts when the server really cannot read the alert preferences: the test takes the
 * notification_preferences table away in the worker's embedded PostgreSQL (a rename, so the row and
 * the table's identity survive), sees the console's failure state, then puts it back and uses Retry.
 */

const TABLE = 'notification_preferences';
const OFFLINE_TABLE = 'notification_preferences_offline';
const SERVER_ERROR = 'Internal server error: the failure was logged on the server';

const isPreferencesGet = (response: Response) =>
  response.request().method() === 'GET' && new URL(response.url()).pathname === '/api/notification-preferences';

/**
 * How to reach the platform's embedded database (apps/server/src/db/embedded.ts): fixtures.ts runs the
 * server with DATA_DIR=<platform.dataDir>/data; the password is in DATA_DIR/postgres.password. Where it
 * listens comes from PostgreSQL's own postmaster.pid (line 4 the port, line 5 the socket folder, line 6
 * the TCP address), so this also works when the server fell back to a loopback port for a long path.
 */
function databaseConfig(platform: Platform): pg.ClientConfig {
  const dataDir = path.join(platform.dataDir, 'data');
  const password = fs.readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
  const [, , , port = '', socketDir = '', address = ''] = fs
    .readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')
    .split('\n')
    .map((line) => line.trim());
  const host = socketDir || (address && address !== '*' ? address : '127.0.0.1');
  return { host, port: Number(port), user: 'postgres', password, database: 'launchbay' };
}

test('the preferences tabs show the load failure while the server cannot read them, and Retry recovers', async ({
  page,
  platform,
}) => {
  const db = new pg.Client(databaseConfig(platform));
  await db.connect();
  try {
    // Never wait forever behind a lock the server holds: fail the test instead.
    await db.query(`SET lock_timeout = '5s'`);
    await db.query(`ALTER TABLE ${TABLE} RENAME TO ${OFFLINE_TABLE}`);

    // The server caches the preferences for ~3 s per node: wait until the API itself fails.
    await expect
      .poll(async () => (await platform.adminApi.get('/api/notification-preferences')).status(), { timeout: 15_000 })
      .toBe(500);

    const statuses: number[] = [];
    page.on('response', (response) => {
      if (isPreferencesGet(response)) statuses.push(response.status());
    });
    await signIn(page, platform.admin, '/monitoring/project');
    // The console retries a server error twice (with back-off) before it shows the failure.
    await expect(page.getByText('Failed to load preferences', { exact: true })).toBeVisible({ timeout: 20_000 });
    await expect(page.getByText(SERVER_ERROR, { exact: true })).toBeVisible();
    await expect(page.getByRole('form', { name: 'Project health alerts' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Save Changes' })).toHaveCount(0);
    // Every GET the page made (the first and its retries) was a real server failure.
    expect(new Set(statuses)).toEqual(new Set([500]));

    // The fault is gone: Retry loads the preferences and the tab's form shows.
    await db.query(`ALTER TABLE ${OFFLINE_TABLE} RENAME TO ${TABLE}`);
    const retried = page.waitForResponse(isPreferencesGet);
    await page.getByRole('button', { name: 'Retry', exact: true }).click();
    expect((await retried).status()).toBe(200);
    await expect(page.getByRole('form', { name: 'Project health alerts' })).toBeVisible();
    await expect(page.getByRole('switch', { name: 'Build errors', exact: true })).toBeVisible();
    await expect(page.getByText('Failed to load preferences')).toHaveCount(0);

    // The other preferences tabs share the recovered data.
    await page.getByRole('tab', { name: 'Domains', exact: true }).click();
    await expect(page.getByRole('form', { name: 'Domain alerts' })).toBeVisible();
  } finally {
    // Whatever happened above, the worker's later tests need the table under its own name.
    try {
      await db.query(`ALTER TABLE IF EXISTS ${OFFLINE_TABLE} RENAME TO ${TABLE}`);
    } finally {
      await db.end();
    }
  }
});
