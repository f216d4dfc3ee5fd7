import { zodResolver } from '@hookform/resolvers/zod';
import { parseDotenv } from '@launchbay/contract';
import { ClipboardPaste, Eye, EyeOff, FileText, Plus, X } from 'lucide-react';
import { type ClipboardEvent, useEffect, useRef, useState } from 'react';
import { type Path, useFieldArray, useForm } from 'react-hook-form';
import { FormField } from '@/components/form/form-field';
import { Button } from '@/components/ui/button';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Textarea } from '@/components/ui/textarea';
import { errorDetail, isApiError } from '@/lib/api';
import { toast } from '@/lib/toast';
import type { Preset } from './api';
import { BuildSettingsFields, LaunchbayJsonNote } from './build-settings-fields';
import { DetectedFromGitUrl } from './detected-preset';
import { DeployActions, Section } from './new-project-parts';
import {
  EMPTY_NEW_PROJECT,
  type NewProjectFormInput,
  type NewProjectFormOutput,
  type NewProjectSubmission,
  nameFromGitUrl,
  newProjectFormSchema,
  SERVER_FIELDS,
  toSubmission,
} from './new-project-schema';

type EnvRow = { key: string; value: string };

/** Merges parsed .env entries into the rows: same key updates, new keys fill empty rows, then append. */
export function mergeEnvRows(rows: EnvRow[], entries: EnvRow[]): { rows: EnvRow[]; added: number; updated: number } {
  const next = rows.map((row) => ({ ...row }));
  let added = 0;
  let updated = 0;
  for (const entry of entries) {
    const existing = next.find((row) => row.key.trim() === entry.key);
    if (existing) {
      if (existing.value !== entry.value) updated++;
      existing.value = entry.value;
      continue;
    }
    const empty = next.find((row) => row.key.trim() === '' && row.value === '');
    if (empty) {
      empty.key = entry.key;
      empty.value = entry.value;
    } else {
      next.push({ key: entry.key, value: entry.value });
    }
    added++;
  }
  return { rows: next, added, updated };
}

function pluralVars(n: number): string {
  return `${n} variable${n === 1 ? '' : 's'}`;
}

export function NewProjectForm({
  presets,
  presetsLoading = false,
  onSubmit,
  progress,
}: {
  presets: Preset[] | undefined;
  presetsLoading?: boolean;
  /** Creates the project (and the rest); throws the API error of the create call, mapped onto the fields here. */
  onSubmit: (submission: NewProjectSubmission) => Promise<void>;
  /** What the submit is doing now ('Checking the repository…'), shown on the button. */
  progress?: string | null;
}) {
  const form = useForm<NewProjectFormInput, unknown, NewProjectFormOutput>({
    resolver: zodResolver(newProjectFormSchema),
    defaultValues: EMPTY_NEW_PROJECT,
  });
  const { register, control, handleSubmit, setError, setValue, getValues, watch, formState } = form;
  const nameEdited = useRef(false);
  const env = useFieldArray({ control, name: 'env' });
  const [showToken, setShowToken] = useState(false);
  const [pasteOpen, setPasteOpen] = useState(false);
  const [pasteText, setPasteText] = useState('');
  const [pasteReport, setPasteReport] = useState<{ summary: string; problems: string[] } | null>(null);
  const gitUrl = watch('git_url');
  const preset = watch('preset');
  const errors = formState.errors;
  const busy = formState.isSubmitting;

  // The repository's name is the project's name until the user types one.
  useEffect(() => {
    if (nameEdited.current) return;
    const derived = nameFromGitUrl(gitUrl);
    if (derived) setValue('name', derived, { shouldValidate: formState.isSubmitted });
  }, [gitUrl, setValue, formState.isSubmitted]);

  const applyDotenv = (text: string): boolean => {
    const { entries, problems } = parseDotenv(text);
    if (entries.length === 0 && problems.length === 0) {
      setPasteReport({ summary: 'Nothing to add: the text has no KEY=VALUE lines.', problems: [] });
      return false;
    }
    const merged = mergeEnvRows(getValues('env'), entries);
    env.replace(merged.rows);
    const parts = [`${merged.added} added`];
    if (merged.updated > 0) parts.push(`${merged.updated} updated`);
    setPasteReport({
      summary: `${pluralVars(entries.length)} read: ${parts.join(', ')}.`,
      problems: problems.map((p) => p.message),
    });
    return problems.length === 0;
  };

  /** Pasting a whole .env into a key field fills the rows (like most hosting consoles). */
  const onKeyPaste = (event: ClipboardEvent<HTMLInputElement>) => {
    const text = event.clipboardData.getData('text');
    if (!/\n/.test(text.trim()) && !/^\s*(export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=/.test(text)) return;
    event.preventDefault();
    applyDotenv(text);
  };

  const submit = handleSubmit(async (values) => {
    try {
      await onSubmit(toSubmission(values));
    } catch (error) {
      if (isApiError(error)) {
        for (const fieldError of error.errors) {
          const path = fieldError.path as (typeof SERVER_FIELDS)[number];
          if (SERVER_FIELDS.includes(path)) setError(path as Path<NewProjectFormInput>, { message: fieldError.message });
        }
      }
      toast.error('Failed to create project', { description: errorDetail(error) });
    }
  });

  return (
    <form onSubmit={submit} noValidate className="grid grid-cols-[minmax(0,1fr)] gap-6">
      <fieldset disabled={busy} className="grid min-w-0 gap-6">
        <legend className="sr-only">New project</legend>
        <Section
          title="Git repository"
          description="The repository to deploy. Launchbay checks that it can read the branch first."
        >
          <div className="grid gap-5">
            <FormField
              id="project-git-url"
              label="Git URL"
              hint="An https:// address (or ssh://, git@host:owner/repo for a deploy key)."
              error={errors.git_url?.message}
            >
              <Input
                id="project-git-url"
                inputMode="url"
                autoComplete="off"
                spellCheck={false}
                placeholder="https://github.com/acme/website.git"
                aria-invalid={errors.git_url ? true : undefined}
                {...register('git_url')}
              />
            </FormField>
            <div className="grid gap-5 sm:grid-cols-2">
              <FormField
                id="project-git-token"
                label="Access token"
                optional
                hint="For a private repository: a token with read access. Stored encrypted."
                error={errors.git_token?.message}
              >
                <div className="relative">
                  <Input
                    id="project-git-token"
                    type={showToken ? 'text' : 'password'}
                    autoComplete="new-password"
                    spellCheck={false}
                    className="pr-10"
                    placeholder="ghp_…"
                    aria-invalid={errors.git_token ? true : undefined}
                    {...register('git_token')}
                  />
                  <Button
                    variant="ghost"
                    size="icon-sm"
                    className="absolute top-0.5 right-0.5 size-8 text-muted-foreground"
                    aria-label={showToken ? 'Hide token' : 'Show token'}
                    onClick={() => setShowToken((shown) => !shown)}
                  >
                    {showToken ? <EyeOff /> : <Eye />}
                  </Button>
                </div>
              </FormField>
              <FormField id="project-branch" label="Branch" hint="Production deploys this branch." error={errors.branch?.message}>
                <Input
                  id="project-branch"
                  autoComplete="off"
                  spellCheck={false}
                  className="font-mono"
                  aria-invalid={errors.branch ? true : undefined}
                  {...register('branch')}
                />
              </FormField>
              <FormField
                id="project-name"
                label="Project name"
                hint="Its address is made from the name."
                error={errors.name?.message}
              >
                <Input
                  id="project-name"
                  autoComplete="off"
                  placeholder="my-website"
                  maxLength={100}
                  aria-invalid={errors.name ? true : undefined}
                  {...register('name', {
                    onChange: () => {
                      nameEdited.current = true;
                    },
                  })}
                />
              </FormField>
              <FormField
                id="project-root"
                label="Root directory"
                optional
                hint="The app's folder inside the repository, for monorepos."
                error={errors.root_directory?.message}
              >
                <Input
                  id="project-root"
                  autoComplete="off"
                  spellCheck={false}
                  className="font-mono"
                  placeholder="./"
                  aria-invalid={errors.root_directory ? true : undefined}
                  {...register('root_directory')}
                />
              </FormField>
            </div>
          </div>
        </Section>

        <Section
          title="Build settings"
          description="Launchbay detects the framework and its commands. Override them only where it guesses wrong."
        >
          <div className="grid gap-5">
            <DetectedFromGitUrl
              gitUrl={gitUrl ?? ''}
              token={watch('git_token') ?? ''}
              branch={watch('branch') ?? ''}
              rootDirectory={watch('root_directory') ?? ''}
            />
            <LaunchbayJsonNote />
            <BuildSettingsFields
              idPrefix="project"
              control={control}
              register={register}
              errors={errors}
              presets={presets}
              presetsLoading={presetsLoading}
              preset={preset}
            />
          </div>
        </Section>

        <Section
          title="Environment variables"
          description="Available to the build and to the running app, in every environment. Values are stored encrypted."
        >
          <div className="grid gap-3">
            <div className="hidden grid-cols-[minmax(0,2fr)_minmax(0,3fr)_2.25rem] gap-2 text-muted-foreground text-xs sm:grid">
              <span>Key</span>
              <span>Value</span>
            </div>
            <ul className="grid grid-cols-[minmax(0,1fr)] gap-3 sm:gap-2" aria-label="Environment variables to add">
              {env.fields.map((row, index) => {
                const rowErrors = errors.env?.[index];
                return (
                  <li key={row.id} className="grid gap-1">
                    <div className="grid grid-cols-[minmax(0,1fr)_2.25rem] gap-2 sm:grid-cols-[minmax(0,2fr)_minmax(0,3fr)_2.25rem]">
                      <Label htmlFor={`env-key-${index}`} className="sr-only">
                        Key {index + 1}
                      </Label>
                      <Input
                        id={`env-key-${index}`}
                        className="font-mono"
                        placeholder="EXAMPLE_KEY"
                        autoComplete="off"
                        spellCheck={false}
                        aria-invalid={rowErrors?.key ? true : undefined}
                        onPaste={onKeyPaste}
                        {...register(`env.${index}.key`)}
                      />
                      <Label htmlFor={`env-value-${index}`} className="sr-only">
                        Value {index + 1}
                      </Label>
                      <Input
                        id={`env-value-${index}`}
                        className="col-start-1 row-start-2 font-mono sm:col-start-auto sm:row-start-auto"
                        placeholder="value"
                        autoComplete="off"
                        spellCheck={false}
                        aria-invalid={rowErrors?.value ? true : undefined}
                        {...register(`env.${index}.value`)}
                      />
                      <Button
                        variant="ghost"
                        size="icon"
                        className="col-start-2 row-start-1 text-muted-foreground sm:col-start-auto sm:row-start-auto"
                        aria-label={`Remove variable ${index + 1}`}
                        onClick={() => (env.fields.length === 1 ? env.replace([{ key: '', value: '' }]) : env.remove(index))}
                      >
                        <X />
                      </Button>
                    </div>
                    <FieldError message={rowErrors?.key?.message ?? rowErrors?.value?.message} />
                  </li>
                );
              })}
            </ul>
            <div className="flex flex-wrap gap-2">
              <Button variant="outline" size="sm" onClick={() => env.append({ key: '', value: '' })}>
                <Plus />
                Add another
              </Button>
              <Button
                variant="outline"
                size="sm"
                aria-expanded={pasteOpen}
                onClick={() => {
                  setPasteOpen((open) => !open);
                  setPasteReport(null);
                }}
              >
                <ClipboardPaste />
                Paste .env
              </Button>
            </div>
            {pasteOpen ? (
              <div className="grid gap-2 rounded-lg border bg-muted/30 p-3">
                <Label htmlFor="project-dotenv">Paste the contents of a .env file</Label>
                <Textarea
                  id="project-dotenv"
                  rows={5}
                  className="max-h-64 bg-background font-mono text-xs"
                  spellCheck={false}
                  placeholder={'# Comments and export are fine\nDATABASE_URL=postgres://…\nAPI_KEY="secret value"'}
                  value={pasteText}
                  onChange={(event) => setPasteText(event.target.value)}
                />
                <div className="flex flex-wrap items-center justify-end gap-2">
                  <Button variant="ghost" size="sm" onClick={() => setPasteOpen(false)}>
                    Close
                  </Button>
                  <Button
                    size="sm"
                    disabled={pasteText.trim() === ''}
                    onClick={() => {
                      if (applyDotenv(pasteText)) {
                        setPasteText('');
                        setPasteOpen(false);
                      }
                    }}
                  >
                    <FileText />
                    Add to the list
                  </Button>
                </div>
              </div>
            ) : null}
            {pasteReport ? (
              <div className="grid gap-1 text-xs" aria-live="polite">
                <p className="text-muted-foreground">{pasteReport.summary}</p>
                {pasteReport.problems.slice(0, 5).map((problem) => (
                  <p key={problem} className="text-destructive">
                    {problem}
                  </p>
                ))}
                {pasteReport.problems.length > 5 ? (
                  <p className="text-destructive">…and {pasteReport.problems.length - 5} more lines that were skipped.</p>
                ) : null}
              </div>
            ) : null}
          </div>
        </Section>
      </fieldset>

      <DeployActions busy={busy} progress={progress} />
    </form>
  );
}
