import { zodResolver } from '@hookform/resolvers/zod';
import type { Environment, ProjectDetail } from '@launchbay/contract';
import {
  Download,
  Eye,
  EyeOff,
  FileUp,
  GitPullRequest,
  MoreHorizontal,
  Pencil,
  Plus,
  RotateCw,
  Trash2,
  Variable,
  X,
} from 'lucide-react';
import { type ClipboardEvent, useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useNavigate, useParams } from 'react-router';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { DataTable, type DataTableColumn } from '@/components/data-table/data-table';
import { LoadFailed } from '@/components/errors/load-failed';
import { CheckboxField, FormField } from '@/components/form/form-field';
import { EmptyState } from '@/components/layout/page';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { CopyButton } from '@/components/ui/copy-button';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { Input } from '@/components/ui/input';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail } from '@/lib/api';
import { useDocumentTitle } from '@/lib/document-title';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { environmentLabel, useProjectBySlug, useTriggerPipeline } from '@/lib/project-queries';
import { useCanManage } from '@/lib/roles';
import { toast } from '@/lib/toast';
import { useIsNarrow } from '@/lib/use-media-query';
import { type EnvVar, readEnvVarValue, useCreateEnvVar, useDeleteEnvVar, useEnvVars } from './api';
import { downloadDotenv } from './download';
import {
  applyServerErrors,
  EditEnvVarDialog,
  type EnvVarFormValues,
  envVarFormSchema,
  ImportDotenvDialog,
  PREVIEWS_HINT,
} from './env-var-dialogs';
import { EnvironmentPicker, environmentsLabel } from './environment-picker';

const MASK = '••••••••';

/** The small mark of a variable that pull-request previews get too. */
function PreviewsBadge() {
  return (
    <Badge variant="outline" className="gap-1 font-normal text-muted-foreground" title="Given to pull request previews too">
      <GitPullRequest />
      Previews
    </Badge>
  );
}

function EnvironmentBadges({ environments, ids, previews }: { environments: Environment[]; ids: number[]; previews?: boolean }) {
  const all = environments.length > 1 && environments.every((env) => ids.includes(env.id));
  return (
    <div className="flex flex-wrap gap-1">
      {all ? (
        <Badge variant="secondary">All environments</Badge>
      ) : (
        environments
          .filter((env) => ids.includes(env.id))
          .map((env) => (
            <Badge key={env.id} variant="secondary">
              {environmentLabel(env.name)}
            </Badge>
          ))
      )}
      {previews ? <PreviewsBadge /> : null}
    </div>
  );
}

/** Reveals values one at a time through the value endpoint; nothing is kept in the query cache. */
function useRevealed(projectId: number) {
  const [values, setValues] = useState<Map<number, string>>(new Map());
  const [pending, setPending] = useState<number | null>(null);
  const toggle = async (envVar: EnvVar) => {
    if (values.has(envVar.id)) {
      setValues((current) => {
        const next = new Map(current);
        next.delete(envVar.id);
        return next;
      });
      return;
    }
    setPending(envVar.id);
    try {
      const result = await readEnvVarValue(projectId, envVar.key, envVar.environment_ids[0]);
      setValues((current) => new Map(current).set(envVar.id, result.value));
    } catch (error) {
      toast.error('Failed to reveal the value', { description: errorDetail(error) });
    } finally {
      setPending(null);
    }
  };
  const forget = (id: number) =>
    setValues((current) => {
      const next = new Map(current);
      next.delete(id);
      return next;
    });
  return { values, pending, toggle, forget };
}

type Revealed = ReturnType<typeof useRevealed>;

function ValueCell({ envVar, revealed, canReveal }: { envVar: EnvVar; revealed: Revealed; canReveal: boolean }) {
  const value = revealed.values.get(envVar.id);
  const shown = value !== undefined;
  return (
    <div className="flex min-w-0 items-center gap-1">
      {canReveal ? (
        <Button
          variant="ghost"
          size="icon-sm"
          className="size-7 shrink-0 text-muted-foreground"
          aria-label={shown ? `Hide ${envVar.key}` : `Reveal ${envVar.key}`}
          disabled={revealed.pending === envVar.id}
          onClick={() => void revealed.toggle(envVar)}
        >
          {revealed.pending === envVar.id ? <Spinner className="size-3.5" /> : shown ? <EyeOff /> : <Eye />}
        </Button>
      ) : null}
      <code
        data-testid={`env-value-${envVar.key}`}
        className={
          shown
            ? 'min-w-0 max-w-80 truncate rounded bg-muted px-1.5 py-0.5 font-mono text-xs'
            : 'font-mono text-muted-foreground text-xs tracking-widest'
        }
        title={shown ? value : undefined}
      >
        {shown ? value || '(empty)' : envVar.value || MASK}
      </code>
      {shown ? (
        <CopyButton value={value} iconOnly label={`Copy ${envVar.key}`} variant="ghost" size="icon-sm" className="size-7" />
      ) : null}
    </div>
  );
}

function RowMenu({ envVar, onEdit, onDelete }: { envVar: EnvVar; onEdit: () => void; onDelete: () => void }) {
  return (
    <DropdownMenu modal={false}>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="icon-sm" aria-label={`Actions for ${envVar.key}`}>
          <MoreHorizontal />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-44">
        <DropdownMenuLabel className="truncate font-mono font-normal text-muted-foreground text-xs">
          {envVar.key}
        </DropdownMenuLabel>
        <DropdownMenuItem onSelect={onEdit}>
          <Pencil />
          Edit
        </DropdownMenuItem>
        <DropdownMenuSeparator />
        <DropdownMenuItem variant="destructive" onSelect={onDelete}>
          <Trash2 />
          Delete
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

function AddVariableCard({
  project,
  onChanged,
  onPasteDotenv,
}: {
  project: ProjectDetail;
  onChanged: (environmentIds: number[]) => void;
  onPasteDotenv: (text: string) => void;
}) {
  const create = useCreateEnvVar(project.id);
  const allIds = project.environments.map((env) => env.id);
  const form = useForm<EnvVarFormValues>({
    resolver: zodResolver(envVarFormSchema),
    defaultValues: { key: '', value: '', environment_ids: allIds, include_in_previews: false },
  });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    try {
      const all = allIds.every((id) => values.environment_ids.includes(id));
      await create.mutateAsync({
        key: values.key,
        value: values.value,
        ...(all ? {} : { environment_ids: values.environment_ids }),
        ...(values.include_in_previews ? { include_in_previews: true } : {}),
      });
      toast.success('Environment variable added', { description: values.key });
      onChanged(values.environment_ids);
      form.reset({
        key: '',
        value: '',
        environment_ids: values.environment_ids,
        include_in_previews: values.include_in_previews,
      });
    } catch (error) {
      applyServerErrors(error, form.setError);
      toast.error('Failed to add environment variable', { description: errorDetail(error) });
    }
  });
  /** A whole .env pasted into the key field opens the import with it. */
  const onKeyPaste = (event: ClipboardEvent<HTMLInputElement>) => {
    const text = event.clipboardData.getData('text');
    if (!/\n/.test(text.trim())) return;
    event.preventDefault();
    onPasteDotenv(text);
  };
  return (
    <Card className="gap-4">
      <CardHeader>
        <CardTitle>Add variable</CardTitle>
        <CardDescription>Available to the build and to the running app. Values are stored encrypted.</CardDescription>
      </CardHeader>
      <CardContent>
        <form onSubmit={submit} noValidate>
          <fieldset
            disabled={isSubmitting}
            className="grid gap-4 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)_minmax(0,2fr)_auto] lg:items-start"
          >
            <legend className="sr-only">Add variable</legend>
            <FormField id="env-new-key" label="Key" error={errors.key?.message}>
              <Input
                id="env-new-key"
                className="font-mono"
                placeholder="EXAMPLE_KEY"
                autoComplete="off"
                spellCheck={false}
                aria-invalid={errors.key ? true : undefined}
                onPaste={onKeyPaste}
                {...form.register('key')}
              />
            </FormField>
            <FormField id="env-new-value" label="Value" error={errors.value?.message}>
              <Input
                id="env-new-value"
                className="font-mono"
                placeholder="value"
                autoComplete="off"
                spellCheck={false}
                aria-invalid={errors.value ? true : undefined}
                {...form.register('value')}
              />
            </FormField>
            <FormField id="env-new-environments" label="Environments" error={errors.environment_ids?.message}>
              <Controller
                control={form.control}
                name="environment_ids"
                render={({ field }) => (
                  <EnvironmentPicker
                    id="env-new-environments"
                    environments={project.environments}
                    value={field.value}
                    onChange={field.onChange}
                    invalid={!!errors.environment_ids}
                  />
                )}
              />
            </FormField>
            <Button type="submit" className="lg:mt-[1.375rem]">
              {isSubmitting ? <Spinner /> : <Plus />}
              Add
            </Button>
            <div className="lg:col-span-full">
              <Controller
                control={form.control}
                name="include_in_previews"
                render={({ field }) => (
                  <CheckboxField
                    id="env-new-previews"
                    label="Include in previews"
                    description={PREVIEWS_HINT}
                    checked={field.value}
                    onCheckedChange={field.onChange}
                  />
                )}
              />
            </div>
          </fieldset>
        </form>
        <p className="mt-3 text-muted-foreground text-xs">Tip: paste a whole .env file into the key field to import it.</p>
      </CardContent>
    </Card>
  );
}

function RedeployBanner({
  project,
  environmentIds,
  onDone,
}: {
  project: ProjectDetail;
  environmentIds: number[];
  onDone: () => void;
}) {
  const trigger = useTriggerPipeline();
  const navigate = useNavigate();
  const environments = project.environments.filter((env) => environmentIds.includes(env.id));
  const redeploy = async () => {
    const started: { env: Environment; id: number }[] = [];
    for (const env of environments) {
      try {
        const { deployment_id } = await trigger.mutateAsync({
          projectId: project.id,
          ...(env.is_production ? {} : { environment_id: env.id }),
        });
        started.push({ env, id: deployment_id });
      } catch (error) {
        toast.error(`Failed to redeploy ${env.name}`, { description: errorDetail(error) });
      }
    }
    const first = started[0];
    if (first) {
      toast.success('Deployment started', {
        description: started.map((item) => `#${item.id} (${item.env.name})`).join(', '),
        action: {
          label: 'View',
          onClick: () => navigate(`/projects/${encodeURIComponent(project.slug)}/deployments/${first.id}`),
        },
      });
      onDone();
    }
  };
  return (
    <div
      role="status"
      className="flex flex-wrap items-center gap-3 rounded-lg border border-sky-500/30 bg-sky-500/5 px-4 py-3 text-sm"
    >
      <RotateCw className="size-4 shrink-0 text-sky-600 dark:text-sky-400" />
      <p className="min-w-0 flex-1">
        <span className="font-medium">Redeploy to apply your changes.</span>{' '}
        <span className="text-muted-foreground">
          Apps read their variables when they are deployed ({environmentsLabel(project.environments, environmentIds)}).
        </span>
      </p>
      <div className="flex items-center gap-1">
        <Button size="sm" onClick={() => void redeploy()} disabled={trigger.isPending}>
          {trigger.isPending ? <Spinner /> : <RotateCw />}
          Redeploy
        </Button>
        <Button variant="ghost" size="icon-sm" aria-label="Dismiss" onClick={onDone} disabled={trigger.isPending}>
          <X />
        </Button>
      </div>
    </div>
  );
}

function DownloadButton({ project, envVars }: { project: ProjectDetail; envVars: EnvVar[] }) {
  const [busy, setBusy] = useState(false);
  const download = async (environment: Environment) => {
    setBusy(true);
    try {
      const count = await downloadDotenv({ projectId: project.id, projectSlug: project.slug, environment, envVars });
      toast.success('Downloaded .env', { description: `${count} variable${count === 1 ? '' : 's'} of ${environment.name}.` });
    } catch (error) {
      toast.error('Failed to download .env', { description: errorDetail(error) });
    } finally {
      setBusy(false);
    }
  };
  const disabled = busy || envVars.length === 0;
  const [only] = project.environments;
  if (project.environments.length === 1 && only) {
    return (
      <Button variant="outline" onClick={() => void download(only)} disabled={disabled}>
        {busy ? <Spinner /> : <Download />}
        Download .env
      </Button>
    );
  }
  return (
    <DropdownMenu modal={false}>
      <DropdownMenuTrigger asChild>
        <Button variant="outline" disabled={disabled}>
          {busy ? <Spinner /> : <Download />}
          Download .env
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-48">
        <DropdownMenuLabel className="font-normal text-muted-foreground text-xs">Values of</DropdownMenuLabel>
        {project.environments.map((env) => (
          <DropdownMenuItem key={env.id} onSelect={() => void download(env)}>
            {environmentLabel(env.name)}
          </DropdownMenuItem>
        ))}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

function EnvVarsList({
  project,
  envVars,
  revealed,
  canManage,
  onEdit,
  onDelete,
}: {
  project: ProjectDetail;
  envVars: EnvVar[];
  revealed: Revealed;
  /** Readers see the keys and where they apply, never the values, and change nothing. */
  canManage: boolean;
  onEdit: (envVar: EnvVar) => void;
  onDelete: (envVar: EnvVar) => void;
}) {
  const narrow = useIsNarrow();
  if (narrow) {
    return (
      <ul className="grid grid-cols-[minmax(0,1fr)] gap-3" aria-label="Environment variables">
        {envVars.map((envVar) => (
          <li key={envVar.id} data-testid={`env-var-${envVar.key}`}>
            <Card className="gap-2 px-4 py-3">
              <div className="flex items-start justify-between gap-2">
                <div className="grid min-w-0 gap-1">
                  <span className="truncate font-medium font-mono text-sm">{envVar.key}</span>
                  <EnvironmentBadges
                    environments={project.environments}
                    ids={envVar.environment_ids}
                    previews={envVar.include_in_previews}
                  />
                </div>
                {canManage ? (
                  <div className="-mr-2">
                    <RowMenu envVar={envVar} onEdit={() => onEdit(envVar)} onDelete={() => onDelete(envVar)} />
                  </div>
                ) : null}
              </div>
              <ValueCell envVar={envVar} revealed={revealed} canReveal={canManage} />
            </Card>
          </li>
        ))}
      </ul>
    );
  }
  const columns: DataTableColumn<EnvVar>[] = [
    {
      id: 'key',
      header: 'Key',
      headClassName: 'pl-4',
      cellClassName: 'pl-4 max-w-72',
      cell: (envVar) => (
        <div className="grid min-w-0 gap-0.5">
          <span className="truncate font-medium font-mono text-sm">{envVar.key}</span>
          <span className="text-muted-foreground text-xs" title={formatDateTime(envVar.updated_at)}>
            Updated {formatRelativeTime(envVar.updated_at)}
          </span>
        </div>
      ),
    },
    {
      id: 'environments',
      header: 'Environments',
      cell: (envVar) => (
        <EnvironmentBadges
          environments={project.environments}
          ids={envVar.environment_ids}
          previews={envVar.include_in_previews}
        />
      ),
    },
    {
      id: 'value',
      header: 'Value',
      cellClassName: 'max-w-96',
      cell: (envVar) => <ValueCell envVar={envVar} revealed={revealed} canReveal={canManage} />,
    },
    ...(canManage
      ? [
          {
            id: 'actions',
            header: 'Actions',
            srOnly: true,
            headClassName: 'w-11 pr-3 pl-0',
            cellClassName: 'pr-3 pl-0 text-right',
            cell: (envVar: EnvVar) => <RowMenu envVar={envVar} onEdit={() => onEdit(envVar)} onDelete={() => onDelete(envVar)} />,
          },
        ]
      : []),
  ];
  return (
    <Card className="gap-0 overflow-hidden p-0">
      <DataTable
        columns={columns}
        rows={envVars}
        rowKey={(envVar) => envVar.id}
        rowProps={(envVar) => ({ 'data-testid': `env-var-${envVar.key}` })}
      />
    </Card>
  );
}

/** /projects/{slug}/settings/environment-variables. */
export default function EnvVarsPage() {
  const { slug = '' } = useParams();
  const { data: project } = useProjectBySlug(slug);
  useDocumentTitle(project ? `${project.name} - Environment Variables` : 'Environment Variables');
  const envVars = useEnvVars(project?.id);
  const remove = useDeleteEnvVar(project?.id ?? 0);
  const revealed = useRevealed(project?.id ?? 0);
  const canManage = useCanManage();
  const [editing, setEditing] = useState<EnvVar | null>(null);
  const [deleting, setDeleting] = useState<EnvVar | null>(null);
  const [importText, setImportText] = useState<string | null>(null);
  const [changed, setChanged] = useState<number[]>([]);
  if (!project) return null;

  /** Only environments that run something need a redeploy for a change to reach them. */
  const markChanged = (environmentIds: number[]) => {
    const live = project.environments
      .filter((env) => env.current_deployment_id !== null || project.last_deployment?.environment_id === env.id)
      .map((env) => env.id);
    setChanged((current) => [...new Set([...current, ...environmentIds.filter((id) => live.includes(id))])]);
  };

  const list = envVars.data ?? [];
  return (
    <section className="grid grid-cols-[minmax(0,1fr)] gap-4" aria-labelledby="env-vars-title">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="grid gap-1">
          <h2 id="env-vars-title" className="font-semibold text-lg">
            Environment Variables
          </h2>
          <p className="text-muted-foreground text-sm">
            {canManage
              ? 'Settings and secrets the app reads from its environment.'
              : 'Settings and secrets the app reads from its environment. Their values are hidden from readers.'}
          </p>
        </div>
        {canManage ? (
          <div className="flex flex-wrap gap-2">
            <Button variant="outline" onClick={() => setImportText('')}>
              <FileUp />
              Import .env
            </Button>
            <DownloadButton project={project} envVars={list} />
          </div>
        ) : null}
      </div>

      {changed.length > 0 ? <RedeployBanner project={project} environmentIds={changed} onDone={() => setChanged([])} /> : null}

      {canManage ? <AddVariableCard project={project} onChanged={markChanged} onPasteDotenv={setImportText} /> : null}

      {envVars.isPending ? (
        <Card className="gap-0 p-0">
          {Array.from({ length: 3 }, (_, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
            <div key={index} className="flex items-center gap-4 border-b p-4 last:border-0">
              <Skeleton className="h-4 w-40" />
              <Skeleton className="h-5 w-24" />
              <Skeleton className="ml-auto h-4 w-32" />
            </div>
          ))}
        </Card>
      ) : envVars.isError ? (
        <LoadFailed title="Could not load environment variables" query={envVars} />
      ) : list.length === 0 ? (
        <EmptyState
          icon={<Variable />}
          title="No environment variables yet"
          description={
            canManage
              ? 'Add one above, or import a .env file. They reach the app at its next deployment.'
              : 'This project has no environment variables.'
          }
          action={
            canManage ? (
              <Button variant="outline" onClick={() => setImportText('')}>
                <FileUp />
                Import .env
              </Button>
            ) : undefined
          }
        />
      ) : (
        <EnvVarsList
          project={project}
          envVars={list}
          revealed={revealed}
          canManage={canManage}
          onEdit={setEditing}
          onDelete={setDeleting}
        />
      )}

      {editing ? (
        <EditEnvVarDialog
          projectId={project.id}
          envVar={editing}
          environments={project.environments}
          onClose={() => setEditing(null)}
          onChanged={(ids) => {
            revealed.forget(editing.id);
            markChanged(ids);
          }}
        />
      ) : null}
      {importText !== null ? (
        <ImportDotenvDialog
          projectId={project.id}
          initialText={importText}
          existing={list}
          environments={project.environments}
          onOpenChange={(open) => !open && setImportText(null)}
          onChanged={markChanged}
        />
      ) : null}
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title={`Delete ${deleting?.key ?? 'variable'}?`}
        description={`It is removed from ${
          deleting ? environmentsLabel(project.environments, deleting.environment_ids).toLowerCase() : 'its environments'
        }. Running apps keep it until their next deployment. This action cannot be undone.`}
        confirmLabel="Delete variable"
        onConfirm={async () => {
          if (!deleting) return;
          try {
            await remove.mutateAsync(deleting.id);
            toast.success('Environment variable deleted', { description: deleting.key });
            revealed.forget(deleting.id);
            markChanged(deleting.environment_ids);
            setDeleting(null);
          } catch (error) {
            toast.error('Failed to delete environment variable', { description: errorDetail(error) });
          }
        }}
      />
    </section>
  );
}
