import {
  CRON_JOB_CREATED_MESSAGE,
  CRON_JOB_DELETED_MESSAGE,
  CRON_JOB_RUN_MESSAGE,
  CRON_JOB_UPDATED_MESSAGE,
  type Environment,
  type ProjectDetail,
} from '@launchbay/contract';
import { Clock, FileCode, History, MoreHorizontal, Pencil, Play, Plus, Trash2, TriangleAlert } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { DataTable, type DataTableColumn } from '@/components/data-table/data-table';
import { LoadFailed } from '@/components/errors/load-failed';
import { EmptyState } from '@/components/layout/page';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { Label } from '@/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { Switch } from '@/components/ui/switch';
import { errorDetail } from '@/lib/api';
import { useDocumentTitle } from '@/lib/document-title';
import { environmentLabel, useProjectBySlug } from '@/lib/project-queries';
import { useCanManage } from '@/lib/roles';
import { toast } from '@/lib/toast';
import { useIsNarrow } from '@/lib/use-media-query';
import { type CronJob, useCreateCronJob, useCronJobs, useDeleteCronJob, useRunCronJob, useUpdateCronJob } from './api';
import { CronJobForm, type CronJobFormValues } from './cron-job-form';
import { ExecutionStatusBadge, executionOutcome } from './execution-parts';
import { ExecutionsDialog } from './executions-dialog';
import { describeSchedule, formatUtc, relativeTo } from './schedule';

const fromFile = (cron: CronJob) => cron.source === 'launchbay.json';
const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The environment in `?environment=` (its name), production by default. */
function useSelectedEnvironment(project: ProjectDetail | undefined) {
  const [params, setParams] = useSearchParams();
  const name = params.get('environment');
  const environments = project?.environments ?? [];
  const selected =
    environments.find((env) => env.name === name) ?? environments.find((env) => env.is_production) ?? environments[0];
  const select = (next: string) =>
    setParams(
      (current) => {
        const copy = new URLSearchParams(current);
        copy.set('environment', next);
        return copy;
      },
      { replace: true },
    );
  return { selected, select };
}

function EnvironmentSelect({
  environments,
  value,
  onChange,
}: {
  environments: Environment[];
  value: Environment;
  onChange: (name: string) => void;
}) {
  return (
    <div className="flex min-w-0 items-center gap-2">
      <Label htmlFor="cron-environment" className="shrink-0 text-muted-foreground">
        Environment
      </Label>
      <Select value={value.name} onValueChange={onChange}>
        <SelectTrigger id="cron-environment" className="w-44 min-w-0" aria-label="Environment">
          <SelectValue />
        </SelectTrigger>
        <SelectContent>
          {environments.map((env) => (
            <SelectItem key={env.id} value={env.name}>
              {environmentLabel(env.name)}
            </SelectItem>
          ))}
        </SelectContent>
      </Select>
    </div>
  );
}

function PathCell({ cron }: { cron: CronJob }) {
  return (
    <div className="grid min-w-0 gap-1">
      <div className="flex min-w-0 items-center gap-2">
        <span className="shrink-0 font-medium font-mono text-muted-foreground text-xs">GET</span>
        <span className="truncate font-medium font-mono text-sm" title={cron.path}>
          {cron.path}
        </span>
      </div>
      {fromFile(cron) ? (
        <div className="flex flex-wrap items-center gap-1.5">
          <Badge variant="outline" className="font-mono font-normal">
            <FileCode />
            launchbay.json
          </Badge>
          <span className="text-muted-foreground text-xs">Edited in the file; only switched on or off here.</span>
        </div>
      ) : null}
    </div>
  );
}

function ScheduleCell({ cron }: { cron: CronJob }) {
  const reading = describeSchedule(cron.schedule);
  return (
    <div className="grid gap-0.5">
      <code className="w-fit whitespace-nowrap rounded bg-muted px-1.5 py-0.5 font-mono text-xs">{cron.schedule}</code>
      {reading ? <span className="text-muted-foreground text-xs">{capitalize(reading)}</span> : null}
    </div>
  );
}

function NextRunCell({ cron }: { cron: CronJob }) {
  if (!cron.enabled) return <span className="text-muted-foreground text-xs">Off</span>;
  if (!cron.next_run_at) return <span className="text-muted-foreground text-xs">Never</span>;
  return (
    <div className="grid gap-0.5" data-testid="cron-next-run">
      <span className="text-sm">{relativeTo(cron.next_run_at)}</span>
      <span className="whitespace-nowrap font-mono text-muted-foreground text-xs">{formatUtc(cron.next_run_at)}</span>
    </div>
  );
}

function LastRunCell({ cron, onOpen }: { cron: CronJob; onOpen: () => void }) {
  const last = cron.last_execution;
  if (!last) return <span className="text-muted-foreground text-xs">Not run yet</span>;
  const outcome = executionOutcome(last);
  return (
    <button
      type="button"
      onClick={onOpen}
      className="grid gap-1 rounded-md text-left outline-none focus-visible:ring-2 focus-visible:ring-ring/50"
      title={last.error ?? `${formatUtc(last.scheduled_for)}: show the executions`}
      data-testid="cron-last-execution"
    >
      <span className="flex flex-wrap items-center gap-1.5">
        <ExecutionStatusBadge status={last.status} />
        {outcome ? <span className="whitespace-nowrap font-mono text-xs">{outcome}</span> : null}
      </span>
      <span className="text-muted-foreground text-xs">{relativeTo(last.started_at ?? last.scheduled_for)}</span>
    </button>
  );
}

function EnabledCell({
  cron,
  canManage,
  pending,
  onToggle,
}: {
  cron: CronJob;
  canManage: boolean;
  pending: boolean;
  onToggle: (enabled: boolean) => void;
}) {
  if (!canManage) {
    return <Badge variant={cron.enabled ? 'success' : 'secondary'}>{cron.enabled ? 'On' : 'Off'}</Badge>;
  }
  return (
    <Switch
      checked={cron.enabled}
      disabled={pending}
      onCheckedChange={onToggle}
      aria-label={`Enabled: ${cron.path} (${cron.schedule})`}
    />
  );
}

interface RowActions {
  canManage: boolean;
  running: boolean;
  onRun: () => void;
  onExecutions: () => void;
  onEdit: () => void;
  onDelete: () => void;
}

function ActionsCell({ cron, actions }: { cron: CronJob; actions: RowActions }) {
  return (
    <div className="flex items-center justify-end gap-1">
      {actions.canManage ? (
        <Button variant="outline" size="sm" onClick={actions.onRun} disabled={actions.running}>
          {actions.running ? <Spinner /> : <Play />}
          Run now
        </Button>
      ) : null}
      <DropdownMenu modal={false}>
        <DropdownMenuTrigger asChild>
          <Button variant="ghost" size="icon-sm" aria-label={`Actions for ${cron.path}`}>
            <MoreHorizontal />
          </Button>
        </DropdownMenuTrigger>
        <DropdownMenuContent align="end" className="w-56">
          <DropdownMenuLabel className="truncate font-mono font-normal text-muted-foreground text-xs">
            {cron.schedule} {cron.path}
          </DropdownMenuLabel>
          <DropdownMenuItem onSelect={actions.onExecutions}>
            <History />
            View executions
          </DropdownMenuItem>
          {actions.canManage && !fromFile(cron) ? (
            <>
              <DropdownMenuItem onSelect={actions.onEdit}>
                <Pencil />
                Edit
              </DropdownMenuItem>
              <DropdownMenuSeparator />
              <DropdownMenuItem variant="destructive" onSelect={actions.onDelete}>
                <Trash2 />
                Delete
              </DropdownMenuItem>
            </>
          ) : null}
          {actions.canManage && fromFile(cron) ? (
            <>
              <DropdownMenuSeparator />
              <p className="px-2 py-1.5 text-muted-foreground text-xs">
                Defined in launchbay.json: change or remove it there and redeploy.
              </p>
            </>
          ) : null}
        </DropdownMenuContent>
      </DropdownMenu>
    </div>
  );
}

function CronJobsList({
  crons,
  canManage,
  pendingToggle,
  running,
  actionsFor,
  onToggle,
}: {
  crons: CronJob[];
  canManage: boolean;
  pendingToggle: number | null;
  running: ReadonlySet<number>;
  actionsFor: (cron: CronJob) => RowActions;
  onToggle: (cron: CronJob, enabled: boolean) => void;
}) {
  const narrow = useIsNarrow();
  if (narrow) {
    return (
      <ul className="grid grid-cols-[minmax(0,1fr)] gap-3" aria-label="Cron jobs">
        {crons.map((cron) => {
          const actions = actionsFor(cron);
          return (
            <li key={cron.id} data-testid={`cron-job-${cron.id}`}>
              <Card className="gap-3 px-4 py-3">
                <div className="flex items-start justify-between gap-3">
                  <PathCell cron={cron} />
                  <div className="pt-0.5">
                    <EnabledCell
                      cron={cron}
                      canManage={canManage}
                      pending={pendingToggle === cron.id}
                      onToggle={(enabled) => onToggle(cron, enabled)}
                    />
                  </div>
                </div>
                <ScheduleCell cron={cron} />
                <dl className="grid grid-cols-2 gap-3 border-t pt-3">
                  <div className="grid content-start gap-1">
                    <dt className="text-muted-foreground text-xs">Next run</dt>
                    <dd>
                      <NextRunCell cron={cron} />
                    </dd>
                  </div>
                  <div className="grid content-start gap-1">
                    <dt className="text-muted-foreground text-xs">Last run</dt>
                    <dd>
                      <LastRunCell cron={cron} onOpen={actions.onExecutions} />
                    </dd>
                  </div>
                </dl>
                <ActionsCell cron={cron} actions={{ ...actions, running: running.has(cron.id) }} />
              </Card>
            </li>
          );
        })}
      </ul>
    );
  }
  const columns: DataTableColumn<CronJob>[] = [
    {
      id: 'path',
      header: 'Path',
      headClassName: 'pl-4 w-[34%]',
      cellClassName: 'pl-4 max-w-80 whitespace-normal',
      cell: (cron) => <PathCell cron={cron} />,
    },
    { id: 'schedule', header: 'Schedule', cellClassName: 'whitespace-normal', cell: (cron) => <ScheduleCell cron={cron} /> },
    { id: 'next', header: 'Next run', cell: (cron) => <NextRunCell cron={cron} /> },
    {
      id: 'last',
      header: 'Last run',
      cell: (cron) => <LastRunCell cron={cron} onOpen={actionsFor(cron).onExecutions} />,
    },
    {
      id: 'enabled',
      header: 'Enabled',
      cell: (cron) => (
        <EnabledCell
          cron={cron}
          canManage={canManage}
          pending={pendingToggle === cron.id}
          onToggle={(enabled) => onToggle(cron, enabled)}
        />
      ),
    },
    {
      id: 'actions',
      header: 'Actions',
      srOnly: true,
      headClassName: 'pr-3',
      cellClassName: 'pr-3 pl-0',
      cell: (cron) => <ActionsCell cron={cron} actions={{ ...actionsFor(cron), running: running.has(cron.id) }} />,
    },
  ];
  return (
    <Card className="gap-0 overflow-hidden p-0">
      <DataTable
        columns={columns}
        rows={crons}
        rowKey={(cron) => cron.id}
        rowProps={(cron) => ({ 'data-testid': `cron-job-${cron.id}` })}
      />
    </Card>
  );
}

function CronJobDialog({
  title,
  description,
  open,
  onOpenChange,
  children,
}: {
  title: string;
  description: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  children: ReactNode;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>{description}</DialogDescription>
        </DialogHeader>
        {children}
      </DialogContent>
    </Dialog>
  );
}

/** Run now: the button spins while the call is out; a toast says how it went, the row shows it. */
function useRunAction(projectId: number, environmentId: number) {
  const run = useRunCronJob(projectId, environmentId);
  const [running, setRunning] = useState<ReadonlySet<number>>(new Set());
  const start = async (cron: CronJob) => {
    setRunning((current) => new Set(current).add(cron.id));
    const id = `cron-run-${cron.id}`;
    toast.info(CRON_JOB_RUN_MESSAGE, { id, description: `GET ${cron.path}` });
    try {
      const execution = await run.mutateAsync(cron.id);
      const outcome = executionOutcome(execution);
      if (execution.status === 'succeeded') {
        toast.success('Cron job succeeded', { id, description: `GET ${cron.path} answered ${outcome}.` });
      } else if (execution.status === 'skipped') {
        toast.warning('Cron job skipped', { id, description: execution.error ?? undefined });
      } else if (execution.status === 'failed') {
        toast.error('Cron job failed', {
          id,
          description: [execution.error, outcome].filter(Boolean).join(' · ') || undefined,
        });
      } else {
        toast.info('Cron job is still running', { id, description: `GET ${cron.path}` });
      }
    } catch (error) {
      toast.error('Failed to run cron job', { id, description: errorDetail(error) });
    } finally {
      setRunning((current) => {
        const next = new Set(current);
        next.delete(cron.id);
        return next;
      });
    }
  };
  return { running, start };
}

function CronJobsSection({
  project,
  environment,
  picker,
}: {
  project: ProjectDetail;
  environment: Environment;
  picker: ReactNode;
}) {
  const canManage = useCanManage();
  const crons = useCronJobs(project.id, environment.id);
  const create = useCreateCronJob(project.id, environment.id);
  const update = useUpdateCronJob(project.id, environment.id);
  const remove = useDeleteCronJob(project.id, environment.id);
  const runner = useRunAction(project.id, environment.id);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<CronJob | null>(null);
  const [deleting, setDeleting] = useState<CronJob | null>(null);
  const [viewing, setViewing] = useState<CronJob | null>(null);
  const [pendingToggle, setPendingToggle] = useState<number | null>(null);
  const list = crons.data ?? [];
  const envName = environmentLabel(environment.name);

  const toggle = async (cron: CronJob, enabled: boolean) => {
    setPendingToggle(cron.id);
    try {
      const updated = await update.mutateAsync({ id: cron.id, enabled });
      toast.success(CRON_JOB_UPDATED_MESSAGE, {
        description: enabled
          ? `GET ${cron.path} is on${updated.next_run_at ? `: next run ${formatUtc(updated.next_run_at)}` : ''}.`
          : `GET ${cron.path} is off: it no longer runs on its schedule.`,
      });
    } catch (error) {
      toast.error('Failed to update cron job', { description: errorDetail(error) });
    } finally {
      setPendingToggle(null);
    }
  };

  const addCron = async (values: CronJobFormValues) => {
    const created = await create.mutateAsync(values);
    toast.success(CRON_JOB_CREATED_MESSAGE, {
      description: created.next_run_at
        ? `GET ${created.path} runs next at ${formatUtc(created.next_run_at)}.`
        : `GET ${created.path} on ${created.schedule}.`,
    });
    setAdding(false);
  };

  const editCron = async (cron: CronJob, values: CronJobFormValues) => {
    const body: { path?: string; schedule?: string } = {};
    if (values.path !== cron.path) body.path = values.path;
    if (values.schedule !== cron.schedule) body.schedule = values.schedule;
    if (Object.keys(body).length > 0) {
      await update.mutateAsync({ id: cron.id, ...body });
      toast.success(CRON_JOB_UPDATED_MESSAGE, { description: `GET ${values.path} on ${values.schedule}.` });
    }
    setEditing(null);
  };

  const actionsFor = (cron: CronJob): RowActions => ({
    canManage,
    running: runner.running.has(cron.id),
    onRun: () => void runner.start(cron),
    onExecutions: () => setViewing(cron),
    onEdit: () => setEditing(cron),
    onDelete: () => setDeleting(cron),
  });

  const addButton = canManage ? (
    <Button onClick={() => setAdding(true)}>
      <Plus />
      Add Cron Job
    </Button>
  ) : null;

  return (
    <>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="grid min-w-0 gap-1">
          <h2 id="cron-jobs-title" className="font-semibold text-lg">
            Cron Jobs
          </h2>
          <p className="text-muted-foreground text-sm">
            Scheduled GET requests to the environment's live deployment. Schedules are read in UTC.
          </p>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          {picker}
          {list.length > 0 ? addButton : null}
        </div>
      </div>

      {environment.current_deployment_id === null ? (
        <div role="status" className="flex items-start gap-3 rounded-lg border border-warning/40 bg-warning/10 px-4 py-3 text-sm">
          <TriangleAlert className="mt-0.5 size-4 shrink-0 text-amber-600 dark:text-warning" />
          <p>
            <span className="font-medium">{envName} has no live deployment.</span>{' '}
            <span className="text-muted-foreground">Its cron jobs are skipped until a deployment goes live.</span>
          </p>
        </div>
      ) : null}

      {crons.isPending ? (
        <Card className="gap-0 p-0" aria-busy="true">
          {Array.from({ length: 3 }, (_, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
            <div key={index} className="flex items-center gap-4 border-b p-4 last:border-0">
              <Skeleton className="h-4 w-40" />
              <Skeleton className="h-5 w-24" />
              <Skeleton className="ml-auto h-4 w-32" />
            </div>
          ))}
        </Card>
      ) : crons.isError ? (
        <LoadFailed title="Could not load cron jobs" query={crons} />
      ) : list.length === 0 ? (
        <EmptyState
          icon={<Clock />}
          title="No cron jobs yet"
          description={
            <>
              Cron jobs call a path of your app on a schedule (UTC): cleanups, reports, syncs. Add one here, or list them under{' '}
              <code className="font-mono text-foreground">crons</code> in the app's{' '}
              <code className="font-mono text-foreground">launchbay.json</code>: they appear here once it is deployed.
            </>
          }
          action={addButton}
        />
      ) : (
        <CronJobsList
          crons={list}
          canManage={canManage}
          pendingToggle={pendingToggle}
          running={runner.running}
          actionsFor={actionsFor}
          onToggle={(cron, enabled) => void toggle(cron, enabled)}
        />
      )}

      <CronJobDialog
        title="Add Cron Job"
        description={`Launchbay sends a GET request to ${envName}'s live deployment on this schedule.`}
        open={adding}
        onOpenChange={(open) => !create.isPending && setAdding(open)}
      >
        {adding ? (
          <CronJobForm
            idPrefix="cron-new"
            submitLabel="Add Cron Job"
            failureTitle="Failed to add cron job"
            onSubmit={addCron}
            onCancel={() => setAdding(false)}
          />
        ) : null}
      </CronJobDialog>
      <CronJobDialog
        title="Edit cron job"
        description={`Changes apply from the next tick on ${envName}.`}
        open={editing !== null}
        onOpenChange={(open) => !open && !update.isPending && setEditing(null)}
      >
        {editing ? (
          <CronJobForm
            idPrefix="cron-edit"
            defaultValues={{ path: editing.path, schedule: editing.schedule }}
            submitLabel="Save"
            failureTitle="Failed to update cron job"
            onSubmit={(values) => editCron(editing, values)}
            onCancel={() => setEditing(null)}
          />
        ) : null}
      </CronJobDialog>
      {viewing ? <ExecutionsDialog projectId={project.id} cron={viewing} onClose={() => setViewing(null)} /> : null}
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title="Delete cron job?"
        description={`GET ${deleting?.path ?? ''} (${deleting?.schedule ?? ''}) stops running on ${envName}, and its execution history is deleted. This action cannot be undone.`}
        confirmLabel="Delete cron job"
        onConfirm={async () => {
          if (!deleting) return;
          try {
            await remove.mutateAsync(deleting.id);
            toast.success(CRON_JOB_DELETED_MESSAGE, { description: `GET ${deleting.path}` });
            setDeleting(null);
          } catch (error) {
            toast.error('Failed to delete cron job', { description: errorDetail(error) });
          }
        }}
      />
    </>
  );
}

/** /projects/{slug}/settings/cron-jobs: an environment's scheduled calls to its app. */
export default function CronJobsPage() {
  const { slug = '' } = useParams();
  const { data: project } = useProjectBySlug(slug);
  useDocumentTitle(project ? `${project.name} - Cron Jobs` : 'Cron Jobs');
  const { selected, select } = useSelectedEnvironment(project);
  if (!project || !selected) return null;
  return (
    <section className="grid grid-cols-[minmax(0,1fr)] gap-4" aria-labelledby="cron-jobs-title">
      <CronJobsSection
        key={selected.id}
        project={project}
        environment={selected}
        picker={<EnvironmentSelect environments={project.environments} value={selected} onChange={select} />}
      />
    </section>
  );
}
