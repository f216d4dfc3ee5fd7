import { type Logger, pino } from 'pino';

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/**
 * JSON lines for machines (a log collector, `docker logs`); short readable lines when a person
 * watches the terminal. Formatting happens in this process, no transport worker thread.
 */
export function createLogger(level: string, pretty = process.stdout.isTTY === true): Logger {
  if (!pretty) return pino({ level });
  const stream = {
    write(line: string) {
      try {
        const {
          level: n,
          time,
          msg,
          err,
        } = JSON.parse(line) as { level: number; time: number; msg?: string; err?: { stack?: string } };
        const clock = new Date(time).toTimeString().slice(0, 8);
        const label = (LEVELS[n] ?? String(n)).padEnd(5);
        process.stdout.write(`  ${clock} ${label} ${msg ?? ''}${err?.stack ? `\n${err.stack}` : ''}\n`);
      } catch {
        process.stdout.write(line);
      }
    },
  };
  return pino({ level }, stream);
}
