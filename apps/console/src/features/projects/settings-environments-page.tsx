import { zodResolver } from '@hookform/resolvers/zod';
import { branchNameSchema, type Environment, type ProjectDetail, SLUG_PATTERN } from '@launchbay/contract';
import { ArrowUpRight, Cpu, GitBranch, MemoryStick, MoreHorizontal, Pencil, Plus, Rocket } from 'lucide-react';
import { useState } from 'react';
import { type Path, useForm } from 'react-hook-form';
import { Link } from 'react-router';
import { z } from 'zod';
import { DataTable, type DataTableColumn } from '@/components/data-table/data-table';
import { FormField } from '@/components/form/form-field';
import { StatusBadge } from '@/components/status-badge';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { Input } from '@/components/ui/input';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail, isApiError } from '@/lib/api';
import { useDocumentTitle } from '@/lib/document-title';
import { formatRelativeTime } from '@/lib/format';
import { displayUrl, environmentLabel, shortSha } from '@/lib/project-queries';
import { toast } from '@/lib/toast';
import { useIsNarrow } from '@/lib/use-media-query';
import { useCreateEnvironment, useUpdateEnvironment } from './api';
import { deploymentPath, useCurrentDeployment, useRouteProject } from './model';
import { useRedeploy } from './redeploy';

/** A number field as typed: empty is 'no limit' (null). */
const optionalNumber = (min: number, minMessage: string, max: number, maxMessage: string) =>
  z
    .string()
    .trim()
    .regex(/^\d*$/, 'Enter a whole number')
    .transform((value): number | null => (value === '' ? null : Number(value)))
    .pipe(z.number().int().min(min, minMessage).max(max, maxMessage).nullable());

const settingsSchema = z.object({
  branch: branchNameSchema,
  memory_mb: optionalNumber(64, 'At least 64 MB', 262_144, 'At most 256 GB'),
  cpu_percent: optionalNumber(5, 'At least 5 (%)', 6_400, 'At most 6400 (64 cores)'),
  instances: z
    .string()
    .trim()
    .regex(/^\d+$/, 'Enter a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'At least 1').max(16, 'At most 16')),
});
type SettingsInput = z.input<typeof settingsSchema>;
type SettingsOutput = z.output<typeof settingsSchema>;

const createSchema = z.object({
  name: z
    .string()
    .trim()
    .toLowerCase()
    .min(1, 'Name is required')
    .max(30, 'At most 30 characters')
    .regex(SLUG_PATTERN, 'Lowercase letters, digits and dashes (it becomes part of the address)')
    .refine((name) => name !== 'production', 'The project already has its production environment'),
  branch: branchNameSchema,
});
type CreateInput = z.input<typeof createSchema>;

function limitsText(environment: Environment): string {
  const parts = [
    environment.memory_mb ? `${environment.memory_mb} MB` : null,
    environment.cpu_percent ? `${environment.cpu_percent}% CPU` : null,
    `${environment.instances} instance${environment.instances === 1 ? '' : 's'}`,
  ].filter(Boolean);
  return parts.join(' · ');
}

function EnvironmentName({ environment }: { environment: Environment }) {
  return (
    <div className="flex min-w-0 items-center gap-2">
      <span className="truncate font-medium">{environmentLabel(environment.name)}</span>
      {environment.is_production && environment.name !== 'production' ? <Badge variant="secondary">Production</Badge> : null}
    </div>
  );
}

function Address({ project, environment }: { project: ProjectDetail; environment: Environment }) {
  const { deployment } = useCurrentDeployment(project, environment);
  if (!deployment) return <span className="block truncate text-muted-foreground">{displayUrl(environment.url)}</span>;
  return (
    <a
      href={environment.url}
      target="_blank"
      rel="noreferrer"
      className="inline-flex max-w-full items-center gap-1 underline-offset-4 hover:underline"
    >
      <span className="truncate">{displayUrl(environment.url)}</span>
      <ArrowUpRight className="size-3.5 shrink-0 text-muted-foreground" />
    </a>
  );
}

function CurrentDeployment({ project, environment }: { project: ProjectDetail; environment: Environment }) {
  const { deployment, isPending } = useCurrentDeployment(project, environment);
  if (isPending) return <Skeleton className="h-5 w-24" />;
  if (!deployment) return <span className="text-muted-foreground text-sm">Not deployed</span>;
  return (
    <Link to={deploymentPath(project.slug, deployment)} className="flex min-w-0 items-center gap-2 hover:underline">
      <StatusBadge status={deployment.status} />
      <span className="font-mono text-muted-foreground text-xs">{shortSha(deployment.commit_sha) || `#${deployment.id}`}</span>
      <span className="hidden text-muted-foreground text-xs xl:inline">
        {formatRelativeTime(deployment.ready_at ?? deployment.queued_at)}
      </span>
    </Link>
  );
}

function RowMenu({ environment, onEdit, onDeploy }: { environment: Environment; onEdit: () => void; onDeploy: () => void }) {
  return (
    <DropdownMenu modal={false}>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="icon-sm" aria-label={`Actions for ${environment.name}`}>
          <MoreHorizontal />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-48">
        <DropdownMenuLabel className="font-normal text-muted-foreground text-xs">
          {environmentLabel(environment.name)}
        </DropdownMenuLabel>
        <DropdownMenuItem onSelect={onEdit}>
          <Pencil />
          Edit
        </DropdownMenuItem>
        <DropdownMenuItem onSelect={onDeploy}>
          <Rocket />
          Deploy {environment.branch}
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

function CreateEnvironmentDialog({
  project,
  open,
  onOpenChange,
}: {
  project: ProjectDetail;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const create = useCreateEnvironment();
  const form = useForm<CreateInput>({ resolver: zodResolver(createSchema), defaultValues: { name: '', branch: '' } });
  const { errors, isSubmitting } = form.formState;
  const name = form.watch('name').trim().toLowerCase();
  const submit = form.handleSubmit(async (values) => {
    try {
      const environment = await create.mutateAsync({ projectId: project.id, name: values.name, branch: values.branch });
      toast.success('Environment added', {
        description: `${environment.name} deploys ${environment.branch} to ${displayUrl(environment.url)}.`,
      });
      form.reset();
      onOpenChange(false);
    } catch (error) {
      if (isApiError(error)) {
        for (const fieldError of error.errors) {
          if (fieldError.path === 'name' || fieldError.path === 'branch') {
            form.setError(fieldError.path as Path<CreateInput>, { message: fieldError.message });
          }
        }
      }
      toast.error('Failed to add environment', { description: errorDetail(error) });
    }
  });
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (isSubmitting) return;
        if (!next) form.reset();
        onOpenChange(next);
      }}
    >
      <DialogContent>
        <form onSubmit={submit} noValidate className="grid gap-5">
          <DialogHeader>
            <DialogTitle>Add environment</DialogTitle>
            <DialogDescription>An environment deploys a branch to its own address, with its own variables.</DialogDescription>
          </DialogHeader>
          <FormField
            id="environment-name"
            label="Name"
            hint={`Lowercase letters, digits and dashes. Served at ${project.slug}-${name || 'name'}.`}
            error={errors.name?.message}
          >
            <Input
              id="environment-name"
              autoComplete="off"
              placeholder="staging"
              maxLength={30}
              aria-invalid={errors.name ? true : undefined}
              {...form.register('name')}
            />
          </FormField>
          <FormField id="environment-branch" label="Branch" error={errors.branch?.message}>
            <Input
              id="environment-branch"
              className="font-mono"
              autoComplete="off"
              spellCheck={false}
              placeholder="develop"
              aria-invalid={errors.branch ? true : undefined}
              {...form.register('branch')}
            />
          </FormField>
          <DialogFooter>
            <Button variant="outline" disabled={isSubmitting} onClick={() => onOpenChange(false)}>
              Cancel
            </Button>
            <Button type="submit" disabled={isSubmitting}>
              {isSubmitting ? <Spinner /> : null}
              Add environment
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

function EditEnvironmentDialog({
  project,
  environment,
  onClose,
}: {
  project: ProjectDetail;
  environment: Environment;
  onClose: () => void;
}) {
  const update = useUpdateEnvironment();
  const { redeploy } = useRedeploy(project);
  const form = useForm<SettingsInput, unknown, SettingsOutput>({
    resolver: zodResolver(settingsSchema),
    defaultValues: {
      branch: environment.branch,
      memory_mb: environment.memory_mb === null ? '' : String(environment.memory_mb),
      cpu_percent: environment.cpu_percent === null ? '' : String(environment.cpu_percent),
      instances: String(environment.instances),
    },
  });
  const { errors, isSubmitting, isDirty } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    const body: Partial<SettingsOutput> = {};
    if (values.branch !== environment.branch) body.branch = values.branch;
    if (values.memory_mb !== environment.memory_mb) body.memory_mb = values.memory_mb;
    if (values.cpu_percent !== environment.cpu_percent) body.cpu_percent = values.cpu_percent;
    if (values.instances !== environment.instances) body.instances = values.instances;
    if (Object.keys(body).length === 0) return onClose();
    try {
      await update.mutateAsync({ projectId: project.id, environmentId: environment.id, ...body });
      toast.success('Environment saved', {
        description: `${environment.name} uses the new settings from its next deployment.`,
        action: environment.current_deployment_id ? { label: 'Redeploy', onClick: () => void redeploy(environment) } : undefined,
      });
      onClose();
    } catch (error) {
      if (isApiError(error)) {
        for (const fieldError of error.errors) {
          if (fieldError.path in settingsSchema.shape) {
            form.setError(fieldError.path as Path<SettingsInput>, { message: fieldError.message });
          }
        }
      }
      toast.error('Failed to save environment', { description: errorDetail(error) });
    }
  });
  return (
    <Dialog open onOpenChange={(next) => !next && !isSubmitting && onClose()}>
      <DialogContent>
        <form onSubmit={submit} noValidate className="grid gap-5">
          <DialogHeader>
            <DialogTitle>Edit {environmentLabel(environment.name)}</DialogTitle>
            <DialogDescription>Its branch and resource limits apply from its next deployment.</DialogDescription>
          </DialogHeader>
          <FormField id="edit-environment-branch" label="Branch" error={errors.branch?.message}>
            <Input
              id="edit-environment-branch"
              className="font-mono"
              autoComplete="off"
              spellCheck={false}
              aria-invalid={errors.branch ? true : undefined}
              {...form.register('branch')}
            />
          </FormField>
          <div className="grid gap-5 sm:grid-cols-3">
            <FormField id="edit-environment-memory" label="Memory (MB)" hint="Empty: no limit." error={errors.memory_mb?.message}>
              <Input
                id="edit-environment-memory"
                inputMode="numeric"
                placeholder="No limit"
                aria-invalid={errors.memory_mb ? true : undefined}
                {...form.register('memory_mb')}
              />
            </FormField>
            <FormField id="edit-environment-cpu" label="CPU (%)" hint="100 is one core." error={errors.cpu_percent?.message}>
              <Input
                id="edit-environment-cpu"
                inputMode="numeric"
                placeholder="No limit"
                aria-invalid={errors.cpu_percent ? true : undefined}
                {...form.register('cpu_percent')}
              />
            </FormField>
            <FormField id="edit-environment-instances" label="Instances" hint="1 to 16." error={errors.instances?.message}>
              <Input
                id="edit-environment-instances"
                inputMode="numeric"
                aria-invalid={errors.instances ? true : undefined}
                {...form.register('instances')}
              />
            </FormField>
          </div>
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

/** /projects/{slug}/settings/environments: each environment's branch, address, deployment and limits. */
export default function SettingsEnvironmentsPage() {
  const { data: project } = useRouteProject();
  useDocumentTitle(project ? `${project.name} - Environments` : 'Environments');
  const narrow = useIsNarrow();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<Environment | null>(null);
  const { redeploy } = useRedeploy(project);
  if (!project) return null;

  const columns: DataTableColumn<Environment>[] = [
    {
      id: 'name',
      header: 'Environment',
      cell: (env) => <EnvironmentName environment={env} />,
      headClassName: 'pl-4',
      cellClassName: 'pl-4',
    },
    { id: 'branch', header: 'Branch', cell: (env) => <span className="font-mono text-xs">{env.branch}</span> },
    {
      id: 'address',
      header: 'Address',
      cell: (env) => <Address project={project} environment={env} />,
      cellClassName: 'max-w-64',
    },
    { id: 'deployment', header: 'Current deployment', cell: (env) => <CurrentDeployment project={project} environment={env} /> },
    {
      id: 'limits',
      header: 'Resources',
      cell: (env) => <span className="text-muted-foreground text-xs">{limitsText(env)}</span>,
    },
    {
      id: 'actions',
      header: 'Actions',
      srOnly: true,
      headClassName: 'w-11 pr-3 pl-0',
      cellClassName: 'pr-3 pl-0 text-right',
      cell: (env) => <RowMenu environment={env} onEdit={() => setEditing(env)} onDeploy={() => void redeploy(env)} />,
    },
  ];

  return (
    <section className="grid grid-cols-[minmax(0,1fr)] gap-4" aria-labelledby="environments-title">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="grid gap-1">
          <h2 id="environments-title" className="font-semibold text-lg">
            Environments
          </h2>
          <p className="text-muted-foreground text-sm">
            Production deploys {project.branch}. Add environments to deploy other branches to their own addresses.
          </p>
        </div>
        <Button onClick={() => setAdding(true)}>
          <Plus />
          Add environment
        </Button>
      </div>

      {narrow ? (
        <ul className="grid grid-cols-[minmax(0,1fr)] gap-3" aria-label="Environments">
          {project.environments.map((env) => (
            <li key={env.id}>
              <Card className="gap-3 px-4 py-4">
                <div className="flex items-start justify-between gap-2">
                  <div className="grid min-w-0 gap-1">
                    <EnvironmentName environment={env} />
                    <span className="inline-flex items-center gap-1 font-mono text-muted-foreground text-xs">
                      <GitBranch className="size-3" />
                      {env.branch}
                    </span>
                  </div>
                  <div className="-mt-1 -mr-2">
                    <RowMenu environment={env} onEdit={() => setEditing(env)} onDeploy={() => void redeploy(env)} />
                  </div>
                </div>
                <div className="min-w-0 text-sm">
                  <Address project={project} environment={env} />
                </div>
                <div className="flex flex-wrap items-center justify-between gap-2 border-t pt-3">
                  <CurrentDeployment project={project} environment={env} />
                  <span className="inline-flex items-center gap-2 text-muted-foreground text-xs">
                    <MemoryStick className="size-3.5" />
                    {env.memory_mb ? `${env.memory_mb} MB` : 'No limit'}
                    <Cpu className="size-3.5" />
                    {env.cpu_percent ? `${env.cpu_percent}%` : 'No limit'}
                  </span>
                </div>
              </Card>
            </li>
          ))}
        </ul>
      ) : (
        <Card className="gap-0 overflow-hidden p-0">
          <DataTable columns={columns} rows={project.environments} rowKey={(env) => env.id} />
        </Card>
      )}

      <CreateEnvironmentDialog project={project} open={adding} onOpenChange={setAdding} />
      {editing ? <EditEnvironmentDialog project={project} environment={editing} onClose={() => setEditing(null)} /> : null}
    </section>
  );
}
