import { z } from 'zod';

/*
 * Cron jobs: an HTTP GET the platform sends to an environment's live deployment on a schedule.
 * They come from the console (`source: console`) or from the app's `launchbay.json` `crons`
 * (`source: launchbay.json`, replaced at every deployment that goes live: edit them there).
 */

const CRON_NICKNAMES = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly'];
const CRON_FIELD = /^[\d*,/?LW#A-Za-z-]+$/;

/**
 * A cron pattern: 5 fields (minute hour day month weekday), 6 with seconds first, or a nickname
 * (@hourly, @daily...). Read in UTC. The server checks the pattern fully (croner); this is the shape.
 */
export const cronScheduleSchema = z
  .string()
  .trim()
  .min(1, 'Schedule is required')
  .max(100, 'At most 100 characters')
  .refine((value) => {
    if (CRON_NICKNAMES.includes(value.toLowerCase())) return true;
    const fields = value.split(/\s+/);
    return (fields.length === 5 || fields.length === 6) && fields.every((field) => CRON_FIELD.test(field));
  }, 'Must be a cron expression, e.g. `0 3 * * *` (5 fields, or 6 with seconds first)');

export const cronPathSchema = z
  .string()
  .trim()
  .min(1, 'Path is required')
  .max(2048, 'At most 2048 characters')
  .regex(/^\/[^\s#]*$/, 'Must start with / (e.g. /api/cron/cleanup), without spaces');

export const cronExecutionStatusSchema = z.enum(['running', 'succeeded', 'failed', 'skipped']);
export type CronExecutionStatus = z.infer<typeof cronExecutionStatusSchema>;

export const cronExecutionSchema = z.object({
  id: z.number().int(),
  cron_id: z.number().int(),
  scheduled_for: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  status: cronExecutionStatusSchema,
  status_code: z.number().int().nullable(),
  duration_ms: z.number().int().nullable(),
  /** The first KB of the response body. */
  response_body: z.string().nullable(),
  /** Why it failed or was skipped. */
  error: z.string().nullable(),
  deployment_id: z.number().int().nullable(),
  /** `schedule` or `manual` (Run now). */
  trigger: z.enum(['schedule', 'manual']),
});
export type CronExecution = z.infer<typeof cronExecutionSchema>;

export const cronJobSchema = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  environment_id: z.number().int(),
  path: z.string(),
  schedule: z.string(),
  source: z.enum(['console', 'launchbay.json']),
  enabled: z.boolean(),
  next_run_at: z.string().nullable(),
  last_execution: cronExecutionSchema.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CronJob = z.infer<typeof cronJobSchema>;

export const cronJobListResponseSchema = z.object({ crons: z.array(cronJobSchema) });
export type CronJobListResponse = z.infer<typeof cronJobListResponseSchema>;

export const createCronJobRequestSchema = z.object({
  path: cronPathSchema,
  schedule: cronScheduleSchema,
  enabled: z.boolean().optional(),
});
export type CreateCronJobRequest = z.infer<typeof createCronJobRequestSchema>;

export const updateCronJobRequestSchema = createCronJobRequestSchema
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'Nothing to update');
export type UpdateCronJobRequest = z.infer<typeof updateCronJobRequestSchema>;

export const cronExecutionListResponseSchema = z.object({
  executions: z.array(cronExecutionSchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});
export type CronExecutionListResponse = z.infer<typeof cronExecutionListResponseSchema>;

export const CRON_JOB_CREATED_MESSAGE = 'Cron job created';
export const CRON_JOB_UPDATED_MESSAGE = 'Cron job updated';
export const CRON_JOB_DELETED_MESSAGE = 'Cron job deleted';
export const CRON_JOB_RUN_MESSAGE = 'Cron job started';
