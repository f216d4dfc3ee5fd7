import { zodResolver } from '@hookform/resolvers/zod';
import {
  type CustomDomain,
  createCustomDomainRequestSchema,
  customDomainListResponseSchema,
  customDomainSchema,
  type Environment,
  type ProjectDetail,
} from '@launchbay/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ArrowRight,
  ExternalLink,
  Globe,
  Loader2,
  Server,
  ShieldAlert,
  ShieldCheck,
  ShieldQuestion,
  ShieldX,
} from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { type Control, Controller, type FieldPath, useForm } from 'react-hook-form';
import { Link } from 'react-router';
import { z } from 'zod';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { LoadFailed } from '@/components/errors/load-failed';
import { FormField } from '@/components/form/form-field';
import { fieldsNamed, placeServerErrors } from '@/components/form/server-errors';
import { EmptyState } from '@/components/layout/page';
import { RowActionsMenu } from '@/components/row-actions-menu';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { Switch } from '@/components/ui/switch';
import { api, errorDetail, isApiError } from '@/lib/api';
import { useDocumentTitle } from '@/lib/document-title';
import { formatDateTime } from '@/lib/format';
import { displayUrl, environmentLabel, retryServerErrors } from '@/lib/project-queries';
import { projectsQueryKey } from '@/lib/projects';
import { useCanManage } from '@/lib/roles';
import { toast } from '@/lib/toast';
import { cn } from '@/lib/utils';
import { productionOf, useRouteProject } from './model';

export const DOMAIN_ADDED = 'Domain added';
export const DOMAIN_UPDATED = 'Domain updated';
export const DOMAIN_REMOVED = 'Domain removed';
export const ADD_FAILED = 'Failed to add domain';
export const UPDATE_FAILED = 'Failed to update domain';
export const REMOVE_FAILED = 'Failed to remove domain';

/* ------------------------------------------------------------------------------------------------
 * API: GET, POST /projects/{id}/custom-domains; PUT, DELETE /projects/{id}/custom-domains/{domain_id}
 * ---------------------------------------------------------------------------------------------- */

export const customDomainsKey = (projectId: number) => [...projectsQueryKey, projectId, 'custom-domains'] as const;
/** The certificates' list in Domains: adding a name there creates its (pending) certificate. */
const certificatesKey = ['domains'] as const;
/** While a certificate is being issued the list follows it. */
const PROVISIONING_POLL_MS = 5000;

function useCustomDomains(projectId: number) {
  return useQuery({
    queryKey: customDomainsKey(projectId),
    queryFn: ({ signal }) => api(`/projects/${projectId}/custom-domains`, { signal, response: customDomainListResponseSchema }),
    select: (data) => data.domains,
    retry: retryServerErrors,
    refetchInterval: (query) =>
      query.state.data?.domains.some((domain) => domain.certificate?.status === 'provisioning') ? PROVISIONING_POLL_MS : false,
  });
}

/** Every change refreshes the list, also after a failure (someone else may have changed it). */
function useDomainMutation<TVariables, TResult>(projectId: number, fn: (variables: TVariables) => Promise<TResult>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: async () => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: customDomainsKey(projectId) }),
        queryClient.invalidateQueries({ queryKey: certificatesKey }),
      ]);
    },
  });
}

interface AddBody {
  domain: string;
  environment_id?: number;
  redirect_to?: string;
}

interface UpdateBody {
  environment_id?: number;
  redirect_to: string | null;
}

const domainPath = (projectId: number, domainId: number) => `/projects/${projectId}/custom-domains/${domainId}`;

/* ------------------------------------------------------------------------------------------------
 * Forms
 * ---------------------------------------------------------------------------------------------- */

/** The name as the server takes it: one exact name (a wildcard belongs in Domains). */
const domainField = z.string().trim().min(1, 'Enter a domain').pipe(createCustomDomainRequestSchema.shape.domain);

/** Where a name goes: an environment of the project, or (redirect) another of its serving names. */
const targetShape = {
  redirect: z.boolean(),
  environment_id: z.string(),
  redirect_to: z.string(),
};

function checkTarget(
  values: { redirect: boolean; environment_id: string; redirect_to: string; domain?: string },
  ctx: z.RefinementCtx,
) {
  if (values.redirect) {
    if (!values.redirect_to) ctx.addIssue({ code: 'custom', path: ['redirect_to'], message: 'Choose the domain to redirect to' });
    else if (values.domain !== undefined && values.redirect_to === values.domain) {
      ctx.addIssue({ code: 'custom', path: ['redirect_to'], message: 'A domain cannot redirect to itself' });
    }
  } else if (!values.environment_id) {
    ctx.addIssue({ code: 'custom', path: ['environment_id'], message: 'Choose an environment' });
  }
}

const addSchema = z.object({ domain: domainField, ...targetShape }).superRefine(checkTarget);
type AddInput = z.input<typeof addSchema>;
type AddOutput = z.output<typeof addSchema>;

const editSchema = z.object(targetShape).superRefine(checkTarget);
type EditInput = z.input<typeof editSchema>;

type TargetValues = { redirect: boolean; environment_id: string; redirect_to: string };

/** For a failure with no field to show it on: the first field message (it names the cause), else the detail. */
function failureDetail(error: unknown): string {
  if (isApiError(error) && error.errors[0]?.message) return error.errors[0].message;
  return errorDetail(error);
}

/** What a name does, for toasts: 'shop.example.com serves production'. */
function doesText(domain: CustomDomain): string {
  return domain.redirect_to
    ? `${domain.domain} redirects to ${domain.redirect_to}`
    : `${domain.domain} serves ${domain.environment_name}`;
}

/** The project's lasting environments (previews are not a domain's target). */
function lastingEnvironments(project: ProjectDetail): Environment[] {
  return project.environments.filter((env) => env.pr_number === null);
}

/** A name can redirect only to one that serves (no chains), and never to itself. */
function redirectTargets(domains: CustomDomain[], except?: string): CustomDomain[] {
  return domains.filter((domain) => domain.redirect_to === null && domain.domain !== except);
}

function SwitchRow({
  id,
  label,
  description,
  checked,
  disabled,
  onCheckedChange,
}: {
  id: string;
  label: string;
  description: ReactNode;
  checked: boolean;
  disabled?: boolean;
  onCheckedChange: (checked: boolean) => void;
}) {
  return (
    <div className="flex items-start justify-between gap-4 rounded-lg border px-3 py-3">
      <div className="grid min-w-0 gap-1">
        <Label htmlFor={id}>{label}</Label>
        <p id={`${id}-hint`} className="text-muted-foreground text-xs">
          {description}
        </p>
      </div>
      <Switch id={id} checked={checked} disabled={disabled} onCheckedChange={onCheckedChange} aria-describedby={`${id}-hint`} />
    </div>
  );
}

/** The environment a name serves, or (redirect on) the name it redirects to. */
function TargetSelect<T extends TargetValues>({
  idPrefix,
  control,
  redirect,
  environments,
  targets,
  errors,
  disabled,
}: {
  idPrefix: string;
  control: Control<T>;
  redirect: boolean;
  environments: Environment[];
  targets: CustomDomain[];
  errors: { environment_id?: string; redirect_to?: string };
  disabled: boolean;
}) {
  if (redirect) {
    const id = `${idPrefix}-redirect-to`;
    return (
      <FormField
        id={id}
        label="Redirect to"
        error={errors.redirect_to}
        hint="A permanent redirect (308); the path and query are kept."
      >
        <Controller
          control={control}
          name={'redirect_to' as FieldPath<T>}
          render={({ field }) => (
            <Select value={String(field.value ?? '')} onValueChange={field.onChange} disabled={disabled}>
              <SelectTrigger
                id={id}
                ref={field.ref}
                onBlur={field.onBlur}
                className="font-mono"
                aria-invalid={errors.redirect_to ? true : undefined}
              >
                <SelectValue placeholder="Select a domain" />
              </SelectTrigger>
              <SelectContent>
                {targets.map((target) => (
                  <SelectItem key={target.id} value={target.domain} className="font-mono">
                    {target.domain}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          )}
        />
      </FormField>
    );
  }
  const id = `${idPrefix}-environment`;
  return (
    <FormField id={id} label="Environment" error={errors.environment_id} hint="Its live deployment, after every deploy.">
      <Controller
        control={control}
        name={'environment_id' as FieldPath<T>}
        render={({ field }) => (
          <Select value={String(field.value ?? '')} onValueChange={field.onChange} disabled={disabled}>
            <SelectTrigger id={id} ref={field.ref} onBlur={field.onBlur} aria-invalid={errors.environment_id ? true : undefined}>
              <SelectValue placeholder="Select an environment" />
            </SelectTrigger>
            <SelectContent>
              {environments.map((env) => (
                <SelectItem key={env.id} value={String(env.id)}>
                  {environmentLabel(env.name)}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
        )}
      />
    </FormField>
  );
}

function redirectHint(targets: CustomDomain[], description: string): string {
  return targets.length === 0
    ? 'Add a domain that serves first: a redirect goes to another domain of this project.'
    : description;
}

/** The DNS step: without it the name never reaches this server (nor can its certificate be issued). */
function DnsHint({ name }: { name: string }) {
  const typed = name.trim().toLowerCase().replace(/\.$/, '');
  return (
    <div
      role="note"
      className="flex items-start gap-3 rounded-lg border bg-muted/40 px-3 py-2.5 text-sm [&>svg]:mt-0.5 [&>svg]:size-4 [&>svg]:shrink-0 [&>svg]:text-muted-foreground"
    >
      <Server />
      <p className="min-w-0 text-muted-foreground">
        At your DNS provider, create an A record for{' '}
        <span className="break-all font-mono text-foreground">{typed || 'the name'}</span> pointing to this server. Once it
        resolves here, its certificate can be issued in{' '}
        <Link to="/domains" className="font-medium text-foreground underline underline-offset-4 hover:text-foreground/80">
          Domains
        </Link>
        .
      </p>
    </div>
  );
}

function AddDomainCard({ project, domains }: { project: ProjectDetail; domains: CustomDomain[] }) {
  const add = useDomainMutation(project.id, (body: AddBody) =>
    api(`/projects/${project.id}/custom-domains`, { method: 'POST', body, response: customDomainSchema }),
  );
  const environments = lastingEnvironments(project);
  const defaults: AddInput = {
    domain: '',
    redirect: false,
    environment_id: String(productionOf(project)?.id ?? ''),
    redirect_to: '',
  };
  const form = useForm<AddInput, unknown, AddOutput>({ resolver: zodResolver(addSchema), defaultValues: defaults });
  const { errors, isSubmitting } = form.formState;
  const redirect = form.watch('redirect');
  const name = form.watch('domain');
  const targets = redirectTargets(domains);

  const submit = form.handleSubmit(async (values) => {
    const body: AddBody = values.redirect
      ? { domain: values.domain, redirect_to: values.redirect_to }
      : { domain: values.domain, environment_id: Number(values.environment_id) };
    try {
      const created = await add.mutateAsync(body);
      toast.success(DOMAIN_ADDED, { description: doesText(created) });
      form.reset(defaults);
    } catch (error) {
      placeServerErrors(error, form.setError, fieldsNamed(['domain', 'environment_id', 'redirect_to']));
      toast.error(ADD_FAILED, { description: errorDetail(error) });
    }
  });

  return (
    <Card className="gap-5" role="region" aria-labelledby="add-domain-title">
      <CardHeader>
        <CardTitle id="add-domain-title">Add domain</CardTitle>
        <CardDescription>
          Serve an environment at a name of yours, or redirect one name to another (www to the apex).
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={submit} noValidate className="grid min-w-0 gap-5">
          <fieldset disabled={isSubmitting} className="grid min-w-0 gap-5">
            <legend className="sr-only">Add domain</legend>
            <div className="grid min-w-0 gap-4 sm:grid-cols-[minmax(0,1fr)_minmax(0,15rem)]">
              <FormField id="add-domain-name" label="Domain" error={errors.domain?.message}>
                <Input
                  id="add-domain-name"
                  className="font-mono"
                  placeholder="www.example.com"
                  autoComplete="off"
                  autoCapitalize="none"
                  spellCheck={false}
                  aria-invalid={errors.domain ? true : undefined}
                  {...form.register('domain')}
                />
              </FormField>
              <TargetSelect
                idPrefix="add-domain"
                control={form.control}
                redirect={redirect}
                environments={environments}
                targets={targets.filter((target) => target.domain !== name.trim().toLowerCase())}
                errors={{ environment_id: errors.environment_id?.message, redirect_to: errors.redirect_to?.message }}
                disabled={isSubmitting}
              />
            </div>
            <Controller
              control={form.control}
              name="redirect"
              render={({ field }) => (
                <SwitchRow
                  id="add-domain-redirect"
                  label="Redirect to another domain"
                  description={redirectHint(
                    targets,
                    "Answer every request with a permanent redirect to another of this project's domains.",
                  )}
                  checked={field.value}
                  disabled={isSubmitting || (targets.length === 0 && !field.value)}
                  onCheckedChange={(checked) => {
                    field.onChange(checked);
                    form.clearErrors(['environment_id', 'redirect_to']);
                    if (checked && !form.getValues('redirect_to') && targets[0]) {
                      form.setValue('redirect_to', targets[0].domain);
                    }
                  }}
                />
              )}
            />
          </fieldset>
          <DnsHint name={name} />
          <div className="flex justify-end">
            <Button type="submit" disabled={isSubmitting} className="w-full sm:w-auto">
              {isSubmitting ? <Spinner /> : <Globe />}
              Add domain
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}

function EditDomainDialog({
  project,
  domain,
  domains,
  onClose,
}: {
  project: ProjectDetail;
  domain: CustomDomain;
  domains: CustomDomain[];
  onClose: () => void;
}) {
  const update = useDomainMutation(project.id, (body: UpdateBody) =>
    api(domainPath(project.id, domain.id), { method: 'PUT', body, response: customDomainSchema }),
  );
  const environments = lastingEnvironments(project);
  const targets = redirectTargets(domains, domain.domain);
  // A name others redirect to must keep serving (no chains of redirects).
  const pointing = domains.find((other) => other.redirect_to === domain.domain);
  const form = useForm<EditInput>({
    resolver: zodResolver(editSchema),
    defaultValues: {
      redirect: domain.redirect_to !== null,
      environment_id: String(domain.environment_id),
      redirect_to: domain.redirect_to ?? '',
    },
  });
  const { errors, isSubmitting, isDirty } = form.formState;
  const redirect = form.watch('redirect');

  const submit = form.handleSubmit(async (values) => {
    const body: UpdateBody = values.redirect
      ? { redirect_to: values.redirect_to }
      : { environment_id: Number(values.environment_id), redirect_to: null };
    try {
      const updated = await update.mutateAsync(body);
      toast.success(DOMAIN_UPDATED, { description: doesText(updated) });
      onClose();
    } catch (error) {
      placeServerErrors(error, form.setError, fieldsNamed(['environment_id', 'redirect_to']));
      toast.error(UPDATE_FAILED, { description: errorDetail(error) });
    }
  });

  const switchHint = pointing
    ? `${pointing.domain} redirects here, so this one must serve.`
    : redirectHint(targets, "Answer every request with a permanent redirect to another of this project's domains.");

  return (
    <Dialog open onOpenChange={(next) => !next && !isSubmitting && onClose()}>
      <DialogContent>
        <form onSubmit={submit} noValidate className="grid min-w-0 gap-5">
          <DialogHeader>
            <DialogTitle>Edit {domain.domain}</DialogTitle>
            <DialogDescription>The edge applies the change at once.</DialogDescription>
          </DialogHeader>
          <fieldset disabled={isSubmitting} className="grid min-w-0 gap-5">
            <legend className="sr-only">Edit {domain.domain}</legend>
            <Controller
              control={form.control}
              name="redirect"
              render={({ field }) => (
                <SwitchRow
                  id="edit-domain-redirect"
                  label="Redirect to another domain"
                  description={switchHint}
                  checked={field.value}
                  disabled={isSubmitting || (!field.value && (targets.length === 0 || pointing !== undefined))}
                  onCheckedChange={(checked) => {
                    field.onChange(checked);
                    form.clearErrors(['environment_id', 'redirect_to']);
                    if (checked && !form.getValues('redirect_to') && targets[0]) {
                      form.setValue('redirect_to', targets[0].domain);
                    }
                  }}
                />
              )}
            />
            <TargetSelect
              idPrefix="edit-domain"
              control={form.control}
              redirect={redirect}
              environments={environments}
              targets={targets}
              errors={{ environment_id: errors.environment_id?.message, redirect_to: errors.redirect_to?.message }}
              disabled={isSubmitting}
            />
          </fieldset>
          <DialogFooter>
            <Button variant="outline" disabled={isSubmitting} onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={isSubmitting || !isDirty}>
              {isSubmitting ? <Spinner /> : null}
              Save
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

/* ------------------------------------------------------------------------------------------------
 * The list
 * ---------------------------------------------------------------------------------------------- */

const textLink =
  'rounded-sm font-medium text-foreground underline underline-offset-4 outline-none hover:text-foreground/80 focus-visible:ring-2 focus-visible:ring-ring/50';

function DomainName({ domain }: { domain: CustomDomain }) {
  return (
    <a
      href={domain.url}
      target="_blank"
      rel="noreferrer"
      title={`Open ${domain.url}`}
      className="group inline-flex min-w-0 max-w-full items-start gap-1.5 font-medium font-mono text-sm underline-offset-4 outline-none hover:underline focus-visible:underline"
    >
      <span className="min-w-0 [overflow-wrap:anywhere]">{domain.domain}</span>
      <ExternalLink
        className="mt-0.5 size-3.5 shrink-0 text-muted-foreground opacity-60 group-hover:opacity-100"
        aria-hidden="true"
      />
    </a>
  );
}

function DomainDoes({ domain }: { domain: CustomDomain }) {
  if (domain.redirect_to) {
    return (
      <span className="inline-flex min-w-0 items-start gap-1.5 text-sm" data-slot="domain-does">
        <ArrowRight className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
        <span className="min-w-0 [overflow-wrap:anywhere]">
          Redirects to <span className="font-mono">{domain.redirect_to}</span>
        </span>
      </span>
    );
  }
  return (
    <span className="inline-flex min-w-0 items-start gap-1.5 text-sm" data-slot="domain-does">
      <Server className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
      <span className="min-w-0">Serves {domain.environment_name}</span>
    </span>
  );
}

const DAY_MS = 86_400_000;

function expiryText(expiresAt: string | null, now = Date.now()): { text: string; expired: boolean } | null {
  if (!expiresAt) return null;
  const time = new Date(expiresAt).getTime();
  if (Number.isNaN(time)) return null;
  const days = Math.ceil((time - now) / DAY_MS);
  if (days <= 0) return { text: 'expired', expired: true };
  return { text: `expires in ${days} day${days === 1 ? '' : 's'}`, expired: false };
}

const SERVED_PROBLEM: Partial<Record<NonNullable<NonNullable<CustomDomain['certificate']>['served_status']>, string>> = {
  mismatch: 'The edge serves another certificate',
  none: 'The edge serves no certificate',
  unreachable: "The edge's HTTPS port could not be reached",
};

/** The certificate of the name (it lives in Domains): its state, expiry and what the edge really serves. */
function CertificateState({ domain }: { domain: CustomDomain }) {
  const certificate = domain.certificate;
  const label = <span className="sm:sr-only">Certificate: </span>;
  if (!certificate) {
    return (
      <span className="text-muted-foreground text-sm" data-slot="certificate" data-status="none">
        {label}No certificate yet
      </span>
    );
  }
  const manage = (
    <Link to={`/domains/${certificate.domain_id}`} className={textLink}>
      Manage certificate
    </Link>
  );
  if (certificate.status === 'pending') {
    return (
      <span className="text-muted-foreground text-sm" data-slot="certificate" data-status="pending">
        {label}No certificate yet — {manage}
      </span>
    );
  }
  if (certificate.status === 'provisioning') {
    return (
      <div className="grid gap-0.5 text-sm" data-slot="certificate" data-status="provisioning">
        <span className="inline-flex items-center gap-1.5 text-sky-700 dark:text-sky-300">
          <Loader2 className="size-4 shrink-0 animate-spin" aria-hidden="true" />
          {label}Being issued
        </span>
        <span className="text-xs">{manage}</span>
      </div>
    );
  }
  if (certificate.status === 'failed') {
    return (
      <div className="grid gap-0.5 text-sm" data-slot="certificate" data-status="failed">
        <span className="inline-flex items-center gap-1.5 font-medium text-destructive">
          <ShieldX className="size-4 shrink-0" aria-hidden="true" />
          {label}Failed
        </span>
        <span className="text-xs">{manage}</span>
      </div>
    );
  }
  const expiry = expiryText(certificate.expires_at);
  const served = certificate.served_status ? SERVED_PROBLEM[certificate.served_status] : undefined;
  const ServedIcon = certificate.served_status === 'mismatch' ? ShieldAlert : ShieldQuestion;
  return (
    <div className="grid gap-0.5 text-sm" data-slot="certificate" data-status="active">
      <span className="inline-flex flex-wrap items-center gap-x-1.5 text-emerald-700 dark:text-success">
        <ShieldCheck className="size-4 shrink-0" aria-hidden="true" />
        <span>{label}Active</span>
        {expiry ? (
          <span
            className={cn('text-muted-foreground text-xs', expiry.expired && 'font-medium text-destructive')}
            title={formatDateTime(certificate.expires_at)}
          >
            · {expiry.text}
          </span>
        ) : null}
      </span>
      {served ? (
        <span className="inline-flex items-start gap-1.5 font-medium text-destructive text-xs" data-slot="served-status">
          <ServedIcon className="size-3.5 shrink-0" aria-hidden="true" />
          {served}
        </span>
      ) : null}
      <span className="text-xs">{manage}</span>
    </div>
  );
}

interface RowActions {
  onEdit: (domain: CustomDomain) => void;
  onRemove: (domain: CustomDomain) => void;
}

function DomainList({ domains, actions }: { domains: CustomDomain[]; actions: RowActions | null }) {
  const columns = 'grid min-w-0 flex-1 gap-2 sm:grid-cols-[minmax(0,1.2fr)_minmax(0,1fr)_minmax(0,1.1fr)] sm:gap-4';
  return (
    <Card className="gap-0 overflow-hidden p-0">
      <div className="hidden border-b bg-muted/40 px-4 py-2 font-medium text-muted-foreground text-xs sm:flex" aria-hidden="true">
        <div className={columns}>
          <span>Domain</span>
          <span>Does</span>
          <span>Certificate</span>
        </div>
        {actions ? <span className="w-8" /> : null}
      </div>
      <ul className="divide-y" aria-label="Domains of this project">
        {domains.map((domain) => (
          <li key={domain.id} data-testid={`project-domain-${domain.domain}`} className="flex items-start gap-3 px-4 py-3.5">
            <div className={columns}>
              <div className="min-w-0">
                <DomainName domain={domain} />
              </div>
              <DomainDoes domain={domain} />
              <CertificateState domain={domain} />
            </div>
            {actions ? (
              <div className="-my-1 -mr-2 shrink-0">
                <RowActionsMenu
                  name={domain.domain}
                  onEdit={() => actions.onEdit(domain)}
                  onDelete={() => actions.onRemove(domain)}
                  deleteLabel="Remove"
                />
              </div>
            ) : null}
          </li>
        ))}
      </ul>
    </Card>
  );
}

function LoadingList() {
  return (
    <Card className="gap-0 p-0" aria-busy="true" aria-label="Loading domains">
      {Array.from({ length: 2 }, (_, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
        <div key={index} className="flex items-center gap-4 border-b p-4 last:border-0">
          <Skeleton className="h-4 w-40" />
          <Skeleton className="h-4 w-28" />
          <Skeleton className="ml-auto h-4 w-24" />
        </div>
      ))}
    </Card>
  );
}

/* ------------------------------------------------------------------------------------------------
 * The page
 * ---------------------------------------------------------------------------------------------- */

function DomainsSection({ project }: { project: ProjectDetail }) {
  const canManage = useCanManage();
  const domains = useCustomDomains(project.id);
  const remove = useDomainMutation(project.id, (domain: CustomDomain) =>
    api(domainPath(project.id, domain.id), { method: 'DELETE' }),
  );
  const [editing, setEditing] = useState<CustomDomain | null>(null);
  // The name asked about stays set while the confirmation closes, so its text does not change under the animation.
  const [removing, setRemoving] = useState<CustomDomain | null>(null);
  const [confirmOpen, setConfirmOpen] = useState(false);
  const list = domains.data ?? [];
  const actions: RowActions | null = canManage
    ? {
        onEdit: (domain) => setEditing(domain),
        onRemove: (domain) => {
          setRemoving(domain);
          setConfirmOpen(true);
        },
      }
    : null;

  return (
    <section className="grid grid-cols-[minmax(0,1fr)] gap-4" aria-labelledby="domains-title">
      <div className="grid gap-1">
        <h2 id="domains-title" className="font-semibold text-lg">
          Domains
        </h2>
        <p className="text-muted-foreground text-sm">
          The names this project answers at besides its generated address,{' '}
          <span className="break-all font-mono text-foreground">{displayUrl(project.url)}</span>.
          {canManage ? null : ' Your role is read-only: changing them needs the user role.'}
        </p>
      </div>

      {canManage && domains.data ? <AddDomainCard project={project} domains={list} /> : null}

      {domains.isPending ? (
        <LoadingList />
      ) : domains.isError && !domains.data ? (
        <LoadFailed title="Could not load domains" query={domains} />
      ) : list.length === 0 ? (
        <EmptyState
          icon={<Globe />}
          title="No domains yet"
          description={
            canManage
              ? 'Add a name of yours above: it serves an environment, or redirects to another of these names.'
              : `This project answers only at ${displayUrl(project.url)}.`
          }
        />
      ) : (
        <DomainList domains={list} actions={actions} />
      )}

      {editing ? (
        <EditDomainDialog key={editing.id} project={project} domain={editing} domains={list} onClose={() => setEditing(null)} />
      ) : null}

      <ConfirmDialog
        open={confirmOpen}
        onOpenChange={setConfirmOpen}
        title={`Remove ${removing?.domain ?? ''}?`}
        description={
          <>
            Requests for {removing?.domain ?? ''} get the edge’s “no app here” page afterwards. Its certificate stays in Domains.
          </>
        }
        confirmLabel="Remove domain"
        onConfirm={async () => {
          if (!removing) return;
          try {
            await remove.mutateAsync(removing);
            toast.success(DOMAIN_REMOVED, { description: removing.domain });
            setConfirmOpen(false);
          } catch (error) {
            toast.error(REMOVE_FAILED, { description: failureDetail(error) });
          }
        }}
      />
    </section>
  );
}

/** /projects/{slug}/settings/domains: the project's own names, each serving an environment or redirecting to another. */
export default function SettingsDomainsPage() {
  const { data: project } = useRouteProject();
  useDocumentTitle(project ? `${project.name} - Domains` : 'Domains');
  if (!project) return null;
  return <DomainsSection project={project} />;
}
