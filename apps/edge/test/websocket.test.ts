import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { route, startEdge, startUpstream } from './helpers';

/** WebSockets through the edge: the handshake passed on, then frames both ways until either side closes. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function echoApp() {
  const app = await startUpstream((_req, res) => res.end('plain http'));
  const wss = new WebSocketServer({ server: app.server });
  const handshakes: http.IncomingHttpHeaders[] = [];
  const closed: number[] = [];
  wss.on('connection', (socket, req) => {
    handshakes.push(req.headers);
    socket.on('message', (data, isBinary) => socket.send(isBinary ? data : `echo ${data.toString()}`, { binary: isBinary }));
    socket.on('close', (code) => closed.push(code));
  });
  cleanups.push(async () => {
    for (const client of wss.clients) client.terminate();
    wss.close();
    await app.close();
  });
  return { ...app, wss, handshakes, closed };
}

function open(url: string, host: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: { host, ...headers } });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

const next = (socket: WebSocket) =>
  new Promise<{ data: Buffer; isBinary: boolean }>((resolve) =>
    socket.once('message', (data, isBinary) => resolve({ data: data as Buffer, isBinary })),
  );

/** The raw answer to an upgrade request, for hosts the edge does not pass on. */
function rawUpgrade(port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(
        `GET /ws HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      ),
    );
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('websockets', () => {
  it('carries an echo conversation through the edge, text and binary, with the forwarded headers set', async () => {
    const app = await echoApp();
    const edge = await startEdge([route('ws.test', [app.upstream])]);
    cleanups.push(edge.close);
    const socket = await open(`ws://127.0.0.1:${edge.port}/chat?room=1`, 'ws.test', { 'x-forwarded-for': '1.2.3.4' });
    socket.send('hello');
    expect((await next(socket)).data.toString()).toBe('echo hello');
    const binary = Buffer.from([0, 1, 2, 255]);
    socket.send(binary);
    const back = await next(socket);
    expect(back.isBinary).toBe(true);
    expect(Buffer.compare(back.data, binary)).toBe(0);
    // Many messages, in order.
    const received: string[] = [];
    const all = new Promise<void>((resolve) =>
      socket.on('message', (data) => {
        received.push(data.toString());
        if (received.length === 200) resolve();
      }),
    );
    for (let i = 0; i < 200; i++) socket.send(String(i));
    await all;
    expect(received).toEqual(Array.from({ length: 200 }, (_, i) => `echo ${i}`));

    expect(app.handshakes[0]).toMatchObject({ host: 'ws.test', 'x-forwarded-for': '127.0.0.1', 'x-forwarded-host': 'ws.test' });
    // A clean close from the client reaches the app with its code.
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.close(4001, 'bye');
    await closed;
    for (let i = 0; i < 50 && app.closed.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(app.closed).toEqual([4001]);
  });

  it('closes the client when the app goes away', async () => {
    const app = await echoApp();
    const edge = await startEdge([route('ws.test', [app.upstream])]);
    cleanups.push(edge.close);
    const socket = await open(`ws://127.0.0.1:${edge.port}/`, 'ws.test');
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (const client of app.wss.clients) client.terminate();
    await closed;
  });

  it('passes on a refused handshake and ends the connection there: nothing more of the client reaches the app', async () => {
    const seen: string[] = [];
    const app = await startUpstream((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers['x-forwarded-for']}`);
      res.writeHead(426, { 'content-type': 'text/plain' });
      res.end('no websockets here');
    });
    cleanups.push(app.close);
    const edge = await startEdge([route('plain.test', [app.upstream])]);
    cleanups.push(edge.close);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(edge.port, '127.0.0.1', () => {
        // A second request right behind the handshake, with a forged X-Forwarded-For.
        socket.write(
          'GET /ws HTTP/1.1\r\nHost: plain.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n' +
            'GET /smuggled HTTP/1.1\r\nHost: plain.test\r\nX-Forwarded-For: 1.2.3.4\r\n\r\n',
        );
      });
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
        // And a third one once the answer is in.
        if (text.includes('no websockets here') && socket.writable)
          socket.write('GET /later HTTP/1.1\r\nHost: plain.test\r\nX-Forwarded-For: 1.2.3.4\r\n\r\n');
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 426 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('no websockets here');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toEqual(['GET /ws 127.0.0.1']);
  });

  it('answers an upgrade for an unknown host or a dead app with a page, not a hang', async () => {
    const dead = net.createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const deadPort = (dead.address() as AddressInfo).port;
    await new Promise((resolve) => dead.close(resolve));
    const edge = await startEdge([route('dead.test', [{ kind: 'tcp', host: '127.0.0.1', port: deadPort }])]);
    cleanups.push(edge.close);
    const unknown = await rawUpgrade(edge.port, 'nowhere.test');
    expect(unknown).toMatch(/^HTTP\/1\.1 404 /);
    expect(unknown).toContain('No app is deployed at nowhere.test');
    const down = await rawUpgrade(edge.port, 'dead.test');
    expect(down).toMatch(/^HTTP\/1\.1 502 /);
    expect(down).toContain('The app at dead.test is down');
  });
});
