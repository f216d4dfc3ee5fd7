import type { Logger } from 'pino';
import type { AppContext } from '../../context';
import { everyWithPhase } from '../../lib/time';
import { claimCronExecution, listEnabledCrons, nextCronRun, onCronsChanged, runCronExecution } from './service';

/** Other nodes' changes are picked up this often (this node's at once). */
const RELOAD_MS = 60_000;
/** setTimeout holds at most ~24.8 days: a far tick is reached in steps. */
const MAX_TIMER_MS = 24 * 3600_000;

type Timer = { schedule: string; updatedAt: number; timer: NodeJS.Timeout | null };

/**
 * Every node keeps a timer per enabled cron job (croner computes the ticks, in UTC). At a tick the
 * node claims the execution (one row per job and tick, so of several nodes exactly one runs it)
 * and makes the call. Executions running when the node stops finish or are marked failed by the
 * next claim once they are stale.
 */
export function startCronScheduler(ctx: AppContext, logger: Pick<Logger, 'warn' | 'error'>) {
  const timers = new Map<number, Timer>();
  const running = new Set<Promise<unknown>>();
  let stopped = false;
  let reloading: Promise<void> | null = null;
  let again = false;

  const arm = (cronId: number, entry: Timer, after: Date) => {
    const next = nextCronRun(entry.schedule, after);
    if (!next || stopped) return;
    const delay = next.getTime() - Date.now();
    entry.timer = setTimeout(
      () => {
        entry.timer = null;
        if (stopped) return;
        if (delay > MAX_TIMER_MS) return arm(cronId, entry, after); // not there yet
        arm(cronId, entry, next);
        fire(cronId, next);
      },
      Math.max(0, Math.min(delay, MAX_TIMER_MS)),
    );
    entry.timer.unref();
  };

  const fire = (cronId: number, scheduledFor: Date) => {
    const work = claimCronExecution(ctx, cronId, scheduledFor, 'schedule')
      .then((execution) => (execution?.status === 'running' ? runCronExecution(ctx, execution) : null))
      .catch((error: Error) => logger.error(`Cron job ${cronId} at ${scheduledFor.toISOString()}: ${error.message}`))
      .finally(() => running.delete(work));
    running.add(work);
  };

  const reload = async () => {
    const rows = await listEnabledCrons(ctx);
    const seen = new Set<number>();
    for (const row of rows) {
      seen.add(row.id);
      const current = timers.get(row.id);
      if (current && current.schedule === row.schedule && current.updatedAt === row.updatedAt.getTime()) continue;
      if (current?.timer) clearTimeout(current.timer);
      const entry: Timer = { schedule: row.schedule, updatedAt: row.updatedAt.getTime(), timer: null };
      timers.set(row.id, entry);
      arm(row.id, entry, new Date());
    }
    for (const [id, entry] of timers) {
      if (seen.has(id)) continue;
      if (entry.timer) clearTimeout(entry.timer);
      timers.delete(id);
    }
  };

  const requestReload = () => {
    if (stopped) return;
    if (reloading) {
      again = true;
      return;
    }
    reloading = reload()
      .catch((error: Error) => logger.warn(`Could not load the cron jobs: ${error.message}`))
      .finally(() => {
        reloading = null;
        if (again) {
          again = false;
          requestReload();
        }
      });
  };

  const offChanged = onCronsChanged(ctx, requestReload);
  // Phase 5 s into the edge-driver look's 10 s (lib/time.ts: idle looks never open connections together).
  const interval = everyWithPhase(RELOAD_MS, RELOAD_MS + 5_000, requestReload);
  requestReload();

  return {
    /** Resolves once the first load is done (tests wait for it). */
    ready: () => reloading ?? Promise.resolve(),
    async stop() {
      stopped = true;
      offChanged();
      interval.stop();
      for (const entry of timers.values()) if (entry.timer) clearTimeout(entry.timer);
      timers.clear();
      await reloading;
      // A call still out gets 3 s; after that it is marked failed by the next claim, once stale.
      await Promise.race([Promise.allSettled([...running]), new Promise((resolve) => setTimeout(resolve, 3000).unref())]);
    },
  };
}

export type CronScheduler = ReturnType<typeof startCronScheduler>;
