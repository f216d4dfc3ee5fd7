import http from 'node:http';
import {
  type Route,
  type RouteHealthCheck,
  type RouteTable,
  type RouteUpstream,
  UPSTREAM_HEALTH_UPSERT_SQL,
} from '@launchbay/edge-protocol';
import { upstreamKey, upstreamLabel } from './upstreams';

/** Failed checks in a row before an upstream gets no more requests; one good answer brings it back. */
const FALL = 2;

export type HealthReport = { host: string; upstream: string; healthy: boolean; error: string | null; at: string };

type Probe = {
  upstream: RouteUpstream;
  check: RouteHealthCheck;
  /** The route hosts this probe answers for (the Host header it sends is the first one). */
  hosts: Set<string>;
  healthy: boolean | null;
  failures: number;
  timer: NodeJS.Timeout | undefined;
  running: boolean;
};

const probeKey = (upstream: RouteUpstream, check: RouteHealthCheck) =>
  `${upstreamKey(upstream)} ${check.path} ${check.intervalMs} ${check.timeoutMs}`;

/** One GET of the check path: null when the upstream answered below 500 in time, else why not. */
function checkOnce(upstream: RouteUpstream, check: RouteHealthCheck, host: string): Promise<string | null> {
  return new Promise((resolve) => {
    const request = http.get(
      {
        ...(upstream.kind === 'tcp' ? { host: upstream.host, port: upstream.port } : { socketPath: upstream.socketPath }),
        path: check.path,
        headers: { host, 'user-agent': 'launchbay-edge-health-check' },
        agent: false,
        timeout: check.timeoutMs,
      },
      (response) => {
        response.resume();
        const status = response.statusCode ?? 0;
        resolve(status >= 500 ? `answered ${status}` : null);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${check.timeoutMs} ms`)));
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ECONNREFUSED' ? 'connection refused' : error.message),
    );
  });
}

/** What the proxy asks of upstream health: the checks themselves, or (in an extra worker) what the first process found. */
export type UpstreamHealth = {
  sync(table: RouteTable): void;
  usable(route: Route, upstream: RouteUpstream): boolean;
  close(): void;
};

/**
 * Active health checks of the upstreams of every route that asks for them. The proxy sends no
 * request to an upstream that failed FALL checks in a row; an upstream not checked yet counts as
 * healthy (a new route serves at once, and a failed request is retried on the next upstream anyway).
 * Each change of an upstream's health is reported once (the control plane shows it).
 */
export class HealthChecks implements UpstreamHealth {
  #probes = new Map<string, Probe>();

  constructor(private readonly report: (report: HealthReport) => void) {}

  /** Starts the probes the table asks for and stops the ones it no longer does. */
  sync(table: RouteTable): void {
    const wanted = new Map<string, { upstream: RouteUpstream; check: RouteHealthCheck; hosts: Set<string> }>();
    for (const route of table.routes) {
      if (!route.healthCheck || route.target.kind !== 'upstreams' || route.state !== 'live') continue;
      for (const upstream of route.target.upstreams) {
        const key = probeKey(upstream, route.healthCheck);
        const entry = wanted.get(key) ?? { upstream, check: route.healthCheck, hosts: new Set<string>() };
        entry.hosts.add(route.host);
        wanted.set(key, entry);
      }
    }
    for (const [key, probe] of this.#probes) {
      if (wanted.has(key)) continue;
      clearInterval(probe.timer);
      this.#probes.delete(key);
    }
    for (const [key, entry] of wanted) {
      const existing = this.#probes.get(key);
      if (existing) {
        for (const host of entry.hosts) {
          if (!existing.hosts.has(host) && existing.healthy !== null) this.#tell(existing, host, null);
        }
        existing.hosts = entry.hosts;
        continue;
      }
      const probe: Probe = { ...entry, healthy: null, failures: 0, running: false, timer: undefined };
      probe.timer = setInterval(() => void this.#run(probe), entry.check.intervalMs);
      probe.timer.unref();
      this.#probes.set(key, probe);
      void this.#run(probe);
    }
  }

  /** Whether the proxy may send a request of this route to this upstream. */
  usable(route: Route, upstream: RouteUpstream): boolean {
    if (!route.healthCheck) return true;
    return this.#probes.get(probeKey(upstream, route.healthCheck))?.healthy !== false;
  }

  /** The probes whose upstream is unhealthy now (sent to the extra workers, which run no checks of their own). */
  unhealthy(): string[] {
    return [...this.#probes].filter(([, probe]) => probe.healthy === false).map(([key]) => key);
  }

  async #run(probe: Probe): Promise<void> {
    if (probe.running) return;
    probe.running = true;
    const host = probe.hosts.values().next().value ?? 'localhost';
    const error = await checkOnce(probe.upstream, probe.check, host);
    probe.running = false;
    if (!this.#probes.has(probeKey(probe.upstream, probe.check))) return; // stopped meanwhile
    probe.failures = error ? probe.failures + 1 : 0;
    const healthy = error ? (probe.failures >= FALL ? false : probe.healthy) : true;
    if (healthy === probe.healthy || healthy === null) return;
    probe.healthy = healthy;
    for (const routeHost of probe.hosts) this.#tell(probe, routeHost, error);
  }

  #tell(probe: Probe, host: string, error: string | null): void {
    if (probe.healthy === null) return;
    this.report({
      host,
      upstream: upstreamLabel(probe.upstream),
      healthy: probe.healthy,
      error: probe.healthy ? null : error,
      at: new Date().toISOString(),
    });
  }

  close(): void {
    for (const probe of this.#probes.values()) clearInterval(probe.timer);
    this.#probes.clear();
  }
}

/**
 * Upstream health in an extra worker: the first process runs the checks (one probe per upstream, one
 * report per change) and sends which upstreams are unhealthy; the worker only follows.
 */
export class HealthFromPrimary implements UpstreamHealth {
  #unhealthy = new Set<string>();

  set(unhealthy: string[]): void {
    this.#unhealthy = new Set(unhealthy);
  }

  sync(): void {}

  usable(route: Route, upstream: RouteUpstream): boolean {
    return !route.healthCheck || !this.#unhealthy.has(probeKey(upstream, route.healthCheck));
  }

  close(): void {}
}

/** What the health writer needs of a database connection: one parameterised statement at a time. */
export type StatementSink = { unsafe(query: string, parameters: unknown[]): PromiseLike<unknown> };

/**
 * Writes health changes to the database for the console, the latest per upstream; while the
 * database is away they wait (only the latest of each) and go when it is back.
 */
export class HealthReportWriter {
  #pending = new Map<string, HealthReport>();
  #flushing = false;
  #timer: NodeJS.Timeout;

  constructor(
    private readonly sink: () => StatementSink | undefined,
    private readonly log: (message: string) => void,
  ) {
    this.#timer = setInterval(() => void this.flush(), 2000);
    this.#timer.unref();
  }

  add(report: HealthReport): void {
    this.#pending.set(`${report.host} ${report.upstream}`, report);
    void this.flush();
  }

  async flush(): Promise<void> {
    const sink = this.sink();
    if (!sink || this.#flushing || this.#pending.size === 0) return;
    this.#flushing = true;
    try {
      for (const [key, report] of [...this.#pending]) {
        await sink.unsafe(UPSTREAM_HEALTH_UPSERT_SQL, [report.host, report.upstream, report.healthy, report.error, report.at]);
        if (this.#pending.get(key) === report) this.#pending.delete(key);
      }
    } catch (error) {
      this.log(`cannot record upstream health (${(error as Error).message}); will try again`);
    } finally {
      this.#flushing = false;
    }
  }

  close(): void {
    clearInterval(this.#timer);
  }
}
