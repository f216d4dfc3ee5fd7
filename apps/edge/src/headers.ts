import type { IncomingMessage } from 'node:http';

/**
 * Headers that describe one connection, not the message (RFC 9110 7.6.1): never passed on, either
 * way. `proxy-authorization` is meant for this proxy, `expect` is answered by the edge itself
 * (Node sends the 100 Continue), `http2-settings` belongs to an h2c upgrade the edge does not do.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'http2-settings',
]);

/**
 * What the client says about where a request came from is not believed: these are removed and
 * the edge's own forwarded headers set instead (overwritten, never appended to).
 */
const CLIENT_FORWARDING = new Set([
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-forwarded-port',
  'x-real-ip',
  // What nginx tells the edge behind it (nginx/render.ts): never from a client, never for an app.
  'x-launchbay-edge-scheme',
  'x-launchbay-edge-page',
  'x-launchbay-edge-client',
]);

/** Set on a request nginx handed to the edge behind it: the client and scheme nginx saw. */
export const SEEN_BY_NGINX = Symbol('seenByNginx');
type SeenByNginx = IncomingMessage & { [SEEN_BY_NGINX]?: { client: string; encrypted: boolean } };

export function markSeenByNginx(req: IncomingMessage, client: string, encrypted: boolean): void {
  (req as SeenByNginx)[SEEN_BY_NGINX] = { client, encrypted };
}

/** Header names a Connection header lists as hop-by-hop for this message, beyond the fixed ones. */
function connectionTokens(value: string | undefined): Set<string> | null {
  if (!value) return null;
  let tokens: Set<string> | null = null;
  for (const part of value.split(',')) {
    const token = part.trim().toLowerCase();
    if (!token || token === 'close' || token === 'keep-alive' || token === 'upgrade') continue;
    tokens ??= new Set();
    tokens.add(token);
  }
  return tokens;
}

/** The client's address as the app should see it: IPv4 clients without the `::ffff:` of a dual-stack socket. */
export function clientAddress(req: IncomingMessage): string {
  const seen = (req as SeenByNginx)[SEEN_BY_NGINX];
  if (seen) return seen.client;
  const address = req.socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/**
 * The request headers the app gets, as a flat [name, value, ...] list in the client's order and
 * case: hop-by-hop and client-sent forwarding headers dropped, then X-Forwarded-For (the client's
 * address), X-Forwarded-Proto, X-Forwarded-Host (the Host the client asked for) and X-Real-IP set
 * by the edge. The Host header goes through unchanged.
 */
export function upstreamRequestHeaders(req: IncomingMessage, forUpgrade: boolean): string[] {
  const raw = req.rawHeaders;
  const listed = connectionTokens(req.headers.connection);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || CLIENT_FORWARDING.has(lower) || listed?.has(lower)) continue;
    out.push(name, raw[i + 1] as string);
  }
  if (forUpgrade) out.push('Connection', 'Upgrade', 'Upgrade', req.headers.upgrade ?? '');
  const client = clientAddress(req);
  out.push(
    'X-Forwarded-For',
    client,
    'X-Forwarded-Proto',
    ((req as SeenByNginx)[SEEN_BY_NGINX]?.encrypted ?? (req.socket as { encrypted?: boolean }).encrypted) ? 'https' : 'http',
    'X-Forwarded-Host',
    req.headers.host ?? '',
    'X-Real-IP',
    client,
  );
  return out;
}

/** The app's response headers for the client, as a flat list: hop-by-hop ones dropped, the rest as they came. */
export function clientResponseHeaders(raw: readonly string[]): string[] {
  // One pass; names a Connection header lists go in a second pass, rarely needed.
  let listed: Set<string> | null = null;
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) {
      if (lower === 'connection') listed = connectionTokens(raw[i + 1]);
      continue;
    }
    out.push(name, raw[i + 1] as string);
  }
  if (!listed) return out;
  const kept: string[] = [];
  for (let i = 0; i < out.length; i += 2) {
    if (!listed.has((out[i] as string).toLowerCase())) kept.push(out[i] as string, out[i + 1] as string);
  }
  return kept;
}
