import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { isPreset } from '../../engine/pipeline/config/presets';
import { badRequest, notFound } from '../../lib/errors';
import { projects } from './schema';

export type ProjectRow = typeof projects.$inferSelect;

/** The project, or the 404 every project sub-resource answers for an unknown id. */
export async function getProjectRow(ctx: AppContext, id: number): Promise<ProjectRow> {
  const [project] = await ctx.db.select().from(projects).where(eq(projects.id, id)).limit(1);
  if (!project) throw notFound(`Project ${id} not found`);
  return project;
}

/** An unknown preset is refused where it is set, not at the next deployment. */
export async function assertKnownPreset(preset: string | null | undefined): Promise<void> {
  if (preset && !(await isPreset(preset))) {
    throw badRequest(`Unknown preset "${preset}": GET /api/presets lists them`, [
      { path: 'preset', message: `Unknown preset "${preset}"` },
    ]);
  }
}

/**
 * The host labels already answering: every project's slug (production) and `{project}-{environment}`
 * for the other environments. A new project or environment must take none of them, or it would
 * receive another project's traffic.
 */
export async function takenHostLabels(ctx: AppContext, prefix: string): Promise<Set<string>> {
  const { rows } = await ctx.pool.query<{ label: string }>(
    `SELECT slug AS label FROM projects WHERE slug LIKE $1
     UNION SELECT p.slug || '-' || e.slug FROM environments e JOIN projects p ON p.id = e.project_id
       WHERE NOT e.is_production AND p.slug || '-' || e.slug LIKE $1`,
    [`${prefix.replace(/[\\%_]/g, '\\$&')}%`],
  );
  return new Set(rows.map((row) => row.label));
}

/** A slug from a name: lowercase letters, digits and dashes, as DNS labels allow; made unique with a suffix. */
export async function uniqueSlug(ctx: AppContext, name: string): Promise<string> {
  const base =
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 32)
      .replace(/-+$/, '') || 'project';
  const taken = await takenHostLabels(ctx, base);
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

export async function getProjectBySlug(ctx: AppContext, slug: string): Promise<ProjectRow> {
  const [project] = await ctx.db.select().from(projects).where(eq(projects.slug, slug)).limit(1);
  if (!project) throw notFound(`No project with the slug ${slug}`);
  return project;
}

/** The production environment's branch is the project's branch: kept the same on both. */
export async function setProjectBranch(ctx: AppContext, projectId: number, branch: string): Promise<void> {
  await ctx.db.update(projects).set({ branch, updatedAt: new Date() }).where(eq(projects.id, projectId));
}
