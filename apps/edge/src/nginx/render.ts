/**
 * The nginx configuration for one route table: what the nginx edge driver writes, tests with
 * `nginx -t` and reloads. nginx does what it does best itself (proxying to live upstreams with
 * keep-alive, TLS by SNI, redirects); everything else goes to the edge process behind it (the
 * "fallback"), which answers exactly as the embedded edge does: pages for unknown hosts and for apps
 * that are starting, down or unreachable, HTTP-01 answers, static build outputs, the identity call.
 * So the two drivers behave alike by construction, and the fallback only sees the rare requests.
 *
 * Everything that comes from the route table is checked against a strict alphabet before it is
 * written into the file: a name or path nginx could read as syntax never gets in (such a host is
 * left to the fallback, which serves it as the embedded edge does).
 */
import { isIP } from 'node:net';
import { IDENTITY_PATH, type Route, type RouteTable, type RouteUpstream, type TlsCertificate } from '@launchbay/edge-protocol';

/** Set by nginx on what it sends to the fallback; the fallback listens on loopback only and believes them. */
export const FALLBACK_SCHEME_HEADER = 'x-launchbay-edge-scheme';
/** Which page the fallback should answer (nginx could not reach the app, or it did not answer in time). */
export const FALLBACK_PAGE_HEADER = 'x-launchbay-edge-page';
/** The client's address as nginx saw it (the fallback forwards it to an app when it sends a request on). */
export const FALLBACK_CLIENT_HEADER = 'x-launchbay-edge-client';
/**
 * `unreachable`: nginx could not connect to the upstream its configuration names (an old worker
 * still routing to a deployment that has just stopped): the fallback routes the request again by
 * the current table, as the embedded edge retries. `timeout`: the app did not answer in time.
 */
export type FallbackPage = 'unreachable' | 'timeout';

/** Where nginx answers the generation of the configuration it runs (loopback only): how a reload is known to be done. */
export const GENERATION_PATH = '/.well-known/launchbay-edge-generation';

export type NginxPaths = {
  /** nginx's prefix: the folder everything below lives in. */
  prefix: string;
  pid: string;
  errorLog: string;
  accessLog: string;
  temp: string;
};

export type NginxRenderInput = {
  table: RouteTable;
  /** Grows with every configuration written; answered at GENERATION_PATH. */
  generation: number;
  listenHost: string;
  httpPort: number;
  /** null: no HTTPS listener. */
  httpsPort: number | null;
  /** The edge process behind nginx (loopback). */
  fallbackPort: number;
  /** The certificates that loaded and match their fingerprints (the others are never written in). */
  certificates: TlsCertificate[];
  /** Whether an upstream of a route takes requests now (active health checks). */
  usable: (route: Route, upstream: RouteUpstream) => boolean;
  paths: NginxPaths;
  /** false: no access log (PROXY_LOG=off). */
  accessLog: boolean;
  workerProcesses?: number | 'auto';
  /**
   * `user` for the workers, when nginx starts as root: the edge's own user, so nginx reaches what the
   * embedded edge reaches (apps on unix sockets in the data folder); null leaves nginx's default.
   */
  user?: string | null;
};

const SAFE_HOST = /^[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*$/;
const SAFE_PATH_PREFIX = /^\/[A-Za-z0-9._~!$&'()*+,=:@%/-]*$/;
const SAFE_FILE = /^\/[A-Za-z0-9._/@+-]+$/;
const SAFE_UPSTREAM_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])$/;

export const isSafeHost = (host: string) => host.length <= 253 && SAFE_HOST.test(host);
/** A certificate's name: a host, or `*.` and a host. */
const isSafeCertificateName = (name: string) => isSafeHost(name.startsWith('*.') ? name.slice(2) : name);
const isSafePrefix = (prefix: string) => prefix.length <= 1024 && SAFE_PATH_PREFIX.test(prefix);

/** One field of the JSON access-log line (escape=json makes every value safe inside quotes). */
const LOG_FIELDS: [string, string][] = [
  ['msec', '$msec'],
  ['request_time', '$request_time'],
  ['method', '$request_method'],
  ['host', '$host'],
  ['uri', '$request_uri'],
  ['status', '$status'],
  ['bytes_in', '$request_length'],
  ['bytes_out', '$bytes_sent'],
  ['client', '$remote_addr'],
  ['user_agent', '$http_user_agent'],
  ['referrer', '$http_referer'],
  ['upstream', '$upstream_addr'],
  ['tls', '$ssl_protocol'],
  ['route', '$lb_route'],
  ['project', '$lb_project'],
  ['environment', '$lb_environment'],
  ['deployment', '$lb_deployment'],
];

/** The access-log line's fields by name, as the reader gets them. */
export type NginxLogLine = Record<(typeof LOG_FIELDS)[number][0], string>;

const quote = (text: string) => `"${text}"`;

/**
 * An upstream as nginx's `server` names it, or null for one the fallback (the edge process behind
 * nginx) must serve. A host name is one: nginx resolves it once, when it reads the configuration, and
 * refuses the whole configuration when it does not resolve, so one route to a name that is gone would
 * stop every other route's change from loading. The edge process resolves it per request instead.
 */
function upstreamServer(upstream: RouteUpstream): string | null {
  if (upstream.kind === 'unix') return SAFE_FILE.test(upstream.socketPath) ? `unix:${upstream.socketPath}` : null;
  if (!SAFE_UPSTREAM_HOST.test(upstream.host) || isIP(upstream.host.replace(/^\[|\]$/g, '')) === 0) return null;
  const host = upstream.host.includes(':') && !upstream.host.startsWith('[') ? `[${upstream.host}]` : upstream.host;
  return `${host}:${upstream.port}`;
}

/** The certificate nginx serves for a name: the exact one, else a wildcard one label up; the last listed wins, as in the embedded edge. */
export function certificateFor(certificates: TlsCertificate[], host: string): TlsCertificate | undefined {
  const dot = host.indexOf('.');
  const wildcard = dot > 0 ? `*${host.slice(dot)}` : null;
  let exact: TlsCertificate | undefined;
  let covering: TlsCertificate | undefined;
  for (const certificate of certificates) {
    if (certificate.names.includes(host)) exact = certificate;
    else if (wildcard && certificate.names.includes(wildcard)) covering = certificate;
  }
  return exact ?? covering;
}

/** A server_name: exact names as they are; `*.example.com` as a regex of one label (nginx's own wildcard takes any depth). */
function serverName(name: string): string {
  if (!name.startsWith('*.')) return name;
  return `"~^[^.]+${name.slice(1).replaceAll('.', '\\.')}$"`;
}

class Writer {
  #lines: string[] = [];
  #depth = 0;
  line(text: string): this {
    this.#lines.push(`${'  '.repeat(this.#depth)}${text}`);
    return this;
  }
  block(head: string, body: () => void): this {
    this.line(`${head} {`);
    this.#depth++;
    body();
    this.#depth--;
    return this.line('}');
  }
  toString(): string {
    return `${this.#lines.join('\n')}\n`;
  }
}

export function renderNginxConfig(input: NginxRenderInput): string {
  const out = new Writer();
  const { paths } = input;
  const certificates = input.certificates.filter((c) => SAFE_FILE.test(c.certFile) && SAFE_FILE.test(c.keyFile));
  const listen = (port: number, extra = '') =>
    `listen ${input.listenHost.includes(':') ? `[${input.listenHost}]` : input.listenHost}:${port}${extra};`;
  const tlsPortSuffix = input.httpsPort === 443 ? '' : `:${input.httpsPort}`;

  // Hosts whose every route nginx can express; the others are served by the fallback whole.
  const byHost = new Map<string, Route[]>();
  for (const route of input.table.routes) {
    byHost.set(route.host, [...(byHost.get(route.host) ?? []), route]);
  }
  const hosts = [...byHost].filter(([host, routes]) => isSafeHost(host) && routes.every((r) => isSafePrefix(r.pathPrefix)));

  // One upstream block per distinct set of usable servers.
  const upstreamBlocks = new Map<string, string>();
  const upstreamFor = (route: Route): string | null => {
    if (route.target.kind !== 'upstreams') return null;
    const servers: string[] = [];
    for (const upstream of route.target.upstreams) {
      if (!input.usable(route, upstream)) continue;
      const server = upstreamServer(upstream);
      if (!server) return null; // one nginx cannot name: the fallback serves the route
      servers.push(server);
    }
    if (servers.length === 0) return null;
    const key = servers.join(' ');
    let name = upstreamBlocks.get(key);
    if (!name) {
      name = `launchbay_upstream_${upstreamBlocks.size + 1}`;
      upstreamBlocks.set(key, name);
    }
    return name;
  };

  out.line(`# Written by the Launchbay edge (generation ${input.generation}, route table ${input.table.version}).`);
  out.line('# Do not edit: it is rewritten on every route change. Choose the driver in Settings.');
  if (input.user) out.line(`user ${input.user};`);
  out.line(`worker_processes ${input.workerProcesses ?? 'auto'};`);
  out.line('worker_rlimit_nofile 65536;');
  out.line(`pid ${paths.pid};`);
  out.line(`error_log ${paths.errorLog} warn;`);
  out.block('events', () => out.line('worker_connections 8192;'));
  out.block('http', () => {
    for (const kind of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) out.line(`${kind}_temp_path ${paths.temp}/${kind};`);
    out.line('server_tokens off;');
    out.line('server_names_hash_bucket_size 128;');
    out.line('server_names_hash_max_size 65536;');
    out.line('variables_hash_bucket_size 128;');
    // As the embedded edge: no limit on a body (an upload streams for as long as it takes), headers quickly.
    out.line('client_max_body_size 0;');
    out.line('client_header_timeout 30s;');
    out.line('keepalive_timeout 5s;');
    out.line('keepalive_requests 10000;');
    out.line('map $http_upgrade $lb_connection { default upgrade; "" ""; }');
    // A redirect over plain HTTP keeps the port the client used (a local edge on :8080).
    out.line('map $http_host $lb_client_port { "~(:[0-9]+)$" $1; default ""; }');
    out.line(
      `log_format launchbay escape=json '{${LOG_FIELDS.map(([name, variable]) => `"${name}":"${variable}"`).join(',')}}';`,
    );
    // Buffered: one write per 64 KiB or per second, not one per request (the reader follows within a second).
    out.line(input.accessLog ? `access_log ${paths.accessLog} launchbay buffer=64k flush=1s;` : 'access_log off;');
    // Streamed both ways (server-sent events, uploads), as the embedded edge does.
    out.line('proxy_http_version 1.1;');
    out.line('proxy_buffering off;');
    out.line('proxy_request_buffering off;');
    out.line('proxy_connect_timeout 5s;');
    out.line('proxy_read_timeout 3600s;');
    out.line('proxy_send_timeout 3600s;');
    out.line('proxy_redirect off;');
    out.line('proxy_next_upstream error timeout;');
    out.line('ssl_protocols TLSv1.2 TLSv1.3;');
    out.line('ssl_session_cache shared:launchbay_tls:10m;');

    out.block('upstream launchbay_fallback', () => {
      out.line(`server 127.0.0.1:${input.fallbackPort};`);
      out.line('keepalive 16;');
    });
    /** The headers an app gets: the client's forwarding claims replaced by nginx's own, as the embedded edge does. */
    const appHeaders = () => {
      out.line('proxy_set_header Host $http_host;');
      out.line('proxy_set_header Connection $lb_connection;');
      out.line('proxy_set_header Upgrade $http_upgrade;');
      out.line('proxy_set_header X-Forwarded-For $remote_addr;');
      out.line('proxy_set_header X-Real-IP $remote_addr;');
      out.line('proxy_set_header X-Forwarded-Proto $scheme;');
      out.line('proxy_set_header X-Forwarded-Host $http_host;');
      out.line('proxy_set_header X-Forwarded-Port "";');
      out.line('proxy_set_header Forwarded "";');
      out.line('proxy_set_header Proxy-Authorization "";');
    };
    const toFallback = (page?: FallbackPage) => {
      out.line('proxy_pass http://launchbay_fallback;');
      out.line('proxy_set_header Host $http_host;');
      out.line('proxy_set_header Connection $lb_connection;');
      out.line('proxy_set_header Upgrade $http_upgrade;');
      out.line(`proxy_set_header ${FALLBACK_SCHEME_HEADER} $scheme;`);
      out.line(`proxy_set_header ${FALLBACK_CLIENT_HEADER} $remote_addr;`);
      out.line(`proxy_set_header ${FALLBACK_PAGE_HEADER} ${quote(page ?? '')};`);
    };
    const noRoute = () => {
      out.line('set $lb_route "";');
      out.line('set $lb_project "";');
      out.line('set $lb_environment "";');
      out.line('set $lb_deployment "";');
    };
    const fallbackLocations = () => {
      out.block('location @launchbay_unreachable', () => toFallback('unreachable'));
      out.block('location @launchbay_timeout', () => toFallback('timeout'));
    };

    // Requests for names nobody routes: the fallback's pages (and the identity call).
    out.block('server', () => {
      out.line(listen(input.httpPort, ' default_server'));
      noRoute();
      out.block(`location = ${GENERATION_PATH}`, () => {
        out.line('allow 127.0.0.1;');
        out.line('allow ::1;');
        out.line('deny all;');
        out.line('access_log off;');
        out.line(`return 200 "${input.generation}";`);
      });
      // The control plane asking who serves here is not traffic (the embedded edge does not log it either).
      out.block(`location = ${IDENTITY_PATH}`, () => {
        out.line('access_log off;');
        toFallback();
      });
      out.block('location /', () => toFallback());
    });
    if (input.httpsPort !== null) {
      // A name without a certificate gets no handshake, as with the embedded edge.
      out.block('server', () => {
        out.line(listen(input.httpsPort as number, ' ssl default_server'));
        out.line('ssl_reject_handshake on;');
      });
    }

    const routeLocation = (route: Route, scheme: 'http' | 'https', certified: boolean) => {
      const body = () => {
        out.line(`set $lb_route ${quote(`${route.host}${route.pathPrefix}`)};`);
        out.line(`set $lb_project ${quote(String(route.projectId ?? ''))};`);
        out.line(`set $lb_environment ${quote(String(route.environmentId ?? ''))};`);
        out.line(`set $lb_deployment ${quote(String(route.deploymentId ?? ''))};`);
        if (scheme === 'http' && route.redirectToHttps && certified && input.httpsPort !== null) {
          out.line(`return 308 https://$host${tlsPortSuffix}$request_uri;`);
          return;
        }
        if (route.state !== 'live') return toFallback();
        if (route.target.kind === 'redirect') {
          const to = route.target.host;
          if (!isSafeHost(to)) return toFallback();
          const secure = input.httpsPort !== null && certificateFor(certificates, to) !== undefined;
          out.line(
            secure
              ? `return 308 https://${to}${tlsPortSuffix}$request_uri;`
              : `return 308 http://${to}$lb_client_port$request_uri;`,
          );
          return;
        }
        const upstream = upstreamFor(route);
        if (!upstream) return toFallback(); // static outputs, or no upstream to send to: the fallback answers
        out.line(`proxy_pass http://${upstream};`);
        appHeaders();
        out.line('error_page 502 = @launchbay_unreachable;');
        out.line('error_page 504 = @launchbay_timeout;');
      };
      const prefix = route.pathPrefix;
      if (prefix === '/') return out.block('location /', body);
      // As the embedded edge matches: `/docs` takes `/docs` and `/docs/...`; `/docs/` only `/docs/...`.
      if (!prefix.endsWith('/')) out.block(`location = ${quote(prefix)}`, body);
      out.block(`location ^~ ${quote(prefix.endsWith('/') ? prefix : `${prefix}/`)}`, body);
    };

    const certificateNamesTaken = new Set<string>();
    for (const [host, routes] of hosts) {
      const certificate = input.httpsPort === null ? undefined : certificateFor(certificates, host);
      const sorted = [...routes].sort((a, b) => b.pathPrefix.length - a.pathPrefix.length);
      const hasRoot = sorted.some((r) => r.pathPrefix === '/');
      for (const scheme of certificate ? (['http', 'https'] as const) : (['http'] as const)) {
        out.block('server', () => {
          if (scheme === 'http') out.line(listen(input.httpPort));
          else {
            out.line(listen(input.httpsPort as number, ' ssl'));
            out.line(`ssl_certificate ${(certificate as TlsCertificate).certFile};`);
            out.line(`ssl_certificate_key ${(certificate as TlsCertificate).keyFile};`);
          }
          out.line(`server_name ${host};`);
          noRoute();
          // HTTP-01 answers go out over plain HTTP whatever the route says; the fallback holds the tokens.
          if (scheme === 'http') out.block('location ^~ /.well-known/acme-challenge/', () => toFallback());
          for (const route of sorted) routeLocation(route, scheme, certificate !== undefined);
          if (!hasRoot) out.block('location /', () => toFallback());
          fallbackLocations();
        });
      }
      certificateNamesTaken.add(host);
    }
    // Names a certificate covers that no route serves: a handshake, then the fallback's page.
    if (input.httpsPort !== null) {
      const seen = new Set<string>();
      for (const certificate of [...certificates].reverse()) {
        const names = certificate.names.filter((n) => isSafeCertificateName(n) && !certificateNamesTaken.has(n) && !seen.has(n));
        for (const name of names) seen.add(name);
        if (names.length === 0) continue;
        out.block('server', () => {
          out.line(listen(input.httpsPort as number, ' ssl'));
          out.line(`ssl_certificate ${certificate.certFile};`);
          out.line(`ssl_certificate_key ${certificate.keyFile};`);
          out.line(`server_name ${names.map(serverName).join(' ')};`);
          noRoute();
          out.block('location /', () => toFallback());
        });
      }
    }
    for (const [servers, name] of upstreamBlocks) {
      out.block(`upstream ${name}`, () => {
        for (const server of servers.split(' ')) out.line(`server ${server};`);
        // Enough idle connections per worker for a burst's concurrency: with fewer, nginx closes the
        // surplus after each request and opens new ones (the app pays a connection per request).
        out.line('keepalive 1024;');
        out.line('keepalive_requests 100000;');
        // Below the 5 s a Node app keeps an idle connection, so nginx never reuses one the app is closing.
        out.line('keepalive_timeout 4s;');
      });
    }
  });
  return out.toString();
}
