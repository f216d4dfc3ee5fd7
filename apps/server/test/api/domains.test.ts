import type { ChildProcess } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
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
import { freePort, type Pebble, spawnChallengeDns, startPebble } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wakeQueue } from '../../src/jobs';
import { createSecretBox } from '../../src/lib/crypto';
import { publishRoutes } from '../../src/modules/deployments/edge-routes';
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
): Promise<{ status: number; body: string; protocol: string; fingerprint: string; serial: string }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port: platform.ctx.edge.tlsPort() ?? 0, servername: serverName, ca });
    socket.once('secureConnect', () => {
      const peer = socket.getPeerX509Certificate();
      const fingerprint = peer?.fingerprint256.replaceAll(':', '').toLowerCase() ?? '';
      const serial = peer?.serialNumber ?? '';
      const protocol = socket.getProtocol() ?? '';
      socket.write(`GET / HTTP/1.1\r\nhost: ${serverName}\r\nconnection: close\r\n\r\n`);
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('end', () => {
        const status = Number(text.slice(9, 12));
        resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4), protocol, fingerprint, serial });
      });
    });
    socket.once('error', reject);
  });
}

/** Whether a certificate job (provision or renewal) for the domain is queued or running. */
async function certificateJobActive(domainId: number): Promise<boolean> {
  const { rows } = await platform.ctx.pool.query(
    "SELECT 1 FROM jobs WHERE queue = 'domains.certificate' AND singleton_key = $1 AND status IN ('pending', 'running')",
    [`domain:${domainId}`],
  );
  return rows.length > 0;
}

/**
 * The processes holding the TCP socket that listens on a port (found through /proc: the embedded
 * edge, or nginx's master and workers), to make the edge stop answering without it being replaced.
 */
function listenersOn(port: number): number[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = fs.existsSync(table) ? fs.readFileSync(table, 'utf8').trim().split('\n').slice(1) : [];
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A' && fields[9]) inodes.add(`socket:[${fields[9]}]`);
    }
  }
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue; // gone meanwhile
    }
    const holds = fds.some((fd) => {
      try {
        return inodes.has(fs.readlinkSync(`/proc/${entry}/fd/${fd}`));
      } catch {
        return false;
      }
    });
    if (holds) pids.push(Number(entry));
  }
  return pids;
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

    // Encrypted at rest: the database holds the certificate, its key and the ACME account's key sealed.
    const stored = await platform.ctx.pool.query<{ certificate_sealed: string; key_sealed: string; account_key_sealed: string }>(
      `SELECT d.certificate_sealed, d.key_sealed, a.key_sealed AS account_key_sealed
         FROM domains d, acme_accounts a WHERE d.domain = $1`,
      [DOMAIN],
    );
    const sealed = stored.rows[0];
    if (!sealed) throw new Error('no stored certificate or ACME account');
    for (const value of Object.values(sealed)) expect(value).not.toMatch(/BEGIN|PRIVATE|CERTIFICATE/);
    const certificatePem = platform.ctx.box.open(sealed.certificate_sealed);
    expect(new X509Certificate(certificatePem).fingerprint256.replaceAll(':', '').toLowerCase()).toBe(active.fingerprint);
    expect(platform.ctx.box.open(sealed.key_sealed)).toContain('PRIVATE KEY-----');
    expect(platform.ctx.box.open(sealed.account_key_sealed)).toContain('PRIVATE KEY-----');

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

  it('renews on request: POST /renew gets a new certificate from the CA, and the edge serves it', async () => {
    const before = await getDomain(DOMAIN);
    expect(before).toMatchObject({ status: 'active', served: { status: 'match' } });
    const root = await pebble.issuingRoot();
    const servedBefore = await httpsThroughEdge(DOMAIN, root);
    expect(servedBefore.fingerprint).toBe(before.fingerprint);
    // A certificate issued in a later second than the current one: its validity ends later too.
    await sleep(1100);

    const renew = await api.call<Domain>('POST', `/domains/${DOMAIN}/renew`, { token: admin });
    expect(renew.status, JSON.stringify(renew.body)).toBe(202);
    expect(renew.body.fingerprint).toBe(before.fingerprint); // queued: the current one until the new one is stored
    const renewed = await until('the renewed certificate, served', async () => {
      const domain = await getDomain(DOMAIN);
      if (domain.renewal_failures > 0) throw new Error(`the renewal failed: ${domain.last_error}`);
      return domain.fingerprint !== before.fingerprint && domain.served.status !== null ? domain : undefined;
    });
    expect(renewed).toMatchObject({
      status: 'active',
      renewal_failures: 0,
      last_error: null,
      next_renewal_at: null,
      order: null,
    });
    expect(renewed.served).toMatchObject({ status: 'match', fingerprint: renewed.fingerprint });
    expect(new Date(renewed.issued_at ?? 0).getTime()).toBeGreaterThan(new Date(before.issued_at ?? 0).getTime());
    expect(new Date(renewed.expires_at ?? 0).getTime()).toBeGreaterThan(new Date(before.expires_at ?? 0).getTime());
    expect(renewed.days_remaining).toBeGreaterThanOrEqual(29);

    // The edge's handshake presents the new certificate (another serial), chained to Pebble's root.
    const servedAfter = await httpsThroughEdge(DOMAIN, root);
    expect(servedAfter).toMatchObject({ status: 200, body: 'served over https', fingerprint: renewed.fingerprint });
    expect(servedAfter.serial).toMatch(/^[0-9A-F]+$/);
    expect(servedAfter.serial).not.toBe(servedBefore.serial);
    // The renewal job says what it did.
    const { rows } = await platform.ctx.pool.query<{ log: string }>(
      "SELECT string_agg(l.message, ' | ' ORDER BY l.id) AS log FROM jobs j JOIN job_logs l ON l.job_id = j.id WHERE j.queue = 'domains.certificate' AND j.singleton_key = $1 GROUP BY j.id ORDER BY j.id DESC LIMIT 1",
      [`domain:${before.id}`],
    );
    expect(rows[0]?.log).toContain(`Renewing a certificate for ${DOMAIN} (http-01)`);
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

  it('a renewal that keeps failing is retried further apart each time; a certificate outside the renewal window is left alone', async () => {
    const HOUR = 3_600_000;
    await api.call('PUT', '/settings', {
      token: admin,
      body: { acme_directory_url: 'https://127.0.0.1:9/dir', certificate_renewal_days: 60 },
    });
    const start = await getDomain(DOMAIN);
    let failures = start.renewal_failures;
    const delays: number[] = [];
    for (let round = 0; round < 3; round++) {
      // The backoff is over (as when its hours have passed): the sweep queues the renewal, which fails again.
      await platform.ctx.pool.query("UPDATE domains SET next_renewal_at = now() - interval '1 second' WHERE id = $1", [start.id]);
      expect(await renewDueCertificates(platform.ctx)).toMatch(/^Queued [1-9]\d* renewals;/);
      const failed = await until(`renewal failure ${failures + 1}`, async () => {
        const domain = await getDomain(DOMAIN);
        return domain.renewal_failures === failures + 1 && !(await certificateJobActive(start.id)) ? domain : undefined;
      });
      failures = failed.renewal_failures;
      expect(failed).toMatchObject({ status: 'active', fingerprint: start.fingerprint, served: { status: 'match' } });
      expect(failed.last_error).toContain('https://127.0.0.1:9/dir');
      const delay = new Date(failed.next_renewal_at ?? 0).getTime() - Date.now();
      // 1, 2, 4... hours after the nth failure in a row.
      expect(Math.abs(delay - HOUR * 2 ** (failures - 1))).toBeLessThan(60_000);
      delays.push(delay);
      // Not due again before then: the next sweep leaves it alone.
      await renewDueCertificates(platform.ctx);
      expect(await certificateJobActive(start.id)).toBe(false);
      expect((await getDomain(DOMAIN)).renewal_failures).toBe(failures);
    }
    expect(failures).toBe(start.renewal_failures + 3);
    expect(delays[1]).toBeGreaterThan((delays[0] ?? 0) + 30 * 60_000);
    expect(delays[2]).toBeGreaterThan((delays[1] ?? 0) + 30 * 60_000);

    // The CA is back, but with a 14-day window these 30-day certificates are not due, even with
    // their backoff over: the sweep queues nothing and the certificate stays as it is.
    await api.call('PUT', '/settings', {
      token: admin,
      body: { acme_directory_url: pebble.directoryUrl, certificate_renewal_days: 14 },
    });
    await platform.ctx.pool.query(
      "UPDATE domains SET next_renewal_at = now() - interval '1 second' WHERE fingerprint IS NOT NULL",
    );
    const notDue = await getDomain(DOMAIN);
    expect(await renewDueCertificates(platform.ctx)).toMatch(/^Queued 0 renewals;/);
    expect(await certificateJobActive(start.id)).toBe(false);
    await sleep(1000);
    const untouched = await getDomain(DOMAIN);
    expect(untouched).toMatchObject({
      fingerprint: notDue.fingerprint,
      expires_at: notDue.expires_at,
      renewal_failures: failures,
      status: 'active',
    });

    // Inside the window again (60 days): the same sweep renews it, and the failures are forgotten.
    await api.call('PUT', '/settings', { token: admin, body: { certificate_renewal_days: 60 } });
    expect(await renewDueCertificates(platform.ctx)).toMatch(/^Queued [1-9]\d* renewals;/);
    const renewed = await until('the renewal inside the window', async () => {
      const domain = await getDomain(DOMAIN);
      return domain.fingerprint !== notDue.fingerprint && domain.served.status === 'match' ? domain : undefined;
    });
    expect(renewed).toMatchObject({ renewal_failures: 0, next_renewal_at: null, last_error: null });
    await until('the renewal job to end', async () => ((await certificateJobActive(start.id)) ? undefined : true));
    // Back to a window these certificates are outside of: the sweeps of the tests below only compare.
    await api.call('PUT', '/settings', { token: admin, body: { certificate_renewal_days: 14 } });
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

  it('reports when the edge serves no certificate for the name, and when the edge does not answer at all', async () => {
    // Nothing is due (14 days): the sweeps below only look at what the edge serves.
    const before = await getDomain(DOMAIN);
    expect(await certificateJobActive(before.id)).toBe(false);
    expect(before.served.status).toBe('match');
    const root = await pebble.issuingRoot();
    const { rows } = await platform.ctx.pool.query<{ certificate_sealed: string }>(
      'SELECT certificate_sealed FROM domains WHERE id = $1',
      [before.id],
    );
    const sealed = rows[0]?.certificate_sealed as string;

    // The stored certificate was sealed with another encryption key (a data folder restored with the
    // wrong ENCRYPTION_KEY): the edge cannot be given it and has no certificate for the name.
    const otherKey = createSecretBox(randomBytes(32));
    await platform.ctx.pool.query('UPDATE domains SET certificate_sealed = $1 WHERE id = $2', [
      otherKey.seal('-----BEGIN CERTIFICATE-----'),
      before.id,
    ]);
    expect(await publishRoutes(platform.ctx, { waitMs: 5000 })).toBe(true);
    await expect(httpsThroughEdge(DOMAIN, root)).rejects.toThrow();
    expect(await renewDueCertificates(platform.ctx)).toMatch(/^Queued 0 renewals;/);
    const none = await getDomain(DOMAIN);
    expect(none.served).toMatchObject({ status: 'none', fingerprint: null });
    expect(new Date(none.served.checked_at ?? 0).getTime()).toBeGreaterThan(new Date(before.served.checked_at ?? 0).getTime());
    expect(none.status).toBe('active');

    await platform.ctx.pool.query('UPDATE domains SET certificate_sealed = $1 WHERE id = $2', [sealed, before.id]);
    expect(await publishRoutes(platform.ctx, { waitMs: 5000 })).toBe(true);
    await renewDueCertificates(platform.ctx);
    expect((await getDomain(DOMAIN)).served).toMatchObject({ status: 'match', fingerprint: before.fingerprint });

    // The edge hangs (its processes stopped: it accepts no handshake, and is not replaced, being alive).
    const tlsPort = platform.ctx.edge.tlsPort() as number;
    const pids = listenersOn(tlsPort);
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    try {
      await renewDueCertificates(platform.ctx);
      const unreachable = await getDomain(DOMAIN);
      expect(unreachable.served).toMatchObject({ status: 'unreachable', fingerprint: null });
      expect(unreachable.status).toBe('active');
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }
    await renewDueCertificates(platform.ctx);
    expect((await getDomain(DOMAIN)).served).toMatchObject({ status: 'match', fingerprint: before.fingerprint });
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

/**
 * The HTTP-01 debug on a platform of its own whose DNS (DNS_SERVERS) is a pebble-challtestsrv this
 * test controls, answering only the names given to it, and whose port 80 (ACME_HTTP_PORT) is a
 * stand-in web server, then nothing at all: each reason a CA's validation would fail is produced
 * for real and explained.
 */
describe('the HTTP-01 debug explains why a validation would fail', { timeout: 120_000 }, () => {
  let other: TestPlatform;
  let otherApi: Api;
  let otherAdmin: string;
  let dnsServer: ChildProcess;
  let dnsManagement = '';
  let port80: http.Server;
  let port80Port = 0;
  /** What the stand-in on port 80 answers; every request it got. */
  let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => {
    res.statusCode = 404;
    res.end('not found');
  };
  const asked: { host: string | undefined; path: string | undefined }[] = [];

  const debugOf = async (ref: string | number) => {
    const debug = await otherApi.call<HttpChallengeDebug>('GET', `/domains/${ref}/http-challenge-debug`, { token: otherAdmin });
    expect(debug.status, JSON.stringify(debug.body)).toBe(200);
    return debug.body;
  };
  const addDomain = async (domain: string) => {
    const created = await otherApi.call<Domain>('POST', '/domains', { token: otherAdmin, body: { domain } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body;
  };

  beforeAll(async () => {
    const dnsPort = await freePort();
    const managementPort = await freePort();
    // No default address: a name resolves only once it is given one.
    dnsServer = spawnChallengeDns({ dnsPort, managementPort, defaultIPv4: '' });
    dnsManagement = `http://127.0.0.1:${managementPort}`;
    const addA = async (host: string, address: string) =>
      (
        await fetch(`${dnsManagement}/add-a`, {
          method: 'POST',
          body: JSON.stringify({ host: `${host}.`, addresses: [address] }),
        })
      ).status;
    await until('the test DNS server', async () =>
      (await addA('here.example.test', '127.0.0.1').catch(() => 0)) === 200 ? true : undefined,
    );
    // A documentation address (RFC 5737): a name that points to some other machine.
    expect(await addA('elsewhere.example.test', '192.0.2.10')).toBe(200);

    port80 = http.createServer((req, res) => {
      asked.push({ host: req.headers.host, path: req.url });
      answer(req, res);
    });
    await new Promise<void>((resolve) => port80.listen(0, '127.0.0.1', resolve));
    port80Port = (port80.address() as AddressInfo).port;
    other = await startTestPlatform({
      ACME_CA_FILE: caFile,
      ACME_HTTP_PORT: String(port80Port),
      DNS_SERVERS: `127.0.0.1:${dnsPort}`,
    });
    otherApi = apiClient(other.url);
    otherAdmin = await otherApi.login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const settings = await otherApi.call('PUT', '/settings', {
      token: otherAdmin,
      body: { acme_directory_url: pebble.directoryUrl, acme_contact_email: 'certs@example.com' },
    });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await other?.close();
    port80?.closeAllConnections();
    port80?.close();
    if (dnsServer && dnsServer.exitCode === null) {
      dnsServer.kill('SIGTERM');
      await new Promise((resolve) => dnsServer.once('exit', resolve));
    }
  });

  it('a name that does not resolve', async () => {
    const domain = await addDomain('nowhere.example.test');
    const debug = await debugOf(domain.id);
    expect(debug).toEqual({
      domain: 'nowhere.example.test',
      ready: false,
      checks: [
        { name: 'dns', ok: false, detail: 'nowhere.example.test does not resolve: create an A record pointing to this server' },
        { name: 'port_80', ok: false, detail: `Port ${port80Port} of nowhere.example.test: the name does not resolve` },
        { name: 'token', ok: true, detail: 'No order in progress: the edge serves a token as soon as one exists' },
      ],
    });
  });

  it('a name that points to another machine', async () => {
    const domain = await addDomain('elsewhere.example.test');
    const debug = await debugOf(domain.id);
    expect(debug.ready).toBe(false);
    expect(debug.checks[0]).toEqual({
      name: 'dns',
      ok: false,
      detail: 'elsewhere.example.test points to 192.0.2.10, not to this server',
    });
    // Port 80 is tried where the name points (no machine answers at that address here).
    expect(debug.checks[1]).toMatchObject({ name: 'port_80', ok: false });
    expect(debug.checks[1]?.detail).toMatch(new RegExp(`^Port ${port80Port} of 192\\.0\\.2\\.10: .+`));
  });

  it('port 80 answering something other than the token, then nothing listening on port 80', async () => {
    const domain = await addDomain('here.example.test');
    const order = await otherApi.call<DomainOrder>('POST', `/domains/${domain.id}/order`, { token: otherAdmin });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const token = order.body.challenges[0]?.token as string;
    expect(token).toBeTruthy();
    const tokenPath = `/.well-known/acme-challenge/${token}`;
    const dnsOk = { name: 'dns', ok: true, detail: 'here.example.test points here (127.0.0.1)' };
    const portOk = { name: 'port_80', ok: true, detail: `Port ${port80Port} of 127.0.0.1 answers` };

    // Another web server holds port 80 and knows nothing of the token.
    asked.length = 0;
    let debug = await debugOf(domain.id);
    expect(debug).toEqual({
      domain: 'here.example.test',
      ready: false,
      checks: [dnsOk, portOk, { name: 'token', ok: false, detail: `${tokenPath} answered 404` }],
    });
    // It was asked the way the CA asks: the token's path, by name.
    expect(asked).toContainEqual({ host: 'here.example.test', path: tokenPath });

    // It answers 200, but not with the key authorization.
    answer = (_req, res) => res.end('Welcome to nginx!');
    debug = await debugOf(domain.id);
    expect(debug.ready).toBe(false);
    expect(debug.checks[2]).toEqual({
      name: 'token',
      ok: false,
      detail: `${tokenPath} answered 200 with something else than the key authorization`,
    });

    // Port 80 hands the request to this platform's edge (as a port forward would): every check passes.
    answer = (req, res) => {
      getThroughEdge(other.ctx.edge.port(), req.headers.host ?? '', { path: req.url ?? '/' }).then(
        (edge) => {
          res.statusCode = edge.status;
          res.end(edge.body);
        },
        () => {
          res.statusCode = 502;
          res.end();
        },
      );
    };
    debug = await debugOf(domain.id);
    expect(debug).toEqual({
      domain: 'here.example.test',
      ready: true,
      checks: [dnsOk, portOk, { name: 'token', ok: true, detail: 'The edge answers the token with its key authorization' }],
    });

    // Nothing listens on port 80 any more: the token cannot be asked for.
    port80.closeAllConnections();
    await new Promise<void>((resolve) => port80.close(() => resolve()));
    debug = await debugOf(domain.id);
    expect(debug).toEqual({
      domain: 'here.example.test',
      ready: false,
      checks: [
        dnsOk,
        { name: 'port_80', ok: false, detail: `Port ${port80Port} of 127.0.0.1: connection refused (nothing listens there)` },
        { name: 'token', ok: false, detail: 'Not checked: port 80 cannot be reached' },
      ],
    });
    expect((await otherApi.call('DELETE', `/domains/${domain.id}/order`, { token: otherAdmin })).status).toBe(204);
  });
});
