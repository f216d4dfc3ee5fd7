import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closedAfterEachTest, deadPort, request, route } from './helpers';

/**
 * What both edge drivers must do alike (this file runs with the embedded edge and with nginx):
 * route by Host and path prefix, take turns, answer pages for apps that are starting, down or
 * unreachable, and redirect one name to another.
 */
const { cleanups, upstream, edge, named } = closedAfterEachTest();

describe('routing', () => {
  it('routes by Host and by the longest path prefix, passing path and query unchanged', async () => {
    const a = await named('A');
    const b = await named('B');
    const proxy = await edge([
      route('a.test', [a.upstream]),
      route('a.test', [b.upstream], { pathPrefix: '/api' }),
      route('b.test', [b.upstream]),
    ]);
    const body = async (host: string, path: string) => (await request(proxy.port, { host, path })).body;
    expect(await body('a.test', '/x?y=1&z=%20')).toBe('A /x?y=1&z=%20');
    expect(await body('a.test', '/api')).toBe('B /api');
    expect(await body('a.test', '/api/v1?q')).toBe('B /api/v1?q');
    expect(await body('a.test', '/apix')).toBe('A /apix');
    expect(await body('A.Test:8080', '/')).toBe('A /');
    expect(await body('b.test', '/')).toBe('B /');
    const unknown = await request(proxy.port, { host: 'unknown.test' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toContain('No app is deployed at unknown.test');
  });

  it('forwards to an app listening on a unix socket', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-edge-sock-'));
    const socketPath = path.join(dir, 'app.sock');
    const server = http.createServer((req, res) => res.end(`unix ${req.url}`));
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    cleanups.push(async () => {
      await new Promise((resolve) => server.close(resolve));
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const proxy = await edge([route('sock.test', [{ kind: 'unix', socketPath }])]);
    expect(await request(proxy.port, { host: 'sock.test', path: '/hi' })).toMatchObject({ status: 200, body: 'unix /hi' });
  });

  it('takes turns between the upstreams of a route', async () => {
    const apps = await Promise.all(['one', 'two', 'three'].map(named));
    const proxy = await edge([
      route(
        'a.test',
        apps.map((app) => app.upstream),
      ),
    ]);
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) seen.push((await request(proxy.port, { host: 'a.test' })).body.split(' ')[0] as string);
    expect(seen).toEqual(['one', 'two', 'three', 'one', 'two', 'three']);
  });

  it('answers a starting or down app with a 503 page and Retry-After, without asking the app', async () => {
    let asked = 0;
    const app = await upstream((_req, res) => {
      asked++;
      res.end('ok');
    });
    const proxy = await edge([
      route('starting.test', [app.upstream], { state: 'starting' }),
      route('down.test', [app.upstream], { state: 'down' }),
    ]);
    const starting = await request(proxy.port, { host: 'starting.test' });
    expect(starting.status).toBe(503);
    expect(starting.headers['retry-after']).toBe('5');
    expect(starting.headers['content-type']).toContain('text/html');
    expect(starting.body).toContain('The app at starting.test is starting');
    const down = await request(proxy.port, { host: 'down.test', headers: { accept: 'application/json' } });
    expect(down.status).toBe(503);
    expect(down.headers['retry-after']).toBe('30');
    expect(JSON.parse(down.body)).toMatchObject({ detail: 'The app at down.test is down', state: 'down' });
    expect(asked).toBe(0);
  });
});

describe('routing changes and failures', () => {
  it('applies a route change without a restart: a new host, a new prefix, a removed host', async () => {
    const a = await named('A');
    const b = await named('B');
    const proxy = await edge([route('a.test', [a.upstream])]);
    expect((await request(proxy.port, { host: 'a.test' })).body).toBe('A /');
    await proxy.setRoutes([route('b.test', [b.upstream]), route('b.test', [a.upstream], { pathPrefix: '/old' })]);
    expect((await request(proxy.port, { host: 'b.test', path: '/x' })).body).toBe('B /x');
    expect((await request(proxy.port, { host: 'b.test', path: '/old/x' })).body).toBe('A /old/x');
    expect((await request(proxy.port, { host: 'b.test', path: '/old' })).body).toBe('A /old');
    const gone = await request(proxy.port, { host: 'a.test' });
    expect(gone.status).toBe(404);
    expect(gone.body).toContain('No app is deployed at a.test');
  });

  it('answers 502 "app is down" at once when nothing listens on the only upstream', async () => {
    const proxy = await edge([route('dead.test', [{ kind: 'tcp', host: '127.0.0.1', port: await deadPort() }])]);
    const started = performance.now();
    const answer = await request(proxy.port, { host: 'dead.test', headers: { accept: 'application/json' } });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.body)).toMatchObject({ detail: 'The app at dead.test is down' });
  });

  it('sends one name to another with a 308 that keeps the path and query (www to apex)', async () => {
    const app = await named('apex');
    const proxy = await edge([
      route('example.test', [app.upstream]),
      route('www.example.test', { kind: 'redirect', host: 'example.test' }),
    ]);
    const answer = await request(proxy.port, { host: `www.example.test:${proxy.port}`, path: '/a/b?c=1' });
    expect(answer.status).toBe(308);
    expect(answer.headers.location).toBe(`http://example.test:${proxy.port}/a/b?c=1`);
    expect((await request(proxy.port, { host: 'example.test', path: '/a/b?c=1' })).body).toBe('apex /a/b?c=1');
  });
});
