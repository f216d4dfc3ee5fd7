import {
  ACCESS_MODES,
  type AccessMode,
  type Connectivity,
  connectivitySchema,
  type DnsCheck,
  dnsCheckSchema,
  type PlatformSettings,
  platformSettingsSchema,
} from '@launchbay/contract';
import { useMutation, useQuery } from '@tanstack/react-query';
import { CircleCheck, CircleX, Globe, Network, Plug, RefreshCw, Router } from 'lucide-react';
import { useMemo } from 'react';
import { Controller } from 'react-hook-form';
import { z } from 'zod';
import { FormField } from '@/components/form/form-field';
import { EmptyState, Page } from '@/components/layout/page';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardAction, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { CopyButton } from '@/components/ui/copy-button';
import { Input } from '@/components/ui/input';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table';
import { api, errorDetail } from '@/lib/api';
import { ACCESS_MODE_HINT, ACCESS_MODE_LABEL } from '@/lib/platform';
import { retryServerErrors } from '@/lib/project-queries';
import { useIsAdmin } from '@/lib/roles';
import { useSettings } from '@/lib/settings';
import { useSectionForm } from '@/lib/settings-form';
import { useIsNarrow } from '@/lib/use-media-query';
import { cn } from '@/lib/utils';

/*
 * External Connectivity (/setup/connectivity): how the world reaches this machine. The server
 * checks it for real (GET /platform/connectivity): the public IP, whether ports 80 and 443 answer
 * on it, the DNS records the base domain needs; each record can be resolved on demand
 * (GET /platform/connectivity/dns-check). Admins change the access mode and base domain here too
 * (PUT /settings, only what changed).
 */

const connectivityQueryKey = ['platform', 'connectivity'] as const;

function useConnectivity() {
  return useQuery({
    queryKey: connectivityQueryKey,
    queryFn: ({ signal }) => api('/platform/connectivity', { signal, response: connectivitySchema }),
    retry: retryServerErrors,
  });
}

function useDnsCheck() {
  return useMutation({
    mutationFn: (name: string) => api('/platform/connectivity/dns-check', { query: { name }, response: dnsCheckSchema }),
  });
}

/** An IPv4 or IPv6 address (without PUBLIC_IP a record's value is a sentence instead: nothing to copy). */
const isAddress = (value: string) =>
  /^\d{1,3}(\.\d{1,3}){3}$/.test(value) || (value.includes(':') && /^[0-9a-f:.]+$/i.test(value));

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/* Access mode ----------------------------------------------------------------------------------- */

const shape = platformSettingsSchema.shape;

const formSchema = z.object({
  access_mode: shape.access_mode,
  // An empty field clears the base domain; anything else must pass the contract's schema (and message).
  base_domain: z
    .string()
    .transform((value) => (value.trim() === '' ? null : value.trim()))
    .pipe(shape.base_domain),
});
type FormInput = z.input<typeof formSchema>;

function AccessModeForm({ settings }: { settings: PlatformSettings }) {
  const values = useMemo<FormInput>(
    () => ({ access_mode: settings.access_mode, base_domain: settings.base_domain ?? '' }),
    [settings],
  );
  const { form, save: submit } = useSectionForm({
    schema: formSchema,
    values,
    current: settings,
    messages: { saved: 'Connectivity settings saved', failed: 'Failed to save connectivity settings' },
    alsoRefresh: [connectivityQueryKey],
  });
  const { register, control, formState, watch } = form;
  const { isDirty, isSubmitting } = formState;
  const baseDomain = watch('base_domain').trim().toLowerCase();

  return (
    <form onSubmit={submit} noValidate aria-label="Connectivity settings">
      <CardContent className="border-t py-6">
        <fieldset disabled={isSubmitting} className="grid min-w-0 gap-5 sm:grid-cols-2">
          <legend className="sr-only">Connectivity settings</legend>
          <Controller
            control={control}
            name="access_mode"
            render={({ field, fieldState }) => (
              <FormField
                id="connectivity-access-mode"
                label="Access mode"
                // The saved mode is explained above: explain a new choice only.
                hint={field.value === settings.access_mode ? undefined : ACCESS_MODE_HINT[field.value]}
                error={fieldState.error?.message}
              >
                <Select value={field.value} onValueChange={(value) => field.onChange(value as AccessMode)}>
                  <SelectTrigger id="connectivity-access-mode" className="w-full" onBlur={field.onBlur}>
                    <SelectValue>{ACCESS_MODE_LABEL[field.value]}</SelectValue>
                  </SelectTrigger>
                  <SelectContent>
                    {ACCESS_MODES.map((mode) => (
                      <SelectItem key={mode} value={mode} className="items-start py-2">
                        <span className="grid gap-0.5">
                          <span>{ACCESS_MODE_LABEL[mode]}</span>
                          <span className="whitespace-normal text-muted-foreground text-xs">{ACCESS_MODE_HINT[mode]}</span>
                        </span>
                      </SelectItem>
                    ))}
                  </SelectContent>
                </Select>
              </FormField>
            )}
          />
          <FormField
            id="connectivity-base-domain"
            label="Base domain"
            hint={
              baseDomain ? (
                <>
                  Apps get addresses such as <span className="font-mono [overflow-wrap:anywhere]">my-app.{baseDomain}</span>.
                </>
              ) : (
                'Apps get addresses under this domain, e.g. my-app.apps.example.com.'
              )
            }
            error={formState.errors.base_domain?.message}
          >
            <Input
              id="connectivity-base-domain"
              placeholder="apps.example.com"
              autoCapitalize="none"
              autoComplete="off"
              spellCheck={false}
              aria-invalid={formState.errors.base_domain ? true : undefined}
              {...register('base_domain')}
            />
          </FormField>
        </fieldset>
      </CardContent>
      <CardFooter className="flex-wrap justify-between gap-3 border-t bg-muted/30 py-3">
        <p className="text-muted-foreground text-xs" aria-live="polite">
          {isDirty ? 'You have unsaved changes.' : 'Also on the Settings page. Saved settings apply at once.'}
        </p>
        <div className="ml-auto flex shrink-0 gap-2">
          {isDirty ? (
            <Button variant="ghost" size="sm" disabled={isSubmitting} onClick={() => form.reset(values)}>
              Discard
            </Button>
          ) : null}
          <Button type="submit" size="sm" disabled={!isDirty || isSubmitting} aria-label="Save connectivity settings">
            {isSubmitting ? <Spinner /> : null}
            Save
          </Button>
        </div>
      </CardFooter>
    </form>
  );
}

function AccessModeCard() {
  const isAdmin = useIsAdmin();
  const { data: settings, isPending, isError, error, refetch, isFetching } = useSettings();
  return (
    <section aria-labelledby="connectivity-access-title">
      <Card className="gap-0 overflow-hidden py-0">
        <CardHeader className="py-6">
          <CardTitle id="connectivity-access-title" className="flex items-center gap-2">
            <Router className="size-4 text-muted-foreground" aria-hidden="true" />
            Access mode
          </CardTitle>
          <CardDescription>How people and apps reach this platform.</CardDescription>
        </CardHeader>
        {isPending ? (
          <CardContent className="pb-6">
            <Skeleton className="h-16 rounded-lg" />
          </CardContent>
        ) : isError ? (
          <CardContent className="flex flex-wrap items-center justify-between gap-3 pb-6">
            <p className="text-destructive text-sm">Could not load the settings: {errorDetail(error)}</p>
            <Button variant="outline" size="sm" onClick={() => void refetch()} disabled={isFetching}>
              Retry
            </Button>
          </CardContent>
        ) : (
          <>
            <CardContent className="pb-6">
              <div className="flex items-start gap-3 rounded-lg border bg-muted/30 p-4" data-testid="connectivity-access-mode">
                <div className="grid min-w-0 gap-1">
                  <p className="font-semibold text-lg leading-tight">{ACCESS_MODE_LABEL[settings.access_mode]}</p>
                  <p className="text-muted-foreground text-sm">{ACCESS_MODE_HINT[settings.access_mode]}</p>
                </div>
              </div>
              {isAdmin ? null : (
                <p className="mt-3 text-muted-foreground text-xs">
                  Changing the access mode or base domain needs the admin role.
                </p>
              )}
            </CardContent>
            {isAdmin ? <AccessModeForm settings={settings} /> : null}
          </>
        )}
      </Card>
    </section>
  );
}

/* Public IP ------------------------------------------------------------------------------------- */

function PublicIpCard({ connectivity }: { connectivity: Connectivity }) {
  const { ip, source } = connectivity.public_ip;
  return (
    <section aria-labelledby="connectivity-ip-title">
      <Card className="gap-4">
        <CardHeader>
          <CardTitle id="connectivity-ip-title" className="flex items-center gap-2">
            <Globe className="size-4 text-muted-foreground" aria-hidden="true" />
            Public IP
          </CardTitle>
          <CardDescription>The address the internet reaches this machine on.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-1.5">
          <div className="flex min-w-0 items-center gap-2">
            <p
              className={cn('min-w-0 font-mono font-semibold text-xl [overflow-wrap:anywhere]', !ip && 'text-muted-foreground')}
              data-testid="connectivity-public-ip"
            >
              {ip ?? 'Unknown'}
            </p>
            {ip ? <CopyButton value={ip} label="Copy the public IP" iconOnly variant="ghost" size="icon-sm" /> : null}
          </div>
          <p className="text-muted-foreground text-sm" data-testid="connectivity-public-ip-source">
            {ip ? `Source: ${source}.` : `${capitalize(source.replace(/^none:\s*/i, ''))}.`}
          </p>
        </CardContent>
      </Card>
    </section>
  );
}

/* Ports ----------------------------------------------------------------------------------------- */

const REACHABILITY = {
  reachable: {
    label: 'Reachable',
    badge: 'border-success/25 bg-success/10 text-emerald-700 dark:text-success',
    dot: 'bg-success',
  },
  unreachable: {
    label: 'Not reachable',
    badge: 'border-destructive/25 bg-destructive/10 text-destructive',
    dot: 'bg-destructive',
  },
  unchecked: { label: 'Not checked', badge: 'border-border bg-muted text-muted-foreground', dot: 'bg-muted-foreground/60' },
} as const;

/** Green 'Reachable', red 'Not reachable' or grey 'Not checked' (no public IP to try). */
function ReachabilityBadge({ reachable }: { reachable: boolean | null }) {
  const state = reachable === null ? 'unchecked' : reachable ? 'reachable' : 'unreachable';
  const look = REACHABILITY[state];
  return (
    <Badge variant="outline" className={cn('gap-1.5', look.badge)} data-testid="port-reachability" data-state={state}>
      <span className={cn('size-1.5 rounded-full', look.dot)} aria-hidden="true" />
      {look.label}
    </Badge>
  );
}

function PortsCard({
  connectivity,
  refetch,
  isFetching,
}: {
  connectivity: Connectivity;
  refetch: () => void;
  isFetching: boolean;
}) {
  return (
    <section aria-labelledby="connectivity-ports-title">
      <Card className="gap-4 pb-0">
        {/* On a phone the button goes under the description rather than squeezing the title. */}
        <CardHeader className="max-sm:grid-cols-1!">
          <CardTitle id="connectivity-ports-title" className="flex items-center gap-2">
            <Plug className="size-4 text-muted-foreground" aria-hidden="true" />
            Ports 80 and 443
          </CardTitle>
          <CardDescription>Whether the public IP answers on them, tried from this machine.</CardDescription>
          <CardAction className="max-sm:col-start-1 max-sm:row-span-1 max-sm:row-start-3 max-sm:mt-2 max-sm:justify-self-start">
            <Button variant="outline" size="sm" onClick={refetch} disabled={isFetching}>
              {isFetching ? <Spinner className="size-3.5" label="Checking" /> : <RefreshCw aria-hidden="true" />}
              Check again
            </Button>
          </CardAction>
        </CardHeader>
        <ul className="divide-y border-t" aria-label="Ports">
          {connectivity.ports.map((port) => (
            <li
              key={port.port}
              className="grid grid-cols-[4.5rem_1fr_auto] items-start gap-x-4 gap-y-2 px-6 py-4"
              data-testid={`port-${port.port}`}
            >
              <p className="font-mono font-semibold text-2xl leading-none tabular-nums">{port.port}</p>
              <div className="col-span-3 grid min-w-0 gap-1 sm:col-span-1 sm:col-start-2 sm:row-start-1">
                <p className="font-medium text-sm">{port.purpose}</p>
                <p className="text-muted-foreground text-xs">
                  Edge port: <span className="font-mono text-foreground">{port.edge_port ?? 'not listening'}</span>
                </p>
                <p className="text-muted-foreground text-sm [overflow-wrap:anywhere]">{port.detail}</p>
              </div>
              <div className="col-start-3 row-start-1 justify-self-end">
                <ReachabilityBadge reachable={port.reachable} />
              </div>
            </li>
          ))}
        </ul>
      </Card>
    </section>
  );
}

/* DNS records ----------------------------------------------------------------------------------- */

type DnsRecord = Connectivity['dns_records'][number];

function RecordValue({ record }: { record: DnsRecord }) {
  if (!isAddress(record.value)) return <span className="text-muted-foreground text-sm italic">{record.value}</span>;
  return <CopyText value={record.value} label={`Copy the value of ${record.name}`} />;
}

function CopyText({ value, label }: { value: string; label: string }) {
  return (
    <span className="flex min-w-0 items-center gap-1.5">
      <code className="min-w-0 break-all font-mono text-xs">{value}</code>
      <CopyButton value={value} label={label} iconOnly variant="ghost" size="icon-sm" className="size-7 shrink-0" />
    </span>
  );
}

function TypeBadge({ record }: { record: DnsRecord }) {
  return (
    <Badge variant="secondary" className="font-mono">
      {record.type}
    </Badge>
  );
}

/** What a DNS check found, in the server's words: green when the name points here, red otherwise. */
function DnsCheckResult({ result, error }: { result: DnsCheck | undefined; error: unknown }) {
  if (error) {
    return (
      <p
        role="status"
        className="flex items-start gap-1.5 text-destructive text-sm"
        data-testid="dns-check-result"
        data-ok="false"
      >
        <CircleX className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
        <span className="[overflow-wrap:anywhere]">Could not check: {errorDetail(error)}</span>
      </p>
    );
  }
  if (!result) return null;
  return (
    <p
      role="status"
      className={cn('flex items-start gap-1.5 text-sm', result.ok ? 'text-emerald-700 dark:text-success' : 'text-destructive')}
      data-testid="dns-check-result"
      data-ok={String(result.ok)}
    >
      {result.ok ? (
        <CircleCheck className="mt-0.5 size-4 shrink-0" aria-label="OK" />
      ) : (
        <CircleX className="mt-0.5 size-4 shrink-0" aria-label="Failed" />
      )}
      <span className="[overflow-wrap:anywhere]">{result.detail}</span>
    </p>
  );
}

function CheckButton({ record, check }: { record: DnsRecord; check: ReturnType<typeof useDnsCheck> }) {
  return (
    <Button
      variant="outline"
      size="sm"
      onClick={() => check.mutate(record.name)}
      disabled={check.isPending}
      aria-label={`Check ${record.name}`}
    >
      {check.isPending ? <Spinner className="size-3.5" label="Checking" /> : null}
      Check
    </Button>
  );
}

/** One record: a table row (and a row with the check's result under it), or an item on narrow screens. */
function RecordEntry({ record, narrow }: { record: DnsRecord; narrow: boolean }) {
  const check = useDnsCheck();
  const shown = check.isPending ? undefined : check.data;
  const failure = check.isPending ? null : check.error;
  const hasResult = Boolean(shown || failure);
  if (narrow) {
    return (
      <li className="grid gap-2 px-4 py-4" data-testid="dns-record">
        <div className="flex items-center justify-between gap-2">
          <div className="flex min-w-0 items-center gap-2">
            <TypeBadge record={record} />
            <span className="text-muted-foreground text-xs">{record.purpose}</span>
          </div>
          <CheckButton record={record} check={check} />
        </div>
        <div className="grid gap-0.5">
          <span className="text-muted-foreground text-xs">Name</span>
          <CopyText value={record.name} label={`Copy the name ${record.name}`} />
        </div>
        <div className="grid gap-0.5">
          <span className="text-muted-foreground text-xs">Value</span>
          <RecordValue record={record} />
        </div>
        <DnsCheckResult result={shown} error={failure} />
      </li>
    );
  }
  return (
    <>
      <TableRow data-testid="dns-record" className={cn(hasResult && 'border-b-0 hover:bg-transparent')}>
        <TableCell className="pl-6 align-top">
          <TypeBadge record={record} />
        </TableCell>
        <TableCell className="whitespace-normal align-top">
          <CopyText value={record.name} label={`Copy the name ${record.name}`} />
          <p className="mt-0.5 text-muted-foreground text-xs">{record.purpose}</p>
        </TableCell>
        <TableCell className="whitespace-normal align-top">
          <RecordValue record={record} />
        </TableCell>
        <TableCell className="pr-6 text-right align-top">
          <CheckButton record={record} check={check} />
        </TableCell>
      </TableRow>
      {hasResult ? (
        <TableRow className="hover:bg-transparent">
          <TableCell colSpan={4} className="whitespace-normal px-6 pt-0">
            <DnsCheckResult result={shown} error={failure} />
          </TableCell>
        </TableRow>
      ) : null}
    </>
  );
}

function DnsRecordsCard({ connectivity }: { connectivity: Connectivity }) {
  const narrow = useIsNarrow();
  const isAdmin = useIsAdmin();
  const records = connectivity.dns_records;
  return (
    <section aria-labelledby="connectivity-dns-title">
      <Card className="gap-4 pb-0">
        <CardHeader>
          <CardTitle id="connectivity-dns-title" className="flex items-center gap-2">
            <Network className="size-4 text-muted-foreground" aria-hidden="true" />
            DNS records
          </CardTitle>
          <CardDescription>
            {connectivity.base_domain ? (
              <>
                Create these at the DNS provider of{' '}
                <span className="font-mono [overflow-wrap:anywhere]">{connectivity.base_domain}</span>. Changes can take a few
                minutes to be visible.
              </>
            ) : (
              'The records the base domain needs at your DNS provider.'
            )}
          </CardDescription>
        </CardHeader>
        {records.length === 0 ? (
          <p className="border-t px-6 py-4 text-muted-foreground text-sm" data-testid="dns-records-empty">
            {isAdmin
              ? 'No base domain is set. Set one with the form above to see the records to create.'
              : 'No base domain is set. An admin can set one on this page.'}
          </p>
        ) : narrow ? (
          <ul className="divide-y border-t" aria-label="DNS records">
            {records.map((record) => (
              <RecordEntry key={`${record.type}-${record.name}`} record={record} narrow />
            ))}
          </ul>
        ) : (
          <div className="border-t">
            <Table aria-label="DNS records">
              <TableHeader>
                <TableRow className="hover:bg-transparent">
                  <TableHead className="w-20 pl-6">Type</TableHead>
                  <TableHead className="w-[45%]">Name</TableHead>
                  <TableHead>Value</TableHead>
                  <TableHead className="pr-6 text-right">
                    <span className="sr-only">Check</span>
                  </TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {records.map((record) => (
                  <RecordEntry key={`${record.type}-${record.name}`} record={record} narrow={false} />
                ))}
              </TableBody>
            </Table>
          </div>
        )}
      </Card>
    </section>
  );
}

/* Page ------------------------------------------------------------------------------------------ */

export default function ConnectivityPage() {
  const { data: connectivity, isPending, isError, error, refetch, isFetching } = useConnectivity();
  return (
    <Page
      title="External Connectivity"
      documentTitle="External Connectivity"
      description="How the internet reaches this machine: its public address, ports 80 and 443, and the DNS records apps need."
    >
      <div className="grid max-w-4xl gap-6">
        <AccessModeCard />
        {isPending ? (
          <>
            <Skeleton className="h-36 rounded-xl" />
            <Skeleton className="h-56 rounded-xl" />
            <Skeleton className="h-40 rounded-xl" />
          </>
        ) : isError ? (
          <EmptyState
            title="Could not check connectivity"
            description={errorDetail(error)}
            action={
              <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
                Retry
              </Button>
            }
          />
        ) : (
          <>
            <PublicIpCard connectivity={connectivity} />
            <PortsCard connectivity={connectivity} refetch={() => void refetch()} isFetching={isFetching} />
            <DnsRecordsCard connectivity={connectivity} />
          </>
        )}
      </div>
    </Page>
  );
}
