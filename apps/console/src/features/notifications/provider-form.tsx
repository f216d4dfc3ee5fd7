import { type NotificationProvider, PROVIDER_REQUIRED_MESSAGE, SECRET_MASK, TLS_MODES, type TlsMode } from '@launchbay/contract';
import { AlertCircle } from 'lucide-react';
import { type ReactNode, useId } from 'react';
import {
  type Control,
  Controller,
  type FieldErrors,
  type FieldValues,
  type Path,
  type SubmitHandler,
  type UseFormReturn,
  useForm,
} from 'react-hook-form';
import { CheckboxField, FormField, type FormFieldProps, SwitchField } from '@/components/form/form-field';
import { Input } from '@/components/ui/input';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { Separator } from '@/components/ui/separator';
import { isApiError } from '@/lib/api';
import { toast } from '@/lib/toast';
import { cn } from '@/lib/utils';
import {
  type EmailBody,
  type EmailFormValues,
  emailFields,
  emailProviderValues,
  emailResolver,
  errorMessages,
  FORM_ERRORS_TITLE,
  fieldForPath,
  type SlackBody,
  type SlackFormValues,
  slackFields,
  slackProviderValues,
  slackResolver,
  smtpPortHint,
} from './provider-schema';

export type ProviderFormMode = 'create' | 'edit';

export interface ProviderFormState {
  isSubmitting: boolean;
  isDirty: boolean;
}

/** What a submit handler may answer: the saved provider (the form resets to it) or nothing. */
type SubmitResult = NotificationProvider | undefined;

const TLS_MODE_HINT: Record<TlsMode, string> = {
  None: 'Plain SMTP, never encrypted. Only for a relay on a trusted network.',
  Starttls: 'Connects in plain text, then upgrades the connection with STARTTLS when the server offers it.',
  Tls: 'Encrypted from the first byte (implicit TLS, often called SMTPS).',
};

/** Field errors whose message is the required-fields message say only 'Required'; the banner says the rest. */
function shownMessage(message: string | undefined): string | undefined {
  return message === PROVIDER_REQUIRED_MESSAGE ? 'Required' : message;
}

function RequiredBanner({ errors }: { errors: FieldErrors }) {
  const missing = Object.values(errors).some((error) => error?.message === PROVIDER_REQUIRED_MESSAGE);
  if (!missing) return null;
  return (
    <div
      role="alert"
      className="flex items-start gap-2 rounded-lg border border-destructive/30 bg-destructive/5 px-3 py-2.5 text-destructive text-sm"
    >
      <AlertCircle className="mt-0.5 size-4 shrink-0" />
      <span>{PROVIDER_REQUIRED_MESSAGE}</span>
    </div>
  );
}

/** The shared form field; the required-fields message shows as 'Required' on the field. */
function Field(props: FormFieldProps) {
  return <FormField {...props} error={shownMessage(props.error)} />;
}

/** The provider's Enabled switch, shown when editing (the wizard always creates enabled providers). */
function EnabledField<TValues extends FieldValues & { enabled: boolean }, TOut extends FieldValues>({
  control,
  id,
}: {
  control: Control<TValues, unknown, TOut>;
  id: string;
}) {
  return (
    <Controller
      control={control}
      name={'enabled' as Path<TValues>}
      render={({ field }) => (
        <SwitchField
          id={`${id}-enabled`}
          label="Enabled"
          description="A disabled provider receives no alerts; a test still reaches it."
          checked={field.value}
          onCheckedChange={field.onChange}
        />
      )}
    />
  );
}

/**
 * Submits through the contract's schema; an invalid submit toasts the spec's message with the
 * details, and the server's field errors land on the fields.
 */
function useProviderSubmit<TValues extends FieldValues, TBody>(
  form: UseFormReturn<TValues, unknown, TBody>,
  fields: readonly (keyof TValues)[],
  onSubmit: (body: TBody) => Promise<SubmitResult>,
  toValues: (provider: NotificationProvider) => TValues | null,
) {
  const onValid: SubmitHandler<TBody> = async (body) => {
    try {
      const saved = await onSubmit(body);
      const next = saved ? toValues(saved) : null;
      if (next) form.reset(next);
    } catch (error) {
      if (!isApiError(error)) return;
      for (const fieldError of error.errors) {
        const field = fieldForPath<TValues>(fieldError.path, fields);
        if (field) form.setError(field as Path<TValues>, { type: 'server', message: fieldError.message });
      }
    }
  };
  const onInvalid = (errors: FieldErrors<TValues>) => {
    const details = errorMessages(errors);
    toast.error(FORM_ERRORS_TITLE, {
      description: (
        <ul className="grid gap-1">
          {details.map((message) => (
            <li key={message}>{message}</li>
          ))}
        </ul>
      ),
    });
  };
  return form.handleSubmit(onValid, onInvalid);
}

/** What both provider forms take: the values to start from, and what to do with a valid body. */
type ProviderFormProps<TValues, TBody> = {
  mode: ProviderFormMode;
  defaultValues: TValues;
  onSubmit: (body: TBody) => Promise<SubmitResult>;
  disabled?: boolean;
  className?: string;
  /** The footer (buttons), rendered inside the form. */
  children: (state: ProviderFormState) => ReactNode;
};

export function EmailProviderForm({
  mode,
  defaultValues,
  onSubmit,
  disabled,
  className,
  children,
}: ProviderFormProps<EmailFormValues, EmailBody>) {
  const id = useId();
  const form = useForm<EmailFormValues, unknown, EmailBody>({ resolver: emailResolver, defaultValues });
  const { register, control, formState, watch, setValue, getValues } = form;
  const { errors } = formState;
  const submit = useProviderSubmit(form, emailFields, onSubmit, (provider) =>
    provider.provider_type === 'email' ? emailProviderValues(provider) : null,
  );
  const tlsMode = watch('tls_mode');
  const useAuth = watch('use_auth');
  const password = watch('password');
  const portHint = smtpPortHint(tlsMode);

  const changeTlsMode = (next: TlsMode) => {
    const previous = getValues('tls_mode');
    // Follow the usual port of the new mode while the port is still the usual port of the old one.
    if (getValues('smtp_port').trim() === String(smtpPortHint(previous))) {
      setValue('smtp_port', String(smtpPortHint(next)), { shouldDirty: true });
    }
    if (next !== 'Starttls') setValue('starttls_required', false, { shouldDirty: true });
    if (next === 'None') setValue('accept_invalid_certs', false, { shouldDirty: true });
    setValue('tls_mode', next, { shouldDirty: true, shouldValidate: formState.isSubmitted });
  };

  const invalid = (name: keyof EmailFormValues) => (errors[name] ? true : undefined);

  return (
    <form onSubmit={submit} noValidate className={cn('grid gap-6', className)} aria-label="Email provider">
      <fieldset disabled={disabled || formState.isSubmitting} className="grid min-w-0 gap-6">
        <legend className="sr-only">Email provider settings</legend>
        <RequiredBanner errors={errors} />
        <Field id={`${id}-name`} label="Name" error={errors.name?.message} hint="Shown in the providers list and in alerts.">
          <Input
            id={`${id}-name`}
            placeholder="Operations email"
            autoComplete="off"
            aria-invalid={invalid('name')}
            {...register('name')}
          />
        </Field>
        {mode === 'edit' ? <EnabledField control={control} id={id} /> : null}

        <section className="grid gap-4" aria-labelledby={`${id}-server`}>
          <div>
            <h3 id={`${id}-server`} className="font-medium text-sm">
              SMTP server
            </h3>
            <p className="text-muted-foreground text-xs">Where Launchbay hands over the mail.</p>
          </div>
          <Field id={`${id}-host`} label="SMTP Host" error={errors.smtp_host?.message}>
            <Input
              id={`${id}-host`}
              placeholder="smtp.example.com"
              autoComplete="off"
              spellCheck={false}
              aria-invalid={invalid('smtp_host')}
              {...register('smtp_host')}
            />
          </Field>
          <div className="grid gap-4 sm:grid-cols-2">
            <Field id={`${id}-tls`} label="TLS Mode" error={errors.tls_mode?.message} hint={TLS_MODE_HINT[tlsMode]}>
              <Controller
                control={control}
                name="tls_mode"
                render={({ field }) => (
                  <Select value={field.value} onValueChange={(value) => changeTlsMode(value as TlsMode)} disabled={disabled}>
                    <SelectTrigger id={`${id}-tls`} onBlur={field.onBlur}>
                      <SelectValue />
                    </SelectTrigger>
                    <SelectContent>
                      {TLS_MODES.map((tls) => (
                        <SelectItem key={tls} value={tls}>
                          {tls}
                        </SelectItem>
                      ))}
                    </SelectContent>
                  </Select>
                )}
              />
            </Field>
            <Field
              id={`${id}-port`}
              label="SMTP Port"
              error={errors.smtp_port?.message}
              hint={`Usually ${portHint} with ${tlsMode}`}
            >
              <Input
                id={`${id}-port`}
                inputMode="numeric"
                placeholder={String(portHint)}
                autoComplete="off"
                aria-invalid={invalid('smtp_port')}
                {...register('smtp_port')}
              />
            </Field>
          </div>
          <div className="grid gap-3 sm:grid-cols-2">
            <Controller
              control={control}
              name="starttls_required"
              render={({ field }) => (
                <CheckboxField
                  id={`${id}-starttls`}
                  label="Require STARTTLS"
                  description={
                    tlsMode === 'Starttls' ? 'Refuse to send when the server cannot upgrade.' : 'Only applies in Starttls mode.'
                  }
                  checked={field.value}
                  onCheckedChange={field.onChange}
                  disabled={tlsMode !== 'Starttls'}
                />
              )}
            />
            <Controller
              control={control}
              name="accept_invalid_certs"
              render={({ field }) => (
                <CheckboxField
                  id={`${id}-insecure`}
                  label="Accept Invalid Certificates"
                  description={
                    tlsMode === 'None'
                      ? 'Not used without TLS.'
                      : 'Trust self-signed or expired certificates. Use only for servers you control.'
                  }
                  checked={field.value}
                  onCheckedChange={field.onChange}
                  disabled={tlsMode === 'None'}
                />
              )}
            />
          </div>
        </section>

        <Separator />

        <section className="grid gap-4" aria-labelledby={`${id}-auth`}>
          <h3 id={`${id}-auth`} className="sr-only">
            Authentication
          </h3>
          <Controller
            control={control}
            name="use_auth"
            render={({ field }) => (
              <SwitchField
                id={`${id}-use-auth`}
                label="Use Authentication"
                description="Sign in to the SMTP server with a username and password."
                checked={field.value}
                onCheckedChange={(checked) => {
                  field.onChange(checked);
                  if (!checked) form.clearErrors(['username', 'password']);
                }}
              />
            )}
          />
          <div className="grid gap-4 sm:grid-cols-2">
            <Field id={`${id}-username`} label="Username" error={useAuth ? errors.username?.message : undefined}>
              <Input
                id={`${id}-username`}
                autoComplete="off"
                spellCheck={false}
                disabled={!useAuth}
                aria-invalid={useAuth ? invalid('username') : undefined}
                {...register('username')}
              />
            </Field>
            <Field
              id={`${id}-password`}
              label="Password"
              error={useAuth ? errors.password?.message : undefined}
              hint={mode === 'edit' && password === SECRET_MASK ? 'Stored securely. Leave as is to keep it.' : undefined}
            >
              <Input
                id={`${id}-password`}
                type="password"
                autoComplete="new-password"
                disabled={!useAuth}
                aria-invalid={useAuth ? invalid('password') : undefined}
                {...register('password')}
              />
            </Field>
          </div>
        </section>

        <Separator />

        <section className="grid gap-4" aria-labelledby={`${id}-addresses`}>
          <div>
            <h3 id={`${id}-addresses`} className="font-medium text-sm">
              Sender and recipients
            </h3>
            <p className="text-muted-foreground text-xs">Every alert goes to all recipients.</p>
          </div>
          <div className="grid gap-4 sm:grid-cols-2">
            <Field id={`${id}-from`} label="From Address" error={errors.from_address?.message}>
              <Input
                id={`${id}-from`}
                type="email"
                placeholder="alerts@example.com"
                autoComplete="off"
                spellCheck={false}
                aria-invalid={invalid('from_address')}
                {...register('from_address')}
              />
            </Field>
            <Field id={`${id}-from-name`} label="From Name" optional error={errors.from_name?.message}>
              <Input id={`${id}-from-name`} placeholder="Launchbay" autoComplete="off" {...register('from_name')} />
            </Field>
          </div>
          <Field
            id={`${id}-to`}
            label="To Addresses"
            error={errors.to_addresses?.message}
            hint="Separate several addresses with commas."
          >
            <Input
              id={`${id}-to`}
              placeholder="ops@example.com, oncall@example.com"
              autoComplete="off"
              spellCheck={false}
              aria-invalid={invalid('to_addresses')}
              {...register('to_addresses')}
            />
          </Field>
        </section>
      </fieldset>
      {children({ isSubmitting: formState.isSubmitting, isDirty: formState.isDirty })}
    </form>
  );
}

export function SlackProviderForm({
  mode,
  defaultValues,
  onSubmit,
  disabled,
  className,
  children,
}: ProviderFormProps<SlackFormValues, SlackBody>) {
  const id = useId();
  const form = useForm<SlackFormValues, unknown, SlackBody>({ resolver: slackResolver, defaultValues });
  const { register, control, formState, watch } = form;
  const { errors } = formState;
  const submit = useProviderSubmit(form, slackFields, onSubmit, (provider) =>
    provider.provider_type === 'slack' ? slackProviderValues(provider) : null,
  );
  const webhook = watch('webhook_url');
  const masked = mode === 'edit' && webhook.endsWith(`/${SECRET_MASK}`);

  return (
    <form onSubmit={submit} noValidate className={cn('grid gap-6', className)} aria-label="Slack provider">
      <fieldset disabled={disabled || formState.isSubmitting} className="grid min-w-0 gap-6">
        <legend className="sr-only">Slack provider settings</legend>
        <RequiredBanner errors={errors} />
        <Field id={`${id}-name`} label="Name" error={errors.name?.message} hint="Shown in the providers list and in alerts.">
          <Input
            id={`${id}-name`}
            placeholder="#ops alerts"
            autoComplete="off"
            aria-invalid={errors.name ? true : undefined}
            {...register('name')}
          />
        </Field>
        {mode === 'edit' ? <EnabledField control={control} id={id} /> : null}
        <Field
          id={`${id}-webhook`}
          label="Webhook URL"
          error={errors.webhook_url?.message}
          hint={
            masked
              ? 'The secret part is hidden. Leave as is to keep the stored URL, or paste a new one.'
              : 'Create an incoming webhook in your Slack workspace (Apps → Incoming Webhooks) and paste its URL.'
          }
        >
          <Input
            id={`${id}-webhook`}
            type="url"
            inputMode="url"
            placeholder="https://hooks.slack.com/services/…"
            autoComplete="off"
            spellCheck={false}
            className="font-mono text-xs md:text-xs"
            aria-invalid={errors.webhook_url ? true : undefined}
            {...register('webhook_url')}
          />
        </Field>
        <Field
          id={`${id}-channel`}
          label="Channel"
          optional
          error={errors.channel?.message}
          hint="Overrides the webhook's default channel, e.g. #alerts. Leave empty to use the default."
        >
          <Input id={`${id}-channel`} placeholder="#alerts" autoComplete="off" spellCheck={false} {...register('channel')} />
        </Field>
      </fieldset>
      {children({ isSubmitting: formState.isSubmitting, isDirty: formState.isDirty })}
    </form>
  );
}
