import type { Domain } from '@launchbay/contract';
import { CircleCheck, CircleHelp, Network, ShieldAlert, ShieldCheck, ShieldX } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { DataTable, type DataTableColumn } from '@/components/data-table/data-table';
import { Badge } from '@/components/ui/badge';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { CopyButton } from '@/components/ui/copy-button';
import { Spinner } from '@/components/ui/spinner';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { useSettings } from '@/lib/settings';
import { useIsNarrow } from '@/lib/use-media-query';
import { cn } from '@/lib/utils';
import { ExpiryLabel } from './domain-status';
import { expiryText, isAddress, type ServedView, servedView, shortFingerprint } from './model';
import { CopyValue, ErrorCallout } from './parts';

function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 py-3 first:pt-0 last:pb-0 sm:grid-cols-[8rem_minmax(0,1fr)] sm:gap-4">
      <dt className="text-muted-foreground text-sm">{label}</dt>
      <dd className="min-w-0 text-sm [overflow-wrap:anywhere]">{children}</dd>
    </div>
  );
}

function When({ iso }: { iso: string | null }) {
  if (!iso) return <span className="text-muted-foreground">—</span>;
  return (
    <span>
      {formatDateTime(iso)} <span className="text-muted-foreground">({formatRelativeTime(iso)})</span>
    </span>
  );
}

export function Fingerprint({ value, label = 'Copy fingerprint' }: { value: string; label?: string }) {
  return (
    <span className="inline-flex max-w-full items-center gap-2">
      <code className="min-w-0 truncate rounded bg-muted px-1.5 py-0.5 font-mono text-xs" title={value}>
        {shortFingerprint(value)}
      </code>
      <CopyButton value={value} label={label} iconOnly variant="ghost" size="icon-sm" className="size-7 shrink-0" />
    </span>
  );
}

function RenewalDetail({ domain }: { domain: Domain }) {
  const settings = useSettings();
  const days = settings.data?.certificate_renewal_days;
  if (domain.renewal_failures > 0) {
    const times = `${domain.renewal_failures} ${domain.renewal_failures === 1 ? 'time' : 'times'}`;
    return (
      <span className="grid gap-0.5" data-testid="domain-renewal">
        <span className="font-medium text-destructive">Failed {times} in a row</span>
        {domain.next_renewal_at ? (
          <span className="text-muted-foreground">
            Next attempt {formatRelativeTime(domain.next_renewal_at)} ({formatDateTime(domain.next_renewal_at)})
          </span>
        ) : null}
      </span>
    );
  }
  const due = days !== undefined && domain.days_remaining !== null && domain.days_remaining < days;
  return (
    <span className="grid gap-0.5" data-testid="domain-renewal">
      <span>
        {due
          ? 'Due: renewed at the next hourly check'
          : `Automatic, ${days ? `${days} ${days === 1 ? 'day' : 'days'}` : 'some days'} before it expires`}
      </span>
      <Link to="/settings" className="w-fit text-muted-foreground text-xs underline underline-offset-4 hover:text-foreground">
        Change when in Settings
      </Link>
    </span>
  );
}

function noCertificateText(domain: Domain): string {
  switch (domain.status) {
    case 'provisioning':
      return domain.challenge_type === 'dns-01'
        ? 'No certificate yet: it is issued by itself once the TXT record is visible (checked every minute).'
        : 'No certificate yet: the certificate authority is validating the name.';
    case 'failed':
      return 'No certificate: the last attempt failed. Fix the cause below, then provision again.';
    default:
      return 'No certificate yet. Provision the domain to get one.';
  }
}

/** The stored certificate: when it was issued and expires, its fingerprint, its renewal, and the last error. */
export function CertificateCard({ domain }: { domain: Domain }) {
  const expiry = expiryText(domain);
  return (
    <Card className="min-w-0 gap-4" aria-labelledby="domain-certificate-title" data-testid="domain-certificate">
      <CardHeader>
        <CardTitle id="domain-certificate-title" className="flex items-center gap-2">
          <ShieldCheck className="size-4 text-muted-foreground" />
          Certificate
        </CardTitle>
        <CardDescription className="[overflow-wrap:anywhere]">
          {domain.is_wildcard
            ? `Covers every name under ${domain.domain.slice(2)}; validated with a DNS TXT record (DNS-01).`
            : 'Validated through the edge on port 80 (HTTP-01).'}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {domain.fingerprint ? (
          <dl className="divide-y">
            <Detail label="Issued">
              <When iso={domain.issued_at} />
            </Detail>
            <Detail label="Expires">
              <span className="grid gap-0.5">
                <ExpiryLabel domain={domain} />
                {domain.expires_at ? <span className="text-muted-foreground">{formatDateTime(domain.expires_at)}</span> : null}
              </span>
            </Detail>
            <Detail label="Days remaining">
              <span
                className={cn(
                  'font-medium tabular-nums',
                  expiry?.tone === 'warning' && 'text-amber-700 dark:text-warning',
                  expiry?.tone === 'destructive' && 'text-destructive',
                )}
                data-testid="domain-days-remaining"
              >
                {domain.days_remaining ?? '—'}
              </span>
            </Detail>
            <Detail label="Fingerprint">
              <span className="grid gap-0.5">
                <Fingerprint value={domain.fingerprint} />
                <span className="text-muted-foreground text-xs">SHA-256</span>
              </span>
            </Detail>
            <Detail label="Renewal">
              <RenewalDetail domain={domain} />
            </Detail>
          </dl>
        ) : (
          <p className="text-muted-foreground text-sm">{noCertificateText(domain)}</p>
        )}
        {domain.last_error ? (
          <ErrorCallout
            testId="domain-last-error"
            title={
              domain.renewal_failures > 0
                ? 'The last renewal failed'
                : domain.status === 'failed'
                  ? 'Provisioning failed'
                  : 'Last error'
            }
          >
            {domain.last_error}
          </ErrorCallout>
        ) : null}
      </CardContent>
    </Card>
  );
}

const SERVED_HEADLINE: Record<ServedView, string> = {
  match: 'The edge serves this certificate',
  mismatch: 'The edge serves another certificate',
  none: 'The edge serves no certificate for this name',
  unreachable: "The edge's HTTPS port cannot be reached",
  unchecked: 'Not compared yet',
};

function servedSentence(view: ServedView, domain: Domain, checking: boolean): ReactNode {
  switch (view) {
    case 'match':
      return 'HTTPS visitors get the certificate stored here.';
    case 'mismatch':
      return 'HTTPS visitors get a different certificate than the one stored here (an older one, or one the edge has not picked up). Provision again to publish the stored certificate.';
    case 'none':
      return `HTTPS requests for ${domain.domain} get no certificate, so browsers refuse them. Provision again to publish the certificate to the edge.`;
    case 'unreachable':
      return "Launchbay could not connect to the edge's HTTPS port to compare, so visitors probably cannot reach it either. Check that the edge is running.";
    default:
      if (checking) return 'Comparing what the edge serves with the new certificate…';
      return domain.fingerprint
        ? 'The edge is compared with the stored certificate right after it is issued, then every hour.'
        : 'There is no certificate to compare yet.';
  }
}

/**
 * What the edge really serves for this name, compared with the stored certificate. A mismatch, no
 * certificate, or an edge that cannot be reached is shown in red with what it means.
 */
export function ServedCard({ domain, checking = false }: { domain: Domain; checking?: boolean }) {
  const view = servedView(domain);
  const problem = view === 'mismatch' || view === 'none' || view === 'unreachable';
  const Icon = view === 'match' ? CircleCheck : view === 'mismatch' ? ShieldAlert : problem ? ShieldX : CircleHelp;
  const { served } = domain;
  return (
    <Card
      className={cn('min-w-0 gap-4', problem && 'border-destructive/50')}
      aria-labelledby="domain-served-title"
      data-testid="domain-served-card"
      data-served={view}
    >
      <CardHeader>
        <CardTitle id="domain-served-title">What the edge serves</CardTitle>
        <CardDescription>The certificate HTTPS visitors really get, compared with the one stored here.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <div
          role={problem ? 'alert' : 'status'}
          className={cn(
            'flex items-start gap-3 rounded-lg border p-3 text-sm',
            view === 'match' && 'border-success/30 bg-success/10',
            problem && 'border-destructive/40 bg-destructive/10',
            view === 'unchecked' && 'bg-muted/40',
          )}
        >
          {checking && view === 'unchecked' ? (
            <Spinner className="mt-0.5 text-muted-foreground" label="Checking" />
          ) : (
            <Icon
              className={cn(
                'mt-0.5 size-5 shrink-0',
                view === 'match' && 'text-emerald-700 dark:text-success',
                problem && 'text-destructive',
                view === 'unchecked' && 'text-muted-foreground',
              )}
              aria-hidden="true"
            />
          )}
          <div className="grid min-w-0 gap-1">
            <p
              className={cn(
                'font-semibold',
                view === 'match' && 'text-emerald-800 dark:text-success',
                problem && 'text-destructive',
              )}
            >
              {SERVED_HEADLINE[view]}
            </p>
            <p className="text-foreground/80 [overflow-wrap:anywhere]">{servedSentence(view, domain, checking)}</p>
          </div>
        </div>
        {view === 'mismatch' ? (
          <dl className="grid gap-2 text-sm" data-testid="domain-served-fingerprints">
            <div className="grid gap-1">
              <dt className="text-muted-foreground text-xs">Stored certificate</dt>
              <dd className="break-all font-mono text-xs">{domain.fingerprint ?? '—'}</dd>
            </div>
            <div className="grid gap-1">
              <dt className="font-medium text-destructive text-xs">Served by the edge</dt>
              <dd className="break-all font-mono text-destructive text-xs">{served.fingerprint ?? '—'}</dd>
            </div>
          </dl>
        ) : null}
        {served.checked_at ? (
          <p className="text-muted-foreground text-xs" title={formatDateTime(served.checked_at)}>
            Last compared {formatRelativeTime(served.checked_at)}
          </p>
        ) : null}
      </CardContent>
    </Card>
  );
}

type DnsRecord = Domain['dns_records'][number];

function RecordValue({ record }: { record: DnsRecord }) {
  // Without PUBLIC_IP the server writes a sentence where the address goes: nothing to copy.
  if ((record.type === 'A' || record.type === 'AAAA') && !isAddress(record.value)) {
    return <span className="text-muted-foreground text-sm italic">{record.value}</span>;
  }
  return <CopyValue value={record.value} label={`Copy ${record.type} value`} />;
}

function RecordType({ record }: { record: DnsRecord }) {
  return (
    <Badge variant="secondary" className="font-mono">
      {record.type}
    </Badge>
  );
}

/** The records to create at the DNS provider: the name pointing here, and a pending DNS-01 TXT. */
export function DnsRecordsCard({ domain }: { domain: Domain }) {
  const narrow = useIsNarrow();
  const records = domain.dns_records;
  const columns: DataTableColumn<DnsRecord>[] = [
    {
      id: 'type',
      header: 'Type',
      headClassName: 'pl-6 w-20',
      cellClassName: 'pl-6 align-top',
      cell: (r) => <RecordType record={r} />,
    },
    {
      id: 'name',
      header: 'Name',
      cellClassName: 'w-[32%] whitespace-normal align-top',
      cell: (r) => <CopyValue value={r.name} label={`Copy ${r.type} name`} />,
    },
    {
      id: 'value',
      header: 'Value',
      cellClassName: 'w-[38%] whitespace-normal align-top',
      cell: (r) => <RecordValue record={r} />,
    },
    {
      id: 'purpose',
      header: 'Purpose',
      headClassName: 'pr-6',
      cellClassName: 'pr-6 whitespace-normal align-top text-muted-foreground text-xs',
      cell: (r) => r.purpose,
    },
  ];
  return (
    <Card className="min-w-0 gap-4 pb-0" aria-labelledby="domain-dns-title">
      <CardHeader>
        <CardTitle id="domain-dns-title" className="flex items-center gap-2">
          <Network className="size-4 text-muted-foreground" />
          DNS records to create
        </CardTitle>
        <CardDescription>At your DNS provider. Changes can take a few minutes to be visible.</CardDescription>
      </CardHeader>
      {records.length === 0 ? (
        <p className="border-t px-6 py-4 text-muted-foreground text-sm">No records needed.</p>
      ) : narrow ? (
        <ul className="divide-y border-t" aria-label="DNS records">
          {records.map((record) => (
            <li key={`${record.type}-${record.name}`} className="grid gap-2 px-4 py-4" data-testid={`dns-record-${record.type}`}>
              <div className="flex items-center gap-2">
                <RecordType record={record} />
                <span className="text-muted-foreground text-xs">{record.purpose}</span>
              </div>
              <div className="grid gap-1">
                <span className="text-muted-foreground text-xs">Name</span>
                <CopyValue value={record.name} label={`Copy ${record.type} name`} />
              </div>
              <div className="grid gap-1">
                <span className="text-muted-foreground text-xs">Value</span>
                <RecordValue record={record} />
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <div className="border-t">
          <DataTable
            columns={columns}
            rows={records}
            rowKey={(record) => `${record.type}-${record.name}`}
            rowProps={(record) => ({ 'data-testid': `dns-record-${record.type}` })}
            className="[&_td]:py-3"
          />
        </div>
      )}
    </Card>
  );
}
