import type { EdgeIdentity, RouteTable } from '@launchbay/edge-protocol';
import type { ProxyLogWriterStats } from '../proxy-log-writer';

/** Set in an extra worker's environment: the edge's entry runs the worker (worker.ts) instead of the first process. */
export const EDGE_WORKER_ENV = 'LAUNCHBAY_EDGE_WORKER';

/** What a worker reports every second: how busy it is and what its proxy-log writer did. */
export type WorkerLoad = {
  /** Event-loop utilization over the last second, 0 to 1. */
  eventLoop: number;
  connections: number;
  proxyLog: ProxyLogWriterStats & { waiting: boolean };
};

/** From the first process to a worker (over the IPC channel of child_process.fork). */
export type ToWorker =
  | { type: 'table'; table: RouteTable }
  | { type: 'health'; unhealthy: string[] }
  /** Sent with a listening socket as the handle: the worker accepts on it too. */
  | { type: 'listen'; server: 'http' | 'https'; tlsPort: number | null }
  | { type: 'identity'; id: number; identity: EdgeIdentity }
  /** Close this many of its connections after their next answer (the load moves to another process). */
  | { type: 'shed'; connections: number }
  /** Stop accepting, finish the requests in flight, write the proxy-log rows, exit. */
  | { type: 'retire' };

/** From a worker to the first process. */
export type FromWorker =
  | { type: 'ready' }
  /** The route table version the worker serves from now on. */
  | { type: 'serving'; version: number }
  | { type: 'load'; load: WorkerLoad }
  /** An identity request reached this worker: the first process answers for the whole edge. */
  | { type: 'identity?'; id: number }
  /** Its listening sockets are closed: the port is the first process's alone again. */
  | { type: 'closed' };
