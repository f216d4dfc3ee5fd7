import { jobRetention } from './jobs/retention';
import { auditRetention } from './modules/audit/jobs';
import { authSweep } from './modules/auth/jobs';
import { deploymentLogRetention, deploymentQueue } from './modules/deployments/jobs';
import { certificateQueue, certificateRenewal, dnsWatchQueue } from './modules/domains/jobs';
import { notificationDeliveryQueue, notificationRetention } from './modules/notifications/dispatcher';
import { proxyLogRetention } from './modules/proxy-logs/jobs';

const PERIODIC_TASKS = [
  notificationRetention,
  authSweep,
  auditRetention,
  jobRetention,
  deploymentLogRetention,
  proxyLogRetention,
  certificateRenewal,
];

/** Every queue and schedule the platform runs: a new area adds its own here (from its jobs.ts). */
export const PLATFORM_JOBS = {
  queues: [
    notificationDeliveryQueue,
    deploymentQueue,
    certificateQueue,
    dnsWatchQueue,
    ...PERIODIC_TASKS.map((task) => task.queue),
  ],
  schedules: PERIODIC_TASKS.map((task) => task.schedule),
};
