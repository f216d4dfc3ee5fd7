import { FolderGit2, Plus, Server, X } from 'lucide-react';
import { type ReactNode, useEffect } from 'react';
import { Controller, useFieldArray, useForm } from 'react-hook-form';
import { FormField } from '@/components/form/form-field';
import { placeServerErrors } from '@/components/form/server-errors';
import { Button } from '@/components/ui/button';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { Spinner } from '@/components/ui/spinner';
import { Switch } from '@/components/ui/switch';
import { errorDetail } from '@/lib/api';
import { environmentLabel } from '@/lib/project-queries';
import { useProjects } from '@/lib/projects';
import { toast } from '@/lib/toast';
import { cn } from '@/lib/utils';
import { useProjectEnvironments } from './api';
import {
  EMPTY_ROUTE_FORM,
  formPathOf,
  type LbRouteRequest,
  type RouteFormValues,
  routeResolver,
  type TargetKind,
  toRequestInput,
} from './model';

/** The contract's limit on upstream addresses per route. */
const MAX_UPSTREAMS = 32;

const TARGETS: { kind: TargetKind; title: string; description: string; icon: ReactNode }[] = [
  {
    kind: 'environment',
    title: 'Project environment',
    description: 'Its live deployment, whichever that is after each deploy.',
    icon: <FolderGit2 />,
  },
  {
    kind: 'upstreams',
    title: 'Upstream addresses',
    description: 'Your own servers as host:port. Requests take turns.',
    icon: <Server />,
  },
];

function Section({ title, description, children }: { title: string; description?: ReactNode; children: ReactNode }) {
  return (
    <fieldset className="grid min-w-0 gap-4">
      <legend className="mb-3 grid gap-1">
        <span className="font-medium text-sm">{title}</span>
        {description ? <span className="text-muted-foreground text-xs">{description}</span> : null}
      </legend>
      {children}
    </fieldset>
  );
}

export interface RouteFormProps {
  mode: 'create' | 'edit';
  defaultValues?: RouteFormValues;
  submitLabel: string;
  /** The error toast's title when the server refuses ('Failed to create route'). */
  failureTitle: string;
  /** Throws the API's error on failure: its field errors go under the fields, its detail into a toast. */
  onSubmit: (body: LbRouteRequest) => Promise<void>;
  onCancel?: () => void;
}

/** Domain, target (a project environment or upstream addresses) and health check of a load-balancer route. */
export function RouteForm({
  mode,
  defaultValues = EMPTY_ROUTE_FORM,
  submitLabel,
  failureTitle,
  onSubmit,
  onCancel,
}: RouteFormProps) {
  const form = useForm<RouteFormValues, unknown, LbRouteRequest>({ resolver: routeResolver, defaultValues });
  const { register, control, setValue, setError, watch, getValues, formState } = form;
  const { errors, isSubmitting, isSubmitted } = formState;
  const upstreams = useFieldArray({ control, name: 'upstreams' });
  const targetKind = watch('target_kind');
  const projectId = watch('project_id');
  const environmentId = watch('environment_id');
  const checksEnabled = watch('health_check.enabled');

  const projects = useProjects(1, 100, { enabled: targetKind === 'environment' });
  const environments = useProjectEnvironments(targetKind === 'environment' && projectId ? Number(projectId) : null);
  const environmentList = environments.data ?? [];

  // A project just chosen: its production environment (or its only one) is the likely target.
  useEffect(() => {
    if (environmentId !== '' || environmentList.length === 0) return;
    const preferred = environmentList.find((env) => env.is_production) ?? environmentList[0];
    if (preferred) setValue('environment_id', String(preferred.id), { shouldValidate: isSubmitted });
  }, [environmentId, environmentList, setValue, isSubmitted]);

  const submit = form.handleSubmit(async (body) => {
    try {
      await onSubmit(body);
    } catch (error) {
      const { rowOf } = toRequestInput(getValues());
      placeServerErrors(error, setError, (path) => formPathOf(path, rowOf));
      toast.error(failureTitle, { description: errorDetail(error) });
    }
  });

  const editing = mode === 'edit';
  const listError = errors.upstreams?.root?.message ?? errors.upstreams?.message;

  return (
    <form onSubmit={submit} noValidate className="grid min-w-0 gap-6">
      <fieldset disabled={isSubmitting} className="grid min-w-0 gap-6">
        <legend className="sr-only">Load-balancer route</legend>
        <FormField
          id="lb-domain"
          label="Domain"
          hint={
            editing
              ? 'A route keeps its domain: to move it, delete the route and add one for the new domain.'
              : 'Point its DNS at this server. Requests for it go to the target below.'
          }
          error={errors.domain?.message}
        >
          <Input
            id="lb-domain"
            className={cn('font-mono', editing && 'bg-muted/50 text-muted-foreground')}
            placeholder="api.example.com"
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            readOnly={editing}
            // Read-only when editing: the dialog's first focus goes to the first field that can change.
            tabIndex={editing ? -1 : undefined}
            aria-invalid={errors.domain ? true : undefined}
            {...register('domain')}
          />
        </FormField>

        <Section title="Target" description="Where the edge sends this domain's requests.">
          <div className="grid gap-2 sm:grid-cols-2">
            {TARGETS.map((target) => (
              <label
                key={target.kind}
                className={cn(
                  'flex cursor-pointer items-start gap-3 rounded-lg border p-3 transition-colors hover:bg-accent/50',
                  'has-[:checked]:border-primary has-[:checked]:bg-primary/[0.04] has-[:checked]:ring-1 has-[:checked]:ring-primary dark:has-[:checked]:bg-primary/10',
                  'has-[:focus-visible]:ring-[3px] has-[:focus-visible]:ring-ring/50',
                )}
              >
                <input type="radio" value={target.kind} className="sr-only" {...register('target_kind')} />
                <span className="mt-0.5 flex size-8 shrink-0 items-center justify-center rounded-md border bg-background text-muted-foreground [&_svg]:size-4">
                  {target.icon}
                </span>
                <span className="grid min-w-0 gap-0.5">
                  <span className="font-medium text-sm">{target.title}</span>
                  <span className="text-muted-foreground text-xs">{target.description}</span>
                </span>
              </label>
            ))}
          </div>

          {targetKind === 'environment' ? (
            <div className="grid gap-4 sm:grid-cols-2">
              <FormField
                id="lb-project"
                label="Project"
                error={errors.project_id?.message}
                hint={projects.data && projects.data.projects.length === 0 ? 'No projects yet: create one first.' : undefined}
              >
                <Controller
                  control={control}
                  name="project_id"
                  render={({ field }) => (
                    <Select
                      value={field.value}
                      onValueChange={(value) => {
                        field.onChange(value);
                        setValue('environment_id', '');
                      }}
                      disabled={isSubmitting || projects.isPending}
                    >
                      <SelectTrigger
                        id="lb-project"
                        ref={field.ref}
                        onBlur={field.onBlur}
                        aria-invalid={errors.project_id ? true : undefined}
                      >
                        <SelectValue placeholder={projects.isPending ? 'Loading projects…' : 'Select a project'} />
                      </SelectTrigger>
                      <SelectContent>
                        {(projects.data?.projects ?? []).map((project) => (
                          <SelectItem key={project.id} value={String(project.id)}>
                            {project.name}
                          </SelectItem>
                        ))}
                      </SelectContent>
                    </Select>
                  )}
                />
              </FormField>
              <FormField
                id="lb-environment"
                label="Environment"
                error={errors.environment_id?.message}
                hint={environments.isError ? errorDetail(environments.error) : undefined}
              >
                <Controller
                  control={control}
                  name="environment_id"
                  render={({ field }) => (
                    <Select
                      value={field.value}
                      onValueChange={field.onChange}
                      disabled={isSubmitting || !projectId || environments.isPending}
                    >
                      <SelectTrigger
                        id="lb-environment"
                        ref={field.ref}
                        onBlur={field.onBlur}
                        aria-invalid={errors.environment_id ? true : undefined}
                      >
                        <SelectValue
                          placeholder={projectId && environments.isPending ? 'Loading environments…' : 'Select an environment'}
                        />
                      </SelectTrigger>
                      <SelectContent>
                        {environmentList.map((env) => (
                          <SelectItem key={env.id} value={String(env.id)}>
                            {environmentLabel(env.name)}
                          </SelectItem>
                        ))}
                      </SelectContent>
                    </Select>
                  )}
                />
              </FormField>
            </div>
          ) : (
            <div className="grid min-w-0 gap-2">
              <ul className="grid min-w-0 gap-2" aria-label="Upstream addresses">
                {upstreams.fields.map((row, index) => {
                  const message = errors.upstreams?.[index]?.address?.message;
                  const id = `lb-upstream-${index}`;
                  return (
                    <li key={row.id} className="grid min-w-0 gap-1">
                      <div className="flex min-w-0 items-center gap-2">
                        <Label htmlFor={id} className="sr-only">
                          Upstream {index + 1}
                        </Label>
                        <Input
                          id={id}
                          className="font-mono"
                          placeholder={index === 0 ? '10.0.0.5:3000' : `10.0.0.${5 + index}:3000`}
                          autoComplete="off"
                          autoCapitalize="none"
                          spellCheck={false}
                          aria-invalid={message ? true : undefined}
                          {...register(`upstreams.${index}.address`)}
                        />
                        <Button
                          variant="ghost"
                          size="icon"
                          className="text-muted-foreground"
                          aria-label={`Remove upstream ${index + 1}`}
                          disabled={upstreams.fields.length === 1}
                          onClick={() => upstreams.remove(index)}
                        >
                          <X />
                        </Button>
                      </div>
                      <FieldError message={message} />
                    </li>
                  );
                })}
              </ul>
              <FieldError message={listError} />
              <div className="flex flex-wrap items-center justify-between gap-2">
                <Button
                  variant="outline"
                  size="sm"
                  disabled={upstreams.fields.length >= MAX_UPSTREAMS}
                  onClick={() => upstreams.append({ address: '' })}
                >
                  <Plus />
                  Add upstream
                </Button>
                <span className="text-muted-foreground text-xs">host:port, an IPv6 address in brackets</span>
              </div>
            </div>
          )}
        </Section>

        <Section title="Health check">
          <div className="flex items-start justify-between gap-4 rounded-lg border px-3 py-3">
            <div className="grid gap-1">
              <Label htmlFor="lb-health-enabled">Enabled</Label>
              <p className="text-muted-foreground text-xs">
                The edge asks each upstream for the path. One that fails twice gets no requests until it answers again.
              </p>
            </div>
            <Controller
              control={control}
              name="health_check.enabled"
              render={({ field }) => (
                <Switch id="lb-health-enabled" checked={field.value} onCheckedChange={field.onChange} ref={field.ref} />
              )}
            />
          </div>
          {checksEnabled ? (
            <div className="grid grid-cols-2 gap-4 sm:grid-cols-[minmax(0,1fr)_9rem_9rem]">
              <FormField
                id="lb-health-path"
                label="Path"
                error={errors.health_check?.path?.message}
                className="col-span-2 sm:col-span-1"
              >
                <Input
                  id="lb-health-path"
                  className="font-mono"
                  placeholder="/health"
                  autoComplete="off"
                  spellCheck={false}
                  aria-invalid={errors.health_check?.path ? true : undefined}
                  {...register('health_check.path')}
                />
              </FormField>
              <FormField
                id="lb-health-interval"
                label="Interval (seconds)"
                error={errors.health_check?.interval_seconds?.message}
              >
                <Input
                  id="lb-health-interval"
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={300}
                  aria-invalid={errors.health_check?.interval_seconds ? true : undefined}
                  {...register('health_check.interval_seconds')}
                />
              </FormField>
              <FormField id="lb-health-timeout" label="Timeout (seconds)" error={errors.health_check?.timeout_seconds?.message}>
                <Input
                  id="lb-health-timeout"
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={60}
                  aria-invalid={errors.health_check?.timeout_seconds ? true : undefined}
                  {...register('health_check.timeout_seconds')}
                />
              </FormField>
            </div>
          ) : (
            <p className="text-muted-foreground text-xs">Every upstream gets requests in turn, whether it answers or not.</p>
          )}
        </Section>
      </fieldset>

      <FieldError message={errors.root?.message} />
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        {onCancel ? (
          <Button variant="outline" disabled={isSubmitting} onClick={onCancel}>
            Cancel
          </Button>
        ) : null}
        <Button type="submit" disabled={isSubmitting}>
          {isSubmitting ? <Spinner /> : null}
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
