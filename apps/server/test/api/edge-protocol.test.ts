import {
  applyRouteChange,
  EMPTY_ROUTE_TABLE,
  ProtocolError,
  parseEdgeState,
  parseRoute,
  parseRouteChange,
  parseRouteTable,
  type Route,
  type RouteTable,
} from '@launchbay/edge-protocol';
import { describe, expect, it } from 'vitest';

/** The messages between the control plane and the edge: what the edge accepts, and how it keeps its table in step. */
const route = (host: string, pathPrefix = '/'): Route => ({
  host,
  pathPrefix,
  target: { kind: 'upstreams', upstreams: [{ kind: 'tcp', host: '127.0.0.1', port: 4000 }] },
  state: 'live',
  projectId: 1,
  environmentId: null,
  deploymentId: 7,
  redirectToHttps: false,
});

describe('route changes', () => {
  it('parses the three kinds and normalises host names', () => {
    const upsert = parseRouteChange(
      JSON.stringify({ kind: 'upsert', version: 1, route: { ...route('Shop.Example.COM.'), projectId: 1 } }),
    );
    expect(upsert).toEqual({ kind: 'upsert', version: 1, route: route('shop.example.com') });
    expect(parseRouteChange('{"kind":"delete","version":2,"host":"A.test","pathPrefix":"/api"}')).toEqual({
      kind: 'delete',
      version: 2,
      host: 'a.test',
      pathPrefix: '/api',
    });
    expect(parseRouteChange('{"kind":"reload","version":9}')).toEqual({ kind: 'reload', version: 9 });
  });

  it('refuses what is not a change, naming the field', () => {
    expect(() => parseRouteChange('not json')).toThrow(ProtocolError);
    expect(() => parseRouteChange('{"kind":"upsert","version":1}')).toThrow('change.route: expected an object');
    expect(() => parseRouteChange('{"kind":"drop","version":1}')).toThrow('change.kind');
    expect(() => parseRouteChange('{"kind":"reload","version":-1}')).toThrow('change.version');
    const badPort = {
      kind: 'upsert',
      version: 1,
      route: { ...route('a.test'), target: { kind: 'upstreams', upstreams: [{ kind: 'tcp', host: 'x', port: 70000 }] } },
    };
    expect(() => parseRouteChange(JSON.stringify(badPort))).toThrow('change.route.target.upstreams[0].port');
  });

  it('applies changes in order, ignores old ones, and asks for a reload after a gap', () => {
    let table: RouteTable = EMPTY_ROUTE_TABLE;
    table = applyRouteChange(table, { kind: 'upsert', version: 1, route: route('a.test') }) ?? table;
    table = applyRouteChange(table, { kind: 'upsert', version: 2, route: route('a.test', '/api') }) ?? table;
    table = applyRouteChange(table, { kind: 'upsert', version: 3, route: { ...route('a.test'), deploymentId: 8 } }) ?? table;
    expect(table.version).toBe(3);
    expect(table.routes.map((r) => [r.pathPrefix, r.deploymentId])).toEqual([
      ['/api', 7],
      ['/', 8],
    ]);
    table = applyRouteChange(table, { kind: 'delete', version: 4, host: 'a.test', pathPrefix: '/api' }) ?? table;
    expect(table.routes).toHaveLength(1);
    // Already applied (a reload overtook it): nothing changes.
    expect(applyRouteChange(table, { kind: 'delete', version: 2, host: 'a.test', pathPrefix: '/' })).toBe(table);
    // Version 5 never arrived (the database was away): the whole table must be loaded again.
    expect(applyRouteChange(table, { kind: 'upsert', version: 6, route: route('b.test') })).toBeNull();
    expect(applyRouteChange(table, { kind: 'reload', version: 5 })).toBeNull();
  });
});

describe('route targets and states', () => {
  it('reads upstreams (tcp and unix) and static folders, with the state of the route', () => {
    const upstreams = parseRoute({
      ...route('a.test'),
      target: {
        kind: 'upstreams',
        upstreams: [
          { kind: 'tcp', host: '127.0.0.1', port: 4000 },
          { kind: 'unix', socketPath: '/run/app.sock' },
        ],
      },
      state: 'starting',
    });
    expect(upstreams.target).toEqual({
      kind: 'upstreams',
      upstreams: [
        { kind: 'tcp', host: '127.0.0.1', port: 4000 },
        { kind: 'unix', socketPath: '/run/app.sock' },
      ],
    });
    expect(upstreams.state).toBe('starting');
    const site = parseRoute({ ...route('b.test'), target: { kind: 'static', root: '/data/builds/7/dist/', spaFallback: true } });
    expect(site.target).toEqual({ kind: 'static', root: '/data/builds/7/dist', spaFallback: true });
    expect(parseRoute({ ...route('b.test'), target: { kind: 'static', root: '/data/x/../y' } }).target).toEqual({
      kind: 'static',
      root: '/data/y',
      spaFallback: false,
    });
    expect(parseRoute({ ...route('c.test'), state: 'down' }).state).toBe('down');
  });

  it('reads a route written before targets and states existed as live upstreams', () => {
    const { target: _target, state: _state, ...rest } = route('old.test');
    const old = { ...rest, upstreams: [{ kind: 'tcp', host: '127.0.0.1', port: 4000 }] };
    expect(parseRoute(old)).toEqual(route('old.test'));
    expect(parseRouteTable({ version: 3, routes: [old] }).routes).toEqual([route('old.test')]);
  });

  it('refuses a target or a state it does not know, naming the field', () => {
    const withTarget = (target: unknown) => ({ ...route('a.test'), target });
    expect(() => parseRoute(withTarget({ kind: 'static', root: 'dist' }))).toThrow(
      'route.target.root: expected an absolute path',
    );
    expect(() => parseRoute(withTarget({ kind: 'static', root: '/' }))).toThrow('route.target.root');
    expect(() => parseRoute(withTarget({ kind: 'static', root: '/a\0b' }))).toThrow('route.target.root');
    expect(() => parseRoute(withTarget({ kind: 'static', root: '/dist', spaFallback: 'yes' }))).toThrow(
      'route.target.spaFallback',
    );
    expect(() => parseRoute(withTarget({ kind: 'lambda' }))).toThrow('route.target.kind: expected upstreams, static or redirect');
    expect(() => parseRoute(withTarget({ kind: 'upstreams' }))).toThrow('route.target.upstreams: expected an array');
    const { target: _target, ...noTarget } = route('a.test');
    expect(() => parseRoute(noTarget)).toThrow('route.target: expected an object');
    expect(() => parseRoute({ ...route('a.test'), state: 'sleeping' })).toThrow('route.state: expected live, starting, down');
  });
});

describe('the state file', () => {
  it('reads a state the edge wrote and rejects anything else', () => {
    const state = {
      pid: 123,
      processStart: '456',
      instanceId: 'abc',
      status: 'ready',
      host: '127.0.0.1',
      port: 8080,
      startedAt: '2026-01-01T00:00:00.000Z',
      protocolVersion: 1,
    };
    // Written before there were drivers: the embedded edge.
    expect(parseEdgeState(JSON.stringify(state))).toEqual({ ...state, driver: 'embedded' });
    expect(parseEdgeState(JSON.stringify({ ...state, driver: 'nginx' }))).toEqual({ ...state, driver: 'nginx' });
    expect(parseEdgeState(JSON.stringify({ ...state, driver: 'caddy' }))?.driver).toBe('embedded');
    expect(parseEdgeState('{')).toBeNull();
    expect(parseEdgeState(JSON.stringify({ ...state, pid: 0 }))).toBeNull();
    expect(parseEdgeState(JSON.stringify({ ...state, status: 'odd' }))).toBeNull();
  });
});
