import net from 'node:net';
import type { RouteUpstream } from '@launchbay/edge-protocol';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUTS } from '../src/proxy';
import type { UpstreamConnection } from '../src/upstream-connection';
import { type UpstreamConnections, UpstreamPools } from '../src/upstreams';
import { closedAfterEachTest, request, route, sleep } from './helpers';

/** The edge's keep-alive connections to apps (upstreams.ts): reused, never queued, let go. */
const { upstream, edge } = closedAfterEachTest();

/** An app that counts the connections the edge opens to it, and which of them are still open. */
async function countingApp(handler: Parameters<typeof upstream>[0] = (_req, res) => res.end('ok')) {
  const sockets = new Set<net.Socket>();
  let opened = 0;
  const app = await upstream(handler);
  app.server.on('connection', (socket: net.Socket) => {
    opened++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return { app, opened: () => opened, open: () => sockets.size };
}

/** A GET on one connection (the handler interface forward.ts uses): the body as text. */
function get(connection: UpstreamConnection): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    connection.dispatch(
      { method: 'GET', path: '/', headers: ['host', 'a.test'], body: null },
      {
        onConnect: () => undefined,
        onHeaders: () => true,
        onData: (chunk: Buffer) => chunks.push(chunk) > 0,
        onComplete: () => resolve(Buffer.concat(chunks).toString('utf8')),
        onError: reject,
      },
    );
  });
}

/** The connections to `upstream` of a pool of the test's own (swept every `sweepMs`), closed after it. */
async function withPool(to: RouteUpstream, sweepMs: number, test: (connections: UpstreamConnections) => Promise<void>) {
  const pools = new UpstreamPools(DEFAULT_TIMEOUTS, undefined, sweepMs);
  try {
    await test(pools.get(to));
  } finally {
    pools.close();
  }
}

/** A new connection that served one request and went back idle. */
async function servedOnce(connections: UpstreamConnections): Promise<UpstreamConnection> {
  const connection = connections.take();
  expect(await get(connection)).toBe('ok');
  connections.give(connection);
  return connection;
}

/** `old` is closed, and the next request gets a new connection that works. */
async function expectReplaced(connections: UpstreamConnections, old: UpstreamConnection): Promise<void> {
  expect(old.closed).toBe(true);
  const next = connections.take();
  expect(next).not.toBe(old);
  expect(await get(next)).toBe('ok');
  connections.give(next);
}

describe('upstream connections', () => {
  it('sends one request after another on one kept-alive connection', async () => {
    const { app, opened } = await countingApp();
    const proxy = await edge([route('a.test', [app.upstream])]);
    for (let i = 0; i < 5; i++) expect(await request(proxy.port, { host: 'a.test' })).toMatchObject({ status: 200, body: 'ok' });
    expect(opened()).toBe(1);
  });

  it('never queues a request behind a streaming answer: it gets a connection of its own', async () => {
    let endStream: (() => void) | undefined;
    const { app, opened } = await countingApp((req, res) => {
      if (req.url === '/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        endStream = () => res.end('data: last\n\n');
        return;
      }
      res.end('page');
    });
    const proxy = await edge([route('a.test', [app.upstream])]);
    const stream = request(proxy.port, { host: 'a.test', path: '/events' });
    while (!endStream) await sleep(10);
    const started = Date.now();
    expect(await request(proxy.port, { host: 'a.test' })).toMatchObject({ status: 200, body: 'page' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(opened()).toBe(2);
    endStream();
    expect((await stream).body).toBe('data: first\n\ndata: last\n\n');
    // Both connections are kept: two more at once reuse them.
    await Promise.all([request(proxy.port, { host: 'a.test' }), request(proxy.port, { host: 'a.test' })]);
    expect(opened()).toBe(2);
  });

  it('closes the idle connections of an upstream the table no longer names', async () => {
    const { app, open } = await countingApp();
    const other = await countingApp();
    const proxy = await edge([route('a.test', [app.upstream])]);
    await Promise.all([1, 2, 3].map(() => request(proxy.port, { host: 'a.test' })));
    expect(open()).toBeGreaterThan(0);
    await proxy.setRoutes([route('a.test', [other.app.upstream])]);
    for (let waited = 0; open() > 0 && waited < 2000; waited += 20) await sleep(20);
    expect(open()).toBe(0);
    expect(await request(proxy.port, { host: 'a.test' })).toMatchObject({ status: 200, body: 'ok' });
    expect(other.opened()).toBe(1);
  });

  it('lets go of idle connections whose socket the app closed, and makes a new one when needed', async () => {
    // The app says it keeps idle connections 5 s, and closes this one after 50 ms of quiet all the same.
    const app = await upstream((req, res) => {
      res.end('ok');
      res.on('finish', () => setTimeout(() => req.socket.destroy(), 50));
    });
    await withPool(app.upstream, 100, async (connections) => {
      const first = await servedOnce(connections);
      // Given back and taken again at once: the same kept-alive connection.
      expect(connections.take()).toBe(first);
      connections.give(first);
      await sleep(400);
      await expectReplaced(connections, first);
    });
  });

  it("trusts an idle connection only for the app's keep-alive time less a second", async () => {
    // Keep-Alive: timeout=2 (Node's header for 2.5 s): the edge reuses it for a second, then not.
    const app = await upstream((_req, res) => res.end('ok'), { keepAliveTimeout: 2500 });
    await withPool(app.upstream, 60_000, async (connections) => {
      const first = await servedOnce(connections);
      await sleep(300);
      expect(connections.take()).toBe(first);
      connections.give(first);
      await sleep(1000);
      const next = connections.take();
      expect(next).not.toBe(first);
      expect(first.closed).toBe(true);
      expect(await get(next)).toBe('ok');
    });
  });

  it('closes a connection on which the app sends bytes while no request waits', async () => {
    const app = await upstream((req, res) => {
      res.end('ok');
      // A second answer nobody asked for, after the first.
      res.on('finish', () => setTimeout(() => req.socket.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nextra'), 20));
    });
    await withPool(app.upstream, 60_000, async (connections) => {
      const first = await servedOnce(connections);
      await sleep(200);
      await expectReplaced(connections, first);
    });
  });

  it('never reads bytes an idle connection got before its next request as the answer to that request', async () => {
    // The app's side of the connection, to write on it when the test says.
    let appSide: net.Socket | undefined;
    const server = net.createServer((socket) => {
      appSide = socket;
      socket.on('data', () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      await withPool({ kind: 'tcp', host: '127.0.0.1', port }, 60_000, async (connections) => {
        const first = await servedOnce(connections);
        // An answer nobody asked for lands on the idle connection (in the edge's socket buffer, not
        // yet read), and in the same turn of the event loop the connection is taken for a request.
        appSide?.write('HTTP/1.1 200 OK\r\ncontent-length: 8\r\n\r\npoisoned');
        const again = connections.take();
        expect(again).toBe(first);
        const answer = get(again).then(
          (body) => ({ body }),
          (error: NodeJS.ErrnoException) => ({ code: error.code }),
        );
        // The connection is closed before the request goes out: the caller sends it on a fresh one.
        expect(await answer).toEqual({ code: 'EDGE_UPSTREAM_CLOSED' });
        await expectReplaced(connections, first);
      });
    } finally {
      server.close();
    }
  });
});
