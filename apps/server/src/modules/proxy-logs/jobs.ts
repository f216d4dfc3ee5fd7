import { definePeriodicTask } from '../../jobs';
import { getSettings } from '../settings/service';

/** Rows removed per statement: a big backlog goes in steps, never one lock-holding delete of millions. */
const PRUNE_BATCH = 10_000;

/** Retention, hourly: proxy-log rows older than the configured log retention are removed. */
export const proxyLogRetention = definePeriodicTask({
  name: 'proxy_logs.retention',
  cron: '37 * * * *',
  async run(job) {
    const days = (await getSettings(job.ctx)).log_retention_days;
    let removed = 0;
    for (;;) {
      const result = await job.ctx.pool.query(
        `DELETE FROM proxy_logs WHERE id IN (
           SELECT id FROM proxy_logs WHERE created_at < now() - make_interval(days => $1) LIMIT $2)`,
        [days, PRUNE_BATCH],
      );
      removed += result.rowCount ?? 0;
      if ((result.rowCount ?? 0) < PRUNE_BATCH) break;
    }
    await job.ctx.pool.query('DELETE FROM proxy_log_drops WHERE last_at < now() - make_interval(days => $1)', [days]);
    return `Removed ${removed} proxy-log rows older than ${days} days`;
  },
});
