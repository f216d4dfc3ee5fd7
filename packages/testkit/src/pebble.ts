import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { makeCertificate } from './certificate';
import { freePort } from './port';
import { waitUntil } from './wait';

/**
 * Pebble, Let's Encrypt's ACME test server (Debian's `pebble`), with `pebble-challtestsrv` as its
 * DNS: every name resolves to 127.0.0.1, so validation really reaches the proxy on this machine.
 * TXT records for DNS-01 are set through challtestsrv's management API.
 */
export type Pebble = {
  /** The ACME directory URL (https, signed by `caFile`). */
  directoryUrl: string;
  /** The certificate of Pebble's own HTTPS listener: what an ACME client must trust to talk to it. */
  caFile: string;
  /** The DNS server (host:port) that answers for every test name. */
  dnsServer: string;
  /** The root that signs the certificates Pebble issues (PEM), to verify a served chain against. */
  issuingRoot(): Promise<string>;
  /** A TXT record the DNS server answers (for DNS-01), e.g. `_acme-challenge.example.test`. */
  setTxt(name: string, value: string): Promise<void>;
  clearTxt(name: string): Promise<void>;
  close(): Promise<void>;
};

export const PEBBLE_BINARY = '/usr/bin/pebble';
export const CHALLTESTSRV_BINARY = '/usr/bin/pebble-challtestsrv';

export function pebbleInstalled(): boolean {
  return fs.existsSync(PEBBLE_BINARY) && fs.existsSync(CHALLTESTSRV_BINARY);
}

function get(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

function post(url: string, body: unknown): Promise<number> {
  return fetch(url, { method: 'POST', body: JSON.stringify(body) }).then((response) => response.status);
}

/**
 * Starts Pebble and its DNS. `httpPort` is where Pebble sends HTTP-01 validation (the edge's plain
 * HTTP port); `validityHours` makes short-lived certificates for renewal tests.
 */
/**
 * Pebble's DNS stand-in (pebble-challtestsrv) answering on `dnsPort`, managed over HTTP on
 * `managementPort` (add-a, set-txt...): every name resolves to `defaultIPv4`, or, with '', only the
 * names given an address.
 */
export function spawnChallengeDns(
  ports: { dnsPort: number; managementPort: number; defaultIPv4: string },
  stdio: StdioOptions = 'ignore',
): ChildProcess {
  const { dnsPort, managementPort, defaultIPv4 } = ports;
  // Only its DNS: the HTTP-01, HTTPS-01 and TLS-ALPN-01 servers it would start are switched off.
  const args = ['-dns01', `127.0.0.1:${dnsPort}`, '-management', `127.0.0.1:${managementPort}`, '-defaultIPv4', defaultIPv4];
  for (const off of ['-defaultIPv6', '-http01', '-https01', '-tlsalpn01']) args.push(off, '');
  return spawn(CHALLTESTSRV_BINARY, args, { stdio });
}

export async function startPebble(
  options: {
    httpPort: number;
    tlsPort?: number;
    /** The DNS server's port, when the caller must know it before (to configure a platform with it). */
    dnsPort?: number;
    /** Where to copy the listener's certificate, when the caller must name the file before. */
    caFile?: string;
    validityHours?: number;
    alwaysValid?: boolean;
  } = { httpPort: 80 },
): Promise<Pebble> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-pebble-'));
  // Pebble ships no certificate for its own HTTPS listener: a self-signed one for 127.0.0.1 and localhost.
  const { certFile: caFile, keyFile } = makeCertificate(['127.0.0.1', 'localhost'], { dir, name: 'pebble-https' });
  const [acmePort, managementPort, dnsPort, challengeManagementPort] = [
    await freePort(),
    await freePort(),
    options.dnsPort ?? (await freePort()),
    await freePort(),
  ];
  if (options.caFile) fs.copyFileSync(caFile, options.caFile);
  const config = {
    pebble: {
      listenAddress: `127.0.0.1:${acmePort}`,
      managementListenAddress: `127.0.0.1:${managementPort}`,
      certificate: caFile,
      privateKey: keyFile,
      httpPort: options.httpPort,
      tlsPort: options.tlsPort ?? 5001,
      ocspResponderURL: '',
      externalAccountBindingRequired: false,
      ...(options.validityHours ? { certificateValidityPeriod: Math.round(options.validityHours * 3600) } : {}),
    },
  };
  const configFile = path.join(dir, 'pebble.json');
  fs.writeFileSync(configFile, JSON.stringify(config));
  const logs: string[] = [];
  const keep = (child: ChildProcess) => {
    child.stdout?.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
  };
  const dns = spawnChallengeDns({ dnsPort, managementPort: challengeManagementPort, defaultIPv4: '127.0.0.1' }, [
    'ignore',
    'pipe',
    'pipe',
  ]);
  keep(dns);
  const pebble = spawn(PEBBLE_BINARY, ['-config', configFile, '-dnsserver', `127.0.0.1:${dnsPort}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // No random sleeps before validation, no nonce rejections: tests are about the flow, not Pebble's chaos.
    env: {
      ...process.env,
      PEBBLE_VA_NOSLEEP: '1',
      PEBBLE_WFE_NONCEREJECT: '0',
      // Every order gets fresh authorizations (a reused valid one would skip the validation under test).
      PEBBLE_AUTHZREUSE: '0',
      ...(options.alwaysValid ? { PEBBLE_VA_ALWAYS_VALID: '1' } : {}),
    },
  });
  keep(pebble);
  const ca = fs.readFileSync(caFile, 'utf8');
  const directoryUrl = `https://127.0.0.1:${acmePort}/dir`;
  const management = `http://127.0.0.1:${challengeManagementPort}`;
  try {
    await waitUntil(
      async () => (await get(directoryUrl, ca).catch(() => ({ status: 0 }))).status === 200,
      "Pebble's directory",
      15_000,
    );
    await waitUntil(
      async () => (await post(`${management}/clear-txt`, { host: 'ready.test.' }).catch(() => 0)) === 200,
      "challtestsrv's management API",
      15_000,
    );
  } catch (error) {
    pebble.kill();
    dns.kill();
    throw new Error(`Pebble did not start: ${(error as Error).message}\n${logs.join('')}`);
  }
  const fqdn = (name: string) => (name.endsWith('.') ? name : `${name}.`);
  return {
    directoryUrl,
    caFile: options.caFile ?? caFile,
    dnsServer: `127.0.0.1:${dnsPort}`,
    async issuingRoot() {
      const answer = await get(`https://127.0.0.1:${managementPort}/roots/0`, ca);
      if (answer.status !== 200) throw new Error(`Pebble's root: ${answer.status}`);
      return answer.body;
    },
    async setTxt(name, value) {
      const status = await post(`${management}/set-txt`, { host: fqdn(name), value });
      if (status !== 200) throw new Error(`set-txt answered ${status}`);
    },
    async clearTxt(name) {
      await post(`${management}/clear-txt`, { host: fqdn(name) });
    },
    async close() {
      for (const child of [pebble, dns]) {
        if (child.exitCode === null) {
          child.kill('SIGTERM');
          await new Promise((resolve) => child.once('exit', resolve));
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
