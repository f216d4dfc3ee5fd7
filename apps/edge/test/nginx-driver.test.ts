import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
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

/** A certificate file's SHA-256 fingerprint, as the route table lists it. */
const fingerprintOf = (certFile: string) =>
  new X509Certificate(fs.readFileSync(certFile)).fingerprint256.replaceAll(':', '').toLowerCase();

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

  it('keeps connections to the app alive: many requests, each on a new client connection, reach the app over a few', async () => {
    let connections = 0;
    let requests = 0;
    const app = await startUpstream((_req, res) => {
      requests++;
      res.end('kept alive');
    });
    app.server.on('connection', () => connections++);
    cleanups.push(app.close);
    const proxy = await startEdge([route('kept-alive.test', [app.upstream])]);
    cleanups.push(proxy.close);
    const nginx = proxy.nginx;
    if (!nginx) throw new Error('runs with EDGE_TEST_DRIVER=nginx');
    // The app's upstream block asks nginx to keep idle connections to it.
    const config = fs.readFileSync(nginx.paths.config, 'utf8');
    expect(config).toMatch(
      new RegExp(`upstream launchbay_upstream_\\d+ \\{\\s*server 127\\.0\\.0\\.1:${app.port};[^}]*keepalive \\d+;`),
    );

    const sent = 50;
    for (let i = 0; i < sent; i++) {
      // agent: false, so every request is a new connection to nginx: only nginx can have reused one to the app.
      const answer = await request(proxy.port, { host: 'kept-alive.test', path: `/${i}` });
      expect(answer.body).toBe('kept alive');
    }
    expect(requests).toBe(sent);
    // One worker (the test edge's nginx) and sequential requests: one connection serves them all.
    expect(connections).toBeGreaterThanOrEqual(1);
    expect(connections).toBeLessThanOrEqual(2);
  });

  it('serves a route to an upstream named by host name through the edge behind nginx: a name that does not resolve blocks no other change', async () => {
    const before = await startUpstream((_req, res) => res.end('before'));
    cleanups.push(before.close);
    const after = await startUpstream((_req, res) => res.end('after'));
    cleanups.push(after.close);
    const named = await startUpstream((_req, res) => res.end('named'));
    cleanups.push(named.close);
    const proxy = await startEdge([route('app.test', [before.upstream])]);
    cleanups.push(proxy.close);
    const nginx = proxy.nginx;
    if (!nginx) throw new Error('runs with EDGE_TEST_DRIVER=nginx');
    expect((await request(proxy.port, { host: 'app.test' })).body).toBe('before');

    // nginx would resolve a name once, at load, and refuse the whole configuration for one that does not
    // resolve (`.invalid` never does): such upstreams go to the edge process, which resolves per request.
    await proxy.setRoutes([
      route('app.test', [after.upstream]),
      route('gone.test', [{ kind: 'tcp', host: 'backend.invalid', port: 8080 }]),
      route('named.test', [{ kind: 'tcp', host: 'localhost', port: named.port }]),
    ]);
    expect(nginx.error).toBeNull();
    expect(nginx.servedVersion).toBe(proxy.routes.table.version);
    const config = fs.readFileSync(nginx.paths.config, 'utf8');
    expect(config).not.toContain('backend.invalid');
    expect(config).not.toContain('server localhost');
    expect((await request(proxy.port, { host: 'app.test' })).body).toBe('after');
    expect((await request(proxy.port, { host: 'named.test' })).body).toBe('named');
    expect((await request(proxy.port, { host: 'gone.test' })).status).toBe(502);
  });

  it('never loads a configuration nginx refuses: the last good one keeps serving, the reason is reported, and the next good one loads', async () => {
    const before = await startUpstream((_req, res) => res.end('before'));
    cleanups.push(before.close);
    const after = await startUpstream((_req, res) => res.end('after'));
    cleanups.push(after.close);
    const proxy = await startEdge([route('app.test', [before.upstream])], {}, { tls: true });
    cleanups.push(proxy.close);
    const nginx = proxy.nginx;
    if (!nginx) throw new Error('runs with EDGE_TEST_DRIVER=nginx');
    expect((await request(proxy.port, { host: 'app.test' })).body).toBe('before');
    const served = nginx.servedVersion;
    const goodConfig = fs.readFileSync(nginx.paths.config, 'utf8');

    // A certificate with a 1024-bit RSA key: a valid PEM pair the edge reads, which nginx's OpenSSL
    // (security level 2) refuses when it checks the configuration. Along with it, app.test moves to another app.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-nginx-weak-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const certFile = path.join(dir, 'weak.pem');
    const keyFile = path.join(dir, 'weak.key');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:1024',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '2',
        '-subj',
        '/CN=weak.test',
      ],
      { stdio: 'pipe' },
    );
    const refused = proxy.setTable({
      routes: [route('app.test', [after.upstream]), route('weak.test', [after.upstream])],
      certificates: [{ names: ['weak.test'], certFile, keyFile, fingerprint: fingerprintOf(certFile) }],
    });
    for (let i = 0; i < 200 && nginx.error === null; i++) await sleep(25);
    // The reason, as the identity answer reports it to the platform (driverError).
    expect(nginx.error).toMatch(/key too small/);
    // The refused configuration was written aside and checked, never put in place nor loaded.
    expect(fs.readFileSync(nginx.paths.next, 'utf8')).toContain(certFile);
    expect(fs.readFileSync(nginx.paths.config, 'utf8')).toBe(goodConfig);
    // nginx still serves the last good configuration (straight to the app app.test had: the edge behind
    // nginx, which has the new table, would answer "after"), and the edge does not report the new table served.
    for (let i = 0; i < 5; i++) expect((await request(proxy.port, { host: 'app.test' })).body).toBe('before');
    expect(nginx.servedVersion).toBe(served);
    expect(proxy.routes.table.version).toBeGreaterThan(served);

    // The next table nginx takes is loaded, the reason cleared, and the refused table counts as passed.
    await proxy.setRoutes([route('app.test', [after.upstream])]);
    await refused;
    expect(nginx.error).toBeNull();
    expect(nginx.servedVersion).toBe(proxy.routes.table.version);
    expect((await request(proxy.port, { host: 'app.test' })).body).toBe('after');
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
