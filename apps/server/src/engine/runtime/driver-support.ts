/**
 * What every runtime driver keeps the same way: its listeners, the loopback ports its `web`
 * processes hold, and what an unexpected exit leads to (a restart after a delay, or a crash loop).
 */
import { freeLoopbackPort } from '../../lib/free-port';
import type { LogLine, RuntimeEvent } from './driver';
import { decideRestart, type RestartDecision, type RestartHistory, type RestartPolicy } from './restart-policy';

export class RuntimeListeners {
  private readonly events = new Set<(event: RuntimeEvent) => void>();
  private readonly lines = new Set<(line: LogLine) => void>();
  private logListenerFailed = false;

  constructor(private readonly log: (message: string) => void) {}

  onEvent(listener: (event: RuntimeEvent) => void): () => void {
    this.events.add(listener);
    return () => this.events.delete(listener);
  }

  onLog(listener: (line: LogLine) => void): () => void {
    this.lines.add(listener);
    return () => this.lines.delete(listener);
  }

  emit(event: RuntimeEvent): void {
    for (const listener of this.events) {
      try {
        listener(event);
      } catch (error) {
        this.log(`A runtime event listener failed: ${String(error)}`);
      }
    }
  }

  emitLog(line: LogLine): void {
    for (const listener of this.lines) {
      try {
        listener(line);
      } catch (error) {
        // Said once: a failing log listener would otherwise flood the platform's own log.
        if (!this.logListenerFailed) this.log(`A runtime log listener failed: ${String(error)}`);
        this.logListenerFailed = true;
      }
    }
  }
}

/** The loopback ports held by running `web` processes: two deployments never get the same one. */
export class PortReservations {
  private readonly reserved = new Set<number>();

  /** A fixed port an app asked for. */
  reserve(port: number): number {
    if (this.reserved.has(port)) throw new Error(`port ${port} is taken by another running deployment`);
    this.reserved.add(port);
    return port;
  }

  /** A port recorded before (adoption): held again, whoever held it. */
  hold(port: number): void {
    this.reserved.add(port);
  }

  async pick(): Promise<number> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = await freeLoopbackPort();
      if (!this.reserved.has(port)) {
        this.reserved.add(port);
        return port;
      }
    }
    throw new Error('no free loopback port');
  }

  release(port: number | null): void {
    if (port !== null) this.reserved.delete(port);
  }
}

/**
 * An unexpected exit: decides a restart or a crash loop (recorded in `process`), says so in the
 * log and as a runtime event. The caller then schedules the restart or leaves the process down.
 */
export function announceUnexpectedExit(
  process: RestartHistory & { type: string; index: number },
  options: {
    deploymentId: number;
    policy: RestartPolicy;
    label: string;
    listeners: RuntimeListeners;
    log: (message: string) => void;
  },
): RestartDecision {
  const decision = decideRestart(process, options.policy);
  const ids = { deploymentId: options.deploymentId, type: process.type, index: process.index };
  if (decision.kind === 'crash_loop') {
    options.log(
      `${options.label} is in a crash loop (${decision.restarts} restarts within ${Math.round(decision.windowMs / 1000)} s): not restarting it`,
    );
    options.listeners.emit({ kind: 'crash_loop', ...ids, restarts: decision.restarts, windowMs: decision.windowMs });
  } else {
    options.listeners.emit({ kind: 'restarting', ...ids, attempt: decision.attempt, delayMs: decision.delayMs });
  }
  return decision;
}
