import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import type { Route, TlsCertificate } from '@launchbay/edge-protocol';
import { makeCertificate } from '@launchbay/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Edge, request, route, startEdge, startUpstream, type Upstream } from './helpers';

/**
 * HTTPS through the edge, with either driver (this file runs with the embedded edge and with
 * nginx): the certificate by name (SNI), wildcards of one label, no handshake for a name without
 * one, HTTP redirected to HTTPS while HTTP-01 answers stay on plain HTTP, and a renewed
 * certificate served from the next handshake on without a restart. The certificates are made by
 * openssl for the test, as the control plane writes real ones (PEM files, 0600).
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-edge-tls-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let made = 0;
/** A self-signed certificate for these names, as the route table lists one. */
function certificate(names: string[]): TlsCertificate & { pem: string } {
  const { certFile, keyFile, cert } = makeCertificate(names, { dir, name: `cert-${++made}` });
  const fingerprint = new X509Certificate(cert).fingerprint256.replaceAll(':', '').toLowerCase();
  return { names, certFile, keyFile, fingerprint, pem: cert };
}

type Secure = { status: number; body: string; fingerprint: string; protocol: string | null };

/** An HTTPS request for `name` (SNI and Host), trusting only `ca`. */
function secureRequest(port: number, name: string, ca: string, requestPath = '/'): Promise<Secure> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port, servername: name, path: requestPath, headers: { host: name }, ca, agent: false },
      (res) => {
        const socket = res.socket as TLSSocket;
        const fingerprint = socket.getPeerCertificate().fingerprint256.replaceAll(':', '').toLowerCase();
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, fingerprint, protocol: socket.getProtocol() }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function app(name: string): Promise<Upstream> {
  const started = await startUpstream((req, res) => res.end(`${name} ${req.headers['x-forwarded-proto']} ${req.url}`));
  cleanups.push(started.close);
  return started;
}

async function edge(routes: Route[]): Promise<Edge> {
  const started = await startEdge(routes, {}, { tls: true });
  cleanups.push(started.close);
  return started;
}

describe('HTTPS through the edge', () => {
  it('serves each name its certificate (SNI), a wildcard for one label, and no handshake to a name without one', async () => {
    const shop = await app('shop');
    const blog = await app('blog');
    const exact = certificate(['shop.test']);
    const wildcard = certificate(['*.blog.test']);
    const proxy = await edge([]);
    await proxy.setTable({
      routes: [route('shop.test', [shop.upstream]), route('a.blog.test', [blog.upstream])],
      certificates: [exact, wildcard],
    });
    const port = proxy.tlsPort as number;

    const first = await secureRequest(port, 'shop.test', exact.pem, '/x?y=1');
    expect(first).toMatchObject({ status: 200, body: 'shop https /x?y=1', fingerprint: exact.fingerprint });
    expect(first.protocol).toMatch(/^TLSv1\.[23]$/);
    expect(await secureRequest(port, 'a.blog.test', wildcard.pem)).toMatchObject({
      body: 'blog https /',
      fingerprint: wildcard.fingerprint,
    });
    // Covered by the wildcard but routed nowhere: a handshake, then the edge's own page.
    const unrouted = await secureRequest(port, 'b.blog.test', wildcard.pem);
    expect(unrouted.status).toBe(404);
    expect(unrouted.body).toContain('No app is deployed at b.blog.test');
    // Two labels deep is not covered, and a name without a certificate gets no handshake at all.
    await expect(secureRequest(port, 'x.a.blog.test', wildcard.pem)).rejects.toThrow();
    await expect(secureRequest(port, 'other.test', exact.pem)).rejects.toThrow();
  });

  it('redirects plain HTTP to HTTPS for a name with a certificate, and answers HTTP-01 tokens over plain HTTP still', async () => {
    const shop = await app('shop');
    const cert = certificate(['shop.test']);
    const proxy = await edge([]);
    await proxy.setTable({
      routes: [route('shop.test', [shop.upstream], { redirectToHttps: true }), route('plain.test', [shop.upstream])],
      certificates: [cert],
      challenges: [{ token: 'tok_123-abc', keyAuthorization: 'tok_123-abc.thumbprint' }],
    });
    const moved = await request(proxy.port, { host: 'shop.test', path: '/cart?id=7' });
    expect(moved.status).toBe(308);
    expect(moved.headers.location).toBe(`https://shop.test:${proxy.tlsPort}/cart?id=7`);
    const token = await request(proxy.port, { host: 'shop.test', path: '/.well-known/acme-challenge/tok_123-abc' });
    expect(token).toMatchObject({ status: 200, body: 'tok_123-abc.thumbprint' });
    // A name without a certificate stays on plain HTTP.
    expect((await request(proxy.port, { host: 'plain.test', path: '/p' })).body).toBe('shop http /p');
    expect((await secureRequest(proxy.tlsPort as number, 'shop.test', cert.pem, '/cart')).body).toBe('shop https /cart');
  });

  it('serves a renewed certificate from the next handshake on, without a restart', async () => {
    const shop = await app('shop');
    const old = certificate(['shop.test']);
    const renewed = certificate(['shop.test']);
    const proxy = await edge([]);
    const routes = [route('shop.test', [shop.upstream])];
    await proxy.setTable({ routes, certificates: [old] });
    expect((await secureRequest(proxy.tlsPort as number, 'shop.test', old.pem)).fingerprint).toBe(old.fingerprint);
    await proxy.setTable({ routes, certificates: [renewed] });
    expect((await secureRequest(proxy.tlsPort as number, 'shop.test', renewed.pem)).fingerprint).toBe(renewed.fingerprint);
  });
});
