import type { createEnvVarRequestSchema, envVarSchema, updateEnvVarRequestSchema } from '@launchbay/contract';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { z } from 'zod';
import type { AppContext } from '../../context';
import { badRequest, conflict, notFound } from '../../lib/errors';
import { toIso } from '../../lib/time';
import { listEnvironmentRows } from '../environments/service';
import { envVarEnvironments, envVars } from './schema';

type EnvVar = z.infer<typeof envVarSchema>;
type CreateEnvVar = z.infer<typeof createEnvVarRequestSchema>;
type UpdateEnvVar = z.infer<typeof updateEnvVarRequestSchema>;

/** Lists never carry values: this stands for one (GET env-vars/{key}/value reads it). */
export const MASKED_VALUE = '••••••••';

async function scopes(ctx: AppContext, ids: number[]): Promise<Map<number, number[]>> {
  const map = new Map<number, number[]>();
  if (ids.length === 0) return map;
  const rows = await ctx.db.select().from(envVarEnvironments).where(inArray(envVarEnvironments.envVarId, ids));
  for (const row of rows) map.set(row.envVarId, [...(map.get(row.envVarId) ?? []), row.environmentId]);
  for (const list of map.values()) list.sort((a, b) => a - b);
  return map;
}

export async function listEnvVars(ctx: AppContext, projectId: number): Promise<EnvVar[]> {
  const rows = await ctx.db
    .select()
    .from(envVars)
    .where(eq(envVars.projectId, projectId))
    .orderBy(asc(envVars.key), asc(envVars.id));
  const scoped = await scopes(
    ctx,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    id: row.id,
    key: row.key,
    value: MASKED_VALUE,
    environment_ids: scoped.get(row.id) ?? [],
    include_in_previews: row.includeInPreviews,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  }));
}

/** The environments a variable is for: those named (each must belong to the project), or all of them. */
async function resolveScope(ctx: AppContext, projectId: number, requested: number[] | undefined): Promise<number[]> {
  const rows = await listEnvironmentRows(ctx, projectId);
  const all = rows.map((env) => env.id);
  // "Every environment" means the lasting ones: a preview gets only what is marked for previews (or set on it).
  if (requested === undefined) return rows.filter((env) => env.prNumber === null).map((env) => env.id);
  const unknown = requested.filter((id) => !all.includes(id));
  if (unknown.length > 0) {
    throw badRequest(`Environment ${unknown.join(', ')} is not an environment of this project`, [
      { path: 'environment_ids', message: `Unknown environment: ${unknown.join(', ')}` },
    ]);
  }
  if (requested.length === 0) {
    throw badRequest('Choose at least one environment', [
      { path: 'environment_ids', message: 'Choose at least one environment' },
    ]);
  }
  return [...new Set(requested)].sort((a, b) => a - b);
}

/** One key has one value per environment: a second variable with the key must cover other environments. */
async function assertNoOverlap(ctx: AppContext, projectId: number, key: string, environmentIds: number[], exceptId?: number) {
  const sameKey = await ctx.db
    .select({ id: envVars.id })
    .from(envVars)
    .where(and(eq(envVars.projectId, projectId), eq(envVars.key, key)));
  const others = sameKey.map((row) => row.id).filter((id) => id !== exceptId);
  if (others.length === 0) return;
  const taken = (await scopes(ctx, others)).values();
  const overlap = [...taken].flat().filter((id) => environmentIds.includes(id));
  if (overlap.length > 0) {
    throw conflict(`${key} is already set for environment ${[...new Set(overlap)].join(', ')}: edit that variable instead`, [
      { path: 'key', message: `${key} already exists in this environment` },
    ]);
  }
}

async function getRow(ctx: AppContext, projectId: number, id: number) {
  const [row] = await ctx.db
    .select()
    .from(envVars)
    .where(and(eq(envVars.projectId, projectId), eq(envVars.id, id)))
    .limit(1);
  if (!row) throw notFound(`Environment variable ${id} not found in this project`);
  return row;
}

async function present(ctx: AppContext, row: typeof envVars.$inferSelect): Promise<EnvVar> {
  return {
    id: row.id,
    key: row.key,
    value: MASKED_VALUE,
    environment_ids: (await scopes(ctx, [row.id])).get(row.id) ?? [],
    include_in_previews: row.includeInPreviews,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

export async function createEnvVar(ctx: AppContext, projectId: number, input: CreateEnvVar): Promise<EnvVar> {
  const environmentIds = await resolveScope(ctx, projectId, input.environment_ids);
  await assertNoOverlap(ctx, projectId, input.key, environmentIds);
  const [row] = await ctx.db
    .insert(envVars)
    .values({
      projectId,
      key: input.key,
      valueSealed: ctx.box.seal(input.value),
      includeInPreviews: input.include_in_previews ?? false,
    })
    .returning();
  if (!row) throw new Error('the variable was not created');
  await ctx.db.insert(envVarEnvironments).values(environmentIds.map((environmentId) => ({ envVarId: row.id, environmentId })));
  return present(ctx, row);
}

export async function updateEnvVar(ctx: AppContext, projectId: number, id: number, input: UpdateEnvVar): Promise<EnvVar> {
  const row = await getRow(ctx, projectId, id);
  const key = input.key ?? row.key;
  const environmentIds =
    input.environment_ids !== undefined
      ? await resolveScope(ctx, projectId, input.environment_ids)
      : ((await scopes(ctx, [id])).get(id) ?? []);
  await assertNoOverlap(ctx, projectId, key, environmentIds, id);
  const [updated] = await ctx.db
    .update(envVars)
    .set({
      key,
      ...(input.value !== undefined ? { valueSealed: ctx.box.seal(input.value) } : {}),
      ...(input.include_in_previews !== undefined ? { includeInPreviews: input.include_in_previews } : {}),
      updatedAt: new Date(),
    })
    .where(eq(envVars.id, id))
    .returning();
  if (input.environment_ids !== undefined) {
    await ctx.db.delete(envVarEnvironments).where(eq(envVarEnvironments.envVarId, id));
    await ctx.db.insert(envVarEnvironments).values(environmentIds.map((environmentId) => ({ envVarId: id, environmentId })));
  }
  return present(ctx, updated ?? row);
}

export async function deleteEnvVar(ctx: AppContext, projectId: number, id: number): Promise<void> {
  await getRow(ctx, projectId, id);
  await ctx.db.delete(envVars).where(eq(envVars.id, id));
}

/** One value in clear, for the console's "reveal" (GET env-vars/{key}/value); per environment when the key has several. */
export async function readEnvVarValue(
  ctx: AppContext,
  projectId: number,
  key: string,
  environmentId: number | undefined,
): Promise<{ key: string; value: string; environment_ids: number[] }> {
  const rows = await ctx.db
    .select()
    .from(envVars)
    .where(and(eq(envVars.projectId, projectId), eq(envVars.key, key)))
    .orderBy(asc(envVars.id));
  const scoped = await scopes(
    ctx,
    rows.map((row) => row.id),
  );
  const row = environmentId === undefined ? rows[0] : rows.find((r) => scoped.get(r.id)?.includes(environmentId));
  if (!row) throw notFound(`No environment variable ${key}${environmentId ? ` in environment ${environmentId}` : ''}`);
  return { key: row.key, value: ctx.box.open(row.valueSealed), environment_ids: scoped.get(row.id) ?? [] };
}

/** The variables an environment's build and processes get, in clear (for the pipeline only). */
export async function environmentValues(
  ctx: AppContext,
  projectId: number,
  environmentId: number,
): Promise<Record<string, string>> {
  const rows = await ctx.db
    .select({ key: envVars.key, valueSealed: envVars.valueSealed })
    .from(envVars)
    .innerJoin(envVarEnvironments, eq(envVarEnvironments.envVarId, envVars.id))
    .where(and(eq(envVars.projectId, projectId), eq(envVarEnvironments.environmentId, environmentId)));
  return Object.fromEntries(rows.map((row) => [row.key, ctx.box.open(row.valueSealed)]));
}

/**
 * What a pull-request preview runs with: only the variables marked for previews (production
 * secrets stay out unless someone marks them), the one set for production winning where a key
 * has several values, and whatever was set on the preview environment itself over those.
 */
export async function previewValues(
  ctx: AppContext,
  projectId: number,
  previewEnvironmentId: number,
  productionEnvironmentId: number | null,
): Promise<Record<string, string>> {
  const marked = await ctx.db
    .select({
      key: envVars.key,
      valueSealed: envVars.valueSealed,
      environmentId: envVarEnvironments.environmentId,
      id: envVars.id,
    })
    .from(envVars)
    .leftJoin(envVarEnvironments, eq(envVarEnvironments.envVarId, envVars.id))
    .where(and(eq(envVars.projectId, projectId), eq(envVars.includeInPreviews, true)));
  const values: Record<string, string> = {};
  const fromProduction = new Set<string>();
  for (const row of marked.sort((a, b) => a.id - b.id)) {
    const isProduction = row.environmentId !== null && row.environmentId === productionEnvironmentId;
    if (fromProduction.has(row.key) && !isProduction) continue;
    values[row.key] = ctx.box.open(row.valueSealed);
    if (isProduction) fromProduction.add(row.key);
  }
  return { ...values, ...(await environmentValues(ctx, projectId, previewEnvironmentId)) };
}
