import { zodResolver } from '@hookform/resolvers/zod';
import { createDomainRequestSchema } from '@launchbay/contract';
import { Globe, ShieldAlert, TextCursorInput } from 'lucide-react';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';
import type { z } from 'zod';
import { FormField } from '@/components/form/form-field';
import { fieldsNamed, placeServerErrors } from '@/components/form/server-errors';
import { Page } from '@/components/layout/page';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail } from '@/lib/api';
import { useIsAdmin } from '@/lib/roles';
import { toast } from '@/lib/toast';
import { useCreateDomain, useDomainJob } from './api';
import { DOMAINS_PATH, type DomainJob, domainPath, isWildcard } from './model';
import { BackToDomains, ErrorCallout } from './parts';

type FormInput = z.input<typeof createDomainRequestSchema>;
type FormOutput = z.output<typeof createDomainRequestSchema>;

export const ADD_FAILED_TITLE = 'Failed to add domain';
export const DOMAIN_HINT =
  'An exact name such as shop.example.com, or a wildcard such as *.example.com. A wildcard needs a DNS TXT record, which you create at your DNS provider in the next step.';

/** What the page says it is doing while the domain is added and its certificate asked for. */
type Step = 'idle' | 'adding' | 'provisioning';

/** The next steps for the name typed so far: through the edge (HTTP-01), or a TXT record (DNS-01). */
function NextSteps({ name }: { name: string }) {
  const typed = name.trim().toLowerCase().replace(/\.$/, '');
  const wildcard = isWildcard(typed);
  const base = wildcard ? typed.slice(2) : typed;
  const shown = (value: string, fallback: string) => <span className="font-mono text-foreground">{value || fallback}</span>;
  return (
    <div className="grid gap-3 rounded-lg border bg-muted/30 p-4 text-sm" data-testid="domain-next-steps">
      <p className="flex items-center gap-2 font-medium">
        {wildcard ? (
          <TextCursorInput className="size-4 text-muted-foreground" />
        ) : (
          <Globe className="size-4 text-muted-foreground" />
        )}
        {wildcard ? 'Wildcard: validated with a DNS TXT record (DNS-01)' : 'Exact name: validated through the edge (HTTP-01)'}
      </p>
      <ol className="grid list-decimal gap-1.5 pl-5 text-muted-foreground">
        {wildcard ? (
          <>
            <li>Launchbay asks the certificate authority for a challenge and shows the TXT record it wants.</li>
            <li>
              You create the TXT record {shown(base ? `_acme-challenge.${base}` : '', '_acme-challenge.example.com')} at your DNS
              provider.
            </li>
            <li>You click Verify and issue: the certificate covers every name under {shown(base, 'example.com')}.</li>
          </>
        ) : (
          <>
            <li>Point {shown(typed, 'the name')} at this server with an A record.</li>
            <li>
              Provisioning starts at once: the certificate authority checks the name through the edge on port 80, and the
              certificate is served over HTTPS as soon as it is issued.
            </li>
          </>
        )}
      </ol>
    </div>
  );
}

function AdminOnly() {
  return (
    <div role="note" className="flex items-start gap-3 rounded-lg border bg-muted/50 p-4 text-sm">
      <ShieldAlert className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
      <div>
        <p className="font-medium">Admins only</p>
        <p className="text-muted-foreground">Adding a domain and asking for its certificate needs the admin role.</p>
      </div>
    </div>
  );
}

/** /domains/add: a domain by name, then at once on its way to a certificate (the job is followed on its page). */
export default function AddDomainPage() {
  const navigate = useNavigate();
  const isAdmin = useIsAdmin();
  const create = useCreateDomain();
  const provision = useDomainJob('provision');
  const [step, setStep] = useState<Step>('idle');
  const [detail, setDetail] = useState<string | null>(null);
  const form = useForm<FormInput, unknown, FormOutput>({
    resolver: zodResolver(createDomainRequestSchema),
    defaultValues: { domain: '' },
  });
  const { register, handleSubmit, watch, setError, formState } = form;
  const error = formState.errors.domain?.message;
  const busy = step !== 'idle';

  const submit = handleSubmit(async (body) => {
    setDetail(null);
    setStep('adding');
    let created: Awaited<ReturnType<typeof create.mutateAsync>>;
    try {
      created = await create.mutateAsync(body);
    } catch (failure) {
      setStep('idle');
      const message = errorDetail(failure);
      if (!placeServerErrors(failure, setError, fieldsNamed(['domain']))) setDetail(message);
      toast.error(ADD_FAILED_TITLE, { description: message });
      return;
    }
    // Straight on to the certificate: an exact name goes all the way through the edge, a wildcard
    // gets its order (the TXT record to create), both in the background.
    setStep('provisioning');
    let job: DomainJob | null = null;
    try {
      const queued = await provision.mutateAsync(created.id);
      job = { kind: 'provision', baseline: queued.updated_at, startedAt: Date.now() };
    } catch (failure) {
      toast.error('Could not start provisioning', { description: `${errorDetail(failure)} Provision it from its page.` });
    }
    toast.success('Domain added', {
      description: created.is_wildcard
        ? `${created.domain}: create the TXT record it shows, then verify.`
        : `${created.domain}: getting its certificate.`,
    });
    navigate(domainPath(created.id), { state: job ? { job } : null });
  });

  return (
    <Page
      title="Provision Domain"
      documentTitle="Provision Domain"
      description="Add a domain and get a TLS certificate for it from your ACME certificate authority."
      className="max-w-3xl"
      back={<BackToDomains />}
    >
      {isAdmin ? null : <AdminOnly />}
      <Card>
        <CardHeader>
          <CardTitle>Domain</CardTitle>
          <CardDescription>The edge serves its certificate over HTTPS and renews it before it expires.</CardDescription>
        </CardHeader>
        <CardContent>
          <form onSubmit={submit} noValidate className="grid gap-6">
            <fieldset disabled={busy || !isAdmin} className="grid min-w-0 gap-5">
              <legend className="sr-only">Domain to provision</legend>
              <FormField id="domain-name" label="Domain" hint={DOMAIN_HINT} keepHint error={error}>
                <Input
                  id="domain-name"
                  className="font-mono"
                  placeholder="shop.example.com"
                  autoComplete="off"
                  autoCapitalize="none"
                  spellCheck={false}
                  maxLength={253}
                  aria-invalid={error ? true : undefined}
                  {...register('domain')}
                />
              </FormField>
              <NextSteps name={watch('domain')} />
              {detail ? <ErrorCallout>{detail}</ErrorCallout> : null}
            </fieldset>
            <div className="flex flex-col-reverse gap-2 border-t pt-6 sm:flex-row sm:items-center sm:justify-end">
              {busy ? (
                <p className="text-muted-foreground text-sm sm:mr-auto" aria-live="polite">
                  {step === 'adding' ? 'Adding the domain…' : 'Starting provisioning…'}
                </p>
              ) : null}
              <Link to={DOMAINS_PATH} className={buttonVariants({ variant: 'outline' })} aria-disabled={busy || undefined}>
                Cancel
              </Link>
              <Button type="submit" disabled={busy || !isAdmin}>
                {busy ? <Spinner /> : null}
                Add domain
              </Button>
            </div>
          </form>
        </CardContent>
      </Card>
    </Page>
  );
}
