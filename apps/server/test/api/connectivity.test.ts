import http from 'node:http';
import type { Connectivity, DnsCheck } from '@launchbay/contract';
import { freePort, type Pebble, startPebble } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/**
 * External connectivity against real DNS (Pebble's DNS stand-in answers 127.0.0.1 for every name)
 * and real sockets: PUBLIC_IP=127.0.0.1 plays the public address of this machine.
 */

let platform: TestPlatform;
let api: Api;
let admin: string;
let pebble: Pebble;
let port80: http.Server | undefined;
let dnsPort: number;

beforeAll(async () => {
  dnsPort = await freePort();
  pebble = await startPebble({ httpPort: 80, dnsPort });
  platform = await startTestPlatform({ PUBLIC_IP: '127.0.0.1', DNS_SERVERS: `127.0.0.1:${dnsPort}` });
  // Something answers on port 80 of the "public" address (tests run as root; a machine where port 80
  // is already taken has a listener there anyway).
  port80 = http.createServer((_req, res) => res.end('port 80'));
  await new Promise<void>((resolve) => {
    port80?.once('error', () => {
      port80 = undefined;
      resolve();
    });
    port80?.listen(80, '127.0.0.1', resolve);
  });
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
}, 60_000);
afterAll(async () => {
  await platform?.close();
  await pebble?.close();
  port80?.close();
});

describe('external connectivity', () => {
  it('shows the public IP, whether ports 80 and 443 answer on it, and the records for the base domain', async () => {
    const before = await api.call<Connectivity>('GET', '/platform/connectivity', { token: admin });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({
      access_mode: 'local',
      public_ip: { ip: '127.0.0.1', source: 'configuration (PUBLIC_IP)' },
      base_domain: null,
      dns_records: [],
    });
    const http80 = before.body.ports.find((p) => p.port === 80);
    expect(http80?.edge_port).toBe(platform.ctx.edge.port());
    expect(http80).toMatchObject({ reachable: true });
    expect(http80?.detail).toBe(
      `127.0.0.1:80 answers (tried from this machine). The edge listens on ${platform.ctx.edge.port()} here: forward 80 to it, or set PROXY_PORT=80.`,
    );

    await api.call('PUT', '/settings', { token: admin, body: { base_domain: 'apps.example.test' } });
    const after = await api.call<Connectivity>('GET', '/platform/connectivity', { token: admin });
    expect(after.body.dns_records).toEqual([
      { type: 'A', name: 'apps.example.test', value: '127.0.0.1', purpose: 'The platform itself' },
      { type: 'A', name: '*.apps.example.test', value: '127.0.0.1', purpose: 'Every app and preview address under it' },
    ]);
  });

  it('reports port 443 as reachable when the edge listens there for HTTPS (PROXY_TLS_PORT=443)', {
    timeout: 60_000,
  }, async () => {
    const onHttps = await startTestPlatform({
      PUBLIC_IP: '127.0.0.1',
      DNS_SERVERS: `127.0.0.1:${dnsPort}`,
      PROXY_TLS_PORT: '443',
    });
    try {
      expect(onHttps.ctx.edge.tlsPort()).toBe(443);
      const api443 = apiClient(onHttps.url);
      const token = await api443.login(ADMIN_EMAIL, ADMIN_PASSWORD);
      const response = await api443.call<Connectivity>('GET', '/platform/connectivity', { token });
      expect(response.status).toBe(200);
      // The edge is on the port itself: nothing to forward.
      expect(response.body.ports.find((p) => p.port === 443)).toEqual({
        port: 443,
        purpose: 'HTTPS',
        edge_port: 443,
        reachable: true,
        detail: '127.0.0.1:443 answers (tried from this machine).',
      });
    } finally {
      await onHttps.close();
    }
  });

  it('reports a port nothing listens on as not reachable, and what to do about it', async () => {
    // This platform's edge takes HTTPS on a free port of its own, so 127.0.0.1:443 has no listener.
    const tlsPort = platform.ctx.edge.tlsPort();
    expect(tlsPort).not.toBe(443);
    const local = await api.call<Connectivity>('GET', '/platform/connectivity', { token: admin });
    expect(local.body.ports.find((p) => p.port === 443)).toEqual({
      port: 443,
      purpose: 'HTTPS',
      edge_port: tlsPort,
      reachable: false,
      detail: `127.0.0.1:443: connection refused (nothing listens there). The edge listens on ${tlsPort} here: forward 443 to it, or set PROXY_TLS_PORT=443.`,
    });

    // Behind NAT the answer says the router has to forward the port (and loop it back for the check).
    const nat = await api.call('PUT', '/settings', { token: admin, body: { access_mode: 'nat' } });
    expect(nat.status, JSON.stringify(nat.body)).toBe(200);
    try {
      const behindNat = await api.call<Connectivity>('GET', '/platform/connectivity', { token: admin });
      expect(behindNat.body.access_mode).toBe('nat');
      expect(behindNat.body.ports.find((p) => p.port === 443)).toMatchObject({
        reachable: false,
        detail: `127.0.0.1:443: connection refused (nothing listens there). Behind NAT the router must forward the port (and loop it back for this check). The edge listens on ${tlsPort} here: forward 443 to it, or set PROXY_TLS_PORT=443.`,
      });
      // Port 80 has its listener: reachable whatever the access mode.
      expect(behindNat.body.ports.find((p) => p.port === 80)?.reachable).toBe(true);
    } finally {
      await api.call('PUT', '/settings', { token: admin, body: { access_mode: 'local' } });
    }
  });

  it('checks a record by really resolving it, a wildcard through a random name under it', async () => {
    const exact = await api.call<DnsCheck>('GET', '/platform/connectivity/dns-check?name=apps.example.test', { token: admin });
    expect(exact.body).toMatchObject({
      name: 'apps.example.test',
      addresses: ['127.0.0.1'],
      ok: true,
      detail: 'apps.example.test points to this server (127.0.0.1)',
    });
    const wildcard = await api.call<DnsCheck>(
      'GET',
      `/platform/connectivity/dns-check?name=${encodeURIComponent('*.apps.example.test')}`,
      {
        token: admin,
      },
    );
    expect(wildcard.body.ok).toBe(true);
    expect(wildcard.body.resolved_name).toMatch(/^launchbay-check-[0-9a-f]{8}\.apps\.example\.test$/);
  });

  it('answers 400 for a name that is not one and 401 without a session', async () => {
    const bad = await api.call<ApiError>('GET', '/platform/connectivity/dns-check?name=not%20a%20name', { token: admin });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ path: 'querystring.name', message: 'Enter a name such as apps.example.com' }]);
    expect((await api.call('GET', '/platform/connectivity')).status).toBe(401);
    const reader = await api.userWithRole(admin, 'reader');
    expect((await api.call('GET', '/platform/connectivity', { token: reader.token })).status).toBe(200);
  });
});
