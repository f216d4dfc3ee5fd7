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

type LogArguments = [object: unknown, message?: string, ...values: unknown[]];

/**
 * A request's logger that becomes a pino child only when the request logs something. Fastify
 * makes a child logger per request for its request id; building one (bindings serialised into a
 * string, a new object) cost about 2% of a cached GET, and nearly every request logs nothing.
 */
class RequestLogger {
  #child: Logger | undefined;
  constructor(
    private readonly parent: Logger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: { level?: string },
  ) {}

  #logger(): Logger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level;
  }
  set level(level: string) {
    this.#logger().level = level;
  }
  fatal(...args: LogArguments) {
    this.#logger().fatal(...(args as [unknown, string?]));
  }
  error(...args: LogArguments) {
    this.#logger().error(...(args as [unknown, string?]));
  }
  warn(...args: LogArguments) {
    this.#logger().warn(...(args as [unknown, string?]));
  }
  info(...args: LogArguments) {
    this.#logger().info(...(args as [unknown, string?]));
  }
  debug(...args: LogArguments) {
    this.#logger().debug(...(args as [unknown, string?]));
  }
  trace(...args: LogArguments) {
    this.#logger().trace(...(args as [unknown, string?]));
  }
  silent() {}
  child(bindings: Record<string, unknown>, options?: { level?: string }): Logger {
    return this.#logger().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: the request's logger, made a pino child on its first line. */
export function lazyChildLogger(parent: Logger, bindings: Record<string, unknown>, options: { level?: string }): Logger {
  // Has every method and property Fastify and the routes use of a pino logger (checked by Fastify per request).
  return new RequestLogger(parent, bindings, options) as unknown as Logger;
}
