import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A Server-Sent Events stream fed by polling the database: the one way the platform streams logs
 * (a job's log, a deployment's build and runtime log). Each event carries its row id, so a client
 * that reconnects with Last-Event-ID gets exactly what it missed.
 */

/** The console's stream client waits this long before reconnecting (then doubles, up to 30 s). */
export const SSE_RECONNECT_MS = 3000;
const KEEPALIVE_MS = 15_000;

export type SsePage = {
  /** Events after the last id, oldest first; each its own id. */
  events: { id: number; event: string; data: unknown }[];
  /** When set, sent as the last event once no more events wait: the stream then ends. */
  end?: { event: string; data: unknown };
  /** More events wait right now: poll again at once. */
  more?: boolean;
};

/** Streams until the client leaves, `next` says the end, or `shutdown` (the platform stops) fires. */
export async function streamPolled(
  request: FastifyRequest,
  reply: FastifyReply,
  options: {
    lastEventId: number;
    pollMs: number;
    next(lastId: number): Promise<SsePage>;
    shutdown: Set<() => void>;
    /** Wakes the stream before its next poll when new events are known to wait; returns the unsubscribe. */
    subscribe?: (wake: () => void) => () => void;
  },
): Promise<void> {
  let lastId = options.lastEventId;
  reply.hijack();
  const out = reply.raw;
  out.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no', // a proxy in front must pass lines as they come
  });
  out.write(`retry: ${SSE_RECONNECT_MS}\n\n`);

  let closed = false;
  let wake: (() => void) | undefined;
  const stop = () => {
    closed = true;
    wake?.();
  };
  request.raw.on('close', stop);
  options.shutdown.add(stop);
  // Set when a wake-up came while a page was being read: poll again at once rather than sleep.
  let woken = false;
  const unsubscribe = options.subscribe?.(() => {
    woken = true;
    wake?.();
  });
  let lastWrite = Date.now();
  try {
    while (!closed) {
      const page = await options.next(lastId);
      for (const event of page.events) {
        lastId = event.id;
        out.write(`id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
        lastWrite = Date.now();
      }
      if (page.more) continue;
      if (page.end) {
        out.write(`event: ${page.end.event}\ndata: ${JSON.stringify(page.end.data)}\n\n`);
        break;
      }
      if (Date.now() - lastWrite > KEEPALIVE_MS) {
        out.write(': keep-alive\n\n');
        lastWrite = Date.now();
      }
      if (woken) {
        woken = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      woken = false;
    }
  } catch (error) {
    request.log.error({ err: error }, 'event stream failed');
  } finally {
    options.shutdown.delete(stop);
    unsubscribe?.();
    out.end();
  }
}
