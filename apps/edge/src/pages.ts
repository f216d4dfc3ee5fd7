import type { IncomingMessage, ServerResponse } from 'node:http';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON for API clients (they say so in Accept), a page for everyone else. */
function wantsJson(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}

function page(title: string, heading: string, text: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; font: 16px/1.5 system-ui, sans-serif; color: #18181b; background: #fafafa; }
  main { max-width: 34rem; padding: 2rem; }
  h1 { font-size: 1.5rem; margin: 0 0 .5rem; word-break: break-all; }
  p { margin: 0; color: #52525b; }
  footer { margin-top: 2rem; font-size: .8rem; color: #a1a1aa; }
  @media (prefers-color-scheme: dark) { body { color: #fafafa; background: #09090b; } p { color: #a1a1aa; } }
</style>
</head>
<body><main><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(text)}</p><footer>Launchbay</footer></main></body>
</html>
`;
}

function send(req: IncomingMessage, res: ServerResponse, status: number, json: object, html: string): void {
  const asJson = wantsJson(req);
  const body = asJson ? JSON.stringify(json) : html;
  res.writeHead(status, {
    'content-type': asJson ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // The page has no scripts, and never should.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** What an unknown host gets: the host named, so a typo or a missing DNS record is easy to see. */
export function sendNoApp(req: IncomingMessage, res: ServerResponse, host: string): void {
  const detail = `No app is deployed at ${host}`;
  send(
    req,
    res,
    404,
    { detail, host },
    page(`Not found: ${host}`, detail, 'Check the address, or add this domain to a project in Launchbay and deploy it.'),
  );
}

/** A route exists but nothing can take the request yet (the upstream proxy arrives with deployments). */
export function sendUnavailable(req: IncomingMessage, res: ServerResponse, host: string): void {
  const detail = `The app at ${host} is not reachable right now`;
  send(req, res, 502, { detail, host }, page(`Unavailable: ${host}`, detail, 'Try again in a moment.'));
}

export function sendBadRequest(req: IncomingMessage, res: ServerResponse, detail: string): void {
  send(req, res, 400, { detail }, page('Bad request', 'Bad request', detail));
}
