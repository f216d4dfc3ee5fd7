import http from 'node:http';
import type { Route, RouteTable } from '@launchbay/edge-protocol';
import { describe, expect, it } from 'vitest';
import { loadEdgeConfig } from '../src/config';
import { HealthChecks, HealthFromPrimary } from '../src/health';
import { ProcessLoad } from '../src/workers/load';
import { closedAfterEachTest, deadPort, request, route, sleep } from './helpers';

/**
 * The pieces of the edge's extra workers that work inside one process: shedding connections so the
 * load moves, following the first process's health checks, and the settings. The workers themselves
 * (forked under load, handed the sockets, retired, orphaned) are tested with the platform in
 * apps/server/test/api/edge.test.ts.
 */
const { upstream, edge } = closedAfterEachTest();

describe('the edge workers', () => {
  it('a process told to shed two connections closes exactly two after their next answer, and every request is answered', async () => {
    const app = await upstream((_req, res) => res.end('the app'));
    let load: ProcessLoad | null = null;
    const proxy = await edge([route('a.test', [app.upstream])], {}, { shedConnection: () => load?.shedConnection() ?? false });
    load = new ProcessLoad({ http: proxy.server, https: null });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const round = () => Promise.all(Array.from({ length: 4 }, () => request(proxy.port, { host: 'a.test', agent })));
    await round();
    expect(load.connections).toBe(4);

    load.shed(2);
    const answers = await round();
    expect(answers.map((a) => a.body)).toEqual(['the app', 'the app', 'the app', 'the app']);
    expect(answers.filter((a) => a.headers.connection === 'close')).toHaveLength(2);
    for (let i = 0; i < 50 && load.connections !== 2; i++) await sleep(10);
    expect(load.connections).toBe(2);
    // Nothing more to shed: the next answers keep their connections.
    expect((await round()).filter((a) => a.headers.connection === 'close')).toHaveLength(0);

    // Retiring: every connection closes after its next answer.
    load.shedAll();
    expect((await round()).every((a) => a.headers.connection === 'close' && a.body === 'the app')).toBe(true);
    agent.destroy();
  });

  it('a worker sends nothing to an upstream the first process found unhealthy, and everything again once it is healthy', async () => {
    const healthy = await upstream((_req, res) => res.end('ok'));
    const dead = { kind: 'tcp' as const, host: '127.0.0.1', port: await deadPort() };
    const check = { path: '/health', intervalMs: 50, timeoutMs: 500 };
    const checked: Route = route('lb.test', [healthy.upstream, dead], { healthCheck: check });
    const table: RouteTable = { version: 1, routes: [checked] };
    const checks = new HealthChecks(() => undefined);
    checks.sync(table);
    try {
      for (let i = 0; i < 100 && checks.unhealthy().length === 0; i++) await sleep(20);
      expect(checks.unhealthy()).toHaveLength(1);

      const follower = new HealthFromPrimary();
      expect(follower.usable(checked, dead)).toBe(true); // nothing heard yet: as the checks say of an unchecked upstream
      follower.set(checks.unhealthy());
      expect(follower.usable(checked, dead)).toBe(false);
      expect(follower.usable(checked, healthy.upstream)).toBe(true);
      // A route without checks sends to every upstream.
      expect(follower.usable(route('plain.test', [dead]), dead)).toBe(true);
      follower.set([]);
      expect(follower.usable(checked, dead)).toBe(true);
    } finally {
      checks.close();
    }
  });

  it('EDGE_PROCESSES, EDGE_SCALE_DOWN_SECONDS and EDGE_SCALE_UP_AT are in range, with defaults', () => {
    const base = { DATA_DIR: '/tmp/lb-edge-config' };
    const defaults = loadEdgeConfig(base);
    expect(defaults.maxProcesses).toBeGreaterThanOrEqual(1);
    expect(defaults.maxProcesses).toBeLessThanOrEqual(8);
    expect(defaults.scaleDownSeconds).toBe(300);
    expect(defaults.scaleUpAt).toBe(0.8);
    expect(loadEdgeConfig({ ...base, EDGE_SCALE_UP_AT: '0.5' }).scaleUpAt).toBe(0.5);
    expect(() => loadEdgeConfig({ ...base, EDGE_SCALE_UP_AT: '0.05' })).toThrow(
      'EDGE_SCALE_UP_AT must be an event-loop utilization from 0.1 to 1, got "0.05"',
    );
    expect(loadEdgeConfig({ ...base, EDGE_PROCESSES: '1', EDGE_SCALE_DOWN_SECONDS: '5' })).toMatchObject({
      maxProcesses: 1,
      scaleDownSeconds: 5,
    });
    expect(() => loadEdgeConfig({ ...base, EDGE_PROCESSES: '0' })).toThrow(
      'EDGE_PROCESSES must be a whole number from 1 to 64, got "0"',
    );
    expect(() => loadEdgeConfig({ ...base, EDGE_SCALE_DOWN_SECONDS: '1.5' })).toThrow(
      'EDGE_SCALE_DOWN_SECONDS must be a whole number from 1 to 86400, got "1.5"',
    );
  });
});
