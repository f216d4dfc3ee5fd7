import { z } from 'zod';
import { defineQueue } from './queue';
import { defineSchedule } from './schedule';

/** Finished jobs (and their logs, by cascade) are kept this long. */
const FINISHED_JOB_RETENTION_DAYS = 30;

export const jobRetentionQueue = defineQueue({
  name: 'jobs.retention',
  payload: z.object({}),
  maxAttempts: 1,
  async handler(_payload, job) {
    const removed = await job.ctx.pool.query(
      `DELETE FROM jobs WHERE status IN ('succeeded', 'failed', 'cancelled')
       AND finished_at < now() - make_interval(days => $1)`,
      [FINISHED_JOB_RETENTION_DAYS],
    );
    await job.log(`Removed ${removed.rowCount ?? 0} finished jobs older than ${FINISHED_JOB_RETENTION_DAYS} days`);
  },
});

export const jobRetentionSchedule = defineSchedule({
  name: 'jobs.retention',
  cron: '17 * * * *',
  queue: jobRetentionQueue,
  payload: {},
});
