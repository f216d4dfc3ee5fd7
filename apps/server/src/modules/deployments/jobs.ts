import { z } from 'zod';
import { definePeriodicTask, defineQueue } from '../../jobs';
import { getSettings } from '../settings/service';
import { runDeploymentPipeline } from './pipeline';

/** One job per deployment: its whole pipeline (pipeline.ts). */
export const deploymentQueue = defineQueue({
  name: 'deployments.run',
  payload: z.object({ deployment_id: z.number().int().positive() }),
  // The handler records failures on the deployment itself; a second run only follows a node that died mid-way.
  maxAttempts: 3,
  concurrency: 2,
  async handler(payload, job) {
    await runDeploymentPipeline(job.ctx, payload.deployment_id, job);
  },
});

/** Retention, hourly: build and runtime log lines older than the configured number of days are removed. */
export const deploymentLogRetention = definePeriodicTask({
  name: 'deployments.log_retention',
  cron: '23 * * * *',
  async run(job) {
    const days = (await getSettings(job.ctx)).log_retention_days;
    const removed = await job.ctx.pool.query('DELETE FROM deployment_logs WHERE at < now() - make_interval(days => $1)', [days]);
    return `Removed ${removed.rowCount ?? 0} deployment log lines older than ${days} days`;
  },
});
