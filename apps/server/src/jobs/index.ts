// The job runtime's public surface: what modules use to define, enqueue, cancel and schedule work.
export {
  appendJobLog,
  cancelJob,
  defineQueue,
  type Enqueued,
  type EnqueueOptions,
  enqueue,
  JobCancelledError,
  type Queue,
  RetryJob,
  type RunningJob,
  wakeQueue,
} from './queue';
export { type JobRuntime, startJobRuntime } from './runtime';
export { definePeriodicTask, defineSchedule, type Schedule } from './schedule';
