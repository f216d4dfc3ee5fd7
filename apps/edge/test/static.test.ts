import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Edge, request, route, startEdge } from './helpers';

/** Static build outputs served by the edge from disk: no process, safe paths, caching done right. */
let dir: string;
let root: string;
let edge: Edge;
const big = Buffer.alloc(300 * 1024);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-edge-static-'));
  root = path.join(dir, 'build');
  const write = (file: string, content: string | Buffer) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content);
  };
  write('index.html', '<h1>home</h1>');
  write('about/index.html', '<h1>about</h1>');
  write('assets/index-BX7a1f_Q.js', 'console.log(1)');
  write('assets/logo.png', 'png');
  write('style.css', 'body{}');
  write('.env', 'SECRET=1');
  write('.well-known/security.txt', 'Contact: a@b.test');
  write('empty.txt', '');
  for (let i = 0; i < big.length; i++) big[i] = i % 251;
  write('big.bin', big);
  fs.writeFileSync(path.join(dir, 'outside.txt'), 'not yours');
  fs.symlinkSync(path.join(dir, 'outside.txt'), path.join(root, 'escape.txt'));
  fs.symlinkSync('/etc', path.join(root, 'etc'));
  fs.symlinkSync('style.css', path.join(root, 'alias.css'));
  const plain = path.join(dir, 'plain');
  fs.mkdirSync(plain);
  fs.writeFileSync(path.join(plain, 'index.html'), 'plain');
  fs.writeFileSync(path.join(plain, '404.html'), '<h1>custom not found</h1>');
  edge = await startEdge([
    route('site.test', { kind: 'static', root, spaFallback: true }),
    route('plain.test', { kind: 'static', root: plain, spaFallback: false }),
    route('nofallback.test', { kind: 'static', root, spaFallback: false }),
    route('docs.test', { kind: 'static', root, spaFallback: false }, { pathPrefix: '/docs' }),
  ]);
});

afterAll(async () => {
  await edge.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const get = (pathname: string, headers: Record<string, string> = {}, host = 'site.test', method = 'GET') =>
  request(edge.port, { host, path: pathname, headers, method });

describe('static sites', () => {
  it('serves files with their type, folders with their index.html, and redirects a folder to its slash', async () => {
    const home = await get('/');
    expect(home).toMatchObject({ status: 200, body: '<h1>home</h1>' });
    expect(home.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(home.headers['cache-control']).toBe('no-cache');
    expect(home.headers.etag).toMatch(/^".+"$/);
    expect(home.headers['last-modified']).toBeDefined();
    expect((await get('/index.html')).body).toBe('<h1>home</h1>');
    const redirect = await get('/about?x=1');
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe('/about/?x=1');
    expect((await get('//about')).headers.location).toBe('/about/');
    expect(await get('/about/')).toMatchObject({ status: 200, body: '<h1>about</h1>' });
    const css = await get('/style.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await get('/empty.txt')).headers['content-length']).toBe('0');
    expect((await get('/.well-known/security.txt')).body).toBe('Contact: a@b.test');
    expect((await get('/docs/style.css', {}, 'docs.test')).body).toBe('body{}');
    expect((await get('/docs/', {}, 'docs.test')).body).toBe('<h1>home</h1>');
  });

  it('lets browsers keep hashed assets for a year and revalidate the rest', async () => {
    const hashed = await get('/assets/index-BX7a1f_Q.js');
    expect(hashed.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(hashed.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await get('/assets/logo.png')).headers['cache-control']).toBe('no-cache');
  });

  it('answers 304 to a browser that holds the file already', async () => {
    const first = await get('/style.css');
    const byTag = await get('/style.css', { 'if-none-match': first.headers.etag as string });
    expect(byTag.status).toBe(304);
    expect(byTag.body).toBe('');
    expect(byTag.headers.etag).toBe(first.headers.etag);
    expect((await get('/style.css', { 'if-none-match': `"other", W/${first.headers.etag}` })).status).toBe(304);
    expect((await get('/style.css', { 'if-none-match': '"other"' })).status).toBe(200);
    const byDate = await get('/style.css', { 'if-modified-since': first.headers['last-modified'] as string });
    expect(byDate.status).toBe(304);
    expect((await get('/style.css', { 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' })).status).toBe(200);
  });

  it('falls back to index.html for client-side routes only, and answers 404 otherwise', async () => {
    expect(await get('/settings/profile')).toMatchObject({ status: 200, body: '<h1>home</h1>' });
    const missingFile = await get('/missing.js');
    expect(missingFile.status).toBe(404);
    expect(missingFile.body).toContain('Nothing at /missing.js');
    expect((await get('/settings/profile', {}, 'nofallback.test')).status).toBe(404);
    expect(await get('/nope', {}, 'plain.test')).toMatchObject({ status: 404, body: '<h1>custom not found</h1>' });
  });

  it('refuses paths out of the folder, links out of it and dotfiles', async () => {
    for (const attempt of ['/../outside.txt', '/%2e%2e/outside.txt', '/assets/..%2f..%2foutside.txt', '/a/../../etc/passwd']) {
      const answer = await get(attempt);
      expect(answer.status, attempt).toBe(400);
      expect(answer.body).not.toContain('not yours');
    }
    expect((await get('/bad%00name')).status).toBe(400);
    expect((await get('/%E0%A4%A')).status).toBe(400);
    // Links that lead out are as if absent (the SPA fallback does not apply: they have an extension, or are refused).
    const outLink = await get('/escape.txt');
    expect(outLink.status).toBe(404);
    expect(outLink.body).not.toContain('not yours');
    const etc = await get('/etc/passwd', {}, 'nofallback.test');
    expect(etc.status).toBe(404);
    expect(etc.body).not.toContain('root:');
    // A link inside the folder is fine.
    expect((await get('/alias.css')).body).toBe('body{}');
    expect((await get('/.env')).status).toBe(404);
    expect((await get('/.env')).body).not.toContain('SECRET');
  });

  it('answers HEAD without a body, other methods with 405, and byte ranges of large files', async () => {
    const head = await get('/style.css', {}, 'site.test', 'HEAD');
    expect(head).toMatchObject({ status: 200, body: '' });
    expect(head.headers['content-length']).toBe('6');
    const post = await get('/style.css', {}, 'site.test', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    const whole = await request(edge.port, { host: 'site.test', path: '/big.bin' });
    expect(whole.status).toBe(200);
    expect(whole.headers['content-length']).toBe(String(big.length));
    const range = await new Promise<{ status: number; body: Buffer; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
      const headers = { host: 'site.test', range: 'bytes=1000-1999' };
      http
        .get({ port: edge.port, host: '127.0.0.1', path: '/big.bin', headers, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }));
        })
        .on('error', reject);
    });
    expect(range.status).toBe(206);
    expect(range.headers['content-range']).toBe(`bytes 1000-1999/${big.length}`);
    expect(Buffer.compare(range.body, big.subarray(1000, 2000))).toBe(0);
    expect((await get('/big.bin', { range: 'bytes=999999999-' })).status).toBe(416);
  });
});
