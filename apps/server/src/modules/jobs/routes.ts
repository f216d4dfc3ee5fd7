import { idParamSchema } from '@launchbay/contract';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { notFound } from '../../lib/errors';
import type { App } from '../../lib/http';
import { streamPolled } from '../../lib/sse';

/*
 * A job's state and its log. The log streams as Server-Sent Events: one `log` event per line, its
 * id the line's id, so a client that reconnects with Last-Event-ID gets only what it missed; an
 * `end` event once the job finished and every line was sent.
 */

const JOB_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'cancelled'] as const;
const FINISHED = new Set<string>(['succeeded', 'failed', 'cancelled']);

export const jobSchema = z.object({
  id: z.number().int(),
  queue: z.string(),
  status: z.enum(JOB_STATUSES),
  attempts: z.number().int(),
  max_attempts: z.number().int(),
  run_at: z.string(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  last_error: z.string().nullable(),
  cancel_requested: z.boolean(),
});

const logHeadersSchema = z.object({
  'last-event-id': z
    .string()
    .regex(/^\d{1,18}$/, 'Last-Event-ID must be the id of a log line')
    .optional(),
});

const POLL_MS = 300;
const PAGE = 500;

type JobRow = {
  id: number;
  queue: string;
  status: (typeof JOB_STATUSES)[number];
  attempts: number;
  max_attempts: number;
  run_at: Date;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  last_error: string | null;
  cancel_requested: boolean;
};

const iso = (value: Date | null) => (value === null ? null : new Date(value).toISOString());

async function findJob(ctx: AppContext, id: number): Promise<JobRow | undefined> {
  const { rows } = await ctx.pool.query<JobRow>(
    `SELECT id, queue, status, attempts, max_attempts, run_at, created_at, started_at, finished_at, last_error,
            cancel_requested_at IS NOT NULL AS cancel_requested
     FROM jobs WHERE id = $1`,
    [id],
  );
  return rows[0];
}

const toDto = (row: JobRow): z.infer<typeof jobSchema> => ({
  id: Number(row.id),
  queue: row.queue,
  status: row.status,
  attempts: row.attempts,
  max_attempts: row.max_attempts,
  run_at: new Date(row.run_at).toISOString(),
  created_at: new Date(row.created_at).toISOString(),
  started_at: iso(row.started_at),
  finished_at: iso(row.finished_at),
  last_error: row.last_error,
  cancel_requested: row.cancel_requested,
});

export async function jobRoutes(app: App, ctx: AppContext) {
  // Open streams end when the platform stops: the server's close would otherwise wait for them.
  const openStreams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of openStreams) end();
  });

  app.get(
    '/jobs/:id',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['jobs'],
        summary: 'A job: its queue, status and attempts',
        params: idParamSchema,
        response: { 200: jobSchema },
      },
    },
    async (request) => {
      const job = await findJob(ctx, request.params.id);
      if (!job) throw notFound(`Job ${request.params.id} not found`);
      return toDto(job);
    },
  );

  app.get(
    '/jobs/:id/logs',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['jobs'],
        summary: "A job's log as Server-Sent Events (resumes after Last-Event-ID)",
        description:
          'text/event-stream: `log` events (id = line id, data = { id, at, level, message }), then one `end` event (data = { status }) once the job finished.',
        params: idParamSchema,
        headers: logHeadersSchema,
      },
    },
    async (request, reply) => {
      const jobId = request.params.id;
      if (!(await findJob(ctx, jobId))) throw notFound(`Job ${jobId} not found`);
      await streamPolled(request, reply, {
        lastEventId: Number(request.headers['last-event-id'] ?? 0),
        pollMs: POLL_MS,
        shutdown: openStreams,
        async next(lastId) {
          // The job's state is read before its lines: a job seen finished has written its last line.
          const job = await findJob(ctx, jobId);
          const { rows } = await ctx.pool.query<{ id: number; level: string; message: string; created_at: Date }>(
            'SELECT id, level, message, created_at FROM job_logs WHERE job_id = $1 AND id > $2 ORDER BY id LIMIT $3',
            [jobId, lastId, PAGE],
          );
          const events = rows.map((line) => ({
            id: Number(line.id),
            event: 'log',
            data: { id: Number(line.id), at: new Date(line.created_at).toISOString(), level: line.level, message: line.message },
          }));
          if (rows.length === PAGE) return { events, more: true };
          const finished = !job || FINISHED.has(job.status);
          return { events, ...(finished ? { end: { event: 'end', data: { status: job?.status ?? 'deleted' } } } : {}) };
        },
      });
    },
  );
}
