import { performance } from 'node:perf_hooks';

/** A function that answers how busy the event loop was (0 to 1) since its previous call, or since it was made. */
export function eventLoopSampler(): () => number {
  let since = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const utilization = performance.eventLoopUtilization(now, since).utilization;
    since = now;
    return utilization;
  };
}
