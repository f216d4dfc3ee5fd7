import { createHash } from 'node:crypto';
import fs from 'node:fs';
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

/**
 * The first onRequest hook, for every answer: forwarded headers are checked before anything reads
 * a client address (the HSTS decision below reads the scheme), then the security headers are set.
 */
export function registerSecurity(app: App, options: { consoleDir: string | undefined }) {
  const pageHeaders = securityHeaders(options.consoleDir);
  const apiHeaders = apiSecurityHeaders(pageHeaders);
  app.addHook('onRequest', (request, reply, done) => {
    sanitiseForwardedHeaders(request);
    const url = request.url;
    // /api/docs is a page (Swagger UI): it gets the page policy.
    const isApi = (url === '/api' || url.startsWith('/api/') || url.startsWith('/api?')) && !url.startsWith('/api/docs');
    reply.headers(isApi ? apiHeaders : pageHeaders);
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
