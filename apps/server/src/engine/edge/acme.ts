import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import tls from 'node:tls';
import type acmeModule from 'acme-client';

type Acme = typeof acmeModule;
let loaded: Promise<Acme> | undefined;
/**
 * acme-client (with axios, node-forge and its X.509 stack) costs the process about 28 MB: it is
 * loaded on the first certificate operation, not at start.
 */
function acmeClient(): Promise<Acme> {
  loaded ??= import('acme-client').then((module) => {
    const acme = ((module as { default?: Acme }).default ?? module) as Acme;
    applyTrust(acme);
    return acme;
  });
  return loaded;
}

/** acme-client's challenge object (its rfc8555 types are not re-exported by name). */
type AcmeChallenge = acmeModule.Authorization['challenges'][number];

/**
 * ACME through any directory (Let's Encrypt, its staging, Pebble in tests) with acme-client: an
 * account per directory, orders for one name, HTTP-01 (answered by the edge) or DNS-01 (a TXT
 * record the user creates, checked before the CA is asked), and the certificate.
 */

export type AcmeChallengeInfo = {
  type: 'http-01' | 'dns-01';
  identifier: string;
  url: string;
  token: string;
  keyAuthorization: string;
  status: string;
  dnsName: string | null;
  dnsValue: string | null;
  error: string | null;
};

export type AcmeOrderInfo = {
  url: string;
  status: string;
  finalizeUrl: string;
  expires: string | null;
  challenges: AcmeChallengeInfo[];
};

/**
 * The CA certificates an ACME directory is trusted with: the system's, plus one given for a
 * private CA (Pebble's self-signed listener in tests). TLS checks stay on for everything.
 */
let trustedCas: string[] = [...tls.rootCertificates];

export function trustForAcme(extraCaPem: string | null): void {
  trustedCas = extraCaPem ? [...tls.rootCertificates, extraCaPem] : [...tls.rootCertificates];
  if (loaded) void loaded.then(applyTrust);
}

function applyTrust(acme: Acme): void {
  acme.axios.defaults.httpsAgent = new https.Agent({ ca: trustedCas, keepAlive: false });
  acme.axios.defaults.timeout = 30_000;
  // acme-client retries a failed call 5 times, 5 s more apart each time (75 s): a CA that is down
  // is retried by the renewal schedule instead, so a call gives up after about 6 s.
  const settings = (acme.axios.defaults as { acmeSettings?: Record<string, number> }).acmeSettings;
  if (settings) {
    settings.retryMaxAttempts = 2;
    settings.retryDefaultDelay = 2;
  }
}

/**
 * Whether the directory answers at all, with the reason when it does not: acme-client's own error
 * for an unreachable CA, after its retries, says nothing useful.
 */
export function probeDirectory(directoryUrl: string): Promise<string | null> {
  return new Promise((resolve) => {
    const request = https.get(directoryUrl, { ca: trustedCas, timeout: 10_000 }, (response) => {
      response.resume();
      resolve(response.statusCode === 200 ? null : `the directory answered ${response.statusCode}`);
    });
    request.on('timeout', () => request.destroy(new Error('no answer within 10 s')));
    request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

export async function newAccountKey(): Promise<string> {
  const acme = await acmeClient();
  return (await acme.crypto.createPrivateEcdsaKey()).toString();
}

export type AcmeSession = { client: acmeModule.Client; accountUrl: string };

/** The client for a directory and account key; registers the account the first time (agreeing to the terms). */
export async function openAccount(
  directoryUrl: string,
  accountKeyPem: string,
  accountUrl: string | null,
  email: string | null,
): Promise<AcmeSession> {
  const acme = await acmeClient();
  const client = new acme.Client({
    directoryUrl,
    accountKey: accountKeyPem,
    ...(accountUrl ? { accountUrl } : {}),
    backoffAttempts: 10,
    backoffMin: 200,
    backoffMax: 2000,
  });
  if (!accountUrl) {
    await client.createAccount({ termsOfServiceAgreed: true, ...(email ? { contact: [`mailto:${email}`] } : {}) });
  }
  return { client, accountUrl: client.getAccountUrl() };
}

/** The name a DNS-01 TXT record goes under. */
export const dnsChallengeName = (identifier: string) => `_acme-challenge.${identifier.replace(/^\*\./, '')}`;

async function describeOrder(
  client: acmeModule.Client,
  order: acmeModule.Order,
  type: 'http-01' | 'dns-01',
): Promise<AcmeOrderInfo> {
  const authorizations = await client.getAuthorizations(order);
  const challenges: AcmeChallengeInfo[] = [];
  for (const authorization of authorizations) {
    const identifier = `${authorization.wildcard ? '*.' : ''}${authorization.identifier.value}`;
    const challenge = authorization.challenges.find((c) => c.type === type);
    if (!challenge) throw new Error(`the CA offers no ${type} challenge for ${identifier}`);
    const keyAuthorization = await client.getChallengeKeyAuthorization(challenge);
    challenges.push({
      type,
      identifier,
      url: challenge.url,
      token: challenge.token,
      keyAuthorization,
      status: challenge.status,
      dnsName: type === 'dns-01' ? dnsChallengeName(identifier) : null,
      dnsValue: type === 'dns-01' ? keyAuthorization : null,
      error: challengeError(challenge),
    });
  }
  return {
    url: order.url,
    status: order.status,
    finalizeUrl: order.finalize,
    expires: order.expires ?? null,
    challenges,
  };
}

function challengeError(challenge: AcmeChallenge): string | null {
  const error = (challenge as AcmeChallenge & { error?: { detail?: string } }).error;
  return error?.detail ?? null;
}

export async function createOrder(session: AcmeSession, domain: string, type: 'http-01' | 'dns-01'): Promise<AcmeOrderInfo> {
  const order = await session.client.createOrder({ identifiers: [{ type: 'dns', value: domain }] });
  return describeOrder(session.client, order, type);
}

export async function readOrder(session: AcmeSession, orderUrl: string, type: 'http-01' | 'dns-01'): Promise<AcmeOrderInfo> {
  const order = await session.client.getOrder({ url: orderUrl } as acmeModule.Order);
  return describeOrder(session.client, order, type);
}

/** Tells the CA the challenges are ready and waits until it has validated them (throws with its reason). */
export async function completeChallenges(session: AcmeSession, challenges: AcmeChallengeInfo[]): Promise<void> {
  for (const challenge of challenges) {
    if (challenge.status === 'valid') continue;
    const ref = { type: challenge.type, url: challenge.url, token: challenge.token, status: challenge.status } as AcmeChallenge;
    await session.client.completeChallenge(ref);
    await session.client.waitForValidStatus(ref);
  }
}

export type IssuedCertificate = { certificatePem: string; keyPem: string; fingerprint: string; notBefore: Date; notAfter: Date };

/** Finalizes a ready order with a new key and CSR, and downloads the chain. */
export async function finalizeOrder(session: AcmeSession, orderUrl: string, domain: string): Promise<IssuedCertificate> {
  const order = await session.client.getOrder({ url: orderUrl } as acmeModule.Order);
  const acme = await acmeClient();
  const [key, csr] = await acme.crypto.createCsr({ altNames: [domain] }, await acme.crypto.createPrivateEcdsaKey());
  const finalized = order.status === 'valid' ? order : await session.client.finalizeOrder(order, csr);
  const certificatePem = await session.client.getCertificate(finalized);
  return { certificatePem, keyPem: key.toString(), ...certificateFacts(certificatePem) };
}

/** Gives the authorizations back (best effort): an abandoned order leaves nothing valid behind. */
export async function abandonOrder(session: AcmeSession, orderUrl: string): Promise<void> {
  const order = await session.client.getOrder({ url: orderUrl } as acmeModule.Order);
  for (const authorization of await session.client.getAuthorizations(order)) {
    if (authorization.status === 'pending' || authorization.status === 'valid') {
      await session.client.deactivateAuthorization(authorization).catch(() => undefined);
    }
  }
}

/** The leaf's SHA-256 fingerprint (lowercase hex) and validity, from a PEM chain. */
export function certificateFacts(chainPem: string): { fingerprint: string; notBefore: Date; notAfter: Date } {
  const leaf = new X509Certificate(chainPem);
  return {
    fingerprint: leaf.fingerprint256.replaceAll(':', '').toLowerCase(),
    notBefore: new Date(leaf.validFrom),
    notAfter: new Date(leaf.validTo),
  };
}
