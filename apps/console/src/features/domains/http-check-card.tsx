import type { Domain, HttpChallengeDebug } from '@launchbay/contract';
import { CircleCheck, CircleX, Stethoscope } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail } from '@/lib/api';
import { cn } from '@/lib/utils';
import { useHttpChallengeDebug } from './api';
import { ErrorCallout } from './parts';

type CheckName = HttpChallengeDebug['checks'][number]['name'];

export const CHECK_LABEL: Record<CheckName, string> = {
  dns: 'DNS points here',
  port_80: 'Port 80 answers',
  token: 'The edge answers the token',
};

function CheckList({ result }: { result: HttpChallengeDebug }) {
  return (
    <div className="grid gap-3" data-testid="http-check-result" data-ready={result.ready}>
      <p
        role="status"
        className={cn('font-medium text-sm', result.ready ? 'text-emerald-700 dark:text-success' : 'text-destructive')}
      >
        {result.ready
          ? 'Ready: a certificate authority validating now would succeed.'
          : 'Not ready: a validation now would fail. Fix the failed checks below.'}
      </p>
      <ul className="grid gap-2" aria-label="HTTP-01 checks">
        {result.checks.map((check) => (
          <li
            key={check.name}
            data-testid={`http-check-${check.name}`}
            data-ok={check.ok}
            className={cn(
              'flex items-start gap-3 rounded-lg border p-3',
              check.ok ? 'border-border' : 'border-destructive/40 bg-destructive/5 dark:bg-destructive/10',
            )}
          >
            {check.ok ? (
              <CircleCheck className="mt-0.5 size-4 shrink-0 text-emerald-700 dark:text-success" aria-label="Passed" />
            ) : (
              <CircleX className="mt-0.5 size-4 shrink-0 text-destructive" aria-label="Failed" />
            )}
            <div className="grid min-w-0 gap-0.5">
              <p className={cn('font-medium text-sm', !check.ok && 'text-destructive')}>
                {CHECK_LABEL[check.name] ?? check.name}
              </p>
              <p className="text-muted-foreground text-xs [overflow-wrap:anywhere]">{check.detail}</p>
            </div>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * HTTP-01 troubleshooting on demand: the checks a certificate authority's validation depends on
 * (the name resolves here, port 80 answers, the edge answers the challenge token), with details.
 */
export function HttpCheckCard({ domain }: { domain: Domain }) {
  const debug = useHttpChallengeDebug();
  return (
    <Card className="min-w-0 gap-4" aria-labelledby="domain-http-check-title" data-testid="domain-http-check">
      <CardHeader>
        <CardTitle id="domain-http-check-title" className="flex items-center gap-2">
          <Stethoscope className="size-4 text-muted-foreground" />
          HTTP-01 check
        </CardTitle>
        <CardDescription className="[overflow-wrap:anywhere]">
          What the certificate authority needs to validate {domain.domain}, checked from this server now.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <div className="flex flex-wrap items-center gap-3">
          <Button variant="outline" size="sm" onClick={() => debug.mutate(domain.id)} disabled={debug.isPending}>
            {debug.isPending ? <Spinner /> : <Stethoscope />}
            Run check
          </Button>
          {debug.data || debug.isError ? null : (
            <p className="text-muted-foreground text-sm">
              {debug.isPending
                ? 'Checking DNS, port 80 and the challenge token…'
                : 'When provisioning fails: it says whether DNS, port 80 or the challenge token is the problem.'}
            </p>
          )}
        </div>
        {debug.isError ? (
          <ErrorCallout title="The check could not run">{errorDetail(debug.error)}</ErrorCallout>
        ) : debug.data ? (
          <CheckList result={debug.data} />
        ) : null}
      </CardContent>
    </Card>
  );
}
