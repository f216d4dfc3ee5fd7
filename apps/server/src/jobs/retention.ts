import { definePeriodicTask } from './schedule';

/** Finished jobs (and their logs, by cascade) are kept this long. */
const FINISHED_JOB_RETENTION_DAYS = 30;

export const jobRetention = definePeriodicTask({
  name: 'jobs.retention',
  cron: '17 * * * *',
  async run(job) {
    const removed = await job.ctx.pool.query(
      `DELETE FROM jobs WHERE status IN ('succeeded', 'failed', 'cancelled')
       AND finished_at < now() - make_interval(days => $1)`,
      [FINISHED_JOB_RETENTION_DAYS],
    );
    return `Removed ${removed.rowCount ?? 0} finished jobs older than ${FINISHED_JOB_RETENTION_DAYS} days`;
  },
});
