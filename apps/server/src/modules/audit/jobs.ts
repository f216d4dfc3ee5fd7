import { definePeriodicTask } from '../../jobs';
import { getSettings } from '../settings/service';

/** Retention, hourly: audit entries older than the configured number of days are removed. */
export const auditRetention = definePeriodicTask({
  name: 'audit.retention',
  cron: '11 * * * *',
  async run(job) {
    const days = (await getSettings(job.ctx)).audit_retention_days;
    const removed = await job.ctx.pool.query('DELETE FROM audit_logs WHERE created_at < now() - make_interval(days => $1)', [
      days,
    ]);
    return `Removed ${removed.rowCount ?? 0} audit entries older than ${days} days`;
  },
});
