/**
 * The route table the control plane keeps in Postgres and the edge serves from memory, and the
 * change messages that reach the edge through LISTEN/NOTIFY. Hand-checked rather than zod so the
 * edge stays a small process with no schema library in it.
 */
import path from 'node:path';

/** The Postgres channel the control plane notifies after every committed change to the table. */
export const ROUTE_CHANGE_CHANNEL = 'launchbay_edge_routes';

/**
 * The one-row relation (`version bigint, routes jsonb`) the edge loads the whole table from, at
 * start and whenever it may have missed a change. The deploy issue creates it; while it does not
 * exist the table is empty.
 */
export const ROUTE_TABLE_RELATION = 'edge_route_table';

/** An app listening on a loopback port, or on a unix socket. */
export type RouteUpstream = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; socketPath: string };

/**
 * Where a route's requests go: to the app's upstreams (several take turns, round-robin), or to a
 * static build output served by the edge itself from disk, with no process. For a static target the
 * route's path prefix is taken off the request path before it is looked up in `root` (a route for
 * `/docs` serves `/docs/a.css` from `root/a.css`); upstreams get the request path unchanged.
 */
export type RouteTarget =
  | { kind: 'upstreams'; upstreams: RouteUpstream[] }
  /** Another name of the same site (www to apex, or back): a 308 to `host`, path and query kept. */
  | { kind: 'redirect'; host: string }
  | {
      kind: 'static';
      /** Absolute path of the build output folder. Nothing outside it is served, symbolic links included. */
      root: string;
      /** Unknown paths without a file extension get `index.html` (client-side routing). */
      spaFallback: boolean;
    };

/**
 * `live` serves the target; `starting` (the first deployment is on its way) and `down` (stopped or
 * crashed) answer a page with status 503 and Retry-After instead, whatever the target.
 */
export type RouteState = 'live' | 'starting' | 'down';

export const ROUTE_STATES: readonly RouteState[] = ['live', 'starting', 'down'];

/**
 * Active health checks of a route's upstreams: the edge GETs `path` on each one every `intervalMs`;
 * an upstream that fails twice in a row (no answer within `timeoutMs`, or a 5xx) gets no requests
 * until it answers well again. Without it every upstream is used.
 */
export type RouteHealthCheck = { path: string; intervalMs: number; timeoutMs: number };

export type Route = {
  /** Lowercase host name without port, e.g. `shop.example.com`. */
  host: string;
  /** The longest matching prefix wins; `/` for a whole host. */
  pathPrefix: string;
  target: RouteTarget;
  state: RouteState;
  /** What the proxy-log rows of this route are filed under. */
  projectId: number | null;
  environmentId: number | null;
  deploymentId: number | null;
  /** Plain HTTP is redirected to HTTPS once a certificate exists. */
  redirectToHttps: boolean;
  healthCheck?: RouteHealthCheck | null;
};

/**
 * A certificate the edge serves over TLS for its names (SNI; `*.example.com` covers one label).
 * The control plane keeps it sealed in the database and writes these files (mode 0600, in
 * DATA_DIR/edge/tls/) for the edge; `fingerprint` is the SHA-256 of the leaf, to compare with what
 * the edge really serves.
 */
export type TlsCertificate = { names: string[]; certFile: string; keyFile: string; fingerprint: string };

/** An HTTP-01 answer the edge gives at /.well-known/acme-challenge/{token} over plain HTTP. */
export type AcmeChallengeAnswer = { token: string; keyAuthorization: string };

export const ACME_CHALLENGE_PREFIX = '/.well-known/acme-challenge/';

/**
 * A whole table. `version` grows with every change, so the edge can tell that it missed a
 * notification (while the database was away) and reload the table instead of applying a change.
 */
export type RouteTable = {
  version: number;
  routes: Route[];
  certificates?: TlsCertificate[];
  challenges?: AcmeChallengeAnswer[];
};

export const EMPTY_ROUTE_TABLE: RouteTable = { version: 0, routes: [] };

/** The payload of one NOTIFY on ROUTE_CHANGE_CHANNEL (Postgres caps it at 8000 bytes, so large changes say `reload`). */
export type RouteChange =
  | { kind: 'upsert'; version: number; route: Route }
  | { kind: 'delete'; version: number; host: string; pathPrefix: string }
  | { kind: 'reload'; version: number };

export class ProtocolError extends Error {}

type Json = Record<string, unknown>;

function object(value: unknown, where: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ProtocolError(`${where}: expected an object`);
  return value as Json;
}

function string(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new ProtocolError(`${where}: expected a non-empty string`);
  return value;
}

function integer(value: unknown, where: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ProtocolError(`${where}: expected an integer from ${min} to ${max}`);
  }
  return value;
}

function optionalId(value: unknown, where: string): number | null {
  return value === null || value === undefined ? null : integer(value, where, 1);
}

function pathPrefix(value: unknown, where: string): string {
  const prefix = string(value, where);
  if (!prefix.startsWith('/')) throw new ProtocolError(`${where}: must start with /`);
  return prefix;
}

export function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, '');
}

export function parseUpstream(value: unknown, where = 'upstream'): RouteUpstream {
  const raw = object(value, where);
  if (raw.kind === 'tcp') {
    return { kind: 'tcp', host: string(raw.host, `${where}.host`), port: integer(raw.port, `${where}.port`, 1, 65535) };
  }
  if (raw.kind === 'unix') return { kind: 'unix', socketPath: string(raw.socketPath, `${where}.socketPath`) };
  throw new ProtocolError(`${where}.kind: expected tcp or unix`);
}

function absolutePath(value: unknown, where: string): string {
  const text = string(value, where);
  if (text.includes('\0')) throw new ProtocolError(`${where}: must not contain NUL`);
  if (!path.isAbsolute(text)) throw new ProtocolError(`${where}: expected an absolute path`);
  const normal = path.normalize(text).replace(/(.)\/+$/, '$1');
  if (normal === '/') throw new ProtocolError(`${where}: must be a folder, not the whole file system`);
  return normal;
}

function upstreamList(value: unknown, where: string): RouteUpstream[] {
  if (!Array.isArray(value)) throw new ProtocolError(`${where}: expected an array`);
  return value.map((upstream, i) => parseUpstream(upstream, `${where}[${i}]`));
}

export function parseRouteTarget(value: unknown, where = 'target'): RouteTarget {
  const raw = object(value, where);
  if (raw.kind === 'upstreams') return { kind: 'upstreams', upstreams: upstreamList(raw.upstreams, `${where}.upstreams`) };
  if (raw.kind === 'redirect') return { kind: 'redirect', host: normalizeHost(string(raw.host, `${where}.host`)) };
  if (raw.kind === 'static') {
    if (raw.spaFallback !== undefined && typeof raw.spaFallback !== 'boolean')
      throw new ProtocolError(`${where}.spaFallback: expected a boolean`);
    return { kind: 'static', root: absolutePath(raw.root, `${where}.root`), spaFallback: raw.spaFallback === true };
  }
  throw new ProtocolError(`${where}.kind: expected upstreams, static or redirect`);
}

function routeState(value: unknown, where: string): RouteState {
  if (value === undefined) return 'live'; // written before routes had a state
  if (typeof value === 'string' && (ROUTE_STATES as readonly string[]).includes(value)) return value as RouteState;
  throw new ProtocolError(`${where}: expected ${ROUTE_STATES.join(', ')}`);
}

/**
 * Parses one route. A route written before targets existed (`upstreams` beside the host) reads as
 * an upstreams target, and one without a state as live.
 */
function healthCheck(value: unknown, where: string): RouteHealthCheck {
  const raw = object(value, where);
  return {
    path: pathPrefix(raw.path, `${where}.path`),
    intervalMs: integer(raw.intervalMs, `${where}.intervalMs`, 100, 3_600_000),
    timeoutMs: integer(raw.timeoutMs, `${where}.timeoutMs`, 50, 600_000),
  };
}

export function parseRoute(value: unknown, where = 'route'): Route {
  const raw = object(value, where);
  let target: RouteTarget;
  if (raw.target !== undefined) target = parseRouteTarget(raw.target, `${where}.target`);
  else if (raw.upstreams !== undefined)
    target = { kind: 'upstreams', upstreams: upstreamList(raw.upstreams, `${where}.upstreams`) };
  else throw new ProtocolError(`${where}.target: expected an object`);
  return {
    host: normalizeHost(string(raw.host, `${where}.host`)),
    pathPrefix: pathPrefix(raw.pathPrefix, `${where}.pathPrefix`),
    target,
    state: routeState(raw.state, `${where}.state`),
    projectId: optionalId(raw.projectId, `${where}.projectId`),
    environmentId: optionalId(raw.environmentId, `${where}.environmentId`),
    deploymentId: optionalId(raw.deploymentId, `${where}.deploymentId`),
    redirectToHttps: raw.redirectToHttps === true,
    // Only routes that ask for checks carry the field (most do not).
    ...(raw.healthCheck === undefined || raw.healthCheck === null
      ? {}
      : { healthCheck: healthCheck(raw.healthCheck, `${where}.healthCheck`) }),
  };
}

function certificate(value: unknown, where: string): TlsCertificate {
  const raw = object(value, where);
  if (!Array.isArray(raw.names)) throw new ProtocolError(`${where}.names: expected an array`);
  return {
    names: raw.names.map((name, i) => normalizeHost(string(name, `${where}.names[${i}]`))),
    certFile: absolutePath(raw.certFile, `${where}.certFile`),
    keyFile: absolutePath(raw.keyFile, `${where}.keyFile`),
    fingerprint: string(raw.fingerprint, `${where}.fingerprint`),
  };
}

function challenge(value: unknown, where: string): AcmeChallengeAnswer {
  const raw = object(value, where);
  const token = string(raw.token, `${where}.token`);
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new ProtocolError(`${where}.token: expected base64url`);
  return { token, keyAuthorization: string(raw.keyAuthorization, `${where}.keyAuthorization`) };
}

function optionalList<T>(value: unknown, where: string, parse: (item: unknown, where: string) => T): T[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new ProtocolError(`${where}: expected an array`);
  return value.map((item, i) => parse(item, `${where}[${i}]`));
}

export function parseRouteTable(value: unknown): RouteTable {
  const raw = object(value, 'table');
  if (!Array.isArray(raw.routes)) throw new ProtocolError('table.routes: expected an array');
  const certificates = optionalList(raw.certificates, 'table.certificates', certificate);
  const challenges = optionalList(raw.challenges, 'table.challenges', challenge);
  return {
    version: integer(raw.version, 'table.version'),
    routes: raw.routes.map((route, i) => parseRoute(route, `table.routes[${i}]`)),
    ...(certificates ? { certificates } : {}),
    ...(challenges ? { challenges } : {}),
  };
}

/** Parses a NOTIFY payload (JSON text); throws ProtocolError on anything else. */
export function parseRouteChange(payload: string): RouteChange {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    throw new ProtocolError('change: not JSON');
  }
  const raw = object(parsed, 'change');
  const version = integer(raw.version, 'change.version');
  switch (raw.kind) {
    case 'upsert':
      return { kind: 'upsert', version, route: parseRoute(raw.route, 'change.route') };
    case 'delete':
      return {
        kind: 'delete',
        version,
        host: normalizeHost(string(raw.host, 'change.host')),
        pathPrefix: pathPrefix(raw.pathPrefix, 'change.pathPrefix'),
      };
    case 'reload':
      return { kind: 'reload', version };
    default:
      throw new ProtocolError('change.kind: expected upsert, delete or reload');
  }
}

/**
 * The table after one change, or `null` when the change does not follow the table's version
 * directly (a notification was missed): then the whole table must be loaded again.
 */
export function applyRouteChange(table: RouteTable, change: RouteChange): RouteTable | null {
  if (change.version <= table.version) return table; // already applied (a reload overtook it)
  if (change.kind === 'reload' || change.version !== table.version + 1) return null;
  const others = table.routes.filter((route) =>
    change.kind === 'upsert'
      ? route.host !== change.route.host || route.pathPrefix !== change.route.pathPrefix
      : route.host !== change.host || route.pathPrefix !== change.pathPrefix,
  );
  return { ...table, version: change.version, routes: change.kind === 'upsert' ? [...others, change.route] : others };
}
