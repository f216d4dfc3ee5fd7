import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import helmet from 'helmet';
import type { App } from '../lib/http';

/**
 * Browser-facing protections for the console and the API: security headers (helmet), no caching
 * of API answers, and a forwarded-address check so only real IPs become client addresses.
 */

/** The sha256 sources of the inline scripts of the built console's index.html (the pre-paint theme script). */
export function inlineScriptHashes(consoleDir: string | undefined): string[] {
  if (!consoleDir) return [];
  const html = fs.readFileSync(path.join(consoleDir, 'index.html'), 'utf8');
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (match) =>
      `'sha256-${createHash('sha256')
        .update(match[1] ?? '')
        .digest('base64')}'`,
  );
}

// Helmet has no Permissions-Policy option: the console uses none of these features.
const PERMISSIONS_POLICY = [
  'accelerometer=()',
  'camera=()',
  'geolocation=()',
  'gyroscope=()',
  'magnetometer=()',
  'microphone=()',
  'payment=()',
  'usb=()',
  'interest-cohort=()',
].join(', ');

const hsts = helmet.strictTransportSecurity({ maxAge: 31_536_000, includeSubDomains: false });

/** Helmet's options: one policy for every answer the platform gives (console pages, API, docs). */
function helmetOptions(consoleDir: string | undefined): Parameters<typeof helmet>[0] {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'self'"],
        scriptSrc: ["'self'", ...inlineScriptHashes(consoleDir)],
        scriptSrcAttr: ["'none'"],
        // Toasts (sonner) and Radix popovers inject style elements and attributes at run time.
        styleSrc: ["'self'", "'unsafe-inline'"],
        // Avatars are any https URL a user enters; QR codes and icons are data: URLs.
        imgSrc: ["'self'", 'data:', 'https:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    // Sent only over TLS (below): over plain HTTP a browser ignores it, and a LAN address must keep working.
    strictTransportSecurity: false,
    // Favicons and the console are same-origin; cross-origin embedders have no business here.
    crossOriginResourcePolicy: { policy: 'same-origin' },
  };
}

type HeaderSink = {
  setHeader(name: string, value: string): void;
  removeHeader(name: string): void;
};

/**
 * The headers helmet sets, computed once: they depend on nothing in the request, and running
 * helmet's middleware per request (as @fastify/helmet does, parsing the CSP each time) cost a
 * sixth of the CPU of a cached GET /api/user/me.
 */
export function securityHeaders(consoleDir: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  const sink: HeaderSink = {
    setHeader: (name, value) => {
      headers[name.toLowerCase()] = value;
    },
    removeHeader: (name) => {
      delete headers[name.toLowerCase()];
    },
  };
  // Helmet's middleware only calls setHeader and removeHeader on the response it is given.
  const middleware = helmet(helmetOptions(consoleDir)) as unknown as (
    req: object,
    res: HeaderSink,
    next: (error?: unknown) => void,
  ) => void;
  middleware({}, sink, (error) => {
    if (error) throw error;
  });
  headers['permissions-policy'] = PERMISSIONS_POLICY;
  return headers;
}

/**
 * The headers of a JSON API answer (OWASP's REST guidance): a browser never renders one as a page, so
 * it gets a policy that allows nothing at all, and none of the page-only headers (opener and
 * agent-cluster isolation, DNS prefetch, IE's download and XSS-filter switches). API answers carry
 * tokens, secrets and personal data, so no browser or proxy keeps them either. Half the bytes of
 * the page headers on every API call.
 */
export function apiSecurityHeaders(pageHeaders: Record<string, string>): Record<string, string> {
  const keep = [
    'cross-origin-resource-policy',
    'referrer-policy',
    'x-content-type-options',
    'x-frame-options',
    'x-permitted-cross-domain-policies',
    'permissions-policy',
  ];
  return {
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    ...Object.fromEntries(keep.flatMap((name) => (pageHeaders[name] ? [[name, pageHeaders[name]]] : []))),
    'cache-control': 'no-store',
  };
}

/** Whether a path gets the API's headers. /api/docs is a page (Swagger UI): it gets the page policy. */
function isApiPath(url: string): boolean {
  return (url === '/api' || url.startsWith('/api/') || url.startsWith('/api?')) && !url.startsWith('/api/docs');
}

/** Header lines (`name: value` and CRLF), each checked once by Node's own validators. */
function headerBlock(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => {
      http.validateHeaderName(name);
      http.validateHeaderValue(name, value);
      return `${name}: ${value}\r\n`;
    })
    .join('');
}

/** Whether the headers an answer is written with name a cache-control: an object (any case) or Node's array forms. */
function namesCacheControl(headers: unknown): boolean {
  const isCacheControl = (name: unknown) =>
    typeof name === 'string' && name.length === 13 && name.toLowerCase() === 'cache-control';
  if (Array.isArray(headers)) {
    return headers.some((entry: unknown, index) =>
      Array.isArray(entry) ? isCacheControl(entry[0]) : index % 2 === 0 && isCacheControl(entry),
    );
  }
  if (!headers || typeof headers !== 'object') return false;
  for (const name in headers) if (isCacheControl(name)) return true;
  return false;
}

/** The method every HTTP/1 answer's head is built by: the status line and the headers it is given. */
type HeadStore = { _storeHeader(this: http.ServerResponse<http.IncomingMessage>, firstLine: string, headers: unknown): void };
const storeHead = (http.ServerResponse.prototype as unknown as HeadStore)._storeHeader;

/**
 * The server's response class (Fastify's `http` option): every answer's head starts with the
 * security headers, pre-validated once. They are the same on every answer, and setting them one by
 * one (Fastify's reply object, then Node's per-header name and value checks in writeHead) cost
 * 0.3 us each on Node 20: 8 headers were 13% of a cached GET /api/user/me. Node builds an answer's
 * head in `_storeHeader(statusLine, headers)` (the same in Node 20, 22 and 24); the block goes
 * right after the status line. Answers written straight on the socket (the client-error handler)
 * do not pass here. API answers are not cached unless their route says how (SSE streams,
 * console assets).
 */
export function secureResponseClass(options: { consoleDir: string | undefined }) {
  const pageHeaders = securityHeaders(options.consoleDir);
  const { 'cache-control': apiCacheControl = 'no-store', ...apiHeaders } = apiSecurityHeaders(pageHeaders);
  const pageBlock = headerBlock(pageHeaders);
  const apiBlock = headerBlock(apiHeaders);
  const apiBlockNotCached = apiBlock + headerBlock({ 'cache-control': apiCacheControl });
  return class SecureResponse<Request extends http.IncomingMessage = http.IncomingMessage> extends http.ServerResponse<Request> {
    _storeHeader(firstLine: string, headers: unknown): void {
      const block = !isApiPath(this.req.url ?? '/') ? pageBlock : namesCacheControl(headers) ? apiBlock : apiBlockNotCached;
      storeHead.call(this, firstLine + block, headers);
    }
  };
}

/**
 * The first onRequest hook, for every answer: forwarded headers are checked before anything reads
 * a client address (the HSTS decision below reads the scheme). The security headers themselves
 * come with every answer's head (secureResponseClass).
 */
export function registerSecurity(app: App) {
  app.addHook('onRequest', (request, reply, done) => {
    sanitiseForwardedHeaders(request);
    if (request.protocol === 'https') hsts(request.raw, reply.raw, () => undefined);
    done();
  });
}

/**
 * Forwarded headers are honoured only from a trusted proxy, and then only when they parse: an
 * X-Forwarded-For entry that is not an IP (markup, 5,000 characters) must never become a client
 * address. Entries are read right to left, as the proxy chain appends them; the first one that
 * does not parse cuts the chain there (nothing to its left can be trusted either).
 */
function sanitiseForwardedHeaders(request: FastifyRequest) {
  const headers = request.raw.headers;
  const forwardedFor = headers['x-forwarded-for'];
  if (forwardedFor !== undefined) {
    const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',').map((e) => e.trim());
    const kept: string[] = [];
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i] ?? '';
      if (!net.isIP(entry)) break;
      kept.unshift(entry);
    }
    if (kept.length > 0) headers['x-forwarded-for'] = kept.join(', ');
    else delete headers['x-forwarded-for'];
  }
  const proto = headers['x-forwarded-proto'];
  if (proto !== undefined && !/^(https?)(\s*,\s*https?)*$/i.test(String(proto))) delete headers['x-forwarded-proto'];
  const host = headers['x-forwarded-host'];
  if (host !== undefined && !/^[a-z0-9.-]{1,253}(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/i.test(String(host))) {
    delete headers['x-forwarded-host'];
  }
}

/** The origins this platform is served from: the request's own, the configured external URL and PUBLIC_URL. */
function ownOrigins(request: FastifyRequest, configured: (string | null | undefined)[]): Set<string> {
  const origins = new Set<string>([`${request.protocol}://${request.host}`.toLowerCase()]);
  for (const url of configured) {
    if (!url) continue;
    try {
      origins.add(new URL(url).origin.toLowerCase());
    } catch {
      // a malformed setting cannot name an origin
    }
  }
  return origins;
}

/**
 * A browser request that changes something must come from the platform's own pages. Apps deployed
 * under the platform's base domain are "same site", so SameSite=Lax cookies alone do not stop them:
 * Origin (or, without it, Sec-Fetch-Site) must name this origin. Requests without either header
 * come from programs (curl, the CLI), which a malicious page cannot make send the user's cookie.
 * Returns why the request is refused, or undefined.
 */
export function crossSiteRefusal(request: FastifyRequest, configuredOrigins: (string | null | undefined)[]): string | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (ownOrigins(request, configuredOrigins).has(origin.toLowerCase())) return undefined;
    return `Cross-site request refused: ${origin.slice(0, 100)} is not this platform's origin`;
  }
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return `Cross-site request refused (Sec-Fetch-Site: ${site})`;
  return undefined;
}
