import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { RouteUpstream } from '@launchbay/edge-protocol';
import { upstreamRequestHeaders } from './headers';
import { sendPageOnSocket, timeoutPage, unreachablePage } from './pages';
import type { UpstreamTimeouts } from './upstreams';

/** An app's answer to a handshake longer than this is not an answer the edge passes on. */
const MAX_RESPONSE_HEAD = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * The app's answer to the handshake, up to the end of its headers. Only a 101 turns the connection
 * into a tunnel; any other answer is passed on with `connection: close` and nothing more of the
 * client's goes to the app, so no later request on that connection could reach the app without
 * the edge's forwarded headers.
 */
function parseHead(head: Buffer): { status: number; contentLength: number | null; chunked: boolean; text: string } | null {
  const text = head.toString('latin1');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
  if (!status) return null;
  const length = /\r\ncontent-length:[ \t]*(\d+)[ \t]*\r\n/i.exec(text)?.[1];
  const chunked = /\r\ntransfer-encoding:[^\r]*chunked/i.test(text);
  return { status: Number(status), contentLength: length === undefined || chunked ? null : Number(length), chunked, text };
}

/**
 * Finds where a chunked body ends, fed the body as it streams: answers how many bytes of `data`
 * belong to the body once its last chunk and trailers are in, else null (more to come).
 */
function chunkedEnd(): (data: Buffer) => number | null {
  let state: 'size' | 'data' | 'trailer' | 'done' = 'size';
  let line = '';
  let remaining = 0;
  return (data) => {
    for (let i = 0; i < data.length; i++) {
      if (state === 'data') {
        const take = Math.min(remaining, data.length - i);
        remaining -= take;
        i += take - 1;
        if (remaining === 0) state = 'size';
        continue;
      }
      const byte = data[i] as number;
      if (byte !== 0x0a) {
        if (byte !== 0x0d) line += String.fromCharCode(byte);
        continue;
      }
      if (state === 'size') {
        const size = Number.parseInt(line.split(';')[0] ?? '', 16);
        line = '';
        if (Number.isNaN(size)) return i + 1; // not chunked after all: stop here
        if (size === 0) state = 'trailer';
        else {
          state = 'data';
          remaining = size + 2; // the chunk and its CRLF
        }
      } else if (line === '') {
        state = 'done';
        return i + 1;
      } else line = '';
    }
    return null;
  };
}

/** A non-101 answer's head as the client gets it: the connection ends with this answer. */
function closingHead(text: string): string {
  const lines = text.slice(0, -4).split('\r\n');
  const kept = lines.filter((line, i) => i === 0 || !/^(connection|keep-alive|upgrade)\s*:/i.test(line));
  return `${[...kept, 'connection: close'].join('\r\n')}\r\n\r\n`;
}

/**
 * An upgrade request (a WebSocket): a connection of its own to the app, the handshake written as
 * the client sent it (with the edge's forwarded headers), then, once the app agreed (101), bytes
 * both ways until either side closes, which closes the other. Until the app has answered, a
 * failure gets a page, as any request.
 */
export function proxyUpgrade(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  host: string,
  upstream: RouteUpstream,
  timeouts: UpstreamTimeouts,
  /** Filled with the status the client got (101 once the app agreed), for the request's log row. */
  outcome: { status: number } = { status: 101 },
): void {
  const app =
    upstream.kind === 'tcp'
      ? net.connect({ host: upstream.host, port: upstream.port })
      : net.connect({ path: upstream.socketPath });
  let answered = false;
  let failed = false;
  let received: Buffer = Buffer.alloc(0);

  /** Before the app answered: a page for the client, as for any request. */
  const fail = (page: 'unreachable' | 'timeout') => {
    clearTimeout(timer);
    if (failed || answered) return;
    failed = true;
    app.destroy();
    outcome.status = page === 'timeout' ? timeoutPage(host).status : unreachablePage(host).status;
    sendPageOnSocket(req, client, page === 'timeout' ? timeoutPage(host) : unreachablePage(host));
  };
  /** A reset on either side: the other one is cut too. */
  const cut = () => {
    clearTimeout(timer);
    app.destroy();
    client.destroy();
  };
  let timer = setTimeout(() => fail('timeout'), timeouts.connectMs);

  const onAnswer = (chunk: Buffer) => {
    received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
    const end = received.indexOf(HEAD_END);
    if (end === -1) {
      if (received.length > MAX_RESPONSE_HEAD) fail('unreachable');
      return;
    }
    const parsed = parseHead(received.subarray(0, end + 4));
    if (!parsed) return fail('unreachable');
    app.off('data', onAnswer);
    answered = true;
    outcome.status = parsed.status;
    clearTimeout(timer);
    const rest = received.subarray(end + 4);
    if (parsed.status === 101) {
      client.write(received);
      // What the client sent after its handshake, held until now: it is for the new protocol only.
      if (head.length > 0) app.write(head);
      app.pipe(client, { end: false });
      // The client's end of the conversation ends the app's (a WebSocket close frame still goes first).
      client.pipe(app);
      return;
    }
    // Refused (or answered as plain HTTP): this answer, then the connection ends.
    client.write(closingHead(parsed.text));
    const noBody = parsed.status < 200 || parsed.status === 204 || parsed.status === 304 || req.method === 'HEAD';
    let remaining = noBody ? 0 : parsed.contentLength;
    const endOfChunks = !noBody && parsed.chunked ? chunkedEnd() : null;
    const finish = () => {
      app.off('data', forward);
      app.destroy();
      client.end();
    };
    const forward = (data: Buffer) => {
      if (endOfChunks) {
        const end = endOfChunks(data);
        client.write(end === null ? data : data.subarray(0, end));
        if (end !== null) finish();
        return;
      }
      // Neither a length nor chunks: the answer ends when the app closes.
      if (remaining === null) return void client.write(data);
      const part = data.subarray(0, remaining);
      remaining -= part.length;
      if (part.length > 0) client.write(part);
      if (remaining === 0) finish();
    };
    app.on('data', forward);
    if (rest.length > 0 || remaining === 0) forward(rest);
  };

  app.once('connect', () => {
    clearTimeout(timer);
    timer = setTimeout(() => fail('timeout'), timeouts.headersMs);
    app.setNoDelay(true);
    const headers = upstreamRequestHeaders(req, true);
    let text = `${req.method} ${req.url} HTTP/1.1\r\n`;
    for (let i = 0; i < headers.length; i += 2) text += `${headers[i]}: ${headers[i + 1]}\r\n`;
    app.write(`${text}\r\n`, 'latin1');
  });
  app.on('data', onAnswer);

  app.on('end', () => (answered ? client.end() : fail('unreachable')));
  app.on('error', () => (answered ? cut() : fail('unreachable')));
  app.on('close', () => {
    if (!answered) return fail('unreachable');
    // Whatever the app sent still reaches the client, then its socket goes.
    const socket = client as net.Socket;
    if (typeof socket.destroySoon === 'function') socket.destroySoon();
    else client.end();
  });
  client.on('error', cut);
  client.on('close', () => {
    clearTimeout(timer);
    if (answered) app.destroySoon();
    else app.destroy();
  });
}
