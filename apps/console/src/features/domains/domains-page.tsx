import type { Domain } from '@launchbay/contract';
import { ChevronRight, Globe, Plus } from 'lucide-react';
import { Link, useNavigate } from 'react-router';
import { DataTable, type DataTableColumn } from '@/components/data-table/data-table';
import { LoadFailed } from '@/components/errors/load-failed';
import { EmptyState, Page } from '@/components/layout/page';
import { SkeletonRows } from '@/components/skeleton-rows';
import { Badge } from '@/components/ui/badge';
import { buttonVariants } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { useIsAdmin } from '@/lib/roles';
import { useIsNarrow } from '@/lib/use-media-query';
import { useDomains } from './api';
import { DomainStatusBadge, ExpiryLabel, ServedIndicator } from './domain-status';
import { ADD_DOMAIN_PATH, domainPath, waitingForTxt } from './model';

function AddDomainLink() {
  return (
    <Link to={ADD_DOMAIN_PATH} className={buttonVariants()}>
      <Plus />
      Add domain
    </Link>
  );
}

function NameCell({ domain }: { domain: Domain }) {
  return (
    <div className="grid min-w-0 gap-1">
      <Link
        to={domainPath(domain.id)}
        className="min-w-0 font-medium font-mono text-sm underline-offset-4 outline-none [overflow-wrap:anywhere] hover:underline focus-visible:underline"
      >
        {domain.domain}
      </Link>
      <span className="flex flex-wrap items-center gap-1.5 text-muted-foreground text-xs">
        {domain.is_wildcard ? (
          <Badge variant="outline" className="font-normal">
            Wildcard
          </Badge>
        ) : null}
        <span>{domain.challenge_type === 'dns-01' ? 'DNS-01' : 'HTTP-01'}</span>
      </span>
    </div>
  );
}

/** The status, and what it waits for (the TXT record) or why it failed. */
function StatusCell({ domain }: { domain: Domain }) {
  const note = waitingForTxt(domain)
    ? 'Waiting for the DNS TXT record'
    : domain.status === 'failed' && domain.last_error
      ? domain.last_error
      : domain.renewal_failures > 0
        ? `Renewal failed ${domain.renewal_failures} ${domain.renewal_failures === 1 ? 'time' : 'times'}`
        : null;
  return (
    <div className="grid min-w-0 justify-items-start gap-1">
      <DomainStatusBadge status={domain.status} />
      {note ? (
        <span
          className={
            domain.status === 'failed' || domain.renewal_failures > 0
              ? 'line-clamp-2 text-destructive text-xs [overflow-wrap:anywhere]'
              : 'text-muted-foreground text-xs'
          }
          title={note}
        >
          {note}
        </span>
      ) : null}
    </div>
  );
}

function DomainsList({ domains }: { domains: Domain[] }) {
  const narrow = useIsNarrow();
  const navigate = useNavigate();
  if (narrow) {
    return (
      <ul className="grid grid-cols-[minmax(0,1fr)] gap-3" aria-label="Domains">
        {domains.map((domain) => (
          <li key={domain.id} data-testid={`domain-row-${domain.domain}`}>
            {/* The name is the link; a tap anywhere else on the card opens the domain too. */}
            <Card
              className="cursor-pointer gap-3 px-4 py-4 transition-colors hover:bg-muted/30"
              onClick={(event) => {
                if ((event.target as HTMLElement).closest('a, button')) return;
                navigate(domainPath(domain.id));
              }}
            >
              <div className="flex items-start justify-between gap-3">
                <NameCell domain={domain} />
                <ChevronRight className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
              </div>
              <StatusCell domain={domain} />
              <dl className="grid grid-cols-2 gap-3 text-xs">
                <div className="grid content-start gap-1">
                  <dt className="text-muted-foreground">Certificate</dt>
                  <dd className="text-sm">
                    <ExpiryLabel domain={domain} />
                  </dd>
                </div>
                <div className="grid content-start gap-1">
                  <dt className="text-muted-foreground">Served</dt>
                  <dd>
                    <ServedIndicator domain={domain} />
                  </dd>
                </div>
              </dl>
            </Card>
          </li>
        ))}
      </ul>
    );
  }
  const columns: DataTableColumn<Domain>[] = [
    {
      id: 'domain',
      header: 'Domain',
      headClassName: 'pl-4',
      cellClassName: 'pl-4 max-w-80 whitespace-normal',
      cell: (domain) => <NameCell domain={domain} />,
    },
    {
      id: 'status',
      header: 'Status',
      cellClassName: 'max-w-64 whitespace-normal',
      cell: (domain) => <StatusCell domain={domain} />,
    },
    { id: 'certificate', header: 'Certificate', cellClassName: 'text-sm', cell: (domain) => <ExpiryLabel domain={domain} /> },
    {
      id: 'served',
      header: 'Served',
      cellClassName: 'max-w-56 whitespace-normal',
      cell: (domain) => <ServedIndicator domain={domain} />,
    },
    {
      id: 'open',
      header: 'Open',
      srOnly: true,
      headClassName: 'w-10 pr-3',
      cellClassName: 'pr-3 text-right',
      cell: () => <ChevronRight className="ml-auto size-4 text-muted-foreground" aria-hidden="true" />,
    },
  ];
  return (
    <Card className="gap-0 overflow-hidden p-0">
      <DataTable
        columns={columns}
        rows={domains}
        rowKey={(domain) => domain.id}
        rowProps={(domain) => ({
          'data-testid': `domain-row-${domain.domain}`,
          className: 'cursor-pointer',
          // The name is the link (keyboard, new tab); a click anywhere else on the row opens it too.
          onClick: (event) => {
            if ((event.target as HTMLElement).closest('a, button')) return;
            navigate(domainPath(domain.id));
          },
        })}
        className="[&_td]:py-3.5"
      />
    </Card>
  );
}

function LoadingRows() {
  return <SkeletonRows label="Loading domains" cells={['h-4 w-48', 'h-5 w-20 rounded-full', 'ml-auto h-4 w-28']} />;
}

/** /domains: the platform's domains with their certificate, its expiry and what the edge really serves. */
export default function DomainsPage() {
  const isAdmin = useIsAdmin();
  const domains = useDomains();
  const list = domains.data ?? [];
  return (
    <Page
      title="Domains"
      documentTitle="Domains"
      description={
        <>
          TLS certificates from your ACME certificate authority, renewed before they expire.
          {isAdmin ? null : ' Only admins can add or change domains.'}
        </>
      }
      actions={isAdmin && list.length > 0 ? <AddDomainLink /> : null}
    >
      {domains.isPending ? (
        <LoadingRows />
      ) : domains.isError && !domains.data ? (
        <LoadFailed title="Could not load domains" query={domains} />
      ) : list.length === 0 ? (
        <EmptyState
          icon={<Globe />}
          title="No domains yet"
          description={
            isAdmin
              ? 'Add a domain to get a TLS certificate for it: an exact name is validated through the edge (HTTP-01), a wildcard with a DNS TXT record (DNS-01).'
              : 'Domains get TLS certificates from the certificate authority. An admin can add them here.'
          }
          action={isAdmin ? <AddDomainLink /> : null}
        />
      ) : (
        <DomainsList domains={list} />
      )}
    </Page>
  );
}
