import { idParamSchema, paginationQuerySchema, projectListResponseSchema } from '@launchbay/contract';
import { asc, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { notFound } from '../../lib/errors';
import type { App } from '../../lib/http';
import { toIso } from '../../lib/time';
import { projects } from './schema';

export async function projectRoutes(app: App, ctx: AppContext) {
  app.get(
    '/projects',
    {
      schema: {
        tags: ['projects'],
        summary: 'List projects',
        querystring: paginationQuerySchema,
        response: { 200: projectListResponseSchema },
      },
    },
    async (request) => {
      const { page, per_page } = request.query;
      const [rows, [count]] = await Promise.all([
        ctx.db
          .select()
          .from(projects)
          .orderBy(asc(projects.name), asc(projects.id))
          .limit(per_page)
          .offset((page - 1) * per_page),
        ctx.db.select({ n: sql<number>`count(*)::int` }).from(projects),
      ]);
      return {
        projects: rows.map((p) => ({ id: p.id, name: p.name, slug: p.slug, created_at: toIso(p.createdAt) })),
        total: count?.n ?? 0,
        page,
        per_page,
      };
    },
  );

  app.get(
    '/projects/:id/favicon',
    { schema: { tags: ['projects'], summary: "The project's favicon (404 when it has none)", params: idParamSchema } },
    async (request, reply) => {
      const [project] = await ctx.db.select().from(projects).where(eq(projects.id, request.params.id)).limit(1);
      if (!project) throw notFound(`Project ${request.params.id} not found`);
      if (!project.faviconUrl) throw notFound('This project has no favicon yet');
      return reply.redirect(project.faviconUrl);
    },
  );
}
