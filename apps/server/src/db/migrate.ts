import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

type JournalEntry = { idx: number; tag: string };

/** Where drizzle-kit writes migrations (src/db/migrations) and where the build copies them (dist/migrations). */
export function defaultMigrationsDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'migrations'), path.join(here, 'db', 'migrations')];
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'meta', '_journal.json')));
  if (!found) throw new Error(`Migrations folder not found next to ${here}`);
  return found;
}

export class MigrationError extends Error {}

/**
 * Applies drizzle-kit's SQL migrations in order, each in its own transaction: a failing one
 * rolls back whole and stops the start, so an upgrade never half-applies. An advisory lock
 * keeps several nodes sharing one database from migrating at once.
 */
export async function runMigrations(pool: pg.Pool, migrationsDir = defaultMigrationsDir()): Promise<string[]> {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsDir, 'meta', '_journal.json'), 'utf8')) as {
    entries: JournalEntry[];
  };
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock(7226351)');
    await client.query(`CREATE TABLE IF NOT EXISTS launchbay_migrations (
      tag text PRIMARY KEY,
      hash text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set((await client.query<{ tag: string }>('SELECT tag FROM launchbay_migrations')).rows.map((r) => r.tag));
    for (const entry of [...journal.entries].sort((a, b) => a.idx - b.idx)) {
      if (done.has(entry.tag)) continue;
      const sql = fs.readFileSync(path.join(migrationsDir, `${entry.tag}.sql`), 'utf8');
      const statements = sql
        .split('--> statement-breakpoint')
        .map((s) => s.trim())
        .filter(Boolean);
      try {
        await client.query('BEGIN');
        for (const statement of statements) await client.query(statement);
        await client.query('INSERT INTO launchbay_migrations (tag, hash) VALUES ($1, $2)', [
          entry.tag,
          createHash('sha256').update(sql).digest('hex'),
        ]);
        await client.query('COMMIT');
        applied.push(entry.tag);
      } catch (error) {
        await client.query('ROLLBACK');
        throw new MigrationError(
          `Database migration ${entry.tag} failed: ${(error as Error).message}. ` +
            'It was rolled back: the database is exactly as it was before this start. Launchbay did not start.',
        );
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(7226351)').catch(() => undefined);
    client.release();
  }
  return applied;
}
