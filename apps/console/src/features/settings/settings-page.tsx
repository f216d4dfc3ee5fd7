import {
  ACCESS_MODES,
  type AccessMode,
  DEFAULT_PREVIEW_ADDRESS_TEMPLATE,
  LETS_ENCRYPT_DIRECTORY,
  type PlatformSettings,
  platformSettingsSchema,
  previewAddressLabel,
} from '@launchbay/contract';
import { ShieldAlert } from 'lucide-react';
import { useMemo } from 'react';
import { Controller } from 'react-hook-form';
import { z } from 'zod';
import { FormField } from '@/components/form/form-field';
import { EmptyState, Page } from '@/components/layout/page';
import { SettingsNav } from '@/components/layout/sub-nav';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { Skeleton } from '@/components/ui/skeleton';
import { Switch } from '@/components/ui/switch';
import { errorDetail } from '@/lib/api';
import { useCurrentUser } from '@/lib/current-user';
import { ACCESS_MODE_HINT, ACCESS_MODE_LABEL } from '@/lib/platform';
import { isAdmin } from '@/lib/roles';
import { useSettings } from './api';
import { EdgeSection } from './edge-section';
import { SettingsSection, useSectionForm } from './section';

const shape = platformSettingsSchema.shape;
const LETS_ENCRYPT_STAGING = 'https://acme-staging-v02.api.letsencrypt.org/directory';

/** An optional text setting: an empty field means null; anything else must pass the contract's schema. */
const optionalText = <T,>(schema: z.ZodType<T, string | null>) =>
  z
    .string()
    .transform((value) => (value.trim() === '' ? null : value.trim()))
    .pipe(schema);

/** A whole number as typed (a string) to the contract's number schema and its range messages. */
const wholeNumber = <T,>(schema: z.ZodType<T, number>, message: string) =>
  z.string().trim().regex(/^\d+$/, message).transform(Number).pipe(schema);
const days = <T,>(schema: z.ZodType<T, number>) => wholeNumber(schema, 'Enter a whole number of days');

const generalSchema = z.object({
  external_url: optionalText(shape.external_url),
  base_domain: optionalText(shape.base_domain),
  access_mode: shape.access_mode,
});

function GeneralSection({ settings, readOnly }: { settings: PlatformSettings; readOnly: boolean }) {
  const values = useMemo(
    () => ({
      external_url: settings.external_url ?? '',
      base_domain: settings.base_domain ?? '',
      access_mode: settings.access_mode,
    }),
    [settings],
  );
  const section = useSectionForm({ schema: generalSchema, values, current: settings });
  const { register, control, formState, watch } = section.form;
  const baseDomain = watch('base_domain').trim().toLowerCase();
  return (
    <SettingsSection title="General" description="How people and apps reach this platform." section={section} readOnly={readOnly}>
      <FormField
        id="settings-external-url"
        label="External URL"
        hint="The address of this console, used in links and notifications. Leave empty to use the address in the browser."
        error={formState.errors.external_url?.message}
      >
        <Input
          id="settings-external-url"
          type="url"
          inputMode="url"
          placeholder="https://launchbay.example.com"
          aria-invalid={formState.errors.external_url ? true : undefined}
          {...register('external_url')}
        />
      </FormField>
      <FormField
        id="settings-base-domain"
        label="Base domain"
        hint={
          baseDomain ? (
            <>
              Apps get addresses such as <span className="font-mono">my-app.{baseDomain}</span>. Point a wildcard DNS record (
              <span className="font-mono">*.{baseDomain}</span>) at this machine.
            </>
          ) : (
            'Apps get addresses under this domain, e.g. my-app.apps.example.com.'
          )
        }
        error={formState.errors.base_domain?.message}
      >
        <Input
          id="settings-base-domain"
          placeholder="apps.example.com"
          autoCapitalize="none"
          spellCheck={false}
          aria-invalid={formState.errors.base_domain ? true : undefined}
          {...register('base_domain')}
        />
      </FormField>
      <Controller
        control={control}
        name="access_mode"
        render={({ field, fieldState }) => (
          <FormField
            id="settings-access-mode"
            label="Access mode"
            hint={ACCESS_MODE_HINT[field.value]}
            error={fieldState.error?.message}
          >
            <Select value={field.value} onValueChange={(value) => field.onChange(value as AccessMode)} disabled={readOnly}>
              <SelectTrigger id="settings-access-mode" className="sm:w-72" onBlur={field.onBlur}>
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                {ACCESS_MODES.map((mode) => (
                  <SelectItem key={mode} value={mode}>
                    {ACCESS_MODE_LABEL[mode]}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </FormField>
        )}
      />
    </SettingsSection>
  );
}

const tlsSchema = z.object({
  acme_directory_url: shape.acme_directory_url,
  acme_contact_email: optionalText(shape.acme_contact_email),
  certificate_renewal_days: days(shape.certificate_renewal_days),
});

const quickLink =
  'rounded-sm font-medium text-foreground underline underline-offset-4 outline-none hover:text-foreground/80 focus-visible:ring-2 focus-visible:ring-ring/50';

function TlsSection({ settings, readOnly }: { settings: PlatformSettings; readOnly: boolean }) {
  const values = useMemo(
    () => ({
      acme_directory_url: settings.acme_directory_url,
      acme_contact_email: settings.acme_contact_email ?? '',
      certificate_renewal_days: String(settings.certificate_renewal_days),
    }),
    [settings],
  );
  const section = useSectionForm({ schema: tlsSchema, values, current: settings });
  const { register, formState, watch, setValue } = section.form;
  const renewalError = formState.errors.certificate_renewal_days?.message;
  const directory = watch('acme_directory_url').trim();
  const use = (url: string) => setValue('acme_directory_url', url, { shouldDirty: true, shouldValidate: true });
  return (
    <SettingsSection
      title="TLS certificates"
      description="Launchbay requests and renews certificates from an ACME certificate authority."
      section={section}
      readOnly={readOnly}
    >
      <FormField
        id="settings-acme-directory"
        label="ACME directory URL"
        error={formState.errors.acme_directory_url?.message}
        hint={
          <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
            {directory === LETS_ENCRYPT_DIRECTORY ? (
              <Badge variant="success">Let's Encrypt</Badge>
            ) : directory === LETS_ENCRYPT_STAGING ? (
              <Badge variant="warning">Let's Encrypt staging</Badge>
            ) : null}
            <span>Default: Let's Encrypt. Any ACME v2 directory works (ZeroSSL, Buypass, your own CA).</span>
            {readOnly ? null : (
              <span className="flex gap-3">
                {directory === LETS_ENCRYPT_DIRECTORY ? null : (
                  <button type="button" className={quickLink} onClick={() => use(LETS_ENCRYPT_DIRECTORY)}>
                    Use Let's Encrypt
                  </button>
                )}
                {directory === LETS_ENCRYPT_STAGING ? null : (
                  <button type="button" className={quickLink} onClick={() => use(LETS_ENCRYPT_STAGING)}>
                    Use the staging directory (for tests)
                  </button>
                )}
              </span>
            )}
          </span>
        }
      >
        <Input
          id="settings-acme-directory"
          type="url"
          inputMode="url"
          spellCheck={false}
          className="font-mono text-sm md:text-xs"
          aria-invalid={formState.errors.acme_directory_url ? true : undefined}
          {...register('acme_directory_url')}
        />
      </FormField>
      <FormField
        id="settings-acme-email"
        label="Contact email"
        hint="The certificate authority writes here about expiring certificates and problems. Optional."
        error={formState.errors.acme_contact_email?.message}
      >
        <Input
          id="settings-acme-email"
          type="email"
          placeholder="ops@example.com"
          className="sm:max-w-sm"
          aria-invalid={formState.errors.acme_contact_email ? true : undefined}
          {...register('acme_contact_email')}
        />
      </FormField>
      <FormField
        id="settings-certificate-renewal-days"
        label="Renew certificates"
        hint="Days before expiry; at least 1, at most 60"
        error={renewalError}
      >
        <div className="relative sm:w-48">
          <Input
            id="settings-certificate-renewal-days"
            type="number"
            inputMode="numeric"
            min={1}
            max={60}
            step={1}
            className="pr-14 tabular-nums [appearance:textfield] [&::-webkit-inner-spin-button]:appearance-none [&::-webkit-outer-spin-button]:appearance-none"
            aria-invalid={renewalError ? true : undefined}
            {...register('certificate_renewal_days')}
          />
          <span className="pointer-events-none absolute inset-y-0 right-3 flex items-center text-muted-foreground text-sm">
            days
          </span>
        </div>
      </FormField>
    </SettingsSection>
  );
}

const retentionSchema = z.object({
  log_retention_days: days(shape.log_retention_days),
  analytics_retention_days: days(shape.analytics_retention_days),
  audit_retention_days: days(shape.audit_retention_days),
  kept_builds_per_environment: wholeNumber(shape.kept_builds_per_environment, 'Enter a whole number of builds'),
});

const RETENTION_FIELDS = [
  { name: 'log_retention_days', label: 'Logs', hint: 'Build, runtime and proxy logs.', min: 1 },
  { name: 'analytics_retention_days', label: 'Analytics', hint: 'Page views, sessions, events and replays.', min: 1 },
  { name: 'audit_retention_days', label: 'Audit log', hint: 'Who changed what. At least 7 days.', min: 7 },
] as const;

function RetentionSection({ settings, readOnly }: { settings: PlatformSettings; readOnly: boolean }) {
  const values = useMemo(
    () => ({
      log_retention_days: String(settings.log_retention_days),
      analytics_retention_days: String(settings.analytics_retention_days),
      audit_retention_days: String(settings.audit_retention_days),
      kept_builds_per_environment: String(settings.kept_builds_per_environment),
    }),
    [settings],
  );
  const section = useSectionForm({ schema: retentionSchema, values, current: settings });
  const { register, formState } = section.form;
  const buildsError = formState.errors.kept_builds_per_environment?.message;
  return (
    <SettingsSection
      title="Data retention"
      description="How long Launchbay keeps data before it is deleted for good (checked every hour), and how many builds it keeps (pruned after each deployment)."
      section={section}
      readOnly={readOnly}
    >
      <div className="grid gap-5 sm:grid-cols-3">
        {RETENTION_FIELDS.map((field) => {
          const id = `settings-${field.name}`;
          const error = formState.errors[field.name]?.message;
          return (
            <FormField key={field.name} id={id} label={field.label} hint={field.hint} error={error}>
              <div className="relative">
                <Input
                  id={id}
                  type="number"
                  inputMode="numeric"
                  min={field.min}
                  max={3650}
                  step={1}
                  className="pr-12 tabular-nums [appearance:textfield] [&::-webkit-inner-spin-button]:appearance-none [&::-webkit-outer-spin-button]:appearance-none"
                  aria-invalid={error ? true : undefined}
                  {...register(field.name)}
                />
                <span className="pointer-events-none absolute inset-y-0 right-3 flex items-center text-muted-foreground text-sm">
                  days
                </span>
              </div>
            </FormField>
          );
        })}
      </div>
      <FormField
        id="settings-kept-builds"
        label="Builds kept per environment"
        hint="Successful builds kept on disk for instant rollback. Older builds are removed."
        error={buildsError}
      >
        {/* As wide as one retention column above, so the inputs line up. */}
        <div className="relative sm:w-[calc((100%-2.5rem)/3)]">
          <Input
            id="settings-kept-builds"
            type="number"
            inputMode="numeric"
            min={1}
            max={50}
            step={1}
            className="pr-16 tabular-nums [appearance:textfield] [&::-webkit-inner-spin-button]:appearance-none [&::-webkit-outer-spin-button]:appearance-none"
            aria-invalid={buildsError ? true : undefined}
            {...register('kept_builds_per_environment')}
          />
          <span className="pointer-events-none absolute inset-y-0 right-3 flex items-center text-muted-foreground text-sm">
            builds
          </span>
        </div>
      </FormField>
    </SettingsSection>
  );
}

const outboundSchema = z.object({ allow_private_network_targets: shape.allow_private_network_targets });

/** Whether users' webhooks and mail servers may be on this machine or its private network (admins' always may). */
function OutboundSection({ settings, readOnly }: { settings: PlatformSettings; readOnly: boolean }) {
  const values = useMemo(() => ({ allow_private_network_targets: settings.allow_private_network_targets }), [settings]);
  const section = useSectionForm({ schema: outboundSchema, values, current: settings });
  return (
    <SettingsSection
      title="Outbound requests"
      description="Where notification webhooks and mail servers may be."
      section={section}
      readOnly={readOnly}
    >
      <Controller
        control={section.form.control}
        name="allow_private_network_targets"
        render={({ field }) => (
          <div className="flex items-start justify-between gap-4 rounded-lg border p-4">
            <div className="grid gap-1">
              <Label id="settings-private-targets-label" htmlFor="settings-private-targets">
                Allow private network targets
              </Label>
              <p id="settings-private-targets-hint" className="text-muted-foreground text-xs">
                Let every user's webhooks and SMTP servers use loopback and private addresses (such as a Mattermost or mail relay
                on your LAN); providers an admin saved always may, and cloud metadata addresses are always refused.
              </p>
            </div>
            <Switch
              id="settings-private-targets"
              checked={field.value}
              onCheckedChange={field.onChange}
              onBlur={field.onBlur}
              aria-labelledby="settings-private-targets-label"
              aria-describedby="settings-private-targets-hint"
            />
          </div>
        )}
      />
    </SettingsSection>
  );
}

const previewSchema = z.object({
  preview_environments_enabled: shape.preview_environments_enabled,
  preview_address_template: shape.preview_address_template,
});

function PreviewSection({ settings, readOnly }: { settings: PlatformSettings; readOnly: boolean }) {
  const values = useMemo(
    () => ({
      preview_environments_enabled: settings.preview_environments_enabled,
      preview_address_template: settings.preview_address_template,
    }),
    [settings],
  );
  const section = useSectionForm({ schema: previewSchema, values, current: settings });
  const { register, formState, watch } = section.form;
  const template = watch('preview_address_template').trim();
  const templateError = formState.errors.preview_address_template?.message;
  const templateValid = shape.preview_address_template.safeParse(template).success;
  const example = templateValid ? previewAddressLabel(template, 42, 'shop') : null;
  const host = settings.base_domain ?? 'localhost';
  return (
    <SettingsSection
      title="Preview environments"
      description="Temporary deployments of pull requests, each at its own address."
      section={section}
      readOnly={readOnly}
    >
      <Controller
        control={section.form.control}
        name="preview_environments_enabled"
        render={({ field }) => (
          <div className="flex items-start justify-between gap-4 rounded-lg border p-4">
            <div className="grid gap-1">
              <Label id="settings-preview-label" htmlFor="settings-preview-environments">
                Enable preview environments
              </Label>
              <p id="settings-preview-hint" className="text-muted-foreground text-xs">
                Deploy each pull request of a project from a git provider to its own address, for projects that turn previews on
                in their Git settings.
              </p>
            </div>
            <Switch
              id="settings-preview-environments"
              checked={field.value}
              onCheckedChange={field.onChange}
              onBlur={field.onBlur}
              aria-labelledby="settings-preview-label"
              aria-describedby="settings-preview-hint"
            />
          </div>
        )}
      />
      <FormField
        id="settings-preview-template"
        label="Preview address template"
        hintId="settings-preview-template-hint"
        hint={
          <>
            {example ? (
              <>
                Pull request 42 of the project <span className="font-mono">shop</span> is served at{' '}
                <span className="font-mono text-foreground" data-testid="preview-address-example">
                  {example}.{host}
                </span>
                .{' '}
              </>
            ) : null}
            It must contain <span className="font-mono">{'{number}'}</span> and may contain{' '}
            <span className="font-mono">{'{project}'}</span>, with lowercase letters, digits and hyphens.
          </>
        }
        error={templateError}
      >
        <Input
          id="settings-preview-template"
          autoCapitalize="none"
          autoComplete="off"
          spellCheck={false}
          maxLength={40}
          placeholder={DEFAULT_PREVIEW_ADDRESS_TEMPLATE}
          className="font-mono sm:max-w-sm"
          aria-invalid={templateError ? true : undefined}
          aria-describedby="settings-preview-template-hint"
          {...register('preview_address_template')}
        />
      </FormField>
    </SettingsSection>
  );
}

const gitSchema = z.object({
  git_poll_interval_seconds: wholeNumber(shape.git_poll_interval_seconds, 'Enter a whole number of seconds'),
});

/** How projects that no webhook reaches learn about pushes. */
function GitSection({ settings, readOnly }: { settings: PlatformSettings; readOnly: boolean }) {
  const values = useMemo(() => ({ git_poll_interval_seconds: String(settings.git_poll_interval_seconds) }), [settings]);
  const section = useSectionForm({ schema: gitSchema, values, current: settings });
  const { register, formState } = section.form;
  const error = formState.errors.git_poll_interval_seconds?.message;
  return (
    <SettingsSection
      title="Git"
      description="How Launchbay learns about pushes to repositories of connected git providers."
      section={section}
      readOnly={readOnly}
    >
      <FormField
        id="settings-git-poll-interval"
        label="Branch polling interval (seconds)"
        hint="Projects whose git host cannot reach Launchbay with a webhook (no external URL) have their branches read this often. 60 to 86400 seconds (a day)."
        error={error}
      >
        <div className="relative sm:w-48">
          <Input
            id="settings-git-poll-interval"
            type="number"
            inputMode="numeric"
            min={60}
            max={86400}
            step={1}
            className="pr-20 tabular-nums [appearance:textfield] [&::-webkit-inner-spin-button]:appearance-none [&::-webkit-outer-spin-button]:appearance-none"
            aria-invalid={error ? true : undefined}
            {...register('git_poll_interval_seconds')}
          />
          <span className="pointer-events-none absolute inset-y-0 right-3 flex items-center text-muted-foreground text-sm">
            seconds
          </span>
        </div>
      </FormField>
    </SettingsSection>
  );
}

export default function SettingsPage() {
  const { data: settings, isPending, isError, error, refetch, isFetching } = useSettings();
  const { data: me } = useCurrentUser();
  const readOnly = !isAdmin(me);

  return (
    <Page title="Settings" documentTitle="Settings" description="Platform-wide configuration for this Launchbay installation.">
      <SettingsNav />
      {isPending ? (
        <div className="grid max-w-4xl gap-6">
          <Skeleton className="h-80 rounded-xl" />
          <Skeleton className="h-64 rounded-xl" />
        </div>
      ) : isError ? (
        <EmptyState
          title="Could not load settings"
          description={errorDetail(error)}
          action={
            <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
              Retry
            </Button>
          }
        />
      ) : (
        <div className="grid max-w-4xl gap-6">
          {readOnly ? (
            <div
              role="note"
              className="flex items-start gap-3 rounded-lg border bg-muted/50 p-4 text-sm"
              data-testid="settings-read-only"
            >
              <ShieldAlert className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
              <div>
                <p className="font-medium">Read-only</p>
                <p className="text-muted-foreground">
                  You can see these settings, but changing them needs the admin role. Ask an administrator of this platform.
                </p>
              </div>
            </div>
          ) : null}
          <GeneralSection settings={settings} readOnly={readOnly} />
          <OutboundSection settings={settings} readOnly={readOnly} />
          <TlsSection settings={settings} readOnly={readOnly} />
          <EdgeSection settings={settings} readOnly={readOnly} />
          <RetentionSection settings={settings} readOnly={readOnly} />
          <GitSection settings={settings} readOnly={readOnly} />
          <PreviewSection settings={settings} readOnly={readOnly} />
        </div>
      )}
    </Page>
  );
}
