import type { Domain, DomainOrder } from '@launchbay/contract';
import { BadgeCheck, FileClock, RefreshCw, X } from 'lucide-react';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail, isApiError } from '@/lib/api';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { toast } from '@/lib/toast';
import { cn } from '@/lib/utils';
import { useCancelOrder, useFinalizeOrder, useRefreshOrder } from './api';
import { challengeStatusLabel, type DomainChallenge, pendingDnsChallenges } from './model';
import { CopyValue, ErrorCallout } from './parts';

export const CERTIFICATE_ISSUED = 'Certificate issued';

const CHALLENGE_TONE: Record<string, string> = {
  valid: 'border-success/25 bg-success/10 text-emerald-700 dark:text-success',
  invalid: 'border-destructive/25 bg-destructive/10 text-destructive',
  processing: 'border-sky-500/25 bg-sky-500/10 text-sky-700 dark:text-sky-300',
};

function ChallengeStatus({ status }: { status: string }) {
  return (
    <span
      data-testid="challenge-status"
      data-status={status}
      className={cn(
        'inline-flex w-fit shrink-0 items-center whitespace-nowrap rounded-full border px-2 py-0.5 font-medium text-xs',
        CHALLENGE_TONE[status] ?? 'border-border bg-muted text-muted-foreground',
      )}
    >
      {challengeStatusLabel(status)}
    </span>
  );
}

function ChallengeRow({ challenge }: { challenge: DomainChallenge }) {
  return (
    <li className="grid gap-1.5 py-3 first:pt-0 last:pb-0" data-testid={`challenge-${challenge.type}`}>
      <div className="flex flex-wrap items-center gap-2">
        <Badge variant="outline" className="font-mono font-normal">
          {challenge.type.toUpperCase()}
        </Badge>
        <span className="min-w-0 break-all font-mono text-sm">{challenge.identifier}</span>
        <ChallengeStatus status={challenge.status} />
      </div>
      {challenge.error ? <p className="text-destructive text-xs [overflow-wrap:anywhere]">{challenge.error}</p> : null}
    </li>
  );
}

/** The message of a refused finalize: the first field error (a missing TXT record), else the detail. */
export function finalizeMessage(error: unknown): string {
  if (isApiError(error) && error.errors[0]?.message) return error.errors[0].message;
  return errorDetail(error);
}

/** DNS-01: the TXT record to create, and the button that has the CA check it and issue the certificate. */
function DnsStep({ domain, challenges, canManage }: { domain: Domain; challenges: DomainChallenge[]; canManage: boolean }) {
  const finalize = useFinalizeOrder();
  const [failure, setFailure] = useState<string | null>(null);
  const verify = async () => {
    setFailure(null);
    try {
      const issued = await finalize.mutateAsync(domain.id);
      toast.success(CERTIFICATE_ISSUED, { description: `${issued.domain} is served over HTTPS.` });
    } catch (error) {
      setFailure(finalizeMessage(error));
    }
  };
  return (
    <section className="grid min-w-0 gap-4 rounded-lg border bg-muted/20 p-4" aria-label="DNS TXT record" data-testid="dns-step">
      <div className="grid gap-1">
        <p className="font-medium text-sm">Create {challenges.length === 1 ? 'this TXT record' : 'these TXT records'}</p>
        <p className="text-muted-foreground text-sm">
          At your DNS provider. Launchbay looks for it every minute and issues the certificate by itself once it is visible;
          Verify and issue does it now.
        </p>
      </div>
      {challenges.map((challenge) => (
        <dl key={`${challenge.dns_name}-${challenge.token}`} className="grid gap-3" data-testid="txt-record">
          <div className="grid gap-1">
            <dt className="text-muted-foreground text-xs">Name</dt>
            <dd>
              <CopyValue value={challenge.dns_name ?? ''} label="Copy TXT name" />
            </dd>
          </div>
          <div className="grid gap-1">
            <dt className="text-muted-foreground text-xs">Value</dt>
            <dd>
              <CopyValue value={challenge.dns_value ?? ''} label="Copy TXT value" />
            </dd>
          </div>
        </dl>
      ))}
      {failure ? (
        <ErrorCallout title="Not verified" testId="finalize-error">
          {failure}
        </ErrorCallout>
      ) : null}
      {canManage ? (
        <div className="flex flex-wrap items-center gap-3">
          <Button onClick={() => void verify()} disabled={finalize.isPending}>
            {finalize.isPending ? <Spinner /> : <BadgeCheck />}
            Verify and issue
          </Button>
          {finalize.isPending ? (
            <span className="text-muted-foreground text-sm" aria-live="polite">
              The certificate authority is checking the record…
            </span>
          ) : null}
        </div>
      ) : (
        <p className="text-muted-foreground text-sm">An admin verifies the record once it exists.</p>
      )}
    </section>
  );
}

/**
 * The ACME order in progress: each challenge with its status at the CA, and for a wildcard the TXT
 * record with 'Verify and issue'. It can be checked at the CA again, or cancelled.
 */
export function OrderCard({ domain, order, canManage }: { domain: Domain; order: DomainOrder; canManage: boolean }) {
  const refresh = useRefreshOrder();
  const cancel = useCancelOrder();
  const [confirmOpen, setConfirmOpen] = useState(false);
  const dnsChallenges = pendingDnsChallenges(order);
  return (
    <Card className="min-w-0 gap-4" aria-labelledby="domain-order-title" data-testid="domain-order">
      <CardHeader>
        <CardTitle id="domain-order-title" className="flex items-center gap-2">
          <FileClock className="size-4 text-muted-foreground" />
          Order in progress
        </CardTitle>
        <CardDescription>
          Status at the certificate authority: <span className="font-medium text-foreground">{order.status}</span>
          {order.expires_at ? (
            <span title={formatDateTime(order.expires_at)}> · the order expires {formatRelativeTime(order.expires_at)}</span>
          ) : null}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {dnsChallenges.length > 0 ? <DnsStep domain={domain} challenges={dnsChallenges} canManage={canManage} /> : null}
        {order.challenges.some((challenge) => challenge.type === 'http-01') && domain.status === 'provisioning' ? (
          <p className="text-muted-foreground text-sm">
            The edge answers the challenge on port 80; the certificate authority checks it now.
          </p>
        ) : null}
        <div className="grid gap-2">
          <h3 className="font-medium text-muted-foreground text-xs uppercase tracking-wide">Challenges</h3>
          <ul className="divide-y" aria-label="Challenges">
            {order.challenges.map((challenge) => (
              <ChallengeRow key={`${challenge.type}-${challenge.token}`} challenge={challenge} />
            ))}
          </ul>
        </div>
        {order.error ? (
          <ErrorCallout title="The certificate authority refused" testId="order-error">
            {order.error}
          </ErrorCallout>
        ) : null}
      </CardContent>
      <CardFooter className="flex-wrap gap-2 border-t pt-4">
        <Button
          variant="outline"
          size="sm"
          disabled={refresh.isPending}
          onClick={() =>
            refresh.mutate(domain.id, {
              onError: (error) => toast.error('Could not read the order', { description: errorDetail(error) }),
            })
          }
        >
          {refresh.isPending ? <Spinner /> : <RefreshCw />}
          Check at the CA
        </Button>
        {canManage ? (
          <Button
            variant="ghost"
            size="sm"
            className="text-destructive hover:text-destructive"
            onClick={() => setConfirmOpen(true)}
          >
            <X />
            Cancel order
          </Button>
        ) : null}
      </CardFooter>
      <ConfirmDialog
        open={confirmOpen}
        onOpenChange={setConfirmOpen}
        title="Cancel this order?"
        description={
          <>
            The certificate authority forgets its challenges{dnsChallenges.length > 0 ? ' (the TXT value will change)' : ''}.
            {domain.fingerprint ? ' The current certificate stays.' : ' Provision again to start a new one.'}
          </>
        }
        confirmLabel="Cancel order"
        cancelLabel="Keep it"
        onConfirm={async () => {
          try {
            await cancel.mutateAsync(domain.id);
            toast.success('Order cancelled', { description: domain.domain });
            setConfirmOpen(false);
          } catch (error) {
            toast.error('Failed to cancel the order', { description: errorDetail(error) });
          }
        }}
      />
    </Card>
  );
}
