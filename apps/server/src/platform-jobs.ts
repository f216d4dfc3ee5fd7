import { jobRetentionQueue, jobRetentionSchedule } from './jobs/retention';
import { auditRetentionQueue, auditRetentionSchedule } from './modules/audit/jobs';
import { authSweepQueue, authSweepSchedule } from './modules/auth/jobs';
import {
  notificationDeliveryQueue,
  notificationRetentionQueue,
  notificationRetentionSchedule,
} from './modules/notifications/dispatcher';

/** Every queue and schedule the platform runs: a new area adds its own here (from its jobs.ts). */
export const PLATFORM_JOBS = {
  queues: [notificationDeliveryQueue, notificationRetentionQueue, authSweepQueue, auditRetentionQueue, jobRetentionQueue],
  schedules: [notificationRetentionSchedule, authSweepSchedule, auditRetentionSchedule, jobRetentionSchedule],
};
