import { and, eq, isNotNull, isNull, lt, lte, or } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { definePeriodicTask, defineQueue, enqueue, RetryJob } from '../../jobs';
import { publishAlert } from '../notifications/service';
import { getSettings } from '../settings/service';
import { type DomainRow, domains } from './schema';
import {
  checkServedCertificate,
  currentOrNewOrder,
  dnsChallengeState,
  finalizeDomainOrder,
  getDomainRow,
  issueCertificate,
} from './service';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** After the nth failure in a row a renewal is tried again in 1, 2, 4... hours, at most a day. */
export function renewalBackoffMs(failures: number): number {
  return Math.min(DAY_MS, HOUR_MS * 2 ** Math.max(0, failures - 1));
}

/**
 * Getting a certificate for one domain, as a durable job: HTTP-01 domains go all the way through
 * the edge; a DNS-01 domain gets its order (the TXT record to create) and, when the record is
 * already in place (a renewal), is finalized too.
 */
export const certificateQueue = defineQueue({
  name: 'domains.certificate',
  payload: z.object({ domain_id: z.number().int().positive(), reason: z.enum(['provision', 'renew']) }),
  // A failure is recorded on the domain and retried by the renewal schedule with its own backoff.
  maxAttempts: 1,
  concurrency: 2,
  async handler(payload, job) {
    const row = await getDomainRow(job.ctx, payload.domain_id).catch(() => null);
    if (!row) return job.log(`Domain ${payload.domain_id} is gone`);
    await job.log(
      `${payload.reason === 'renew' ? 'Renewing' : 'Getting'} a certificate for ${row.domain} (${row.challengeType})`,
    );
    try {
      if (row.challengeType === 'http-01') {
        const domain = await issueCertificate(job.ctx, row);
        await job.log(`Issued; expires ${domain.expires_at}; the edge serves it: ${domain.served.status}`);
      } else {
        const order = await currentOrNewOrder(job.ctx, row);
        if (payload.reason === 'provision') {
          const { state, missing } = await dnsChallengeState(job.ctx, await getDomainRow(job.ctx, row.id));
          if (state !== 'ready') {
            // The watch (domains.dns_watch) finalizes as soon as the record shows up.
            await enqueue(
              job.ctx,
              dnsWatchQueue,
              { domain_id: row.id },
              { singletonKey: `domain:${row.id}`, delayMs: DNS_LOOK_EVERY_MS },
            );
            await job.log(
              `Waiting for the TXT record${order.challenges.map((c) => ` ${c.dns_name}`).join(',')}: ${missing.join('; ')}. ` +
                'Launchbay looks for it every minute.',
            );
            return;
          }
        }
        const domain = await finalizeDomainOrder(job.ctx, await getDomainRow(job.ctx, row.id));
        await job.log(
          `${payload.reason === 'renew' ? 'Renewed' : 'Issued'} with the TXT record in place; expires ${domain.expires_at}`,
        );
      }
    } catch (error) {
      const message = (error as Error).message;
      await job.log(message, 'error');
      if (payload.reason === 'renew' || row.fingerprint)
        await renewalFailed(job.ctx, await getDomainRow(job.ctx, row.id), message);
      else {
        await job.ctx.db
          .update(domains)
          .set({ status: 'failed', lastError: message, updatedAt: new Date() })
          .where(eq(domains.id, row.id));
      }
    }
  },
});

async function renewalFailed(ctx: AppContext, row: DomainRow, message: string): Promise<void> {
  const failures = row.renewalFailures + 1;
  const days = row.expiresAt ? Math.floor((row.expiresAt.getTime() - Date.now()) / DAY_MS) : null;
  // The alert first: once the domain shows the failure, it has been raised.
  await publishAlert(ctx, {
    type: 'ssl_renewal_failed',
    severity: days !== null && days <= 7 ? 'critical' : 'warning',
    title: `Certificate renewal failed for ${row.domain}`,
    message: `${message}\n\nAttempt ${failures}; the next one is in ${Math.round(renewalBackoffMs(failures) / HOUR_MS)} h.${
      days !== null ? ` The certificate expires in ${days} days.` : ''
    }`,
    group_key: `ssl_renewal_failed:${row.domain}`,
    data: { domain: row.domain, failures, ...(days !== null ? { days_remaining: days } : {}) },
  });
  await ctx.db
    .update(domains)
    .set({
      renewalFailures: failures,
      nextRenewalAt: new Date(Date.now() + renewalBackoffMs(failures)),
      lastError: message,
      status: row.fingerprint ? 'active' : 'failed',
      updatedAt: new Date(),
    })
    .where(eq(domains.id, row.id));
}

export function enqueueCertificate(ctx: AppContext, domainId: number, reason: 'provision' | 'renew') {
  return enqueue(ctx, certificateQueue, { domain_id: domainId, reason }, { singletonKey: `domain:${domainId}` });
}

/**
 * Hourly: certificates within `certificate_renewal_days` of expiry are renewed (a failed one again
 * after its backoff), an expiring certificate whose renewal keeps failing raises ssl_expiring once a
 * day, and what the edge serves is compared with what is stored.
 */
export const certificateRenewal = definePeriodicTask({
  name: 'domains.renewal',
  cron: '17 * * * *',
  async run(job) {
    return renewDueCertificates(job.ctx);
  },
});

/** How often a domain waiting for its TXT record looks for it. */
const DNS_LOOK_EVERY_MS = 60_000;

/**
 * A wildcard (DNS-01) domain waiting for its TXT record looks for it every minute, as a durable job
 * of its own that exists only while the domain waits (an idle platform runs nothing for it): it gets
 * its certificate as soon as the record is visible, without anyone coming back to press a button,
 * and is marked failed with the reason once its order expires; it never stays "provisioning" unnoticed.
 */
export const dnsWatchQueue = defineQueue({
  name: 'domains.dns_watch',
  payload: z.object({ domain_id: z.number().int().positive() }),
  concurrency: 2,
  async handler(payload, job) {
    const state = await lookForTxtRecord(job.ctx, payload.domain_id);
    // Not counted as an attempt: waiting is not failing.
    if (state === 'waiting') throw new RetryJob(new Date(Date.now() + DNS_LOOK_EVERY_MS), false);
    await job.log(
      {
        ready: 'The TXT record is visible: the certificate is queued',
        expired: 'The order expired before the TXT record was found: the domain is marked failed',
        done: 'The domain waits for no TXT record any more',
      }[state],
    );
  },
});

/**
 * One look for a waiting domain's TXT record: `ready` queues its certificate, `expired` marks it
 * failed (dnsChallengeState), `done` when it waits no more (deleted, issued, provisioned again).
 */
export async function lookForTxtRecord(ctx: AppContext, domainId: number): Promise<'ready' | 'waiting' | 'expired' | 'done'> {
  const row = await getDomainRow(ctx, domainId).catch(() => null);
  if (!row || row.fingerprint || row.challengeType !== 'dns-01' || row.status !== 'provisioning') return 'done';
  const { state } = await dnsChallengeState(ctx, row);
  if (state === 'ready') await enqueueCertificate(ctx, row.id, 'provision');
  return state === 'no-order' ? 'done' : state;
}

export async function renewDueCertificates(ctx: AppContext): Promise<string> {
  const settings = await getSettings(ctx);
  const now = new Date();
  const due = await ctx.db
    .select()
    .from(domains)
    .where(
      and(
        isNotNull(domains.fingerprint),
        lt(domains.expiresAt, new Date(now.getTime() + settings.certificate_renewal_days * DAY_MS)),
        or(isNull(domains.nextRenewalAt), lte(domains.nextRenewalAt, now)),
      ),
    );
  // A renewal still queued or running (a wildcard waiting for its TXT record) is not queued twice, nor counted.
  let queued = 0;
  for (const row of due) if ((await enqueueCertificate(ctx, row.id, 'renew')).created) queued++;

  let alerted = 0;
  for (const row of await ctx.db.select().from(domains).where(isNotNull(domains.fingerprint))) {
    const checked = await checkServedCertificate(ctx, row);
    const days = checked.expiresAt ? Math.floor((checked.expiresAt.getTime() - now.getTime()) / DAY_MS) : null;
    const alertedToday = checked.expiryAlertedAt && now.getTime() - checked.expiryAlertedAt.getTime() < DAY_MS;
    if (days === null || alertedToday || (checked.renewalFailures === 0 && days > 7)) continue;
    const result = await publishAlert(ctx, {
      type: 'ssl_expiring',
      severity: days <= 7 ? 'critical' : 'warning',
      title: `The certificate for ${checked.domain} expires in ${days} days`,
      message: checked.lastError
        ? `Renewal keeps failing: ${checked.lastError}`
        : 'It has not been renewed yet; the platform keeps trying.',
      group_key: `ssl_expiring:${checked.domain}`,
      data: { domain: checked.domain, days_remaining: days },
    });
    if (result.status !== 'suppressed') alerted++;
    await ctx.db.update(domains).set({ expiryAlertedAt: now }).where(eq(domains.id, checked.id));
  }
  return `Queued ${queued} renewals; ${alerted} expiry alerts`;
}
