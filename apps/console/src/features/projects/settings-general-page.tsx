import { zodResolver } from '@hookform/resolvers/zod';
import type { ProjectDetail } from '@launchbay/contract';
import { Trash2 } from 'lucide-react';
import { type ReactNode, useMemo, useState } from 'react';
import { type Path, type UseFormReturn, useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { FormField } from '@/components/form/form-field';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail, isApiError } from '@/lib/api';
import { useDocumentTitle } from '@/lib/document-title';
import { displayUrl } from '@/lib/project-queries';
import { toast } from '@/lib/toast';
import { type DeploymentConfigPatch, useDeleteProject, usePresets, useRenameProject, useUpdateDeploymentConfig } from './api';
import { BuildSettingsFields, LaunchbayJsonNote } from './build-settings-fields';
import { useRouteProject } from './model';
import { AUTO_PRESET, buildSettingsFormShape } from './new-project-schema';
import { useRedeploy } from './redeploy';

function SettingsCard<T extends Record<string, unknown>>({
  id,
  title,
  description,
  form,
  onSubmit,
  note,
  children,
}: {
  id: string;
  title: string;
  description: ReactNode;
  // biome-ignore lint/suspicious/noExplicitAny: any output type: only the form state is read here
  form: UseFormReturn<T, unknown, any>;
  onSubmit: () => Promise<void>;
  note: ReactNode;
  children: ReactNode;
}) {
  const { isDirty, isSubmitting } = form.formState;
  return (
    <section aria-labelledby={id}>
      <Card className="gap-0 overflow-hidden py-0">
        <form onSubmit={onSubmit} noValidate>
          <CardHeader className="pt-6">
            <CardTitle id={id}>{title}</CardTitle>
            <CardDescription>{description}</CardDescription>
          </CardHeader>
          <CardContent className="py-6">
            <fieldset disabled={isSubmitting} className="grid min-w-0 gap-5">
              <legend className="sr-only">{title}</legend>
              {children}
            </fieldset>
          </CardContent>
          <CardFooter className="flex-wrap justify-between gap-3 border-t bg-muted/30 py-3">
            <p className="text-muted-foreground text-xs" aria-live="polite">
              {isDirty ? 'You have unsaved changes.' : note}
            </p>
            <div className="flex shrink-0 gap-2">
              {isDirty ? (
                <Button variant="ghost" size="sm" disabled={isSubmitting} onClick={() => form.reset()}>
                  Discard
                </Button>
              ) : null}
              <Button type="submit" size="sm" disabled={!isDirty || isSubmitting} aria-label={`Save ${title}`}>
                {isSubmitting ? <Spinner /> : null}
                Save
              </Button>
            </div>
          </CardFooter>
        </form>
      </Card>
    </section>
  );
}

const nameSchema = z.object({ name: z.string().trim().min(1, 'Name is required').max(100, 'At most 100 characters') });

function NameCard({ project }: { project: ProjectDetail }) {
  const rename = useRenameProject();
  const form = useForm({ resolver: zodResolver(nameSchema), values: { name: project.name } });
  const submit = form.handleSubmit(async ({ name }) => {
    if (name === project.name) return form.reset({ name });
    try {
      await rename.mutateAsync({ id: project.id, name });
      toast.success('Project renamed', { description: name });
    } catch (error) {
      if (isApiError(error)) {
        const message = error.errors.find((item) => item.path === 'name')?.message;
        if (message) form.setError('name', { message });
      }
      toast.error('Failed to rename project', { description: errorDetail(error) });
    }
  });
  return (
    <SettingsCard
      id="project-name-title"
      title="Project name"
      description="How the project is shown in the console."
      form={form}
      onSubmit={submit}
      note={`Renaming keeps the address ${displayUrl(project.url) || project.slug}.`}
    >
      <FormField id="settings-project-name" label="Name" error={form.formState.errors.name?.message}>
        <Input
          id="settings-project-name"
          autoComplete="off"
          maxLength={100}
          className="sm:max-w-md"
          aria-invalid={form.formState.errors.name ? true : undefined}
          {...form.register('name')}
        />
      </FormField>
    </SettingsCard>
  );
}

const buildSchema = z.object(buildSettingsFormShape);
type BuildInput = z.input<typeof buildSchema>;
type BuildOutput = z.output<typeof buildSchema>;
const BUILD_FIELDS = Object.keys(buildSettingsFormShape) as (keyof BuildInput)[];

function buildValues(project: ProjectDetail): BuildInput {
  return {
    root_directory: project.root_directory === '.' ? '' : project.root_directory,
    preset: project.preset ?? AUTO_PRESET,
    install_command: project.install_command ?? '',
    build_command: project.build_command ?? '',
    start_command: project.start_command ?? '',
    output_directory: project.output_directory ?? '',
    port: project.port === null ? '' : String(project.port),
  };
}

/** Only what changed, as the PATCH wants it. */
function configPatch(project: ProjectDetail, values: BuildOutput): DeploymentConfigPatch {
  const next: Required<DeploymentConfigPatch> = {
    root_directory: values.root_directory ?? '.',
    preset: values.preset === AUTO_PRESET ? null : values.preset,
    install_command: values.install_command ?? null,
    build_command: values.build_command ?? null,
    start_command: values.start_command ?? null,
    output_directory: values.output_directory ?? null,
    port: values.port ?? null,
  };
  const patch: DeploymentConfigPatch = {};
  for (const key of Object.keys(next) as (keyof DeploymentConfigPatch)[]) {
    if (next[key] !== project[key]) (patch as Record<string, unknown>)[key] = next[key];
  }
  return patch;
}

function BuildCard({ project }: { project: ProjectDetail }) {
  const update = useUpdateDeploymentConfig();
  const presets = usePresets();
  const { redeploy } = useRedeploy(project);
  const values = useMemo(() => buildValues(project), [project]);
  const form = useForm<BuildInput, unknown, BuildOutput>({ resolver: zodResolver(buildSchema), values });
  const preset = form.watch('preset');
  const submit = form.handleSubmit(async (output) => {
    const patch = configPatch(project, output);
    if (Object.keys(patch).length === 0) return form.reset(values);
    try {
      await update.mutateAsync({ id: project.id, ...patch });
      toast.success('Build settings saved', {
        description: 'They apply from the next deployment.',
        action: { label: 'Redeploy', onClick: () => void redeploy() },
      });
    } catch (error) {
      if (isApiError(error)) {
        for (const fieldError of error.errors) {
          if ((BUILD_FIELDS as string[]).includes(fieldError.path)) {
            form.setError(fieldError.path as Path<BuildInput>, { message: fieldError.message });
          }
        }
      }
      toast.error('Failed to save build settings', { description: errorDetail(error) });
    }
  });
  const errors = form.formState.errors;
  return (
    <SettingsCard
      id="build-settings-title"
      title="Build settings"
      description="Overrides for what Launchbay detects in the repository."
      form={form}
      onSubmit={submit}
      note="Changes apply from the next deployment."
    >
      <LaunchbayJsonNote />
      <FormField
        id="settings-root"
        label="Root directory"
        optional
        hint="The app's folder inside the repository, for monorepos."
        error={errors.root_directory?.message}
      >
        <Input
          id="settings-root"
          className="font-mono sm:max-w-md"
          autoComplete="off"
          spellCheck={false}
          placeholder="./"
          aria-invalid={errors.root_directory ? true : undefined}
          {...form.register('root_directory')}
        />
      </FormField>
      <BuildSettingsFields
        idPrefix="settings"
        control={form.control}
        register={form.register}
        errors={errors}
        presets={presets.data}
        presetsLoading={presets.isPending}
        preset={preset}
      />
    </SettingsCard>
  );
}

function DangerZone({ project }: { project: ProjectDetail }) {
  const [open, setOpen] = useState(false);
  const remove = useDeleteProject();
  const navigate = useNavigate();
  return (
    <section aria-labelledby="settings-danger">
      <Card className="gap-0 overflow-hidden border-destructive/40 py-0">
        <CardHeader className="pt-6">
          <CardTitle id="settings-danger" className="text-destructive">
            Danger zone
          </CardTitle>
          <CardDescription>What cannot be undone.</CardDescription>
        </CardHeader>
        <CardContent className="flex flex-col gap-4 py-6 sm:flex-row sm:items-center sm:justify-between">
          <div className="grid gap-1">
            <p className="font-medium text-sm">Delete this project</p>
            <p className="text-muted-foreground text-sm">
              Its apps stop, and its deployments, builds, logs, environments and variables are removed.
            </p>
          </div>
          <Button variant="destructive" className="shrink-0" onClick={() => setOpen(true)}>
            <Trash2 />
            Delete project
          </Button>
        </CardContent>
      </Card>
      <ConfirmDialog
        open={open}
        onOpenChange={setOpen}
        title={`Delete ${project.name}?`}
        description={`This stops ${displayUrl(project.url) || 'its address'} and permanently deletes the project with its deployments, logs and environment variables. This action cannot be undone.`}
        confirmLabel="Delete project"
        confirmText={project.name}
        onConfirm={async () => {
          try {
            await remove.mutateAsync(project);
          } catch (error) {
            toast.error('Failed to delete project', { description: errorDetail(error) });
            return;
          }
          toast.success('Project deleted', { description: project.name });
          setOpen(false);
          navigate('/projects', { replace: true });
          remove.forget(project);
        }}
      />
    </section>
  );
}

/** /projects/{slug}/settings/general: name, build settings and deletion. */
export default function SettingsGeneralPage() {
  const { data: project } = useRouteProject();
  useDocumentTitle(project ? `${project.name} - General Settings` : 'General Settings');
  if (!project) return null;
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-6">
      <h2 className="sr-only">General</h2>
      <NameCard project={project} />
      <BuildCard project={project} />
      <DangerZone project={project} />
    </div>
  );
}
