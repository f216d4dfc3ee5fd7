import { eq, like } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { notFound } from '../../lib/errors';
import { projects } from './schema';

export type ProjectRow = typeof projects.$inferSelect;

/** The project, or the 404 every project sub-resource answers for an unknown id. */
export async function getProjectRow(ctx: AppContext, id: number): Promise<ProjectRow> {
  const [project] = await ctx.db.select().from(projects).where(eq(projects.id, id)).limit(1);
  if (!project) throw notFound(`Project ${id} not found`);
  return project;
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
  const taken = new Set(
    (
      await ctx.db
        .select({ slug: projects.slug })
        .from(projects)
        .where(like(projects.slug, `${base}%`))
    ).map((row) => row.slug),
  );
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
