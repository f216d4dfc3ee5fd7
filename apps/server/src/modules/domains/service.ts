import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { type Domain, type DomainOrder, PG_INTEGER_MAX } from '@launchbay/contract';
import { asc, eq } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { outsideRequestTransaction } from '../../db/request-transaction';
import {
  type AcmeOrderInfo,
  type AcmeSession,
  abandonOrder,
  completeChallenges,
  createOrder,
  finalizeOrder,
  newAccountKey,
  openAccount,
  probeDirectory,
  readOrder,
  trustForAcme,
} from '../../engine/edge/acme';
import { resolveTxt } from '../../lib/dns';
import { badRequest, conflict, HttpError, notFound, validationError } from '../../lib/errors';
import { detectPublicIp } from '../../lib/public-ip';
import { toIso, toIsoOrNull } from '../../lib/time';
import { publishRoutes } from '../deployments/service';
import { getSettings } from '../settings/service';
import { untilEdgeServesTokens } from './challenge-debug';
import { acmeAccounts, type DomainRow, domainOrders, domains } from './schema';

type OrderRow = typeof domainOrders.$inferSelect;
type ChallengeType = 'http-01' | 'dns-01';

const DAY_MS = 86_400_000;

function orderDto(order: OrderRow): DomainOrder {
  return {
    domain_id: order.domainId,
    status: order.status,
    directory_url: order.directoryUrl,
    challenges: order.challenges.map((c) => ({
      type: c.type as ChallengeType,
      identifier: c.identifier,
      status: c.status,
      token: c.token,
      url: c.url,
      dns_name: c.dnsName,
      dns_value: c.dnsValue,
      error: c.error,
    })),
    error: order.error,
    expires_at: toIsoOrNull(order.expiresAt),
    created_at: toIso(order.createdAt),
  };
}

/** The records to create at the DNS provider: the name (or wildcard) pointing here, and a pending DNS-01 TXT. */
function dnsRecords(ctx: AppContext, row: DomainRow, order: OrderRow | undefined): Domain['dns_records'] {
  // The same address /setup/connectivity shows: PUBLIC_IP, else the machine's own public one.
  const ip = detectPublicIp(ctx.config.publicIp).ip ?? "this server's public IP address";
  const records: Domain['dns_records'] = [
    {
      type: 'A',
      name: row.domain,
      value: ip,
      purpose: row.isWildcard ? 'Every name under the wildcard reaches this server' : 'The name reaches this server',
    },
  ];
  for (const challenge of order?.challenges ?? []) {
    if (challenge.dnsName && challenge.dnsValue) {
      records.push({
        type: 'TXT',
        name: challenge.dnsName,
        value: challenge.dnsValue,
        purpose: 'Proves to the certificate authority that you control the domain (DNS-01)',
      });
    }
  }
  return records;
}

function toDto(ctx: AppContext, row: DomainRow, order: OrderRow | undefined): Domain {
  return {
    id: row.id,
    domain: row.domain,
    is_wildcard: row.isWildcard,
    challenge_type: row.challengeType as ChallengeType,
    status: row.status as Domain['status'],
    last_error: row.lastError,
    fingerprint: row.fingerprint,
    issued_at: toIsoOrNull(row.issuedAt),
    expires_at: toIsoOrNull(row.expiresAt),
    days_remaining: row.expiresAt ? Math.floor((row.expiresAt.getTime() - Date.now()) / DAY_MS) : null,
    renewal_failures: row.renewalFailures,
    next_renewal_at: toIsoOrNull(row.nextRenewalAt),
    served: {
      status: row.servedStatus as Domain['served']['status'],
      fingerprint: row.servedFingerprint,
      checked_at: toIsoOrNull(row.servedCheckedAt),
    },
    dns_records: dnsRecords(ctx, row, order),
    order: order ? orderDto(order) : null,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

async function orderOf(ctx: AppContext, domainId: number): Promise<OrderRow | undefined> {
  const [order] = await ctx.db.select().from(domainOrders).where(eq(domainOrders.domainId, domainId)).limit(1);
  return order;
}

export async function domainDto(ctx: AppContext, row: DomainRow): Promise<Domain> {
  return toDto(ctx, row, await orderOf(ctx, row.id));
}

export async function listDomains(ctx: AppContext): Promise<Domain[]> {
  const [rows, orders] = await Promise.all([
    ctx.db.select().from(domains).orderBy(asc(domains.domain)),
    ctx.db.select().from(domainOrders),
  ]);
  return rows.map((row) =>
    toDto(
      ctx,
      row,
      orders.find((o) => o.domainId === row.id),
    ),
  );
}

/** A domain by its id (digits) or its name. */
export async function getDomainRow(ctx: AppContext, ref: string | number): Promise<DomainRow> {
  const byId = typeof ref === 'number' || /^\d+$/.test(ref);
  // An id past the column's range (PostgreSQL's integer) is no domain, not a value the database refuses.
  if (byId && Number(ref) > PG_INTEGER_MAX) throw notFound(`Domain ${ref} not found`);
  const [row] = await ctx.db
    .select()
    .from(domains)
    .where(byId ? eq(domains.id, Number(ref)) : eq(domains.domain, String(ref).replace(/\.$/, '')))
    .limit(1);
  if (!row) throw notFound(`Domain ${ref} not found`);
  return row;
}

export async function createDomain(ctx: AppContext, domain: string): Promise<Domain> {
  const [existing] = await ctx.db.select({ id: domains.id }).from(domains).where(eq(domains.domain, domain));
  if (existing) throw conflict(`${domain} is already added`, [{ path: 'domain', message: 'This domain is already added' }]);
  const isWildcard = domain.startsWith('*.');
  const [row] = await ctx.db
    .insert(domains)
    .values({ domain, isWildcard, challengeType: isWildcard ? 'dns-01' : 'http-01' })
    .returning();
  return toDto(ctx, row as DomainRow, undefined);
}

export async function deleteDomain(ctx: AppContext, row: DomainRow): Promise<void> {
  const order = await orderOf(ctx, row.id);
  if (order) await abandonQuietly(ctx, order);
  await ctx.db.delete(domains).where(eq(domains.id, row.id));
  await publishAfter(ctx);
}

// ---------------------------------------------------------------------------------------------
// ACME

let trustedCa: string | null | undefined;

/** The platform's ACME account at the configured directory (created and registered on first use). */
async function acmeSession(ctx: AppContext): Promise<{ session: AcmeSession; directoryUrl: string }> {
  if (trustedCa === undefined) {
    trustedCa = ctx.config.acmeCaFile ? fs.readFileSync(ctx.config.acmeCaFile, 'utf8') : null;
    trustForAcme(trustedCa);
  }
  const settings = await getSettings(ctx);
  const directoryUrl = settings.acme_directory_url;
  const [account] = await ctx.db.select().from(acmeAccounts).where(eq(acmeAccounts.directoryUrl, directoryUrl));
  const unreachable = await probeDirectory(directoryUrl);
  if (unreachable) throw new HttpError(502, `The ACME directory ${directoryUrl} cannot be reached: ${unreachable}`);
  const keyPem = account ? ctx.box.open(account.keySealed) : await newAccountKey();
  try {
    const session = await openAccount(directoryUrl, keyPem, account?.accountUrl ?? null, settings.acme_contact_email);
    if (account?.accountUrl) return { session, directoryUrl };
    await ctx.db
      .insert(acmeAccounts)
      .values({
        directoryUrl,
        email: settings.acme_contact_email,
        keySealed: ctx.box.seal(keyPem),
        accountUrl: session.accountUrl,
      })
      .onConflictDoNothing();
    // Two first uses at once (a job and a request) each registered an account: the one stored wins,
    // so every order of this directory belongs to the same account.
    const [stored] = await ctx.db.select().from(acmeAccounts).where(eq(acmeAccounts.directoryUrl, directoryUrl));
    if (!stored || stored.accountUrl === session.accountUrl) return { session, directoryUrl };
    const winner = await openAccount(directoryUrl, ctx.box.open(stored.keySealed), stored.accountUrl, stored.email);
    return { session: winner, directoryUrl };
  } catch (error) {
    throw new HttpError(502, `The ACME directory ${directoryUrl} could not be used: ${acmeMessage(error)}`);
  }
}

/** The CA's own words where it gave them (an ACME problem document), else the error's. */
function acmeMessage(error: unknown): string {
  const detail = (error as { response?: { data?: { detail?: string } } }).response?.data?.detail;
  return detail ?? (error as Error).message;
}

/** Republishes the edge's table (certificates, HTTP-01 answers) and waits until the edge serves it. */
async function publishAfter(ctx: AppContext): Promise<void> {
  await outsideRequestTransaction(() => publishRoutes(ctx, { waitMs: 5000 }));
}

async function abandonQuietly(ctx: AppContext, order: OrderRow): Promise<void> {
  try {
    const { session } = await acmeSession(ctx);
    await abandonOrder(session, order.orderUrl);
  } catch {
    // The CA forgets unused orders by itself; nothing here depends on it.
  }
  await ctx.db.delete(domainOrders).where(eq(domainOrders.id, order.id));
}

/**
 * Creates an order at the CA for the domain (replacing one in progress) and stores its challenges.
 * HTTP-01 answers go to the edge at once; a DNS-01 TXT record is for the user to create.
 */
export async function createDomainOrder(ctx: AppContext, row: DomainRow): Promise<DomainOrder> {
  const previous = await orderOf(ctx, row.id);
  if (previous) await abandonQuietly(ctx, previous);
  const { session, directoryUrl } = await acmeSession(ctx);
  let info: AcmeOrderInfo;
  try {
    info = await createOrder(session, row.domain, row.challengeType as ChallengeType);
  } catch (error) {
    throw new HttpError(502, `The certificate authority refused the order for ${row.domain}: ${acmeMessage(error)}`);
  }
  const [order] = await ctx.db
    .insert(domainOrders)
    .values({
      domainId: row.id,
      directoryUrl,
      orderUrl: info.url,
      status: info.status,
      finalizeUrl: info.finalizeUrl,
      challenges: info.challenges,
      expiresAt: info.expires ? new Date(info.expires) : null,
    })
    .returning();
  // A domain with a certificate stays active (it keeps being served) while a renewal's order runs.
  if (!row.fingerprint) {
    await ctx.db.update(domains).set({ status: 'provisioning', updatedAt: new Date() }).where(eq(domains.id, row.id));
  }
  await publishAfter(ctx);
  return orderDto(order as OrderRow);
}

/**
 * The order in progress when the CA still takes it (so a DNS-01 TXT value the user was shown stays
 * the same across renewal attempts), else a new one.
 */
export async function currentOrNewOrder(ctx: AppContext, row: DomainRow): Promise<DomainOrder> {
  const order = await orderOf(ctx, row.id);
  const usable = order && order.status === 'pending' && (!order.expiresAt || order.expiresAt.getTime() > Date.now() + 60_000);
  return usable ? orderDto(order) : createDomainOrder(ctx, row);
}

/** Shows a provisioning job as soon as it is queued (a domain with a certificate stays active). */
export async function markProvisioning(ctx: AppContext, row: DomainRow): Promise<void> {
  if (row.fingerprint) return;
  await ctx.db
    .update(domains)
    .set({ status: 'provisioning', lastError: null, updatedAt: new Date() })
    .where(eq(domains.id, row.id));
}

/** The order as the CA sees it now (challenge statuses, errors). */
export async function readDomainOrder(ctx: AppContext, row: DomainRow): Promise<DomainOrder> {
  const order = await orderOf(ctx, row.id);
  if (!order) throw notFound(`${row.domain} has no order in progress`);
  try {
    const { session } = await acmeSession(ctx);
    const info = await readOrder(session, order.orderUrl, row.challengeType as ChallengeType);
    const [updated] = await ctx.db
      .update(domainOrders)
      .set({ status: info.status, challenges: info.challenges, updatedAt: new Date() })
      .where(eq(domainOrders.id, order.id))
      .returning();
    return orderDto(updated as OrderRow);
  } catch {
    return orderDto(order); // the CA is away: what was last known
  }
}

export async function deleteDomainOrder(ctx: AppContext, row: DomainRow): Promise<void> {
  const order = await orderOf(ctx, row.id);
  if (!order) throw notFound(`${row.domain} has no order in progress`);
  await abandonQuietly(ctx, order);
  await ctx.db
    .update(domains)
    .set({ status: row.fingerprint ? 'active' : 'pending', updatedAt: new Date() })
    .where(eq(domains.id, row.id));
  await publishAfter(ctx);
}

/** DNS-01: what is still missing of the order's TXT records, each said as the user should read it (none: all visible). */
async function missingTxtRecords(ctx: AppContext, order: OrderRow): Promise<string[]> {
  const missing: string[] = [];
  for (const challenge of order.challenges) {
    if (challenge.type !== 'dns-01' || !challenge.dnsName || !challenge.dnsValue || challenge.status === 'valid') continue;
    let found: string[];
    try {
      found = await resolveTxt(challenge.dnsName, ctx.config.dnsServers);
    } catch (error) {
      missing.push(`The TXT record ${challenge.dnsName} could not be looked up: ${(error as Error).message}`);
      continue;
    }
    if (!found.includes(challenge.dnsValue)) {
      missing.push(
        found.length
          ? `TXT ${challenge.dnsName} is ${found.map((v) => `"${v}"`).join(', ')}, not "${challenge.dnsValue}" yet`
          : `No TXT record ${challenge.dnsName} yet: create it with the value "${challenge.dnsValue}"`,
      );
    }
  }
  return missing;
}

/** DNS-01: every TXT record must be visible before the CA is asked (it would fail the order otherwise). */
async function assertTxtRecords(ctx: AppContext, order: OrderRow): Promise<void> {
  const missing = await missingTxtRecords(ctx, order);
  if (missing.length > 0) throw validationError(missing.map((message) => ({ path: 'dns', message })));
}

/**
 * A wildcard (DNS-01) domain waiting for its TXT record, as the watch sees it: `ready` once every
 * record is visible (finalize now), `expired` once the CA's order ran out without them (the domain
 * is marked failed with the reason), else `waiting` with what is still missing.
 */
export async function dnsChallengeState(
  ctx: AppContext,
  row: DomainRow,
): Promise<{ state: 'ready' | 'waiting' | 'expired' | 'no-order'; missing: string[] }> {
  const order = await orderOf(ctx, row.id);
  if (order?.status !== 'pending') return { state: 'no-order', missing: [] };
  const missing = await missingTxtRecords(ctx, order);
  if (missing.length === 0) return { state: 'ready', missing };
  if (order.expiresAt && order.expiresAt.getTime() <= Date.now()) {
    const message = `The order expired on ${toIso(order.expiresAt)} before the TXT record was found (${missing.join('; ')}). Create the record, then provision again.`;
    await ctx.db
      .update(domains)
      .set({ status: row.fingerprint ? 'active' : 'failed', lastError: message, updatedAt: new Date() })
      .where(eq(domains.id, row.id));
    await ctx.db
      .update(domainOrders)
      .set({ status: 'invalid', error: message, updatedAt: new Date() })
      .where(eq(domainOrders.id, order.id));
    await publishAfter(ctx);
    return { state: 'expired', missing };
  }
  return { state: 'waiting', missing };
}

/**
 * Asks the CA to validate the order's challenges, then finalizes it and stores the certificate
 * (sealed), which the edge serves from its next table on. A validation the CA refused is a 400
 * with its reason; the order stays, so it can be read and tried again.
 */
export async function finalizeDomainOrder(ctx: AppContext, row: DomainRow): Promise<Domain> {
  const order = await orderOf(ctx, row.id);
  if (!order) throw notFound(`${row.domain} has no order in progress`);
  await assertTxtRecords(ctx, order);
  const { session } = await acmeSession(ctx);
  let issued: Awaited<ReturnType<typeof finalizeOrder>>;
  if (row.challengeType === 'http-01') await untilEdgeServesTokens(ctx, row.domain, order.challenges, TOKEN_SERVED_WAIT_MS);
  try {
    await completeChallenges(session, order.challenges);
    issued = await finalizeOrder(session, order.orderUrl, row.domain);
  } catch (error) {
    const message = `The certificate authority could not validate ${row.domain}: ${acmeMessage(error)}`;
    const info = await readOrder(session, order.orderUrl, row.challengeType as ChallengeType).catch(() => null);
    await ctx.db
      .update(domainOrders)
      .set({
        error: message,
        updatedAt: new Date(),
        ...(info ? { status: info.status, challenges: info.challenges } : {}),
      })
      .where(eq(domainOrders.id, order.id));
    await ctx.db
      .update(domains)
      .set({ status: row.fingerprint ? 'active' : 'failed', lastError: message, updatedAt: new Date() })
      .where(eq(domains.id, row.id));
    throw badRequest(message);
  }
  await ctx.db
    .update(domains)
    .set({
      status: 'active',
      lastError: null,
      certificateSealed: ctx.box.seal(issued.certificatePem),
      keySealed: ctx.box.seal(issued.keyPem),
      fingerprint: issued.fingerprint,
      issuedAt: issued.notBefore,
      expiresAt: issued.notAfter,
      renewalFailures: 0,
      // Not compared yet: the check below runs once the edge serves the new certificate.
      servedStatus: null,
      servedFingerprint: null,
      servedCheckedAt: null,
      nextRenewalAt: null,
      updatedAt: new Date(),
    })
    .where(eq(domains.id, row.id));
  await ctx.db.delete(domainOrders).where(eq(domainOrders.id, order.id));
  await publishAfter(ctx);
  const current = await getDomainRow(ctx, row.id);
  return domainDto(ctx, await checkServedCertificate(ctx, current, { settleMs: NEW_CERTIFICATE_SETTLE_MS }));
}

/** The whole flow for an HTTP-01 domain: order, validation through the edge, certificate. */
export async function issueCertificate(ctx: AppContext, row: DomainRow): Promise<Domain> {
  await createDomainOrder(ctx, row);
  return finalizeDomainOrder(ctx, await getDomainRow(ctx, row.id));
}

// ---------------------------------------------------------------------------------------------
// What the edge really serves

/** The leaf the edge's TLS port presents for a name: its fingerprint, or why there is none. */
function servedFingerprint(
  port: number,
  serverName: string,
): Promise<{ fingerprint: string } | { problem: 'none' | 'unreachable' }> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: serverName, rejectUnauthorized: false, timeout: 3000 });
    socket.once('secureConnect', () => {
      const certificate = socket.getPeerX509Certificate();
      socket.destroy();
      resolve(certificate ? { fingerprint: certificate.fingerprint256.replaceAll(':', '').toLowerCase() } : { problem: 'none' });
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve({ problem: 'unreachable' });
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      resolve({ problem: error.code === 'ECONNREFUSED' ? 'unreachable' : 'none' }),
    );
  });
}

/** How long a new certificate may take to reach the edge's handshakes before another one served counts as a mismatch. */
const NEW_CERTIFICATE_SETTLE_MS = 15_000;
const SETTLE_PROBE_MS = 500;
/** How long the edge may take to serve a new order's HTTP-01 tokens before the CA is asked to validate them. */
const TOKEN_SERVED_WAIT_MS = 30_000;

/**
 * Compares what the edge serves for the domain with the stored certificate, and records it on the
 * domain. `settleMs`: right after a new certificate, another one served (or none) is looked at again
 * for that long before it counts (nginx under load can take longer than the table's publish
 * wait to reload), so a certificate on its way is not reported stale until the next daily check.
 */
export async function checkServedCertificate(
  ctx: AppContext,
  row: DomainRow,
  options: { settleMs?: number } = {},
): Promise<DomainRow> {
  const serverName = row.isWildcard ? `launchbay-check${row.domain.slice(1)}` : row.domain;
  const settleUntil = Date.now() + (options.settleMs ?? 0);
  const probe = async () => {
    const port = ctx.edge.tlsPort();
    return port ? await servedFingerprint(port, serverName) : { problem: 'unreachable' as const };
  };
  let served = await probe();
  // Another certificate, or none yet for the name (nginx without it fails the handshake): look again.
  const settled = (answer: typeof served) =>
    ('fingerprint' in answer && answer.fingerprint === row.fingerprint) || ctx.edge.tlsPort() === null;
  while (!settled(served) && Date.now() < settleUntil) {
    await sleep(SETTLE_PROBE_MS);
    served = await probe();
  }
  const status = 'fingerprint' in served ? (served.fingerprint === row.fingerprint ? 'match' : 'mismatch') : served.problem;
  const [updated] = await ctx.db
    .update(domains)
    .set({
      servedStatus: row.fingerprint || status !== 'none' ? status : null,
      servedFingerprint: 'fingerprint' in served ? served.fingerprint : null,
      servedCheckedAt: new Date(),
    })
    .where(eq(domains.id, row.id))
    .returning();
  return updated ?? row;
}
