import { zodResolver } from '@hookform/resolvers/zod';
import { type ApiKey, createApiKeyRequestSchema, type Permission } from '@launchbay/contract';
import { AlertTriangle, CalendarClock } from 'lucide-react';
import { useId } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { Link } from 'react-router';
import { z } from 'zod';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail, isApiError } from '@/lib/api';
import { toast } from '@/lib/toast';
import { usePermissionCatalogue } from './api';
import { formatDate } from './model';
import { PermissionPicker } from './permission-picker';

const EXPIRY_CHOICES = ['keep', 'never', '7', '30', '90', 'custom'] as const;
type ExpiryChoice = (typeof EXPIRY_CHOICES)[number];

const DAY_MS = 86_400_000;

/** The end of a local calendar day ('2025-12-01' -> 23:59:59.999 that day), as a timestamp. */
function endOfDay(date: string): number {
  const [year, month, day] = date.split('-').map(Number);
  if (!year || !month || !day) return Number.NaN;
  return new Date(year, month - 1, day, 23, 59, 59, 999).getTime();
}

function localDateString(time: number): string {
  const date = new Date(time);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

const formSchema = z
  .object({
    name: createApiKeyRequestSchema.shape.name,
    permissions: createApiKeyRequestSchema.shape.permissions,
    expiry: z.enum(EXPIRY_CHOICES),
    customDate: z.string(),
  })
  .superRefine((values, ctx) => {
    if (values.expiry !== 'custom') return;
    if (!values.customDate) {
      ctx.addIssue({ code: 'custom', path: ['customDate'], message: 'Choose an expiry date' });
    } else if (!(endOfDay(values.customDate) > Date.now())) {
      ctx.addIssue({ code: 'custom', path: ['customDate'], message: 'Expiry must be in the future' });
    }
  });
type FormValues = z.infer<typeof formSchema>;

/** The expires_at to send: undefined keeps the current one (edit only). */
function expiresAtFor(values: FormValues, now = Date.now()): string | null | undefined {
  switch (values.expiry) {
    case 'keep':
      return undefined;
    case 'never':
      return null;
    case 'custom': {
      const end = endOfDay(values.customDate);
      // No valid date picked yet: nothing to preview (the schema stops a submit).
      return Number.isNaN(end) ? null : new Date(end).toISOString();
    }
    default:
      return new Date(now + Number(values.expiry) * DAY_MS).toISOString();
  }
}

function expiryPreview(values: Pick<FormValues, 'expiry' | 'customDate'>, current: ApiKey | undefined): string | null {
  const at = expiresAtFor({ name: '', permissions: [], ...values });
  if (at === undefined) {
    if (!current?.expires_at) return 'The key keeps working until you deactivate or delete it.';
    const when = new Date(current.expires_at).toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' });
    if (new Date(current.expires_at).getTime() <= Date.now())
      return `The key expired on ${when}. Choose a new expiry to use it again.`;
    return `Keeps its current expiry: ${when}.`;
  }
  if (at === null) return null;
  const time = new Date(at);
  if (Number.isNaN(time.getTime())) return null;
  return `The key stops working on ${time.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' })}.`;
}

export interface ApiKeyFormResult {
  name?: string;
  permissions?: Permission[];
  expires_at?: string | null;
}

export function ApiKeyForm({
  apiKey,
  submitLabel,
  cancelTo,
  onSubmit,
  failureTitle,
}: {
  /** The key being edited; absent when creating. */
  apiKey?: ApiKey;
  submitLabel: string;
  cancelTo: string;
  /** Sends the body; throws the API error on failure (mapped onto the fields here). */
  onSubmit: (body: ApiKeyFormResult) => Promise<void>;
  failureTitle: string;
}) {
  const ids = useId();
  const catalogue = usePermissionCatalogue();
  const editing = apiKey !== undefined;
  const form = useForm<FormValues>({
    resolver: zodResolver(formSchema),
    defaultValues: {
      name: apiKey?.name ?? '',
      permissions: apiKey?.permissions ?? [],
      expiry: editing ? 'keep' : '30',
      customDate: '',
    },
  });
  const { register, control, handleSubmit, watch, setError, formState } = form;
  const expiry = watch('expiry');
  const customDate = watch('customDate');
  const preview = expiryPreview({ expiry, customDate }, apiKey);

  const submit = handleSubmit(async (values) => {
    const body: ApiKeyFormResult = {};
    const expiresAt = expiresAtFor(values);
    if (!editing || values.name !== apiKey.name) body.name = values.name;
    if (!editing || [...values.permissions].sort().join() !== [...apiKey.permissions].sort().join()) {
      body.permissions = values.permissions;
    }
    if (expiresAt !== undefined) body.expires_at = expiresAt;
    if (editing && Object.keys(body).length === 0) return;
    try {
      await onSubmit(body);
    } catch (error) {
      if (isApiError(error)) {
        for (const fieldError of error.errors) {
          if (fieldError.path === 'name') setError('name', { message: fieldError.message });
          else if (fieldError.path.startsWith('permissions')) setError('permissions', { message: fieldError.message });
          else if (fieldError.path.startsWith('expires_at')) {
            setError(values.expiry === 'custom' ? 'customDate' : 'expiry', { message: fieldError.message });
          }
        }
      }
      toast.error(failureTitle, { description: errorDetail(error) });
    }
  });

  const nameId = `${ids}-name`;
  const expiryId = `${ids}-expiry`;
  const dateId = `${ids}-date`;
  const permissionsErrorId = `${ids}-permissions-error`;
  const tomorrow = localDateString(Date.now() + DAY_MS);

  return (
    <form onSubmit={submit} noValidate className="grid gap-6">
      <Card>
        <CardHeader>
          <CardTitle>Details</CardTitle>
          <CardDescription>A name to recognise the key by, and how long it stays valid.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-5">
          <div className="grid gap-2">
            <Label htmlFor={nameId}>Name</Label>
            <Input
              id={nameId}
              autoComplete="off"
              placeholder="e.g. GitHub Actions deploy"
              maxLength={100}
              aria-invalid={formState.errors.name ? true : undefined}
              {...register('name')}
            />
            <FieldError message={formState.errors.name?.message} />
          </div>
          <div className="grid gap-2">
            <Label htmlFor={expiryId}>Expiry</Label>
            <div className="flex flex-col gap-2 sm:flex-row">
              <Controller
                control={control}
                name="expiry"
                render={({ field }) => (
                  <Select value={field.value} onValueChange={(next) => field.onChange(next as ExpiryChoice)}>
                    <SelectTrigger
                      id={expiryId}
                      className="sm:w-auto sm:min-w-56"
                      aria-invalid={formState.errors.expiry ? true : undefined}
                    >
                      <SelectValue />
                    </SelectTrigger>
                    <SelectContent>
                      {editing ? (
                        <SelectItem value="keep">
                          Keep current ({apiKey.expires_at ? formatDate(apiKey.expires_at) : 'no expiry'})
                        </SelectItem>
                      ) : null}
                      <SelectItem value="never">No expiry</SelectItem>
                      <SelectItem value="7">7 days</SelectItem>
                      <SelectItem value="30">30 days</SelectItem>
                      <SelectItem value="90">90 days</SelectItem>
                      <SelectItem value="custom">Custom date</SelectItem>
                    </SelectContent>
                  </Select>
                )}
              />
              {expiry === 'custom' ? (
                <div className="grid gap-2 sm:w-48">
                  <Label htmlFor={dateId} className="sr-only">
                    Expiry date
                  </Label>
                  <Input
                    id={dateId}
                    type="date"
                    min={tomorrow}
                    aria-invalid={formState.errors.customDate ? true : undefined}
                    {...register('customDate')}
                  />
                </div>
              ) : null}
            </div>
            <FieldError message={formState.errors.customDate?.message ?? formState.errors.expiry?.message} />
            {expiry === 'never' ? (
              <p className="flex items-start gap-1.5 text-amber-700 text-xs dark:text-warning">
                <AlertTriangle className="mt-px size-3.5 shrink-0" />
                Keys without an expiry stay valid until someone deletes them. Prefer an expiry and rotate keys regularly.
              </p>
            ) : preview ? (
              <p className="flex items-start gap-1.5 text-muted-foreground text-xs">
                <CalendarClock className="mt-px size-3.5 shrink-0" />
                {preview}
              </p>
            ) : null}
          </div>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle>Permissions</CardTitle>
          <CardDescription>Give the key only what the tool using it needs. Start from a preset or pick areas.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-2">
          {catalogue.isPending ? (
            <div className="grid gap-2">
              <Skeleton className="h-8 w-72" />
              <Skeleton className="h-72 w-full rounded-lg" />
            </div>
          ) : catalogue.isError ? (
            <div className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-dashed p-4 text-sm">
              <span className="text-muted-foreground">Could not load permissions: {errorDetail(catalogue.error)}</span>
              <Button variant="outline" size="sm" onClick={() => void catalogue.refetch()}>
                Retry
              </Button>
            </div>
          ) : (
            <Controller
              control={control}
              name="permissions"
              render={({ field }) => (
                <PermissionPicker
                  catalogue={catalogue.data}
                  value={field.value}
                  onChange={field.onChange}
                  invalid={!!formState.errors.permissions}
                  describedBy={formState.errors.permissions ? permissionsErrorId : undefined}
                />
              )}
            />
          )}
          <FieldError id={permissionsErrorId} message={formState.errors.permissions?.message} />
        </CardContent>
      </Card>

      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Link to={cancelTo} className={buttonVariants({ variant: 'outline' })}>
          Cancel
        </Link>
        <Button type="submit" disabled={formState.isSubmitting || (editing && !formState.isDirty)}>
          {formState.isSubmitting ? <Spinner /> : null}
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
