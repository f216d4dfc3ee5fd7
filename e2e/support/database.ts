import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Platform } from '../fixtures';

/**
 * How to reach the platform's embedded database (apps/server/src/db/embedded.ts), as in
 * tests/monitoring-failure.spec.ts: fixtures.ts runs the server with DATA_DIR=<platform.dataDir>/data; the
 * password is in DATA_DIR/postgres.password. Where it listens comes from PostgreSQL's own postmaster.pid
 * (line 4 the port, line 5 the socket folder, line 6 the TCP address), so this also works when the server
 * fell back to a loopback port for a long path.
 */
export function databaseConfig(platform: Platform): pg.ClientConfig {
  const dataDir = path.join(platform.dataDir, 'data');
  const password = fs.readFileSync(path.join(dataDir, 'postgres.password'), 'utf8').trim();
  const [, , , port = '', socketDir = '', address = ''] = fs
    .readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')
    .split('\n')
    .map((line) => line.trim());
  const host = socketDir || (address && address !== '*' ? address : '127.0.0.1');
  return { host, port: Number(port), user: 'postgres', password, database: 'launchbay' };
}

/** A connected client for the platform's database; call end() when done. */
export async function connectDatabase(platform: Platform): Promise<pg.Client> {
  const db = new pg.Client(databaseConfig(platform));
  await db.connect();
  // Never wait forever behind a lock the server holds: fail the test instead.
  await db.query(`SET lock_timeout = '5s'`);
  return db;
}

export interface InsertedProject {
  id: number;
  name: string;
  slug: string;
}

/**
 * Inserts projects straight into the projects table (the product has no create-project flow yet), with
 * no favicon (favicon_url NULL).
 */
export async function insertProjects(db: pg.Client, projects: { name: string; slug: string }[]): Promise<InsertedProject[]> {
  const inserted: InsertedProject[] = [];
  for (const project of projects) {
    const result = await db.query<InsertedProject>(
      'INSERT INTO projects (name, slug, favicon_url) VALUES ($1, $2, NULL) RETURNING id, name, slug',
      [project.name, project.slug],
    );
    const row = result.rows[0];
    if (!row) throw new Error(`INSERT of project ${project.slug} returned no row`);
    inserted.push(row);
  }
  return inserted;
}

export async function deleteProjects(db: pg.Client, slugs: string[]): Promise<void> {
  if (slugs.length === 0) return;
  await db.query('DELETE FROM projects WHERE slug = ANY($1::text[])', [slugs]);
}
