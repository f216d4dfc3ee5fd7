import { definePeriodicTask } from '../../jobs';
import { ACCOUNT_POLICY } from './throttle';

/**
 * Housekeeping, hourly: expired sessions are useless, so the table stays small; so are sign-in
 * counts older than the longest window (every email ever tried leaves one).
 */
export const authSweep = definePeriodicTask({
  name: 'auth.sweep',
  cron: '5 * * * *',
  async run(job) {
    const sessions = await job.ctx.pool.query(`DELETE FROM sessions WHERE expires_at < now() - interval '1 day'`);
    const throttles = await job.ctx.pool.query(
      `DELETE FROM login_throttle WHERE window_started_at < now() - make_interval(secs => $1)
       AND (locked_until IS NULL OR locked_until < now())`,
      [ACCOUNT_POLICY.windowMs / 1000],
    );
    return `Removed ${sessions.rowCount ?? 0} expired sessions and ${throttles.rowCount ?? 0} old sign-in counts`;
  },
});
