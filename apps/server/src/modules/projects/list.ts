import type { ProjectListResponse, ProjectListSort } from '@launchbay/contract';
import { asc, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { toIso } from '../../lib/time';
import { deployments } from '../deployments/schema';
import { projectDeploymentSummaries } from '../deployments/service';
import { environmentUrl, listEnvironmentRowsOf } from '../environments/service';
import { getSettings } from '../settings/service';
import { projects } from './schema';

/**
 * A page of the project list (by name, or the most recently deployed first), each project with
 * what its card shows: the production address, the latest deployment and the one production
 * serves. The number of queries does not grow with the page: the projects and their count, their
 * environments, their deployments (projectDeploymentSummaries) and the settings the addresses are
 * made from.
 */
export async function listProjects(
  ctx: AppContext,
  page: number,
  perPage: number,
  sort: ProjectListSort = 'name',
): Promise<ProjectListResponse> {
  // The newest deployment is the highest id (ids are given as deployments are queued; an index holds
  // them per project). Projects never deployed come last; ties by name, then id, so pages never overlap.
  const order =
    sort === 'last_deployment'
      ? [
          sql`(SELECT max(d.id) FROM ${deployments} d WHERE d.project_id = ${projects.id}) DESC NULLS LAST`,
          asc(projects.name),
          asc(projects.id),
        ]
      : [asc(projects.name), asc(projects.id)];
  const [rows, [count]] = await Promise.all([
    ctx.db
      .select()
      .from(projects)
      .orderBy(...order)
      .limit(perPage)
      .offset((page - 1) * perPage),
    ctx.db.select({ n: sql<number>`count(*)::int` }).from(projects),
  ]);
  // Read once here, so the addresses below are made from the cached copy, not one read each.
  await getSettings(ctx);
  const environments = await listEnvironmentRowsOf(
    ctx,
    rows.map((project) => project.id),
  );
  const summaries = await projectDeploymentSummaries(ctx, rows, environments);
  return {
    projects: await Promise.all(
      rows.map(async (project) => {
        const production = environments.find((env) => env.projectId === project.id && env.isProduction);
        const summary = summaries.get(project.id);
        return {
          id: project.id,
          name: project.name,
          slug: project.slug,
          created_at: toIso(project.createdAt),
          url: production ? await environmentUrl(ctx, project.slug, production) : '',
          last_deployment: summary?.last ?? null,
          current_deployment: summary?.current ?? null,
        };
      }),
    ),
    total: count?.n ?? 0,
    page,
    per_page: perPage,
  };
}
