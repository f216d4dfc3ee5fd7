/**
 * When a process that ended unexpectedly is started again, and when it is given up on: one policy
 * for every runtime driver, so a crash loop means the same on the host and in a container.
 */
export type RestartPolicy = {
  /** The delay before the first restart; it doubles with every restart after it. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** This many restarts within `crashLoopWindowMs`, and the next crash is a crash loop: the process stays down. */
  crashLoopRestarts: number;
  crashLoopWindowMs: number;
  /** A process that ran this long before it ended starts over at `firstDelayMs`. */
  stableAfterMs: number;
};

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  firstDelayMs: 1000,
  maxDelayMs: 30_000,
  crashLoopRestarts: 5,
  crashLoopWindowMs: 5 * 60_000,
  stableAfterMs: 60_000,
};

/** What a driver keeps per process (in its state file, so it survives a restart of the control plane). */
export type RestartHistory = {
  restarts: number;
  /** When the recent restarts happened (ms since epoch), for the crash-loop window. */
  restartTimes: number[];
  /** Restarts since the process last ran long enough to count as stable: the next delay doubles with it. */
  backoffAttempt: number;
  /** When the current run started (ms since epoch). */
  startedAt: number | null;
};

export type RestartDecision =
  | { kind: 'restart'; delayMs: number; attempt: number }
  | { kind: 'crash_loop'; restarts: number; windowMs: number };

/** Decides what follows an unexpected exit and records it in `history`. */
export function decideRestart(history: RestartHistory, policy: RestartPolicy, now = Date.now()): RestartDecision {
  history.restartTimes = history.restartTimes.filter((at) => now - at < policy.crashLoopWindowMs);
  if (history.restartTimes.length >= policy.crashLoopRestarts) {
    return { kind: 'crash_loop', restarts: history.restartTimes.length, windowMs: policy.crashLoopWindowMs };
  }
  if (history.startedAt !== null && now - history.startedAt >= policy.stableAfterMs) history.backoffAttempt = 0;
  const delayMs = Math.min(policy.firstDelayMs * 2 ** history.backoffAttempt, policy.maxDelayMs);
  history.backoffAttempt += 1;
  history.restarts += 1;
  history.restartTimes.push(now);
  return { kind: 'restart', delayMs, attempt: history.backoffAttempt };
}
