import { createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { closedAfterEachTest, deadPort, request, route } from './helpers';

/** The embedded edge forwarding to real upstream servers: streaming, forwarded headers, failures (routing.test.ts runs with both drivers). */
const { upstream, edge, named } = closedAfterEachTest();

describe('forwarded headers', () => {
  it('overwrites what the client claims and drops hop-by-hop headers, both ways', async () => {
    const app = await upstream((req, res) => {
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.setHeader('X-Custom-Case', 'yes');
      res.setHeader('keep-alive', 'timeout=77');
      res.setHeader('connection', 'keep-alive, x-drop');
      res.setHeader('x-drop', 'for the edge only');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ headers: req.headers, raw: req.rawHeaders }));
    });
    const proxy = await edge([route('a.test', [app.upstream])]);
    const answer = await request(proxy.port, {
      host: 'a.test',
      headers: {
        'x-forwarded-for': '1.2.3.4',
        'X-Forwarded-Proto': 'https',
        'x-forwarded-host': 'evil.test',
        'x-forwarded-port': '443',
        'x-real-ip': '1.2.3.4',
        forwarded: 'for=1.2.3.4;proto=https',
        connection: 'keep-alive, x-secret',
        'x-secret': 'only for the edge',
        'proxy-authorization': 'Basic abc',
        'x-kept': 'kept',
      },
    });
    const { headers, raw } = JSON.parse(answer.body) as { headers: http.IncomingHttpHeaders; raw: string[] };
    expect(headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(headers['x-real-ip']).toBe('127.0.0.1');
    expect(headers['x-forwarded-proto']).toBe('http');
    expect(headers['x-forwarded-host']).toBe('a.test');
    expect(headers.host).toBe('a.test');
    expect(headers['x-kept']).toBe('kept');
    for (const gone of ['forwarded', 'x-forwarded-port', 'x-secret', 'proxy-authorization'])
      expect(headers[gone]).toBeUndefined();
    // Set once, by the edge: not a list the client started.
    expect(raw.filter((name) => name.toLowerCase() === 'x-forwarded-for')).toHaveLength(1);
    expect(raw.join('\n')).not.toContain('1.2.3.4');
    expect(answer.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(answer.headers['x-custom-case']).toBe('yes');
    expect(answer.headers['keep-alive']).not.toBe('timeout=77');
    expect(answer.headers['x-drop']).toBeUndefined();
  });
});

describe('streaming', () => {
  it('passes a response on as it comes (a chunked answer arrives chunk by chunk)', async () => {
    let clientGotFirst: () => void = () => undefined;
    const gotFirst = new Promise<void>((resolve) => {
      clientGotFirst = resolve;
    });
    const app = await upstream(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      // The second chunk is only written once the client holds the first: a buffering proxy never gets there.
      await gotFirst;
      res.end('data: second\n\n');
    });
    const proxy = await edge([route('a.test', [app.upstream])]);
    const chunks = await new Promise<string[]>((resolve, reject) => {
      http
        .get({ port: proxy.port, host: '127.0.0.1', headers: { host: 'a.test' }, agent: false }, (res) => {
          const seen: string[] = [];
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            seen.push(chunk);
            clientGotFirst();
          });
          res.on('end', () => resolve(seen));
        })
        .on('error', reject);
    });
    expect(chunks[0]).toBe('data: first\n\n');
    expect(chunks.join('')).toBe('data: first\n\ndata: second\n\n');
  });

  it('passes a request body on as it comes', async () => {
    let appGotFirst: () => void = () => undefined;
    const gotFirst = new Promise<void>((resolve) => {
      appGotFirst = resolve;
    });
    const app = await upstream((req, res) => {
      const parts: string[] = [];
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        parts.push(chunk);
        appGotFirst();
      });
      req.on('end', () => res.end(parts.join('|')));
    });
    const proxy = await edge([route('a.test', [app.upstream])]);
    const answer = await new Promise<string>((resolve, reject) => {
      const req = http.request(
        { port: proxy.port, host: '127.0.0.1', method: 'POST', headers: { host: 'a.test' }, agent: false },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            body += chunk;
          });
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
      req.flushHeaders();
      req.write('one');
      // The rest only once the app holds the first part: a proxy that waits for the whole body never gets it.
      void gotFirst.then(() => req.end('two'));
    });
    expect(answer.replace(/\|/g, '')).toBe('onetwo');
    expect(answer.startsWith('one')).toBe(true);
  });

  it('carries large bodies both ways intact', async () => {
    const app = await upstream((req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      req.pipe(res);
    });
    const proxy = await edge([route('a.test', [app.upstream])]);
    const body = Buffer.alloc(8 * 1024 * 1024);
    for (let i = 0; i < body.length; i += 4) body.writeUInt32LE((i * 2654435761) >>> 0, i);
    const digest = await new Promise<string>((resolve, reject) => {
      const req = http.request(
        { port: proxy.port, host: '127.0.0.1', method: 'PUT', headers: { host: 'a.test' }, agent: false },
        (res) => {
          const hash = createHash('sha256');
          res.on('data', (chunk: Buffer) => hash.update(chunk));
          res.on('end', () => resolve(hash.digest('hex')));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(digest).toBe(createHash('sha256').update(body).digest('hex'));
  });

  it('holds the app back while the client reads slowly (nothing piles up in the edge), and passes all of it on', async () => {
    const total = 64 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 7);
    let written = 0;
    const app = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total) });
      const more = () => {
        while (written < total) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    });
    const proxy = await edge([route('a.test', [app.upstream])]);
    const received = await new Promise<number>((resolve, reject) => {
      http
        .get({ port: proxy.port, host: '127.0.0.1', headers: { host: 'a.test' }, agent: false }, (res) => {
          let bytes = 0;
          res.on('data', (data: Buffer) => {
            bytes += data.length;
          });
          res.on('end', () => resolve(bytes));
          res.pause();
          // While the client reads nothing, the app gets no further than what the sockets' buffers hold.
          setTimeout(() => {
            try {
              expect(written).toBeLessThan(total / 4);
              res.resume();
            } catch (error) {
              reject(error);
            }
          }, 500);
        })
        .on('error', reject);
    });
    expect(received).toBe(total);
  });

  it('passes the final answer on after an informational 103 from the app', async () => {
    const app = await upstream((_req, res) => {
      res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('after the hints');
    });
    const proxy = await edge([route('a.test', [app.upstream])]);
    const response = await request(proxy.port, { host: 'a.test' });
    expect(response.status).toBe(200);
    expect(response.body).toBe('after the hints');
  });

  it('answers Expect: 100-continue itself and HEAD without a body', async () => {
    const app = await upstream((req, res) => {
      let length = 0;
      req.on('data', (chunk: Buffer) => {
        length += chunk.length;
      });
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain', 'x-expect': String(req.headers.expect) });
        res.end(`${req.method} ${length}`);
      });
    });
    const proxy = await edge([route('a.test', [app.upstream])]);
    const answer = await new Promise<{ status: number; body: string; expect: unknown }>((resolve, reject) => {
      const req = http.request({
        port: proxy.port,
        host: '127.0.0.1',
        method: 'POST',
        headers: { host: 'a.test', expect: '100-continue', 'content-length': '5' },
        agent: false,
      });
      req.on('continue', () => req.end('hello'));
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, expect: res.headers['x-expect'] }));
      });
      req.on('error', reject);
    });
    expect(answer).toEqual({ status: 200, body: 'POST 5', expect: 'undefined' });
    const head = await request(proxy.port, { host: 'a.test', method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-type']).toBe('text/plain');
  });

  it('keeps the client connection usable when the app answers without reading the body', async () => {
    const app = await upstream((req, res) => {
      if (req.method === 'POST') {
        res.writeHead(413, { 'content-type': 'text/plain' });
        res.end('too large');
        return;
      }
      res.end('fine');
    });
    const proxy = await edge([route('a.test', [app.upstream])]);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await request(proxy.port, { host: 'a.test', method: 'POST', body: Buffer.alloc(2 * 1024 * 1024), agent });
      expect(refused.status).toBe(413);
      expect(await request(proxy.port, { host: 'a.test', agent })).toMatchObject({ status: 200, body: 'fine' });
    } finally {
      agent.destroy();
    }
  });

  it('ends the request to the app when the client goes away', async () => {
    let appSawClose: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => {
      appSawClose = resolve;
    });
    let arrived: () => void = () => undefined;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const app = await upstream((_req, res) => {
      res.writeHead(200);
      res.write('working');
      res.on('close', appSawClose);
      arrived();
    });
    const proxy = await edge([route('a.test', [app.upstream])]);
    const req = http.get({ port: proxy.port, host: '127.0.0.1', headers: { host: 'a.test' }, agent: false });
    req.on('error', () => undefined);
    await requestArrived;
    req.destroy();
    const started = Date.now();
    await closed;
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('when the app fails', () => {
  it('answers 502 "app is down" at once when nothing listens, and 504 when the app does not answer', async () => {
    const silent = await upstream(() => undefined);
    const proxy = await edge(
      [route('dead.test', [{ kind: 'tcp', host: '127.0.0.1', port: await deadPort() }]), route('slow.test', [silent.upstream])],
      { headersMs: 300 },
    );
    let started = Date.now();
    const dead = await request(proxy.port, { host: 'dead.test' });
    expect(dead.status).toBe(502);
    expect(dead.body).toContain('The app at dead.test is down');
    expect(Date.now() - started).toBeLessThan(1000);
    const json = await request(proxy.port, {
      host: 'dead.test',
      method: 'POST',
      body: 'x',
      headers: { accept: 'application/json' },
    });
    expect(json.status).toBe(502);
    expect(JSON.parse(json.body)).toMatchObject({ detail: 'The app at dead.test is down', host: 'dead.test' });
    started = Date.now();
    const slow = await request(proxy.port, { host: 'slow.test' });
    expect(slow.status).toBe(504);
    expect(slow.body).toContain('did not answer in time');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('sends a request to the next upstream when one refuses the connection', async () => {
    const alive = await named('alive');
    const proxy = await edge([route('a.test', [{ kind: 'tcp', host: '127.0.0.1', port: await deadPort() }, alive.upstream])]);
    for (let i = 0; i < 4; i++) {
      const answer = await request(proxy.port, { host: 'a.test', method: 'POST', body: 'x' });
      expect(answer.status).toBe(200);
      expect(answer.body).toBe('alive /');
    }
  });

  it('sends a request again when the app closed the reused keep-alive connection it went out on', async () => {
    // The keep-alive race, made certain: the app resets every connection at its second request, as
    // a server does that closes an idle connection just as the next request arrives.
    const seen: string[] = [];
    const app = await upstream((req, res) => {
      const socket = req.socket as net.Socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      seen.push(`${req.method} #${socket.served}`);
      if (socket.served > 1) {
        socket.resetAndDestroy();
        return;
      }
      const parts: Buffer[] = [];
      req.on('data', (chunk: Buffer) => parts.push(chunk));
      req.on('end', () => res.end(`${req.method} ${Buffer.concat(parts).toString()}`));
    });
    const proxy = await edge([route('a.test', [app.upstream])]);
    for (let i = 0; i < 3; i++) {
      expect(await request(proxy.port, { host: 'a.test' })).toMatchObject({ status: 200, body: 'GET ' });
      // Not idempotent, but it never reached the app: sent again, body and all.
      expect(await request(proxy.port, { host: 'a.test', method: 'POST', body: `form ${i}` })).toMatchObject({
        status: 200,
        body: `POST form ${i}`,
      });
    }
    expect(seen.filter((line) => line.endsWith('#2')).length).toBeGreaterThan(0);
  });

  it('never sends a POST twice that a fresh connection lost, but tries a GET once more', async () => {
    const seen: string[] = [];
    const app = await upstream((req) => {
      seen.push(req.method ?? '');
      req.on('data', () => undefined);
      req.on('end', () => (req.socket as net.Socket).resetAndDestroy());
    });
    const proxy = await edge([route('a.test', [app.upstream])]);
    const post = await request(proxy.port, { host: 'a.test', method: 'POST', body: 'charge the card' });
    expect(post.status).toBe(502);
    expect(seen).toEqual(['POST']);
    seen.length = 0;
    const get = await request(proxy.port, { host: 'a.test' });
    expect(get.status).toBe(502);
    expect(seen).toEqual(['GET', 'GET']);
  });

  it('cuts the answer (rather than ending it as if whole) when the app dies in the middle of it', async () => {
    const app = await upstream((req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
      setTimeout(() => (req.socket as net.Socket).resetAndDestroy(), 20);
    });
    const proxy = await edge([route('a.test', [app.upstream])]);
    await expect(request(proxy.port, { host: 'a.test' })).rejects.toThrow();
  });
});

describe("the app's answers as bytes", () => {
  /** An app that answers each request head with the bytes `answer` gives for its first line, then closes if asked. */
  async function rawApp(answer: (head: string) => { bytes: string; end?: boolean }) {
    const server = net.createServer((socket) => {
      let head = '';
      socket.on('data', (data: Buffer) => {
        head += data.toString('latin1');
        while (head.includes('\r\n\r\n')) {
          const end = head.indexOf('\r\n\r\n') + 4;
          const reply = answer(head.slice(0, end));
          head = head.slice(end);
          socket.write(reply.bytes);
          if (reply.end) socket.end();
        }
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    return { server, upstream: { kind: 'tcp' as const, host: '127.0.0.1', port } };
  }

  it('reads a body that runs to the close, a head of many headers, trailers, and sends an empty POST with its length', async () => {
    const many = Array.from({ length: 40 }, (_, i) => `x-header-${i}: value ${i}\r\n`).join('');
    const app = await rawApp((head) => {
      if (head.startsWith('GET /close '))
        return { bytes: 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the end', end: true };
      if (head.startsWith('GET /trailer '))
        return {
          bytes:
            'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ntrailer: x-checksum\r\n\r\n2\r\nok\r\n0\r\nx-checksum: abc\r\n\r\n',
        };
      if (head.startsWith('GET /many ')) return { bytes: `HTTP/1.1 200 OK\r\n${many}content-length: 2\r\n\r\nok` };
      const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 'none';
      return { bytes: `HTTP/1.1 200 OK\r\ncontent-length: ${length.length}\r\n\r\n${length}` };
    });
    try {
      const proxy = await edge([route('a.test', [app.upstream])]);
      expect(await request(proxy.port, { host: 'a.test', path: '/close' })).toMatchObject({ status: 200, body: 'until the end' });
      const long = await request(proxy.port, { host: 'a.test', path: '/many' });
      expect(long).toMatchObject({ status: 200, body: 'ok' });
      for (let i = 0; i < 40; i++) expect(long.headers[`x-header-${i}`]).toBe(`value ${i}`);
      expect(await request(proxy.port, { host: 'a.test', method: 'POST', path: '/empty' })).toMatchObject({
        status: 200,
        body: '0',
      });
      // Trailers after a chunked body are dropped, and never become headers of the next answer on that connection.
      expect(await request(proxy.port, { host: 'a.test', path: '/trailer' })).toMatchObject({ status: 200, body: 'ok' });
      const next = await request(proxy.port, { host: 'a.test', path: '/after' });
      expect(next.status).toBe(200);
      expect(next.headers['x-checksum']).toBeUndefined();
    } finally {
      app.server.close();
    }
  });

  it('answers 502 for an answer that is not HTTP, and for an answer nobody asked for', async () => {
    const app = await rawApp((head) =>
      head.startsWith('GET /junk ')
        ? { bytes: 'this is not an HTTP answer\r\n\r\n', end: true }
        : // Two answers to one request: the second must not reach the next request on this connection.
          { bytes: 'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nfirstHTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nsecond' },
    );
    try {
      const proxy = await edge([route('a.test', [app.upstream])]);
      let connections = 0;
      app.server.on('connection', () => connections++);
      expect((await request(proxy.port, { host: 'a.test', path: '/junk' })).status).toBe(502);
      for (let i = 0; i < 3; i++)
        expect(await request(proxy.port, { host: 'a.test', path: '/twice' })).toMatchObject({ status: 200, body: 'first' });
      // Each connection that carried a second answer was closed, never used again.
      expect(connections).toBe(4);
    } finally {
      app.server.close();
    }
  });
});

describe('the edge itself', () => {
  it('answers its identity only to a request with the instance id', async () => {
    const proxy = await edge([]);
    const identity = await request(proxy.port, {
      host: 'x',
      path: '/.launchbay/edge',
      headers: { 'x-launchbay-edge-instance': 'test-instance' },
    });
    expect(JSON.parse(identity.body)).toMatchObject({ instanceId: 'test-instance' });
    expect((await request(proxy.port, { host: 'x', path: '/.launchbay/edge' })).status).toBe(404);
  });
});
