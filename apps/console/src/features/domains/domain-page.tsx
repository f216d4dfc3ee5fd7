import type { Domain } from '@launchbay/contract';
import { Globe, RefreshCw, Rocket, Trash2 } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { EmptyState, Page } from '@/components/layout/page';
import { Badge } from '@/components/ui/badge';
import { Button, buttonVariants } from '@/components/ui/button';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail, isApiError } from '@/lib/api';
import { useIsAdmin } from '@/lib/roles';
import { toast } from '@/lib/toast';
import { useDeleteDomain, useDomain, useDomainJob } from './api';
import { CertificateCard, DnsRecordsCard, ServedCard } from './domain-cards';
import { DomainStatusBadge } from './domain-status';
import { HttpCheckCard } from './http-check-card';
import { DOMAINS_PATH, type DomainJob, jobSettled } from './model';
import { OrderCard } from './order-card';
import { BackToDomains } from './parts';

export const DOMAIN_DELETED = 'Domain deleted';

/** A job the add page started, handed over in the navigation state. */
function jobFromState(state: unknown): DomainJob | null {
  const job = (state as { job?: Partial<DomainJob> } | null)?.job;
  if (!job || typeof job.baseline !== 'string' || typeof job.startedAt !== 'number') return null;
  return { kind: job.kind === 'renew' ? 'renew' : 'provision', baseline: job.baseline, startedAt: job.startedAt };
}

function DomainNotFound({ reference }: { reference: string | undefined }) {
  return (
    <Page title="Domain not found" documentTitle="Domain not found" back={<BackToDomains />}>
      <EmptyState
        icon={<Globe />}
        title="This domain does not exist"
        description={
          <>
            There is no domain <span className="font-mono">{reference}</span>. It may have been deleted.
          </>
        }
        action={
          <Link to={DOMAINS_PATH} className={buttonVariants({ variant: 'outline' })}>
            Back to Domains
          </Link>
        }
      />
    </Page>
  );
}

/** What the header says while a job started here runs. */
function JobNote({ domain, job }: { domain: Domain; job: DomainJob }) {
  const touched = domain.updated_at !== job.baseline;
  const text =
    touched && domain.status === 'active' && domain.fingerprint
      ? 'Comparing what the edge serves…'
      : job.kind === 'renew'
        ? 'Renewing the certificate…'
        : domain.challenge_type === 'dns-01'
          ? 'Asking the certificate authority for the DNS challenge…'
          : 'Getting a certificate…';
  return (
    <span className="inline-flex items-center gap-1.5 text-muted-foreground text-sm" aria-live="polite" data-testid="domain-job">
      <Spinner className="size-3.5" label="Working" />
      {text}
    </span>
  );
}

function DomainView({
  domain: live,
  reference,
  job,
  setJob,
}: {
  domain: Domain;
  reference: string;
  job: DomainJob | null;
  setJob: (job: DomainJob | null) => void;
}) {
  const isAdmin = useIsAdmin();
  const navigate = useNavigate();
  const provision = useDomainJob('provision');
  const renew = useDomainJob('renew');
  const remove = useDeleteDomain();
  const [confirmDelete, setConfirmDelete] = useState(false);

  useEffect(() => {
    if (job && jobSettled(job, live)) setJob(null);
  }, [job, live, setJob]);

  const working = job !== null || live.status === 'provisioning';

  const start = async (kind: 'provision' | 'renew') => {
    const mutation = kind === 'provision' ? provision : renew;
    try {
      const queued = await mutation.mutateAsync(reference);
      setJob({ kind, baseline: queued.updated_at, startedAt: Date.now() });
      toast.success(kind === 'provision' ? 'Provisioning started' : 'Renewal started', {
        description:
          kind === 'provision' && live.challenge_type === 'dns-01'
            ? `${live.domain}: a new TXT record to create follows.`
            : `${live.domain}: this page follows it.`,
      });
    } catch (error) {
      toast.error(kind === 'provision' ? 'Failed to start provisioning' : 'Failed to start the renewal', {
        description: errorDetail(error),
      });
    }
  };

  const order = live.order;
  return (
    <Page
      title={<span className="font-mono text-xl [overflow-wrap:anywhere] sm:text-2xl">{live.domain}</span>}
      documentTitle={live.domain}
      back={<BackToDomains />}
      description={
        <span className="flex flex-wrap items-center gap-2">
          <DomainStatusBadge status={live.status} size="lg" />
          {live.is_wildcard ? <Badge variant="outline">Wildcard</Badge> : null}
          <Badge variant="secondary" className="font-mono">
            {live.challenge_type.toUpperCase()}
          </Badge>
          {job ? <JobNote domain={live} job={job} /> : null}
          {isAdmin ? null : <span>Only admins can change domains.</span>}
        </span>
      }
      actions={
        isAdmin ? (
          <>
            <Button
              onClick={() => void start('provision')}
              disabled={working || provision.isPending}
              title={working ? 'A certificate is on its way' : undefined}
            >
              {provision.isPending ? <Spinner /> : <Rocket />}
              Provision
            </Button>
            <Button
              variant="outline"
              onClick={() => void start('renew')}
              disabled={!live.fingerprint || working || renew.isPending}
              title={live.fingerprint ? undefined : 'No certificate to renew yet: provision it first'}
            >
              {renew.isPending ? <Spinner /> : <RefreshCw />}
              Renew
            </Button>
            <Button variant="outline" className="text-destructive hover:text-destructive" onClick={() => setConfirmDelete(true)}>
              <Trash2 />
              Delete
            </Button>
          </>
        ) : null
      }
    >
      <div className="grid min-w-0 gap-6">
        {order ? <OrderCard domain={live} order={order} canManage={isAdmin} /> : null}
        <div className="grid min-w-0 items-start gap-6 lg:grid-cols-2">
          <CertificateCard domain={live} />
          <ServedCard domain={live} checking={job !== null} />
        </div>
        <DnsRecordsCard domain={live} />
        {live.challenge_type === 'http-01' ? <HttpCheckCard domain={live} /> : null}
      </div>
      <ConfirmDialog
        open={confirmDelete}
        onOpenChange={setConfirmDelete}
        title={`Delete ${live.domain}?`}
        description={
          <>
            The edge stops serving its certificate{live.order ? ' and the order in progress is abandoned' : ''}. This action
            cannot be undone.
          </>
        }
        confirmLabel="Delete domain"
        onConfirm={async () => {
          try {
            await remove.mutateAsync(live.id);
            toast.success(DOMAIN_DELETED, { description: live.domain });
            setConfirmDelete(false);
            navigate(DOMAINS_PATH);
          } catch (error) {
            toast.error('Failed to delete domain', { description: errorDetail(error) });
          }
        }}
      />
    </Page>
  );
}

/** One domain's screen: its query, followed every 2 s while it provisions or a job started here runs. */
function DomainScreen({ reference, navigationState }: { reference: string | undefined; navigationState: unknown }) {
  const [job, setJob] = useState(() => jobFromState(navigationState));
  const {
    data: domain,
    isPending,
    isError,
    error,
    refetch,
    isFetching,
  } = useDomain(reference, {
    follow: (current) => job !== null && !jobSettled(job, current),
  });

  if (!reference || (isApiError(error) && error.status === 404)) return <DomainNotFound reference={reference} />;
  if (isError && !domain) {
    return (
      <Page title="Domain" documentTitle="Domain" back={<BackToDomains />}>
        <EmptyState
          title="Could not load this domain"
          description={errorDetail(error)}
          action={
            <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
              Retry
            </Button>
          }
        />
      </Page>
    );
  }
  if (isPending || !domain) {
    return (
      <Page title={<Skeleton className="h-8 w-64" />} documentTitle="Domain" back={<BackToDomains />}>
        <div className="grid gap-6 lg:grid-cols-2">
          <Skeleton className="h-72 rounded-xl" />
          <Skeleton className="h-72 rounded-xl" />
        </div>
        <Skeleton className="h-40 rounded-xl" />
      </Page>
    );
  }
  return <DomainView domain={domain} reference={reference} job={job} setJob={setJob} />;
}

/** /domains/{id} (or /domains/{name}): one domain with its certificate, what the edge serves, DNS records and order. */
export default function DomainPage() {
  const { id } = useParams();
  const location = useLocation();
  // A new screen per domain: a job followed on one is not followed on the next.
  return <DomainScreen key={id} reference={id} navigationState={location.state} />;
}
