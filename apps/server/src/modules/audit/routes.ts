import { auditLogListResponseSchema, auditLogQuerySchema, auditLogSchema, idParamSchema } from '@launchbay/contract';
import { and, desc, eq, gte, ilike, like, lt, or, type SQL, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { notFound } from '../../lib/errors';
import type { App } from '../../lib/http';
import { auditLogs } from './schema';

type Row = typeof auditLogs.$inferSelect;

const toDto = (row: Row) => ({
  id: row.id,
  created_at: new Date(row.createdAt).toISOString(),
  actor_type: row.actorType as 'user' | 'api_key' | 'anonymous' | 'system',
  actor_user_id: row.actorUserId,
  actor_api_key_id: row.actorApiKeyId,
  actor_label: row.actorLabel,
  action: row.action,
  target_type: row.targetType,
  target_id: row.targetId,
  summary: row.summary,
  status_code: row.statusCode,
  method: row.method,
  path: row.path,
  ip: row.ip,
  user_agent: row.userAgent,
});

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

export async function auditRoutes(app: App, ctx: AppContext) {
  app.get(
    '/audit/logs',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['audit'],
        summary: 'The audit log, newest first, with filters',
        querystring: auditLogQuerySchema,
        response: { 200: auditLogListResponseSchema },
      },
    },
    async (request) => {
      const q = request.query;
      const filters: (SQL | undefined)[] = [];
      if (q.actor) {
        const asId = /^\d+$/.test(q.actor) ? Number(q.actor) : undefined;
        filters.push(
          or(
            ilike(auditLogs.actorLabel, `%${escapeLike(q.actor)}%`),
            asId !== undefined ? eq(auditLogs.actorUserId, asId) : undefined,
          ),
        );
      }
      if (q.action)
        filters.push(
          q.action.endsWith('.') ? like(auditLogs.action, `${escapeLike(q.action)}%`) : eq(auditLogs.action, q.action),
        );
      if (q.target_type) filters.push(eq(auditLogs.targetType, q.target_type));
      if (q.target_id) filters.push(eq(auditLogs.targetId, q.target_id));
      if (q.from) filters.push(gte(auditLogs.createdAt, new Date(q.from)));
      // Entries are shown to the millisecond but stored to the microsecond: 'to' takes in its whole millisecond,
      // so an entry's own created_at used as 'to' still includes it.
      if (q.to) filters.push(lt(auditLogs.createdAt, new Date(new Date(q.to).getTime() + 1)));
      const where = and(...filters);
      const [rows, [count]] = await Promise.all([
        ctx.db
          .select()
          .from(auditLogs)
          .where(where)
          .orderBy(desc(auditLogs.createdAt), desc(auditLogs.id))
          .limit(q.per_page)
          .offset((q.page - 1) * q.per_page),
        ctx.db.select({ n: sql<number>`count(*)::int` }).from(auditLogs).where(where),
      ]);
      return { logs: rows.map(toDto), total: count?.n ?? 0, page: q.page, per_page: q.per_page };
    },
  );

  app.get(
    '/audit/logs/:id',
    {
      config: { access: 'admin' },
      schema: { tags: ['audit'], summary: 'One audit entry', params: idParamSchema, response: { 200: auditLogSchema } },
    },
    async (request) => {
      const [row] = await ctx.db.select().from(auditLogs).where(eq(auditLogs.id, request.params.id)).limit(1);
      if (!row) throw notFound(`Audit entry ${request.params.id} not found`);
      return toDto(row);
    },
  );
}
