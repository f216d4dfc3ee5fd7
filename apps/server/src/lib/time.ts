/** Timestamps leave the API as ISO 8601 strings, whether the driver gave a Date or a string. */
export function toIso(value: Date | string): string {
  return new Date(value).toISOString();
}

export function toIsoOrNull(value: Date | string | null | undefined): string | null {
  return value === null || value === undefined ? null : toIso(value);
}

/**
 * Runs `look` every `periodMs`, the first time after `phaseMs` (timers unref'd: they never keep the
 * process alive). The platform's idle looks started together at boot and, with periods of 10, 30
 * and 60 s, fired in the same tick once a minute: three database connections (15 MB each) at once.
 * Each look gets its own phase within the shortest period, so an idle platform opens one at a time.
 */
export function everyWithPhase(periodMs: number, phaseMs: number, look: () => void): { stop(): void } {
  let interval: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    interval = setInterval(look, periodMs);
    interval.unref();
    look();
  }, phaseMs);
  first.unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(interval);
    },
  };
}
