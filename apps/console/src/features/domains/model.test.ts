import { describe, expect, it } from 'vitest';
import { expiryText, isAddress, JOB_WAIT_MS, jobSettled, servedView, shortFingerprint } from './model';
import { domainFixture, FINGERPRINT, OTHER_FINGERPRINT, wildcardFixture } from './test-fixtures';

const DAY_MS = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY_MS + 3_600_000).toISOString();

describe('expiryText', () => {
  it('says how many days are left, as a warning under 14 days', () => {
    expect(expiryText({ days_remaining: 29, expires_at: inDays(29) })).toEqual({ text: 'Expires in 29 days', tone: 'default' });
    expect(expiryText({ days_remaining: 14, expires_at: inDays(14) })?.tone).toBe('default');
    expect(expiryText({ days_remaining: 13, expires_at: inDays(13) })).toEqual({ text: 'Expires in 13 days', tone: 'warning' });
    expect(expiryText({ days_remaining: 1, expires_at: inDays(1) })?.text).toBe('Expires in 1 day');
    expect(expiryText({ days_remaining: 0, expires_at: inDays(0) })?.text).toBe('Expires today');
  });

  it('says when it expired, and nothing without a certificate', () => {
    expect(expiryText({ days_remaining: -3, expires_at: new Date(Date.now() - 3 * DAY_MS - 1000).toISOString() })).toEqual({
      text: 'Expired 3 days ago',
      tone: 'destructive',
    });
    expect(expiryText({ days_remaining: null, expires_at: null })).toBeNull();
  });
});

describe('servedView', () => {
  it("is the server's comparison, and not checked yet while a match belongs to an earlier certificate", () => {
    expect(servedView(domainFixture())).toBe('match');
    expect(servedView(domainFixture({ served: { status: 'mismatch', fingerprint: OTHER_FINGERPRINT, checked_at: null } }))).toBe(
      'mismatch',
    );
    expect(servedView(domainFixture({ served: { status: null, fingerprint: null, checked_at: null } }))).toBe('unchecked');
    expect(servedView(domainFixture({ served: { status: 'match', fingerprint: OTHER_FINGERPRINT, checked_at: null } }))).toBe(
      'unchecked',
    );
  });
});

describe('jobSettled', () => {
  const baseline = '2026-01-01T10:00:00.000Z';
  const job = { kind: 'provision' as const, baseline, startedAt: Date.now() };

  it('waits while the job has not touched the domain or it is provisioning', () => {
    expect(jobSettled(job, domainFixture({ status: 'pending', updated_at: baseline }))).toBe(false);
    expect(jobSettled(job, domainFixture({ status: 'provisioning', updated_at: '2026-01-01T10:00:05.000Z' }))).toBe(false);
  });

  it('waits for an issued certificate to be compared with what the edge serves', () => {
    const issued = domainFixture({
      updated_at: '2026-01-01T10:00:10.000Z',
      served: { status: null, fingerprint: null, checked_at: null },
    });
    expect(jobSettled(job, issued)).toBe(false);
    expect(
      jobSettled(job, {
        ...issued,
        served: { status: 'match', fingerprint: FINGERPRINT, checked_at: '2026-01-01T10:00:11.000Z' },
      }),
    ).toBe(true);
  });

  it('is done with a wildcard once its order waits for the TXT record (a renewal goes on to finalize)', () => {
    const waiting = wildcardFixture({ updated_at: '2026-01-01T10:00:03.000Z' });
    expect(jobSettled(job, waiting)).toBe(true);
    expect(jobSettled({ ...job, kind: 'renew' }, waiting)).toBe(false);
    expect(jobSettled(job, { ...waiting, updated_at: baseline })).toBe(false);
  });

  it('is done once the job failed, and after JOB_WAIT_MS whatever happened', () => {
    expect(jobSettled(job, domainFixture({ status: 'failed', fingerprint: null, updated_at: '2026-01-01T10:00:09.000Z' }))).toBe(
      true,
    );
    const old = { ...job, startedAt: Date.now() - JOB_WAIT_MS - 1 };
    expect(jobSettled(old, domainFixture({ status: 'pending', updated_at: baseline }))).toBe(true);
  });
});

describe('helpers', () => {
  it('shortens a fingerprint to its start and end', () => {
    expect(shortFingerprint(FINGERPRINT)).toBe('a1b2c3d4e5f6…6d7e8f90');
  });

  it('tells an address from the server’s placeholder sentence', () => {
    expect(isAddress('203.0.113.10')).toBe(true);
    expect(isAddress('2001:db8::1')).toBe(true);
    expect(isAddress("this server's public IP address")).toBe(false);
  });
});
