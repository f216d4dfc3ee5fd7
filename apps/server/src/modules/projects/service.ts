import { eq } from 'drizzle-orm';
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
