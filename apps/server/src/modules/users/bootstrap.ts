import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { users } from './schema';
import { createUser } from './service';

export const DEFAULT_ADMIN_EMAIL = 'admin@launchbay.local';

/**
 * First start with no users: create the first admin from ADMIN_EMAIL/ADMIN_PASSWORD, or with a
 * generated password that is printed once. Later starts find a user and change nothing.
 */
export async function ensureFirstAdmin(
  db: Db,
  options: { email: string | undefined; password: string | undefined },
): Promise<{ email: string; password: string | null } | null> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(7226353)`);
    const [count] = await tx.select({ n: sql<number>`count(*)::int` }).from(users);
    if ((count?.n ?? 0) > 0) return null;
    const email = options.email ?? DEFAULT_ADMIN_EMAIL;
    const password = options.password ?? randomBytes(18).toString('base64url');
    await createUser(tx as unknown as Db, { username: 'Admin', email, password, roles: ['admin'] });
    return { email, password: options.password ? null : password };
  });
}
