import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import {
  DEFAULT_NOTIFICATION_PREFERENCES,
  type Domain,
  type DomainOrder,
  type HttpChallengeDebug,
  type ProxyLogList,
} from '@launchbay/contract';
import { freePort, type Pebble, startPebble } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wakeQueue } from '../../src/jobs';
import { dnsWatchQueue, lookForTxtRecord, renewDueCertificates } from '../../src/modules/domains/jobs';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { getThroughEdge } from '../helpers/edge';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/**
 * Certificates from a real ACME server (Pebble, with its DNS answering 127.0.0.1 for every name):
 * the full order flow with HTTP-01 validation really reaching the edge, DNS-01 for a wildcard,
 * HTTPS through the edge verified against Pebble's root, renewal that succeeds and one that fails.
 * The `nginx` project runs this file again with the nginx edge driver (LAUNCHBAY_TEST_EDGE_DRIVER).
 */
const EDGE_DRIVER = process.env.LAUNCHBAY_TEST_EDGE_DRIVER === 'nginx' ? 'nginx' : 'embedded';

let platform: TestPlatform;
let api: Api;
let admin: string;
let pebble: Pebble;
let app: http.Server;
let appPort: number;
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-domains-'));
const caFile = path.join(workDir, 'pebble-listener.pem');
const DOMAIN = 'secure.example.test';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await read();
    if (value !== undefined) return value;
    await sleep(250);
  }
  // What the certificate jobs said, for a failure in CI.
  const jobs = await platform.ctx.pool.query(
    "SELECT j.id, j.status, j.last_error, (SELECT string_agg(message, ' | ') FROM job_logs l WHERE l.job_id = j.id) AS log FROM jobs j WHERE queue = 'domains.certificate' ORDER BY id",
  );
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(jobs.rows)}`);
}

const getDomain = async (ref: string | number) => (await api.call<Domain>('GET', `/domains/${ref}`, { token: admin })).body;

/** An HTTPS request through the edge's TLS port for a name, trusting only `ca`. */
function httpsThroughEdge(
  serverName: string,
  ca: string,
): Promise<{ status: number; body: string; protocol: string; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: platform.ctx.edge.tlsPort() ?? 0, servername: serverName, ca });
    socket.once('secureConnect', () => {
      const fingerprint = socket.getPeerX509Certificate()?.fingerprint256.replaceAll(':', '').toLowerCase() ?? '';
      const protocol = socket.getProtocol() ?? '';
      socket.write(`GET / HTTP/1.1\r\nhost: ${serverName}\r\nconnection: close\r\n\r\n`);
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('end', () => {
        const status = Number(text.slice(9, 12));
        resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4), protocol, fingerprint });
      });
    });
    socket.once('error', reject);
  });
}

beforeAll(async () => {
  app = http.createServer((_req, res) => res.end('served over https'));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appPort = (app.address() as AddressInfo).port;
  const proxyPort = await freePort();
  const dnsPort = await freePort();
  platform = await startTestPlatform({
    PROXY_PORT: String(proxyPort),
    ACME_CA_FILE: caFile,
    ACME_HTTP_PORT: String(proxyPort),
    DNS_SERVERS: `127.0.0.1:${dnsPort}`,
  });
  // Certificates valid 30 days: inside the 60-day renewal window set below.
  pebble = await startPebble({ httpPort: proxyPort, dnsPort, caFile, validityHours: 24 * 30 });
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  const settings = await api.call('PUT', '/settings', {
    token: admin,
    body: { acme_directory_url: pebble.directoryUrl, acme_contact_email: 'certs@example.com', edge_driver: EDGE_DRIVER },
  });
  expect(settings.status, JSON.stringify(settings.body)).toBe(200);
  expect(platform.ctx.edge.current()?.driver).toBe(EDGE_DRIVER);
  const route = await api.call('POST', '/lb/routes', {
    token: admin,
    body: { domain: DOMAIN, target: { kind: 'upstreams', upstreams: [`127.0.0.1:${appPort}`] } },
  });
  expect(route.status, JSON.stringify(route.body)).toBe(201);
}, 120_000);

afterAll(async () => {
  await platform?.close();
  await pebble?.close();
  app?.close();
  fs.rmSync(workDir, { recursive: true, force: true });
});

describe('domains and certificates', { timeout: 180_000 }, () => {
  let firstFingerprint = '';

  it('provisions a certificate through HTTP-01 answered by the edge, and serves it over HTTPS', async () => {
    const created = await api.call<Domain>('POST', '/domains', { token: admin, body: { domain: DOMAIN } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ domain: DOMAIN, is_wildcard: false, challenge_type: 'http-01', status: 'pending' });
    expect(created.body.dns_records[0]).toMatchObject({ type: 'A', name: DOMAIN });

    const provision = await api.call<Domain>('POST', `/domains/${DOMAIN}/provision`, { token: admin });
    expect(provision.status).toBe(202);
    expect(provision.body.status).toBe('provisioning'); // shown from the moment the job is queued
    const active = await until('the certificate', async () => {
      const domain = await getDomain(DOMAIN);
      if (domain.status === 'failed') throw new Error(`provisioning failed: ${domain.last_error}`);
      return domain.status === 'active' && domain.served.status ? domain : undefined;
    });
    expect(active.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(active.days_remaining).toBeGreaterThanOrEqual(29);
    expect(active.served).toMatchObject({ status: 'match', fingerprint: active.fingerprint });
    firstFingerprint = active.fingerprint as string;

    // The chain verifies against Pebble's issuing root, for this name.
    const root = await pebble.issuingRoot();
    const answer = await httpsThroughEdge(DOMAIN, root);
    expect(answer).toMatchObject({ status: 200, body: 'served over https', fingerprint: active.fingerprint });
    expect(answer.protocol).toMatch(/^TLSv1\.[23]$/);

    // Plain HTTP is redirected to HTTPS for a name with a certificate.
    const plain = await getThroughEdge(platform.ctx.edge.port(), DOMAIN, { path: '/page?x=1' });
    expect(plain.status).toBe(308);
    const redirect = await new Promise<string | undefined>((resolve, reject) =>
      http
        .get({ host: '127.0.0.1', port: platform.ctx.edge.port(), path: '/page?x=1', headers: { host: DOMAIN } }, (res) => {
          res.resume();
          resolve(res.headers.location);
        })
        .on('error', reject),
    );
    expect(redirect).toBe(`https://${DOMAIN}:${platform.ctx.edge.tlsPort()}/page?x=1`);

    // The HTTPS request is in the proxy log with its TLS version.
    const logged = await until('the HTTPS request in the proxy log', async () => {
      const list = await api.call<ProxyLogList>('GET', `/proxy-logs?host=${DOMAIN}`, { token: admin });
      return list.body.logs.find((row) => row.tls_version !== null);
    });
    expect(logged.tls_version).toBe(answer.protocol);
  });

  it('runs the order calls step by step: create, read, debug, finalize; a new certificate is served without a restart', async () => {
    // A CA may hand out an authorization that is already valid (ACME allows it; seen once in CI with
    // Pebble, despite PEBBLE_AUTHZREUSE=0): this test is about a fresh one, so it asks again until the
    // challenge is pending.
    let order = await api.call<DomainOrder>('POST', `/domains/${DOMAIN}/order`, { token: admin });
    for (let attempt = 1; attempt < 5 && order.body.challenges?.[0]?.status === 'valid'; attempt++) {
      order = await api.call<DomainOrder>('POST', `/domains/${DOMAIN}/order`, { token: admin });
    }
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const challenge = order.body.challenges[0];
    expect(challenge).toMatchObject({ type: 'http-01', identifier: DOMAIN, status: 'pending' });

    // The edge answers the token over plain HTTP (and only the token: the rest redirects).
    const token = await getThroughEdge(platform.ctx.edge.port(), DOMAIN, {
      path: `/.well-known/acme-challenge/${challenge?.token}`,
    });
    expect(token.status).toBe(200);
    expect(token.body.startsWith(`${challenge?.token}.`)).toBe(true);

    const debug = await api.call<HttpChallengeDebug>('GET', `/domains/${DOMAIN}/http-challenge-debug`, { token: admin });
    expect(debug.body.checks.map((check) => [check.name, check.ok])).toEqual([
      ['dns', true],
      ['port_80', true],
      ['token', true],
    ]);
    expect(debug.body.ready).toBe(true);

    const read = await api.call<DomainOrder>('GET', `/domains/${DOMAIN}/order`, { token: admin });
    expect(read.body.challenges[0]?.token).toBe(challenge?.token);

    const finalized = await api.call<Domain>('POST', `/domains/${DOMAIN}/order/finalize`, { token: admin });
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    expect(finalized.body.fingerprint).not.toBe(firstFingerprint);
    expect(finalized.body.order).toBeNull();
    expect(finalized.body.served.status).toBe('match');
    const answer = await httpsThroughEdge(DOMAIN, await pebble.issuingRoot());
    expect(answer.fingerprint).toBe(finalized.body.fingerprint);

    // An abandoned order goes away.
    expect((await api.call('POST', `/domains/${DOMAIN}/order`, { token: admin })).status).toBe(201);
    expect((await api.call('DELETE', `/domains/${DOMAIN}/order`, { token: admin })).status).toBe(204);
    expect((await api.call('GET', `/domains/${DOMAIN}/order`, { token: admin })).status).toBe(404);
    expect((await getDomain(DOMAIN)).status).toBe('active');
  });

  it('a wildcard is validated with DNS-01: the TXT record is checked before the CA is asked', async () => {
    const wildcard = '*.wild.example.test';
    const created = await api.call<Domain>('POST', '/domains', { token: admin, body: { domain: wildcard } });
    expect(created.body).toMatchObject({ is_wildcard: true, challenge_type: 'dns-01' });
    const order = await api.call<DomainOrder>('POST', `/domains/${created.body.id}/order`, { token: admin });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const challenge = order.body.challenges[0];
    expect(challenge).toMatchObject({ type: 'dns-01', dns_name: '_acme-challenge.wild.example.test' });
    const shown = await getDomain(created.body.id);
    expect(shown.dns_records).toContainEqual(
      expect.objectContaining({ type: 'TXT', name: '_acme-challenge.wild.example.test', value: challenge?.dns_value }),
    );

    const early = await api.call<ApiError>('POST', `/domains/${created.body.id}/order/finalize`, { token: admin });
    expect(early.status).toBe(400);
    expect(early.body.errors?.[0]?.message).toBe(
      `No TXT record _acme-challenge.wild.example.test yet: create it with the value "${challenge?.dns_value}"`,
    );

    await pebble.setTxt('_acme-challenge.wild.example.test', challenge?.dns_value ?? '');
    const finalized = await api.call<Domain>('POST', `/domains/${created.body.id}/order/finalize`, { token: admin });
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    // The edge serves it for any one name under the wildcard (SNI).
    expect(finalized.body).toMatchObject({ status: 'active', served: { status: 'match' } });
    await pebble.clearTxt('_acme-challenge.wild.example.test');
  });

  it('a provisioned wildcard gets its certificate once its TXT record shows up, and fails with the reason when its order expires first', async () => {
    const wildcard = '*.watched.example.test';
    const created = await api.call<Domain>('POST', '/domains', { token: admin, body: { domain: wildcard } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const provisioned = await api.call<Domain>('POST', `/domains/${created.body.id}/provision`, { token: admin });
    expect(provisioned.status, JSON.stringify(provisioned.body)).toBeLessThan(300);
    const waiting = await until('the TXT record to create', async () => {
      const domain = await getDomain(created.body.id);
      return domain.dns_records.some((record) => record.type === 'TXT') ? domain : undefined;
    });
    expect(waiting.status).toBe('provisioning');
    const txt = waiting.dns_records.find((record) => record.type === 'TXT');
    // It is watched by a job of its own, due in a minute; a look finds nothing to finalize yet.
    const watch = async () =>
      (
        await platform.ctx.pool.query<{ status: string; run_at: Date }>(
          "SELECT status, run_at FROM jobs WHERE queue = 'domains.dns_watch' AND singleton_key = $1 AND status IN ('pending', 'running')",
          [`domain:${created.body.id}`],
        )
      ).rows[0];
    const queued = await until('the TXT record watch', watch);
    expect(queued.status).toBe('pending');
    expect(new Date(queued.run_at).getTime()).toBeGreaterThan(Date.now() + 30_000);
    expect(await lookForTxtRecord(platform.ctx, created.body.id)).toBe('waiting');
    expect((await getDomain(created.body.id)).status).toBe('provisioning');

    // The record appears and the minute passes (the watch is made due now): the certificate comes
    // without anyone pressing finalize, and the watch ends.
    await pebble.setTxt('_acme-challenge.watched.example.test', txt?.value ?? '');
    await platform.ctx.pool.query(
      "UPDATE jobs SET run_at = now() WHERE queue = 'domains.dns_watch' AND singleton_key = $1 AND status = 'pending'",
      [`domain:${created.body.id}`],
    );
    wakeQueue(platform.ctx, dnsWatchQueue);
    // Active as soon as it is stored; what the edge serves is checked right after.
    const issued = await until('the certificate, served', async () => {
      const domain = await getDomain(created.body.id);
      return domain.status === 'active' && domain.served.status !== null ? domain : undefined;
    });
    expect(issued.served.status).toBe('match');
    expect(await watch()).toBeUndefined();
    await pebble.clearTxt('_acme-challenge.watched.example.test');

    // Another one whose record never comes: once its order has expired it says so, never "provisioning" for ever.
    const forgotten = await api.call<Domain>('POST', '/domains', { token: admin, body: { domain: '*.forgotten.example.test' } });
    await api.call('POST', `/domains/${forgotten.body.id}/provision`, { token: admin });
    await until('its order', async () =>
      (await getDomain(forgotten.body.id)).dns_records.some((record) => record.type === 'TXT') ? true : undefined,
    );
    await platform.ctx.pool.query("UPDATE domain_orders SET expires_at = now() - interval '1 minute' WHERE domain_id = $1", [
      forgotten.body.id,
    ]);
    expect(await lookForTxtRecord(platform.ctx, forgotten.body.id)).toBe('expired');
    const failed = await getDomain(forgotten.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.last_error).toMatch(
      /^The order expired on .+ before the TXT record was found \(No TXT record _acme-challenge\.forgotten\.example\.test yet: create it with the value ".+"\)\. Create the record, then provision again\.$/,
    );
  });

  it('renews by itself inside the renewal window; a renewal that fails is retried later and raises its alert', async () => {
    await api.call('PUT', '/settings', { token: admin, body: { certificate_renewal_days: 60 } });
    // Warn from 30 days before expiry (these certificates live 30 days).
    const preferences = await api.call('PUT', '/notification-preferences', {
      token: admin,
      body: { preferences: { ...DEFAULT_NOTIFICATION_PREFERENCES, ssl_days_before_expiration: 30 } },
    });
    expect(preferences.status, JSON.stringify(preferences.body)).toBe(200);
    const before = await getDomain(DOMAIN);
    await renewDueCertificates(platform.ctx);
    const renewed = await until('the renewal', async () => {
      const domain = await getDomain(DOMAIN);
      return domain.fingerprint !== before.fingerprint && domain.served.status === 'match' ? domain : undefined;
    });
    expect(renewed.renewal_failures).toBe(0);

    // The CA goes away: the renewal fails, is scheduled again with backoff, and says so.
    await api.call('PUT', '/settings', { token: admin, body: { acme_directory_url: 'https://127.0.0.1:9/dir' } });
    await renewDueCertificates(platform.ctx);
    const failed = await until('the failed renewal', async () => {
      const domain = await getDomain(DOMAIN);
      return domain.renewal_failures > 0 ? domain : undefined;
    });
    expect(failed.status).toBe('active'); // the current certificate keeps being served
    expect(failed.last_error).toContain('https://127.0.0.1:9/dir');
    const retryIn = new Date(failed.next_renewal_at ?? 0).getTime() - Date.now();
    expect(retryIn).toBeGreaterThan(50 * 60_000);
    await until('the ssl_renewal_failed alert', async () => {
      const { rows } = await platform.ctx.pool.query<{ title: string }>(
        "SELECT title FROM notifications WHERE type = 'ssl_renewal_failed' ORDER BY id",
      );
      return rows.some((row) => row.title === `Certificate renewal failed for ${DOMAIN}`) ? true : undefined;
    });
    // Not due again before its backoff: nothing new is queued. An expiring certificate whose renewal
    // fails raises ssl_expiring (from this run, or the one before when the failure came first), once a day.
    expect(await renewDueCertificates(platform.ctx)).toMatch(/^Queued 0 renewals; \d expiry alerts$/);
    const expiring = await platform.ctx.pool.query<{ title: string }>(
      "SELECT title FROM notifications WHERE type = 'ssl_expiring' ORDER BY id",
    );
    expect(expiring.rows.map((row) => row.title)).toContain(`The certificate for ${DOMAIN} expires in 29 days`);
    // Once a day: the next run raises none for it. (Counted for this domain: another of this file's
    // certificates, due too with 60 days, may see its own renewal fail meanwhile and be alerted now.)
    const alertsForDomain = async () =>
      (
        await platform.ctx.pool.query<{ count: number }>(
          "SELECT count(*)::int AS count FROM notifications WHERE type = 'ssl_expiring' AND title LIKE $1",
          [`The certificate for ${DOMAIN} expires in %`],
        )
      ).rows[0]?.count;
    const alertedBefore = await alertsForDomain();
    expect(await renewDueCertificates(platform.ctx)).toMatch(/^Queued 0 renewals; \d expiry alerts$/);
    expect(await alertsForDomain()).toBe(alertedBefore);
    await api.call('PUT', '/settings', { token: admin, body: { acme_directory_url: pebble.directoryUrl } });
  });

  it('reports a certificate the edge serves other than the stored one, never hides it', async () => {
    const before = await getDomain(DOMAIN);
    expect(before.served.status).toBe('match');
    // The stored certificate moves on without reaching the edge (as when a reload never happened):
    // the daily check finds the edge still serving the one before, and says so on the domain.
    await platform.ctx.pool.query('UPDATE domains SET fingerprint = $1 WHERE domain = $2', ['0'.repeat(64), DOMAIN]);
    await renewDueCertificates(platform.ctx);
    const stale = await getDomain(DOMAIN);
    expect(stale.served.status).toBe('mismatch');
    expect(stale.served.fingerprint).toBe(before.fingerprint);
    expect(new Date(stale.served.checked_at ?? 0).getTime()).toBeGreaterThan(new Date(before.served.checked_at ?? 0).getTime());

    await platform.ctx.pool.query('UPDATE domains SET fingerprint = $1 WHERE domain = $2', [before.fingerprint, DOMAIN]);
    await renewDueCertificates(platform.ctx);
    expect((await getDomain(DOMAIN)).served.status).toBe('match');
  });

  it('answers 400 with field errors, 401 without a session, 403 for a reader and 404 for an unknown domain', async () => {
    const bad = await api.call<ApiError>('POST', '/domains', { token: admin, body: { domain: 'not a domain' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ path: 'domain', message: 'Enter a domain such as shop.example.com or *.example.com' }]);
    const twice = await api.call<ApiError>('POST', '/domains', { token: admin, body: { domain: DOMAIN } });
    expect(twice.status).toBe(409);
    expect((await api.call('GET', '/domains')).status).toBe(401);
    expect((await api.call('POST', `/domains/${DOMAIN}/provision`)).status).toBe(401);
    const reader = await api.userWithRole(admin, 'reader');
    expect((await api.call('GET', '/domains', { token: reader.token })).status).toBe(200);
    expect((await api.call('POST', '/domains', { token: reader.token, body: { domain: 'r.example.test' } })).status).toBe(403);
    expect((await api.call('POST', `/domains/${DOMAIN}/renew`, { token: reader.token })).status).toBe(403);
    const unknown = await api.call<ApiError>('GET', '/domains/nowhere.example.test', { token: admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBe('Domain nowhere.example.test not found');
    expect((await api.call('POST', '/domains/999999/order', { token: admin })).status).toBe(404);
    const fresh = await api.call<Domain>('POST', '/domains', { token: admin, body: { domain: 'fresh.example.test' } });
    const renew = await api.call<ApiError>('POST', `/domains/${fresh.body.id}/renew`, { token: admin });
    expect(renew.status).toBe(400);
    expect(renew.body.detail).toBe('fresh.example.test has no certificate to renew yet: provision it first');
    expect((await api.call('DELETE', `/domains/${fresh.body.id}`, { token: admin })).status).toBe(204);
    expect((await api.call('GET', `/domains/${fresh.body.id}`, { token: admin })).status).toBe(404);
  });
});
