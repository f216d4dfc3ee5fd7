import type { Domain, DomainOrder } from '@launchbay/contract';

/*
 * What the domain screens say about a domain: its status, when its certificate expires, whether the
 * edge really serves it, and when a background job (provision, renew) can be taken as finished.
 */

export type DomainStatus = Domain['status'];
export type ServedStatus = NonNullable<Domain['served']['status']>;
export type DomainChallenge = DomainOrder['challenges'][number];

export const DOMAINS_PATH = '/domains';
export const ADD_DOMAIN_PATH = '/domains/add';
export const domainPath = (id: number) => `/domains/${id}`;

/** The domain statuses as the console names them. */
export const DOMAIN_STATUS_LABEL: Record<DomainStatus, string> = {
  active: 'Active',
  provisioning: 'Provisioning',
  pending: 'Pending',
  failed: 'Failed',
};

/** Detail pages poll this often while a certificate is on its way. */
export const DOMAIN_POLL_MS = 2000;
/** The list follows provisioning domains less often. */
export const DOMAINS_LIST_POLL_MS = 5000;
/** A job that has not touched its domain after this long is not waited for any more. */
export const JOB_WAIT_MS = 120_000;
/** Under this many days left, the expiry is a warning. */
export const EXPIRY_WARNING_DAYS = 14;

export const isWildcard = (name: string) => name.trim().startsWith('*.');

/**
 * 'Expires in 29 days', 'Expires today', 'Expired 3 days ago', or null without a certificate; `tone`
 * says how loud it is (a warning under 14 days, destructive once expired).
 */
export function expiryText(domain: Pick<Domain, 'days_remaining' | 'expires_at'>): {
  text: string;
  tone: 'default' | 'warning' | 'destructive';
} | null {
  const days = domain.days_remaining;
  if (days === null || !domain.expires_at) return null;
  const left = new Date(domain.expires_at).getTime() - Date.now();
  if (days < 0 || left <= 0) {
    const ago = Math.floor(-left / 86_400_000);
    return { text: ago <= 0 ? 'Expired today' : `Expired ${ago} ${ago === 1 ? 'day' : 'days'} ago`, tone: 'destructive' };
  }
  const text = days === 0 ? 'Expires today' : `Expires in ${days} ${days === 1 ? 'day' : 'days'}`;
  return { text, tone: days < EXPIRY_WARNING_DAYS ? 'warning' : 'default' };
}

/** 'ab12cd34ef56…89abcdef': the start and end of a hex fingerprint (the full one is copied). */
export function shortFingerprint(fingerprint: string): string {
  return fingerprint.length <= 24 ? fingerprint : `${fingerprint.slice(0, 12)}…${fingerprint.slice(-8)}`;
}

/**
 * What the edge serves compared with the stored certificate, as the screens show it. A 'match'
 * recorded for an earlier certificate (the comparison runs just after a new one is stored) is not a
 * match for the current one: it is shown as not checked yet until the next comparison.
 */
export type ServedView = ServedStatus | 'unchecked';

export function servedView(domain: Pick<Domain, 'served' | 'fingerprint'>): ServedView {
  const { status, fingerprint } = domain.served;
  if (status === null) return 'unchecked';
  if (status === 'match' && fingerprint !== null && domain.fingerprint !== null && fingerprint !== domain.fingerprint) {
    return 'unchecked';
  }
  return status;
}

/** True when the edge is known not to serve the stored certificate: shown in red wherever the domain appears. */
export function servedProblem(view: ServedView): boolean {
  return view === 'mismatch' || view === 'none' || view === 'unreachable';
}

/** The DNS-01 challenges of an order whose TXT record is still to be created and verified. */
export function pendingDnsChallenges(order: DomainOrder | null): DomainChallenge[] {
  return (order?.challenges ?? []).filter(
    (challenge) => challenge.type === 'dns-01' && challenge.dns_name && challenge.status !== 'valid',
  );
}

/** True while a wildcard waits for its TXT record (an order with an open DNS-01 challenge). */
export function waitingForTxt(domain: Pick<Domain, 'status' | 'order'>): boolean {
  return domain.status === 'provisioning' && pendingDnsChallenges(domain.order).length > 0;
}

/** A background job started from the console (provision, renew): the domain as the 202 answered it. */
export interface DomainJob {
  kind: 'provision' | 'renew';
  /** The domain's updated_at when the job was queued: the job changes it. */
  baseline: string;
  startedAt: number;
}

/**
 * True once a queued job is done with the domain: it changed the domain, is no longer provisioning
 * it (or, for a wildcard, its order waits for the TXT record), and an issued certificate has been compared with what the edge serves (the comparison is
 * written right after the status). Waiting stops after JOB_WAIT_MS whatever happened.
 */
export function jobSettled(job: DomainJob, domain: Domain, now = Date.now()): boolean {
  if (now - job.startedAt > JOB_WAIT_MS) return true;
  if (domain.updated_at === job.baseline) return false;
  // Provisioning a wildcard ends at its order: the TXT record is the user's to create.
  if (job.kind === 'provision' && waitingForTxt(domain)) return true;
  if (domain.status === 'provisioning') return false;
  if (domain.status === 'active' && domain.fingerprint && domain.last_error === null) {
    const checked = domain.served.checked_at ? new Date(domain.served.checked_at).getTime() : 0;
    return checked >= new Date(domain.updated_at).getTime() && servedView(domain) !== 'unchecked';
  }
  return true;
}

/** An A or AAAA value the server filled in (not its "this server's public IP address" placeholder). */
export function isAddress(value: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(value) || (value.includes(':') && /^[0-9a-f:.]+$/i.test(value));
}

/** The challenge statuses the CA reports, as the console names them. */
export function challengeStatusLabel(status: string): string {
  switch (status) {
    case 'pending':
      return 'Waiting';
    case 'processing':
      return 'Checking';
    case 'valid':
      return 'Valid';
    case 'invalid':
      return 'Failed';
    case 'ready':
      return 'Ready';
    default:
      return status.charAt(0).toUpperCase() + status.slice(1);
  }
}
