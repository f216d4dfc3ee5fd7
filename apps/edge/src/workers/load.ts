import { eventLoopSampler } from '../event-loop';
import type { ProxyServers } from '../proxy';

/**
 * One edge process's load as the workers' balancing sees it: how busy its event loop was since the
 * last sample, how many client connections it holds, and how many of them it is to close after their
 * next answer so that their clients reconnect, and another process may take them.
 */
export class ProcessLoad {
  readonly #eventLoop = eventLoopSampler();
  #connections = 0;
  #toShed = 0;
  #shedEvery = false;

  constructor(servers: ProxyServers) {
    for (const server of [servers.http, servers.https]) {
      server?.on('connection', (socket: NodeJS.EventEmitter) => {
        this.#connections++;
        socket.once('close', () => this.#connections--);
      });
    }
  }

  get connections(): number {
    return this.#connections;
  }

  /** Event-loop utilization since the last call, 0 to 1. */
  sampleEventLoop(): number {
    return this.#eventLoop();
  }

  shed(connections: number): void {
    this.#toShed = Math.min(this.#connections, this.#toShed + Math.max(0, Math.floor(connections)));
  }

  /** Retiring: every connection closes after its next answer. */
  shedAll(): void {
    this.#shedEvery = true;
  }

  /** Asked once per request (ProxyServerOptions.shedConnection). */
  readonly shedConnection = (): boolean => {
    if (this.#shedEvery) return true;
    if (this.#toShed === 0) return false;
    this.#toShed--;
    return true;
  };
}
