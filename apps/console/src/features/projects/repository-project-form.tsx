import { zodResolver } from '@hookform/resolvers/zod';
import { branchNameSchema } from '@launchbay/contract';
import { useEffect, useRef, useState } from 'react';
import { Controller, type Path, useForm } from 'react-hook-form';
import { FormField } from '@/components/form/form-field';
import { Input } from '@/components/ui/input';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { errorDetail, isApiError } from '@/lib/api';
import { type Repository, useBranches, useGitConnections } from '@/lib/git-queries';
import { toast } from '@/lib/toast';
import { DetectedPreset } from './detected-preset';
import { DeployActions, Section } from './new-project-parts';
import {
  EMPTY_REPOSITORY_PROJECT,
  type NewProjectSubmission,
  REPOSITORY_SERVER_FIELDS,
  type RepositoryProjectFormInput,
  type RepositoryProjectFormOutput,
  repositoryProjectFormSchema,
  toRepositorySubmission,
} from './new-project-schema';
import { RepositoryPicker } from './repository-picker';

/** The branch: picked from the host's list (the default one first), or typed when the list cannot be read. */
function BranchField({
  repository,
  value,
  onChange,
  error,
  disabled,
}: {
  repository: Repository;
  value: string;
  onChange: (branch: string) => void;
  error?: string;
  disabled?: boolean;
}) {
  const branches = useBranches(repository);
  const names = branches.data?.branches.map((branch) => branch.name) ?? [];
  const id = 'project-repository-branch';

  if (branches.isError) {
    return (
      <FormField
        id={id}
        label="Branch"
        hint={`The branches could not be read (${errorDetail(branches.error)}): type one.`}
        keepHint
        error={error}
      >
        <Input
          id={id}
          className="font-mono"
          autoComplete="off"
          spellCheck={false}
          value={value}
          disabled={disabled}
          aria-invalid={error ? true : undefined}
          onChange={(event) => onChange(event.target.value)}
        />
      </FormField>
    );
  }
  return (
    <FormField
      id={id}
      label="Branch"
      hint={
        branches.isPending
          ? 'Reading the branches from the host…'
          : `Production deploys this branch (the repository's default: ${branches.data.default_branch}).`
      }
      error={error}
    >
      <Select value={value} onValueChange={onChange} disabled={disabled || branches.isPending}>
        <SelectTrigger id={id} className="font-mono" aria-invalid={error ? true : undefined}>
          <SelectValue placeholder="Pick a branch" />
        </SelectTrigger>
        <SelectContent className="max-h-80">
          {/* The default branch is known before the list arrives. */}
          {(names.length > 0 ? names : [value].filter(Boolean)).map((name) => (
            <SelectItem key={name} value={name} className="font-mono">
              {name}
            </SelectItem>
          ))}
        </SelectContent>
      </Select>
    </FormField>
  );
}

/**
 * A project from a connected repository: pick the repository, its branch (the default one
 * preselected), see what it would build as, name it, create it with `repository_id` + `branch`.
 */
export function RepositoryProjectForm({
  onSubmit,
  progress,
}: {
  /** Creates the project; throws the API error of the create call, mapped onto the fields here. */
  onSubmit: (submission: NewProjectSubmission) => Promise<void>;
  progress?: string | null;
}) {
  const connections = useGitConnections();
  const form = useForm<RepositoryProjectFormInput, unknown, RepositoryProjectFormOutput>({
    resolver: zodResolver(repositoryProjectFormSchema),
    defaultValues: EMPTY_REPOSITORY_PROJECT,
  });
  const { register, control, handleSubmit, setError, setValue, watch, formState } = form;
  const [repository, setRepository] = useState<Repository | null>(null);
  const nameEdited = useRef(false);
  const errors = formState.errors;
  const busy = formState.isSubmitting;
  const branch = watch('branch');
  const validBranch = branchNameSchema.safeParse(branch).success ? branch.trim() : null;
  const branches = useBranches(repository);

  const pick = (next: Repository | null) => {
    setRepository(next);
    setValue('repository_id', next?.id ?? null, { shouldValidate: formState.isSubmitted });
    // The default branch at once (the preset starts reading it), confirmed when the list arrives.
    setValue('branch', next?.default_branch ?? '', { shouldValidate: formState.isSubmitted });
    if (next && !nameEdited.current) setValue('name', next.name, { shouldValidate: formState.isSubmitted });
  };

  // The host's default branch wins over the synced one when they differ.
  const hostDefault = branches.data?.default_branch;
  const listed = branches.data?.branches;
  useEffect(() => {
    if (!hostDefault || !listed) return;
    const current = form.getValues('branch');
    if (!listed.some((item) => item.name === current)) setValue('branch', hostDefault);
  }, [hostDefault, listed, form, setValue]);

  const submit = handleSubmit(async (values) => {
    try {
      await onSubmit(toRepositorySubmission(values));
    } catch (error) {
      if (isApiError(error)) {
        for (const fieldError of error.errors) {
          const path = fieldError.path as (typeof REPOSITORY_SERVER_FIELDS)[number];
          if (REPOSITORY_SERVER_FIELDS.includes(path)) {
            setError(path as Path<RepositoryProjectFormInput>, { message: fieldError.message });
          }
        }
      }
      toast.error('Failed to create project', { description: errorDetail(error) });
    }
  });

  const noConnections = connections.data?.length === 0;

  return (
    <form onSubmit={submit} noValidate className="grid grid-cols-[minmax(0,1fr)] gap-6">
      <Section
        title="Repository"
        description="A repository of a connected GitHub or GitLab account. Launchbay fetches it with the provider's token."
      >
        <RepositoryPicker value={repository} onChange={pick} error={errors.repository_id?.message} disabled={busy} />
      </Section>

      {repository ? (
        <Section title="Branch and name" description="What production deploys, and what the project is called.">
          <fieldset disabled={busy} className="grid min-w-0 gap-5">
            <legend className="sr-only">Branch and name</legend>
            <div className="grid gap-5 sm:grid-cols-2">
              <Controller
                control={control}
                name="branch"
                render={({ field }) => (
                  <BranchField
                    repository={repository}
                    value={field.value}
                    onChange={field.onChange}
                    error={errors.branch?.message}
                    disabled={busy}
                  />
                )}
              />
              <FormField
                id="project-repository-name"
                label="Project name"
                hint="Its address is made from the name."
                error={errors.name?.message}
              >
                <Input
                  id="project-repository-name"
                  autoComplete="off"
                  maxLength={100}
                  aria-invalid={errors.name ? true : undefined}
                  {...register('name', {
                    onChange: () => {
                      nameEdited.current = true;
                    },
                  })}
                />
              </FormField>
            </div>
            <DetectedPreset repositoryId={repository.id} branch={validBranch} />
          </fieldset>
        </Section>
      ) : null}

      <DeployActions busy={busy} progress={progress} disabled={noConnections} />
    </form>
  );
}
