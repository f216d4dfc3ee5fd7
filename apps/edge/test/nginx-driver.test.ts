import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ProxyLogRow } from '@launchbay/edge-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { NginxAccessLog, rowFromNginxLine } from '../src/nginx/access-log';
import { renderNginxConfig } from '../src/nginx/render';
import { request, route, sleep, startEdge, startUpstream } from './helpers';

/** The nginx driver's own parts: its access log read into proxy-log rows, and what it refuses to write. */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the nginx driver', () => {
  it("reads nginx's JSON access log into proxy-log rows, and goes on where it stopped after a restart", async () => {
    const app = await startUpstream((_req, res) => res.end('hello'));
    cleanups.push(app.close);
    const proxy = await startEdge(
      [route('logged.test', [app.upstream], { projectId: 7, environmentId: 8, deploymentId: 9 })],
      {},
      {
        accessLog: true,
      },
    );
    cleanups.push(proxy.close);
    const driver = proxy.nginx;
    if (!driver) throw new Error('runs with EDGE_TEST_DRIVER=nginx');
    const rows: ProxyLogRow[] = [];
    const reader = (written: () => number) =>
      new NginxAccessLog({
        file: driver.paths.accessLog,
        positionFile: driver.paths.position,
        fallbackAddress: `127.0.0.1:${(proxy.server.address() as { port: number }).port}`,
        sink: { record: (row) => rows.push(row) },
        settled: () => ({ buffered: 0, dropped: 0, written: written() }),
        reopen: () => driver.reopenLogs(),
        log: () => undefined,
      });

    await request(proxy.port, {
      host: 'logged.test',
      path: '/shop?q=1',
      headers: { 'user-agent': 'test-agent "quoted"', referer: 'https://from.test/' },
    });
    await request(proxy.port, { host: 'nobody.test', path: '/' });
    const first = reader(() => rows.length);
    // nginx writes its log buffered (at most a second late).
    for (let i = 0; i < 100 && rows.length < 2; i++) {
      await first.poll();
      await sleep(25);
    }
    expect(rows).toHaveLength(2);
    const [served, unknown] = rows as [ProxyLogRow, ProxyLogRow];
    expect(served).toMatchObject({
      method: 'GET',
      host: 'logged.test',
      path: '/shop',
      query: 'q=1',
      status: 200,
      clientIp: '127.0.0.1',
      userAgent: 'test-agent "quoted"',
      referrer: 'https://from.test/',
      route: 'logged.test/',
      projectId: 7,
      environmentId: 8,
      deploymentId: 9,
      upstream: `127.0.0.1:${app.port}`,
      tlsVersion: null,
    });
    expect(served.bytesIn).toBeGreaterThan(40);
    expect(served.bytesOut).toBeGreaterThan(5);
    expect(Math.abs(Date.parse(served.at) - Date.now())).toBeLessThan(10_000);
    // Answered by the edge itself (its page): no route, no upstream.
    expect(unknown).toMatchObject({ host: 'nobody.test', status: 404, route: null, upstream: null, projectId: null });
    await first.poll(); // settles: the position of these two rows is kept
    await first.close();

    // A new reader (the edge restarted) starts after what was already taken.
    await request(proxy.port, { host: 'logged.test', path: '/after' });
    const second = reader(() => rows.length);
    second.start();
    for (let i = 0; i < 150 && rows.length < 3; i++) await sleep(20);
    await second.close();
    expect(rows.map((row) => row.path)).toEqual(['/shop', '/', '/after']);
  });

  it('runs one start or apply at a time, whoever asks: a start asked during an apply waits for it', async () => {
    const app = await startUpstream((_req, res) => res.end('one at a time'));
    cleanups.push(app.close);
    const proxy = await startEdge([route('first.test', [app.upstream])]);
    cleanups.push(proxy.close);
    const nginx = proxy.nginx;
    if (!nginx) throw new Error('the nginx driver did not start');
    // A change and a second start at once: both render into the same file and run `nginx -t` on it,
    // which two at a time would break ("open() failed" when one renames it under the other).
    const applied = proxy.setRoutes([route('first.test', [app.upstream]), route('second.test', [app.upstream])]);
    await sleep(40); // the change's apply is under way (the driver waits 30 ms for more changes)
    await Promise.all([nginx.start(), nginx.start(), applied]);
    expect(nginx.error).toBeNull();
    expect((await request(proxy.port, { host: 'second.test' })).body).toBe('one at a time');
  });

  it('starts nginx again when its master is killed, ending the workers it left holding the port', async () => {
    const app = await startUpstream((_req, res) => res.end('still here'));
    cleanups.push(app.close);
    const proxy = await startEdge([route('kept.test', [app.upstream])]);
    cleanups.push(proxy.close);
    const pidFile = proxy.nginx?.paths.pid ?? '';
    const master = Number(fs.readFileSync(pidFile, 'utf8'));
    process.kill(master, 'SIGKILL');
    let answer = '';
    for (let i = 0; i < 200; i++) {
      await sleep(25);
      const now = Number(fs.readFileSync(pidFile, 'utf8'));
      if (now === master) continue;
      answer = (await request(proxy.port, { host: 'kept.test' }).catch(() => ({ body: '' }))).body;
      if (answer) break;
    }
    expect(answer).toBe('still here');
    expect(Number(fs.readFileSync(pidFile, 'utf8'))).not.toBe(master);
  });

  it('reads a line that is not its format as nothing, and a retry through several upstreams as the last one', () => {
    expect(rowFromNginxLine('not json', '127.0.0.1:1')).toBeNull();
    expect(rowFromNginxLine('{"msec":"x"}', '127.0.0.1:1')).toBeNull();
    const line = JSON.stringify({
      msec: '1700000000.500',
      request_time: '0.250',
      method: 'POST',
      host: 'a.test',
      uri: '/x?',
      status: '502',
      bytes_in: '120',
      bytes_out: '300',
      client: '10.0.0.1',
      user_agent: '',
      referrer: '',
      upstream: '127.0.0.1:3001, 127.0.0.1:3002 : 127.0.0.1:9999',
      tls: 'TLSv1.3',
      route: 'a.test/',
      project: '',
      environment: '',
      deployment: '',
    });
    expect(rowFromNginxLine(line, '127.0.0.1:9999')).toMatchObject({
      at: new Date(1_700_000_000_250).toISOString(),
      durationMs: 250,
      path: '/x',
      query: null,
      status: 502,
      userAgent: null,
      upstream: '127.0.0.1:3002',
      tlsVersion: 'TLSv1.3',
      projectId: null,
    });
  });

  it('never writes a name or path nginx could read as syntax: such a host is left to the edge behind it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-nginx-render-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const text = renderNginxConfig({
      table: {
        version: 1,
        routes: [
          route('ok.test', [{ kind: 'tcp', host: '127.0.0.1', port: 3000 }]),
          route('evil.test; return 200 "x"', [{ kind: 'tcp', host: '127.0.0.1', port: 3000 }]),
          route('path.test', [{ kind: 'tcp', host: '127.0.0.1', port: 3000 }], { pathPrefix: '/a" { return 200; } #' }),
          route('upstream.test', [{ kind: 'unix', socketPath: '/tmp/a;b.sock' }]),
        ],
      },
      generation: 1,
      listenHost: '127.0.0.1',
      httpPort: 8080,
      httpsPort: null,
      fallbackPort: 9000,
      certificates: [],
      usable: () => true,
      paths: {
        prefix: dir,
        pid: `${dir}/pid`,
        errorLog: `${dir}/error.log`,
        accessLog: `${dir}/access.log`,
        temp: `${dir}/temp`,
      },
      accessLog: true,
    });
    expect(text).toContain('server_name ok.test;');
    expect(text).not.toContain('evil.test');
    expect(text).not.toContain('path.test');
    expect(text).not.toContain('a;b.sock');
    // The upstream nginx cannot name: the route goes to the edge behind nginx.
    expect(text).toMatch(/server_name upstream\.test;[\s\S]*?proxy_pass http:\/\/launchbay_fallback;/);
  });
});
