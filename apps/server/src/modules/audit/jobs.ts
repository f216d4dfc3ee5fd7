import { z } from 'zod';
import { defineQueue, defineSchedule } from '../../jobs';
import { getSettings } from '../settings/service';

/** Retention, hourly: audit entries older than the configured number of days are removed. */
export const auditRetentionQueue = defineQueue({
  name: 'audit.retention',
  payload: z.object({}),
  maxAttempts: 1,
  async handler(_payload, job) {
    const days = (await getSettings(job.ctx)).audit_retention_days;
    const removed = await job.ctx.pool.query('DELETE FROM audit_logs WHERE created_at < now() - make_interval(days => $1)', [
      days,
    ]);
    await job.log(`Removed ${removed.rowCount ?? 0} audit entries older than ${days} days`);
  },
});

export const auditRetentionSchedule = defineSchedule({
  name: 'audit.retention',
  cron: '11 * * * *',
  queue: auditRetentionQueue,
  payload: {},
});
