import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROUTE_CHANGE_CHANNEL } from '@launchbay/edge-protocol';
import { type ExternalPostgres, startExternalPostgres } from '@launchbay/testkit';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgRouteSource } from '../src/route-source';
import { RouteTableHolder } from '../src/route-table';

/**
 * The edge's route table against a real PostgreSQL: it follows every published change, and a
 * change it could not read at once is read again rather than left stale until the next one.
 */
let server: ExternalPostgres;
let admin: postgres.Sql<Record<string, unknown>>;
let folder: string;

beforeAll(async () => {
  server = await startExternalPostgres();
  admin = postgres(server.url('postgres'), { max: 1, onnotice: () => undefined });
  // The control plane's relation (its migrations are not the edge's to run), read by a role of its own
  // so the test can take its right to read away.
  await admin.unsafe(`CREATE TABLE edge_route_table (id integer PRIMARY KEY DEFAULT 1, version bigint NOT NULL DEFAULT 0,
    routes jsonb NOT NULL DEFAULT '[]'::jsonb)`);
  await admin.unsafe('INSERT INTO edge_route_table (id, version) VALUES (1, 0)');
  await admin.unsafe('CREATE ROLE edge_reader LOGIN');
  await admin.unsafe('GRANT SELECT ON edge_route_table TO edge_reader');
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-route-source-'));
}, 60_000);

afterAll(async () => {
  await admin?.end({ timeout: 1 });
  server?.stop();
  fs.rmSync(folder, { recursive: true, force: true });
});

/** What the control plane's publishRouteTable does: a new version and its NOTIFY, in one transaction. */
async function publish(): Promise<number> {
  return admin.begin(async (sql) => {
    const [row] = await sql.unsafe<{ version: string }[]>(
      'UPDATE edge_route_table SET version = version + 1 WHERE id = 1 RETURNING version',
    );
    const version = Number(row?.version);
    await sql.unsafe('SELECT pg_notify($1, $2)', [ROUTE_CHANGE_CHANNEL, JSON.stringify({ kind: 'reload', version })]);
    return version;
  });
}

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the route source', () => {
  it('follows each change, and reads again a table it could not read at a change instead of keeping the old one', async () => {
    const databaseFile = path.join(folder, 'database.json');
    const url = new URL(server.url('postgres'));
    url.username = 'edge_reader';
    fs.writeFileSync(databaseFile, JSON.stringify({ connectionString: url.toString() }));
    const routes = new RouteTableHolder();
    const lines: string[] = [];
    const source = new PgRouteSource(databaseFile, routes, (line) => lines.push(line));
    source.start();
    try {
      await until('the first load', () => source.connected);
      for (let i = 0; i < 20; i++) {
        const version = await publish();
        await until(`version ${version}`, () => routes.table.version === version);
      }

      // The notification arrives, but the table cannot be read: the edge says why and keeps trying.
      await admin.unsafe('REVOKE SELECT ON edge_route_table FROM edge_reader');
      const unread = await publish();
      await until('the failure to be told', () => lines.some((line) => line.includes('permission denied')));
      expect(routes.table.version).toBe(unread - 1);
      await admin.unsafe('GRANT SELECT ON edge_route_table TO edge_reader');
      await until(`version ${unread} once readable again`, () => routes.table.version === unread);
      await until('the connection back', () => source.connected);
      const next = await publish();
      await until(`version ${next}`, () => routes.table.version === next);
    } finally {
      await source.stop();
    }
  });
});
