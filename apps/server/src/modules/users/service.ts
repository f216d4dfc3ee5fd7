import type { CreateUserRequest, CurrentUser, RoleType, UpdateMeRequest, UpdateUserRequest, User } from '@launchbay/contract';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { Db } from '../../db/client';
import { badRequest, conflict, notFound } from '../../lib/errors';
import type { Principal } from '../../lib/http';
import { toIso, toIsoOrNull } from '../../lib/time';
import { hashPassword, revokeUserSessions, verifyPassword } from '../auth/service';
import { userRoles, users } from './schema';

type UserRow = typeof users.$inferSelect;

export function toUserDto(row: UserRow, roles: RoleType[]): User {
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    avatar_url: row.avatarUrl,
    roles,
    mfa_enabled: row.mfaSecret !== null,
    disabled: row.disabled,
    created_at: toIso(row.createdAt),
    last_login_at: toIsoOrNull(row.lastLoginAt),
  };
}

/** One answer per principal object: a principal is cached for seconds and never changed, so neither is its answer. */
const currentUsers = new WeakMap<Principal, CurrentUser>();

/**
 * The signed-in user as GET /api/user/me answers it. Frozen, so the response serializer keeps its
 * JSON for as long as the principal lives (http/input.ts): the console asks on every page.
 */
export function toCurrentUser(principal: Principal): CurrentUser {
  let user = currentUsers.get(principal);
  if (!user) {
    user = Object.freeze({
      id: principal.userId,
      username: principal.username,
      email: principal.email,
      avatar_url: principal.avatarUrl,
      roles: Object.freeze([...principal.roles]) as RoleType[],
      mfa_enabled: principal.mfaEnabled,
    });
    currentUsers.set(principal, user);
  }
  return user;
}

export async function rolesOf(db: Db, userId: number): Promise<RoleType[]> {
  const rows = await db
    .select({ role: userRoles.role })
    .from(userRoles)
    .where(eq(userRoles.userId, userId))
    .orderBy(asc(userRoles.role));
  return rows.map((r) => r.role as RoleType);
}

export async function findUserByEmail(db: Db, email: string) {
  const [row] = await db.select().from(users).where(eq(users.email, email.toLowerCase())).limit(1);
  return row;
}

async function requireUser(db: Db, userId: number): Promise<UserRow> {
  const [row] = await db.select().from(users).where(eq(users.id, userId)).limit(1);
  if (!row) throw notFound(`User ${userId} not found`);
  return row;
}

/** The emails of the users with these ids, in one query; a user deleted since is missing from the answer. */
export async function userEmails(db: Db, ids: readonly number[]): Promise<Map<number, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, unique));
  return new Map(rows.map((row) => [row.id, row.email]));
}

export async function getUser(db: Db, userId: number): Promise<User> {
  const row = await requireUser(db, userId);
  return toUserDto(row, await rolesOf(db, userId));
}

export async function listUsers(db: Db): Promise<User[]> {
  const rows = await db.select().from(users).orderBy(asc(users.id));
  const roleRows = await db.select().from(userRoles);
  const byUser = new Map<number, RoleType[]>();
  for (const r of roleRows) byUser.set(r.userId, [...(byUser.get(r.userId) ?? []), r.role as RoleType].sort());
  return rows.map((row) => toUserDto(row, byUser.get(row.id) ?? []));
}

const emailTaken = () =>
  conflict('A user with this email already exists', [{ path: 'email', message: 'A user with this email already exists' }]);

function isUniqueViolation(error: unknown) {
  const cause = (error as { cause?: { code?: string }; code?: string }) ?? {};
  return cause.code === '23505' || cause.cause?.code === '23505';
}

export async function createUser(
  db: Db,
  input: Required<Pick<CreateUserRequest, 'username' | 'email' | 'password'>> & { roles: RoleType[] },
): Promise<User> {
  const passwordHash = await hashPassword(input.password);
  try {
    return await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(users)
        .values({ username: input.username, email: input.email.toLowerCase(), passwordHash })
        .returning();
      if (!row) throw new Error('insert returned nothing');
      const roles = [...new Set(input.roles)].sort();
      await tx.insert(userRoles).values(roles.map((role) => ({ userId: row.id, role })));
      return toUserDto(row, roles);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken();
    throw error;
  }
}

/**
 * Runs a change that could leave the platform without an active admin. The advisory lock
 * serialises such changes so two concurrent demotions cannot both pass the check.
 */
async function guardingLastAdmin<T>(db: Db, change: (tx: Db) => Promise<T>, message: string): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(7226352)`);
    const result = await change(tx as unknown as Db);
    const [count] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(users)
      .innerJoin(userRoles, and(eq(userRoles.userId, users.id), eq(userRoles.role, 'admin')))
      .where(eq(users.disabled, false));
    if ((count?.n ?? 0) < 1) throw badRequest(message);
    return result;
  });
}

export async function updateUser(ctx: AppContext, userId: number, patch: UpdateUserRequest): Promise<User> {
  await requireUser(ctx.db, userId);
  const values: Partial<typeof users.$inferInsert> = { updatedAt: new Date() };
  if (patch.username !== undefined) values.username = patch.username;
  if (patch.email !== undefined) values.email = patch.email.toLowerCase();
  if (patch.disabled !== undefined) values.disabled = patch.disabled;
  if (patch.password !== undefined) values.passwordHash = await hashPassword(patch.password);
  try {
    await guardingLastAdmin(
      ctx.db,
      (tx) => tx.update(users).set(values).where(eq(users.id, userId)),
      'The last active admin cannot be disabled',
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken();
    throw error;
  }
  if (patch.disabled || patch.password !== undefined) await revokeUserSessions(ctx, userId);
  ctx.principals.forgetUser(userId);
  return getUser(ctx.db, userId);
}

export async function deleteUser(ctx: AppContext, actor: Principal, userId: number): Promise<void> {
  await requireUser(ctx.db, userId);
  if (userId === actor.userId) throw badRequest('You cannot delete your own account');
  await guardingLastAdmin(
    ctx.db,
    (tx) => tx.delete(users).where(eq(users.id, userId)),
    'The last active admin cannot be deleted',
  );
  ctx.principals.forgetUser(userId);
}

export async function addRole(ctx: AppContext, userId: number, role: RoleType): Promise<User> {
  await requireUser(ctx.db, userId);
  await ctx.db.insert(userRoles).values({ userId, role }).onConflictDoNothing();
  ctx.principals.forgetUser(userId);
  return getUser(ctx.db, userId);
}

export async function removeRole(ctx: AppContext, userId: number, role: RoleType): Promise<User> {
  await requireUser(ctx.db, userId);
  const current = await rolesOf(ctx.db, userId);
  if (!current.includes(role)) throw notFound(`User ${userId} does not have the ${role} role`);
  if (current.length === 1) throw badRequest('A user needs at least one role: add another role first');
  await guardingLastAdmin(
    ctx.db,
    (tx) => tx.delete(userRoles).where(and(eq(userRoles.userId, userId), eq(userRoles.role, role))),
    'The last active admin cannot lose the admin role',
  );
  ctx.principals.forgetUser(userId);
  return getUser(ctx.db, userId);
}

export async function updateMe(ctx: AppContext, principal: Principal, patch: UpdateMeRequest): Promise<CurrentUser> {
  const row = await requireUser(ctx.db, principal.userId);
  // Checked before anything else, the email's availability included: without the password, a
  // taken email and a free one answer alike, so this cannot probe which accounts exist.
  if (patch.email !== undefined || patch.new_password !== undefined) {
    if (!(await verifyPassword(row.passwordHash, patch.current_password ?? ''))) {
      throw badRequest('Current password is incorrect', [{ path: 'current_password', message: 'Current password is incorrect' }]);
    }
  }
  const values: Partial<typeof users.$inferInsert> = { updatedAt: new Date() };
  if (patch.username !== undefined) values.username = patch.username;
  if (patch.email !== undefined) values.email = patch.email.toLowerCase();
  if (patch.avatar_url !== undefined) values.avatarUrl = patch.avatar_url;
  if (patch.new_password !== undefined) values.passwordHash = await hashPassword(patch.new_password);
  try {
    await ctx.db.update(users).set(values).where(eq(users.id, principal.userId));
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken();
    throw error;
  }
  // A new password ends every other session: whoever knew the old one is signed out.
  if (patch.new_password !== undefined) await revokeUserSessions(ctx, principal.userId, principal.sessionId);
  ctx.principals.forgetUser(principal.userId);
  const updated = await requireUser(ctx.db, principal.userId);
  return {
    id: updated.id,
    username: updated.username,
    email: updated.email,
    avatar_url: updated.avatarUrl,
    roles: await rolesOf(ctx.db, updated.id),
    mfa_enabled: updated.mfaSecret !== null,
  };
}
