import { zodResolver } from '@hookform/resolvers/zod';
import { createEnvVarRequestSchema, type Environment, envVarKeySchema, parseDotenv, planImport } from '@launchbay/contract';
import { FileUp } from 'lucide-react';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Controller, type Path, useForm } from 'react-hook-form';
import { z } from 'zod';
import { CheckboxField, FormField } from '@/components/form/form-field';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { Textarea } from '@/components/ui/textarea';
import { errorDetail, isApiError } from '@/lib/api';
import { toast } from '@/lib/toast';
import {
  createEnvVar,
  type EnvVar,
  type EnvVarBody,
  readEnvVarValue,
  updateEnvVar,
  useEnvVarBatch,
  useUpdateEnvVar,
} from './api';
import { EnvironmentPicker } from './environment-picker';

/** The add and edit forms: the contract's key and value rules, and at least one environment. */
export const envVarFormSchema = z.object({
  key: envVarKeySchema,
  value: createEnvVarRequestSchema.shape.value,
  environment_ids: z.array(z.number().int()).min(1, 'Choose at least one environment'),
  /** Pull-request previews get only the variables marked so. */
  include_in_previews: z.boolean(),
});
export type EnvVarFormValues = z.infer<typeof envVarFormSchema>;

/** The 'Include in previews' checkbox's help. */
export const PREVIEWS_HINT =
  "Pull request previews get this variable too (they get no other). Code from a fork's pull request can read it once approved.";

/** Puts the server's field errors on the form's fields. */
export function applyServerErrors(error: unknown, setError: (path: Path<EnvVarFormValues>, error: { message: string }) => void) {
  if (!isApiError(error)) return;
  for (const fieldError of error.errors) {
    if (fieldError.path === 'key' || fieldError.path === 'value') setError(fieldError.path, { message: fieldError.message });
    else if (fieldError.path.startsWith('environment_ids')) setError('environment_ids', { message: fieldError.message });
  }
}

export function EditEnvVarDialog({
  projectId,
  envVar,
  environments,
  onClose,
  onChanged,
}: {
  projectId: number;
  envVar: EnvVar;
  environments: Environment[];
  onClose: () => void;
  /** After a save: the environments whose apps should be redeployed. */
  onChanged: (environmentIds: number[]) => void;
}) {
  const update = useUpdateEnvVar(projectId);
  const [loading, setLoading] = useState(true);
  const [original, setOriginal] = useState<string | null>(null);
  const form = useForm<EnvVarFormValues>({
    resolver: zodResolver(envVarFormSchema),
    defaultValues: {
      key: envVar.key,
      value: '',
      environment_ids: envVar.environment_ids,
      include_in_previews: envVar.include_in_previews,
    },
  });
  const { errors, isSubmitting } = form.formState;
  const { reset } = form;

  useEffect(() => {
    let cancelled = false;
    readEnvVarValue(projectId, envVar.key, envVar.environment_ids[0])
      .then((result) => {
        if (cancelled) return;
        setOriginal(result.value);
        reset({
          key: envVar.key,
          value: result.value,
          environment_ids: envVar.environment_ids,
          include_in_previews: envVar.include_in_previews,
        });
      })
      .catch((error: unknown) => {
        if (!cancelled) toast.error('Failed to read the value', { description: errorDetail(error) });
      })
      .finally(() => {
        if (!cancelled) setLoading(false);
      });
    return () => {
      cancelled = true;
    };
  }, [projectId, envVar, reset]);

  const submit = form.handleSubmit(async (values) => {
    const body: EnvVarBody = {};
    if (values.key !== envVar.key) body.key = values.key;
    if (original === null || values.value !== original) body.value = values.value;
    const sameEnvs =
      values.environment_ids.length === envVar.environment_ids.length &&
      values.environment_ids.every((id) => envVar.environment_ids.includes(id));
    if (!sameEnvs) body.environment_ids = values.environment_ids;
    if (values.include_in_previews !== envVar.include_in_previews) body.include_in_previews = values.include_in_previews;
    if (Object.keys(body).length === 0) return onClose();
    try {
      await update.mutateAsync({ id: envVar.id, ...body });
      toast.success('Environment variable saved', { description: values.key });
      onChanged([...new Set([...envVar.environment_ids, ...values.environment_ids])]);
      onClose();
    } catch (error) {
      applyServerErrors(error, form.setError);
      toast.error('Failed to save environment variable', { description: errorDetail(error) });
    }
  });

  return (
    <Dialog open onOpenChange={(next) => !next && !isSubmitting && onClose()}>
      <DialogContent>
        <form onSubmit={submit} noValidate className="grid gap-5">
          <DialogHeader>
            <DialogTitle>Edit {envVar.key}</DialogTitle>
            <DialogDescription>Apps get the new value at their next deployment.</DialogDescription>
          </DialogHeader>
          <FormField id="edit-env-key" label="Key" error={errors.key?.message}>
            <Input
              id="edit-env-key"
              className="font-mono"
              autoComplete="off"
              spellCheck={false}
              aria-invalid={errors.key ? true : undefined}
              {...form.register('key')}
            />
          </FormField>
          <FormField id="edit-env-value" label="Value" error={errors.value?.message}>
            {loading ? (
              <Skeleton className="h-16 w-full" />
            ) : (
              <Textarea
                id="edit-env-value"
                rows={2}
                className="max-h-48 font-mono text-sm"
                spellCheck={false}
                aria-invalid={errors.value ? true : undefined}
                {...form.register('value')}
              />
            )}
          </FormField>
          <FormField id="edit-env-environments" label="Environments" error={errors.environment_ids?.message}>
            <Controller
              control={form.control}
              name="environment_ids"
              render={({ field }) => (
                <EnvironmentPicker
                  id="edit-env-environments"
                  environments={environments}
                  value={field.value}
                  onChange={field.onChange}
                  invalid={!!errors.environment_ids}
                />
              )}
            />
          </FormField>
          <Controller
            control={form.control}
            name="include_in_previews"
            render={({ field }) => (
              <CheckboxField
                id="edit-env-previews"
                label="Include in previews"
                description={PREVIEWS_HINT}
                checked={field.value}
                onCheckedChange={field.onChange}
              />
            )}
          />
          <DialogFooter>
            <Button variant="outline" disabled={isSubmitting} onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={isSubmitting || loading}>
              {isSubmitting ? <Spinner /> : null}
              Save
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Mounted while open: each opening starts from `initialText` and every environment. */
export function ImportDotenvDialog({
  projectId,
  initialText,
  existing,
  environments,
  onOpenChange,
  onChanged,
}: {
  projectId: number;
  initialText: string;
  existing: EnvVar[];
  environments: Environment[];
  onOpenChange: (open: boolean) => void;
  onChanged: (environmentIds: number[]) => void;
}) {
  const ids = useId();
  const [text, setText] = useState(initialText);
  const [target, setTarget] = useState<number[]>(() => environments.map((env) => env.id));
  const fileInput = useRef<HTMLInputElement>(null);
  const batch = useEnvVarBatch(projectId);

  const parsed = useMemo(() => parseDotenv(text), [text]);
  const plan = useMemo(() => planImport(parsed.entries, existing, target), [parsed, existing, target]);
  const count = parsed.entries.length;
  const busy = batch.isPending;

  const run = async () => {
    const steps = plan.ops.map((op) => () => {
      if (op.kind === 'create')
        return createEnvVar(projectId, { key: op.key, value: op.value, environment_ids: op.environment_ids });
      if (op.kind === 'narrow') return updateEnvVar(projectId, op.id, { environment_ids: op.environment_ids });
      return updateEnvVar(projectId, op.id, { value: op.value });
    });
    const failures = await batch.mutateAsync(steps);
    if (failures.length > 0) {
      toast.error(`Failed to import ${plural(failures.length, 'change')}`, {
        description: failures.map((error) => errorDetail(error)).join('\n'),
      });
    } else {
      const parts = [];
      if (plan.added.length) parts.push(`${plan.added.length} added`);
      if (plan.updated.length) parts.push(`${plan.updated.length} updated`);
      toast.success(`Imported ${plural(count, 'variable')}`, { description: parts.join(', ') });
    }
    if (failures.length < steps.length) onChanged(target);
    if (failures.length === 0) onOpenChange(false);
  };

  return (
    <Dialog open onOpenChange={(next) => !busy && onOpenChange(next)}>
      <DialogContent className="sm:max-w-2xl">
        <DialogHeader>
          <DialogTitle>Import .env</DialogTitle>
          <DialogDescription>
            Paste a .env file or choose one. Keys already set in the chosen environments get the new value.
          </DialogDescription>
        </DialogHeader>
        <div className="grid gap-2">
          <div className="flex items-center justify-between gap-2">
            <Label htmlFor={`${ids}-text`}>Contents</Label>
            <Button variant="ghost" size="sm" onClick={() => fileInput.current?.click()} disabled={busy}>
              <FileUp />
              Choose file
            </Button>
            <input
              ref={fileInput}
              type="file"
              accept=".env,text/plain"
              className="hidden"
              aria-label="Choose a .env file"
              onChange={(event) => {
                const file = event.target.files?.[0];
                if (file) void file.text().then(setText);
                event.target.value = '';
              }}
            />
          </div>
          <Textarea
            id={`${ids}-text`}
            rows={8}
            className="max-h-72 font-mono text-xs"
            spellCheck={false}
            placeholder={'# Comments, quotes and export are fine\nDATABASE_URL=postgres://…\nexport API_KEY="secret value"'}
            value={text}
            disabled={busy}
            onChange={(event) => setText(event.target.value)}
          />
        </div>
        <div className="grid gap-2">
          <Label htmlFor={`${ids}-environments`}>Environments</Label>
          <EnvironmentPicker id={`${ids}-environments`} environments={environments} value={target} onChange={setTarget} />
        </div>
        <div className="grid gap-1 rounded-lg border bg-muted/30 px-3 py-2.5 text-sm" aria-live="polite">
          {count === 0 ? (
            <p className="text-muted-foreground">
              {text.trim() ? 'No KEY=VALUE lines found yet.' : 'The preview shows here once you paste something.'}
            </p>
          ) : (
            <p>
              <span className="font-medium">{plan.added.length}</span> will be added,{' '}
              <span className="font-medium">{plan.updated.length}</span> will be updated.
            </p>
          )}
          {parsed.problems.slice(0, 4).map((problem) => (
            <p key={problem.line} className="text-destructive text-xs">
              {problem.message} (skipped)
            </p>
          ))}
          {parsed.problems.length > 4 ? (
            <p className="text-destructive text-xs">…and {parsed.problems.length - 4} more skipped lines.</p>
          ) : null}
          {target.length === 0 ? <p className="text-destructive text-xs">Choose at least one environment.</p> : null}
        </div>
        <DialogFooter>
          <Button variant="outline" disabled={busy} onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button disabled={busy || count === 0 || target.length === 0} onClick={() => void run()}>
            {busy ? <Spinner /> : null}
            Import {count > 0 ? plural(count, 'variable') : ''}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
