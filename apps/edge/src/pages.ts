import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * The edge's own answers: a clear page (or JSON for API clients), never a hang or an empty reply.
 * Each names the host, so a typo, a missing DNS record or a stopped app is easy to tell apart.
 */
export type Page = {
  status: number;
  json: Record<string, unknown>;
  title: string;
  heading: string;
  text: string;
  /** Seconds; also a meta refresh, so a browser tab waiting for an app that is starting comes back by itself. */
  retryAfter?: number;
  refresh?: boolean;
  headers?: Record<string, string>;
};

const STARTING_RETRY_S = 5;
const DOWN_RETRY_S = 30;
const UNREACHABLE_RETRY_S = 5;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON for API clients (they say so in Accept), a page for everyone else. */
function wantsJson(accept: string | undefined): boolean {
  return accept?.includes('application/json') === true && !accept.includes('text/html');
}

function html(page: Page): string {
  const refresh = page.refresh && page.retryAfter ? `\n<meta http-equiv="refresh" content="${page.retryAfter}">` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">${refresh}
<title>${escapeHtml(page.title)}</title>
<style>
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; font: 16px/1.5 system-ui, sans-serif; color: #18181b; background: #fafafa; }
  main { max-width: 34rem; padding: 2rem; }
  h1 { font-size: 1.5rem; margin: 0 0 .5rem; word-break: break-all; }
  p { margin: 0; color: #52525b; }
  footer { margin-top: 2rem; font-size: .8rem; color: #a1a1aa; }
  @media (prefers-color-scheme: dark) { body { color: #fafafa; background: #09090b; } p { color: #a1a1aa; } }
</style>
</head>
<body><main><h1>${escapeHtml(page.heading)}</h1><p>${escapeHtml(page.text)}</p><footer>Launchbay</footer></main></body>
</html>
`;
}

function render(page: Page, accept: string | undefined): { headers: Record<string, string | number>; body: string } {
  const asJson = wantsJson(accept);
  const body = asJson ? JSON.stringify(page.json) : html(page);
  const headers: Record<string, string | number> = {
    'content-type': asJson ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // The page has no scripts, and never should.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    ...page.headers,
  };
  if (page.retryAfter) headers['retry-after'] = page.retryAfter;
  return { headers, body };
}

export function sendPage(req: IncomingMessage, res: ServerResponse, page: Page): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const { headers, body } = render(page, req.headers.accept);
  res.writeHead(page.status, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** The same page on a bare socket: the answer to an upgrade (WebSocket) request the edge cannot pass on. */
export function sendPageOnSocket(req: IncomingMessage, socket: Duplex, page: Page): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const { headers, body } = render(page, req.headers.accept);
  const lines = [`HTTP/1.1 ${page.status} ${reasons[page.status] ?? 'Error'}`, 'connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

const reasons: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** What an unknown host gets: the host named, so a typo or a missing DNS record is easy to see. */
export function noAppPage(host: string): Page {
  const detail = `No app is deployed at ${host}`;
  return {
    status: 404,
    json: { detail, host },
    title: `Not found: ${host}`,
    heading: detail,
    text: 'Check the address, or add this domain to a project in Launchbay and deploy it.',
  };
}

/** The route exists, its first deployment is not serving yet. */
export function startingPage(host: string): Page {
  const detail = `The app at ${host} is starting`;
  return {
    status: 503,
    json: { detail, host, state: 'starting' },
    title: `Starting: ${host}`,
    heading: detail,
    text: 'It will answer in a moment; this page tries again by itself.',
    retryAfter: STARTING_RETRY_S,
    refresh: true,
  };
}

/** The route exists, the app is stopped or crashed (the control plane says so). */
export function downPage(host: string): Page {
  const detail = `The app at ${host} is down`;
  return {
    status: 503,
    json: { detail, host, state: 'down' },
    title: `Down: ${host}`,
    heading: detail,
    text: 'It is stopped or has crashed. If it is yours, open it in Launchbay to see its logs and start it again.',
    retryAfter: DOWN_RETRY_S,
  };
}

/** The route is live but its app refused or cut the connection before answering. */
export function unreachablePage(host: string): Page {
  const detail = `The app at ${host} is down`;
  return {
    status: 502,
    json: { detail, host, state: 'unreachable' },
    title: `Down: ${host}`,
    heading: detail,
    text: 'It did not take the request (the connection was refused or cut). Try again in a moment; if it is yours, check its logs in Launchbay.',
    retryAfter: UNREACHABLE_RETRY_S,
  };
}

export function timeoutPage(host: string): Page {
  const detail = `The app at ${host} did not answer in time`;
  return {
    status: 504,
    json: { detail, host },
    title: `Timeout: ${host}`,
    heading: detail,
    text: 'It took the request but sent no answer. Try again; if it is yours, check its logs in Launchbay.',
  };
}

/** A static site has no file at this path. */
export function notFoundPage(host: string, path: string): Page {
  const detail = `Nothing at ${path}`;
  return {
    status: 404,
    json: { detail, host, path },
    title: `Not found: ${host}${path}`,
    heading: detail,
    text: `${host} has no page at this address.`,
  };
}

export function methodNotAllowedPage(allow: string): Page {
  const detail = `Only ${allow} requests are answered here`;
  return {
    status: 405,
    json: { detail },
    title: 'Method not allowed',
    heading: 'Method not allowed',
    text: detail,
    headers: { allow },
  };
}

export function badRequestPage(detail: string): Page {
  return { status: 400, json: { detail }, title: 'Bad request', heading: 'Bad request', text: detail };
}

export function sendNoApp(req: IncomingMessage, res: ServerResponse, host: string): void {
  sendPage(req, res, noAppPage(host));
}

export function sendBadRequest(req: IncomingMessage, res: ServerResponse, detail: string): void {
  sendPage(req, res, badRequestPage(detail));
}
