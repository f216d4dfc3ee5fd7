import { zodResolver } from '@hookform/resolvers/zod';
import { DEFAULT_BASE_URL, type GitProviderType } from '@launchbay/contract';
import { AlertCircle, ArrowRight, ExternalLink, Eye, EyeOff, Plus } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { type FieldValues, type Path, type UseFormRegisterReturn, type UseFormReturn, useForm } from 'react-hook-form';
import { Link } from 'react-router';
import { FormField } from '@/components/form/form-field';
import { GIT_PROVIDER_LABEL } from '@/components/git/git-provider-icon';
import { Button, buttonVariants } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail, isApiError } from '@/lib/api';
import { toast } from '@/lib/toast';
import {
  EMPTY_OAUTH_FORM,
  EMPTY_PAT_FORM,
  fieldOf,
  GIT_SOURCES_PATH,
  newApplicationUrl,
  newTokenUrl,
  OAUTH_FIELDS,
  type OauthFormInput,
  type OauthFormOutput,
  oauthFormSchema,
  PAT_FIELDS,
  type PatFormInput,
  type PatFormOutput,
  patFormSchema,
  REQUIRED_SCOPES,
} from './model';

export const ADD_FAILED_TITLE = 'Failed to add git provider';

/** The server's refusal: its field errors go under the fields, its detail above the buttons (unless a field says it already). */
function useServerErrors<TValues extends FieldValues, TOut>(
  form: UseFormReturn<TValues, unknown, TOut>,
  fields: readonly string[],
) {
  const [detail, setDetail] = useState<string | null>(null);
  const apply = (error: unknown) => {
    const message = errorDetail(error);
    let shownOnField = false;
    if (isApiError(error)) {
      error.errors.forEach((fieldError, index) => {
        const field = fieldOf(fieldError.path, fields);
        if (!field) return;
        form.setError(field as Path<TValues>, { type: 'server', message: fieldError.message }, { shouldFocus: index === 0 });
        if (fieldError.message === message) shownOnField = true;
      });
    }
    setDetail(shownOnField ? null : message);
    toast.error(ADD_FAILED_TITLE, { description: message });
  };
  return { detail, clear: () => setDetail(null), apply };
}

function ServerDetail({ detail }: { detail: string | null }) {
  if (!detail) return null;
  return (
    <div
      role="alert"
      className="flex items-start gap-2 rounded-lg border border-destructive/30 bg-destructive/5 px-3 py-2.5 text-destructive text-sm"
    >
      <AlertCircle className="mt-0.5 size-4 shrink-0" />
      <span className="min-w-0 break-words">{detail}</span>
    </div>
  );
}

function SecretInput({
  id,
  label,
  invalid,
  registration,
  placeholder,
}: {
  id: string;
  label: string;
  invalid: boolean;
  registration: UseFormRegisterReturn;
  placeholder?: string;
}) {
  const [shown, setShown] = useState(false);
  return (
    <div className="relative">
      <Input
        id={id}
        type={shown ? 'text' : 'password'}
        autoComplete="new-password"
        spellCheck={false}
        className="pr-10 font-mono"
        placeholder={placeholder}
        aria-invalid={invalid || undefined}
        {...registration}
      />
      <Button
        variant="ghost"
        size="icon-sm"
        className="absolute top-0.5 right-0.5 size-8 text-muted-foreground"
        aria-label={shown ? `Hide ${label}` : `Show ${label}`}
        onClick={() => setShown((value) => !value)}
      >
        {shown ? <EyeOff /> : <Eye />}
      </Button>
    </div>
  );
}

function Scopes({ type }: { type: GitProviderType }) {
  const scopes = REQUIRED_SCOPES[type];
  return (
    <>
      {scopes.map((scope, index) => (
        <span key={scope}>
          {index > 0 ? ' and ' : null}
          <code className="rounded bg-muted px-1 py-0.5 font-mono text-foreground">{scope}</code>
        </span>
      ))}
    </>
  );
}

function FormFooter({ busy, busyText, children }: { busy: boolean; busyText: string; children: ReactNode }) {
  return (
    <div className="flex flex-col-reverse gap-2 border-t pt-6 sm:flex-row sm:items-center sm:justify-end">
      {busy ? (
        <p className="text-muted-foreground text-sm sm:mr-auto" aria-live="polite">
          {busyText}
        </p>
      ) : null}
      <Link to={GIT_SOURCES_PATH} className={buttonVariants({ variant: 'outline' })} aria-disabled={busy || undefined}>
        Cancel
      </Link>
      {children}
    </div>
  );
}

function NameField({
  type,
  error,
  registration,
}: {
  type: GitProviderType;
  error: string | undefined;
  registration: UseFormRegisterReturn;
}) {
  return (
    <FormField id="git-provider-name" label="Name" hint="How this provider is called in Launchbay." error={error}>
      <Input
        id="git-provider-name"
        autoComplete="off"
        maxLength={100}
        placeholder={`${GIT_PROVIDER_LABEL[type]} (acme)`}
        aria-invalid={error ? true : undefined}
        {...registration}
      />
    </FormField>
  );
}

function BaseUrlField({
  type,
  error,
  registration,
}: {
  type: GitProviderType;
  error: string | undefined;
  registration: UseFormRegisterReturn;
}) {
  return (
    <FormField
      id="git-provider-base-url"
      label="Base URL"
      optional
      hint={
        type === 'github'
          ? 'Leave empty for github.com. For GitHub Enterprise Server, its address (the API is read at /api/v3).'
          : 'Leave empty for gitlab.com. For a self-hosted GitLab, its address (the API is read at /api/v4).'
      }
      error={error}
    >
      <Input
        id="git-provider-base-url"
        inputMode="url"
        autoComplete="off"
        spellCheck={false}
        placeholder={DEFAULT_BASE_URL[type]}
        aria-invalid={error ? true : undefined}
        {...registration}
      />
    </FormField>
  );
}

/**
 * Adds GitHub or GitLab by personal access token: Name, Base URL (optional) and Token, with the
 * contract's messages. `onSubmit` throws the API error of the create call; its field errors land
 * under the fields.
 */
export function PatProviderForm({ type, onSubmit }: { type: GitProviderType; onSubmit: (body: PatFormOutput) => Promise<void> }) {
  const form = useForm<PatFormInput, unknown, PatFormOutput>({
    resolver: zodResolver(patFormSchema),
    defaultValues: EMPTY_PAT_FORM,
  });
  const { register, handleSubmit, watch, formState } = form;
  const server = useServerErrors(form, PAT_FIELDS);
  const busy = formState.isSubmitting;
  const tokenError = formState.errors.token?.message;
  const baseUrl = watch('base_url');

  const submit = handleSubmit(async (values) => {
    server.clear();
    try {
      await onSubmit(values);
    } catch (error) {
      server.apply(error);
    }
  });

  return (
    <form onSubmit={submit} noValidate className="grid gap-6">
      <fieldset disabled={busy} className="grid min-w-0 gap-5">
        <legend className="sr-only">{GIT_PROVIDER_LABEL[type]} personal access token</legend>
        <NameField type={type} error={formState.errors.name?.message} registration={register('name')} />
        <BaseUrlField type={type} error={formState.errors.base_url?.message} registration={register('base_url')} />
        <FormField
          id="git-provider-token"
          label="Token"
          keepHint
          hint={
            <>
              Needs the <Scopes type={type} /> scope{REQUIRED_SCOPES[type].length > 1 ? 's' : ''}
              {type === 'github' ? ' (a classic token)' : ''}. Launchbay checks it with {GIT_PROVIDER_LABEL[type]} before saving
              it, encrypted.{' '}
              <a
                href={newTokenUrl(type, baseUrl)}
                target="_blank"
                rel="noreferrer"
                className="inline-flex items-center gap-0.5 font-medium text-foreground underline underline-offset-4"
              >
                Create one on {GIT_PROVIDER_LABEL[type]}
                <ExternalLink className="size-3" />
              </a>
            </>
          }
          error={tokenError}
        >
          <SecretInput
            id="git-provider-token"
            label="token"
            invalid={!!tokenError}
            placeholder={type === 'github' ? 'ghp_…' : 'glpat-…'}
            registration={register('token')}
          />
        </FormField>
      </fieldset>
      <ServerDetail detail={server.detail} />
      <FormFooter busy={busy} busyText={`Checking the token with ${GIT_PROVIDER_LABEL[type]}…`}>
        <Button type="submit" disabled={busy}>
          {busy ? <Spinner /> : <Plus />}
          Add provider
        </Button>
      </FormFooter>
    </form>
  );
}

/**
 * Adds GitLab through an OAuth application: Name, Base URL, Application ID and Secret, and the
 * callback URL to register. `onSubmit` sends the browser to GitLab (or throws the API error).
 */
export function OauthProviderForm({
  callbackUrl,
  onSubmit,
}: {
  callbackUrl: string;
  onSubmit: (body: OauthFormOutput) => Promise<void>;
}) {
  const form = useForm<OauthFormInput, unknown, OauthFormOutput>({
    resolver: zodResolver(oauthFormSchema),
    defaultValues: EMPTY_OAUTH_FORM,
  });
  const { register, handleSubmit, watch, formState } = form;
  const server = useServerErrors(form, OAUTH_FIELDS);
  const busy = formState.isSubmitting || formState.isSubmitSuccessful;
  const errors = formState.errors;
  const baseUrl = watch('base_url');

  const submit = handleSubmit(async (values) => {
    server.clear();
    try {
      await onSubmit(values);
    } catch (error) {
      server.apply(error);
      throw error;
    }
  });

  return (
    <form onSubmit={(event) => void submit(event).catch(() => undefined)} noValidate className="grid gap-6">
      <div className="grid gap-3 rounded-lg border bg-muted/30 p-4 text-sm">
        <p>
          In GitLab,{' '}
          <a
            href={newApplicationUrl(baseUrl)}
            target="_blank"
            rel="noreferrer"
            className="inline-flex items-center gap-0.5 font-medium underline underline-offset-4"
          >
            create an application
            <ExternalLink className="size-3" />
          </a>{' '}
          (or an instance-wide one under Admin → Applications) that is confidential, has the{' '}
          <code className="rounded bg-muted px-1 py-0.5 font-mono text-xs">api</code> scope, and this redirect URI:
        </p>
        <div className="flex items-center gap-2 rounded-md border bg-background p-2">
          <code className="min-w-0 flex-1 break-all font-mono text-xs" data-testid="oauth-callback-url">
            {callbackUrl}
          </code>
          <CopyButton value={callbackUrl} label="Copy callback URL" iconOnly size="icon-sm" className="size-7 shrink-0" />
        </div>
      </div>
      <fieldset disabled={busy} className="grid min-w-0 gap-5">
        <legend className="sr-only">GitLab OAuth application</legend>
        <NameField type="gitlab" error={errors.name?.message} registration={register('name')} />
        <BaseUrlField type="gitlab" error={errors.base_url?.message} registration={register('base_url')} />
        <div className="grid gap-5 sm:grid-cols-2">
          <FormField id="git-provider-client-id" label="Application ID" error={errors.client_id?.message}>
            <Input
              id="git-provider-client-id"
              autoComplete="off"
              spellCheck={false}
              className="font-mono"
              aria-invalid={errors.client_id ? true : undefined}
              {...register('client_id')}
            />
          </FormField>
          <FormField id="git-provider-client-secret" label="Secret" error={errors.client_secret?.message}>
            <SecretInput
              id="git-provider-client-secret"
              label="secret"
              invalid={!!errors.client_secret}
              registration={register('client_secret')}
            />
          </FormField>
        </div>
      </fieldset>
      <ServerDetail detail={server.detail} />
      <FormFooter busy={busy} busyText="Taking you to GitLab to authorise Launchbay…">
        <Button type="submit" disabled={busy}>
          {busy ? <Spinner /> : <ArrowRight />}
          Continue to GitLab
        </Button>
      </FormFooter>
    </form>
  );
}
