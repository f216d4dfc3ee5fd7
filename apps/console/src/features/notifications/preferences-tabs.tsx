import {
  NOTIFICATION_SEVERITIES,
  type NotificationPreferences,
  type NotificationSeverity,
  notificationPreferencesSchema,
  slackConfigSchema,
} from '@launchbay/contract';
import { Send } from 'lucide-react';
import { Controller } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import { Button } from '@/components/ui/button';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { NumberField, PreferencesCard, ToggleRow, usePreferencesForm } from './preferences-form';
import { ADD_PROVIDER_PATH } from './providers-tab';

interface TabProps {
  preferences: NotificationPreferences;
  readOnly: boolean;
}

const prefs = notificationPreferencesSchema;

function pick<K extends keyof NotificationPreferences>(preferences: NotificationPreferences, keys: readonly K[]) {
  return Object.fromEntries(keys.map((key) => [key, preferences[key]])) as Pick<NotificationPreferences, K>;
}

// ---------------------------------------------------------------------------------------------

const projectSchema = prefs.pick({
  deployment_failures_enabled: true,
  build_errors_enabled: true,
  runtime_errors_enabled: true,
  error_threshold: true,
  error_time_window: true,
});

export function ProjectHealthTab({ preferences, readOnly }: TabProps) {
  const { form, submit } = usePreferencesForm({
    topic: 'Project',
    schema: projectSchema,
    defaultValues: pick(preferences, [
      'deployment_failures_enabled',
      'build_errors_enabled',
      'runtime_errors_enabled',
      'error_threshold',
      'error_time_window',
    ]),
  });
  return (
    <PreferencesCard
      title="Project health alerts"
      description="Hear about deployments and apps that fail."
      form={form}
      submit={submit}
      readOnly={readOnly}
    >
      <ToggleRow
        control={form.control}
        name="deployment_failures_enabled"
        label="Deployment failures"
        description="A deployment could not be completed or was rolled back."
      />
      <ToggleRow
        control={form.control}
        name="build_errors_enabled"
        label="Build errors"
        description="A build step of a deployment exited with an error."
      />
      <ToggleRow
        control={form.control}
        name="runtime_errors_enabled"
        label="Runtime errors"
        description="A running app reports errors faster than the threshold below."
      >
        <div className="grid gap-4 rounded-lg border bg-muted/30 p-4 sm:grid-cols-2">
          <NumberField
            form={form}
            name="error_threshold"
            label="Error threshold"
            unit="errors / minute"
            hint="Alert at this many errors per minute (1 to 1000)."
            min={1}
            max={1000}
          />
          <NumberField
            form={form}
            name="error_time_window"
            label="Time window"
            unit="minutes"
            hint="Averaged over this many minutes (1 to 60)."
            min={1}
            max={60}
          />
        </div>
      </ToggleRow>
    </PreferencesCard>
  );
}

// ---------------------------------------------------------------------------------------------

const domainsSchema = prefs.pick({
  ssl_expiration_enabled: true,
  ssl_days_before_expiration: true,
  domain_expiration_enabled: true,
  dns_changes_enabled: true,
});

export function DomainsTab({ preferences, readOnly }: TabProps) {
  const { form, submit } = usePreferencesForm({
    topic: 'Domain',
    schema: domainsSchema,
    defaultValues: pick(preferences, [
      'ssl_expiration_enabled',
      'ssl_days_before_expiration',
      'domain_expiration_enabled',
      'dns_changes_enabled',
    ]),
  });
  return (
    <PreferencesCard
      title="Domain alerts"
      description="Certificates, registrations and DNS of your domains."
      form={form}
      submit={submit}
      readOnly={readOnly}
    >
      <ToggleRow
        control={form.control}
        name="ssl_expiration_enabled"
        label="SSL certificate expiration"
        description="A certificate is about to expire and has not been renewed."
      >
        <div className="rounded-lg border bg-muted/30 p-4">
          <NumberField
            form={form}
            name="ssl_days_before_expiration"
            label="Days before expiration"
            unit="days"
            hint="Warn this many days before a certificate expires (1 to 90)."
            min={1}
            max={90}
          />
        </div>
      </ToggleRow>
      <ToggleRow
        control={form.control}
        name="domain_expiration_enabled"
        label="Domain expiration"
        description="A domain registration is close to its expiry date."
      />
      <ToggleRow
        control={form.control}
        name="dns_changes_enabled"
        label="DNS changes"
        description="A domain's DNS records no longer point at this platform."
      />
    </PreferencesCard>
  );
}

// ---------------------------------------------------------------------------------------------

const backupsSchema = prefs.pick({
  backup_failures_enabled: true,
  s3_connection_issues_enabled: true,
  retention_policy_violations_enabled: true,
  backup_successes_enabled: true,
});

export function BackupsTab({ preferences, readOnly }: TabProps) {
  const { form, submit } = usePreferencesForm({
    topic: 'Backup',
    schema: backupsSchema,
    defaultValues: pick(preferences, [
      'backup_failures_enabled',
      's3_connection_issues_enabled',
      'retention_policy_violations_enabled',
      'backup_successes_enabled',
    ]),
  });
  return (
    <PreferencesCard
      title="Backup alerts"
      description="Scheduled and manual backups to your S3 storage."
      form={form}
      submit={submit}
      readOnly={readOnly}
    >
      <ToggleRow
        control={form.control}
        name="backup_failures_enabled"
        label="Backup failures"
        description="A backup did not complete."
      />
      <ToggleRow
        control={form.control}
        name="s3_connection_issues_enabled"
        label="S3 connection issues"
        description="An S3 source cannot be reached or refuses the credentials."
      />
      <ToggleRow
        control={form.control}
        name="retention_policy_violations_enabled"
        label="Retention policy violations"
        description="Old backups could not be pruned as the retention policy asks."
      />
      <ToggleRow
        control={form.control}
        name="backup_successes_enabled"
        label="Backup successes"
        description="Every backup that completes. Off by default: it can be noisy."
      />
    </PreferencesCard>
  );
}

// ---------------------------------------------------------------------------------------------

const routesSchema = prefs.pick({ route_downtime_enabled: true, load_balancer_issues_enabled: true });

export function RoutesTab({ preferences, readOnly }: TabProps) {
  const { form, submit } = usePreferencesForm({
    topic: 'Route',
    schema: routesSchema,
    defaultValues: pick(preferences, ['route_downtime_enabled', 'load_balancer_issues_enabled']),
  });
  return (
    <PreferencesCard
      title="Route alerts"
      description="Traffic routed by the load balancer to your apps."
      form={form}
      submit={submit}
      readOnly={readOnly}
    >
      <ToggleRow
        control={form.control}
        name="route_downtime_enabled"
        label="Route downtime"
        description="A route's upstream stops answering."
      />
      <ToggleRow
        control={form.control}
        name="load_balancer_issues_enabled"
        label="Load balancer issues"
        description="The edge proxy reports errors or cannot load its routes."
      />
    </PreferencesCard>
  );
}

// ---------------------------------------------------------------------------------------------

const SEVERITY_LABEL: Record<NotificationSeverity, { label: string; hint: string }> = {
  critical: { label: 'Critical', hint: 'Only alerts that need action now.' },
  warning: { label: 'Warning', hint: 'Critical alerts and warnings.' },
  info: { label: 'Info', hint: 'Everything, including informational alerts.' },
};

/** Spec section 5: the Slack webhook here is a URL or empty, and it is never sent with the preferences. */
const slackWebhookSchema = z
  .string()
  .trim()
  .refine((value) => value === '' || slackConfigSchema.shape.webhook_url.safeParse(value).success, 'Invalid webhook URL');

const notificationsSchema = prefs
  .pick({ email_enabled: true, slack_enabled: true, batch_similar_notifications: true, minimum_severity: true })
  // Plain boolean here: the contract's default (for older API clients) would make the form field optional.
  .extend({ security_alerts_enabled: z.boolean(), slack_webhook_url: slackWebhookSchema });

export function NotificationsTab({ preferences, readOnly }: TabProps) {
  const navigate = useNavigate();
  const { form, submit } = usePreferencesForm({
    topic: 'Notification',
    schema: notificationsSchema,
    defaultValues: {
      ...pick(preferences, [
        'email_enabled',
        'slack_enabled',
        'batch_similar_notifications',
        'security_alerts_enabled',
        'minimum_severity',
      ]),
      slack_webhook_url: '',
    },
  });
  const webhookError = form.formState.errors.slack_webhook_url?.message;
  const webhook = form.watch('slack_webhook_url').trim();
  const webhookUsable = webhook !== '' && slackWebhookSchema.safeParse(webhook).success;

  return (
    <PreferencesCard
      title="Notification channels"
      description="Where alerts go and which of them are worth sending."
      form={form}
      submit={submit}
      readOnly={readOnly}
    >
      <ToggleRow
        control={form.control}
        name="email_enabled"
        label="Email notifications"
        description="Send alerts to the enabled email providers."
      />
      <ToggleRow
        control={form.control}
        name="slack_enabled"
        label="Slack notifications"
        description="Post alerts through the enabled Slack providers."
      >
        <div className="grid gap-2 rounded-lg border bg-muted/30 p-4">
          <Label htmlFor="pref-slack-webhook">
            Slack webhook URL <span className="font-normal text-muted-foreground">(optional)</span>
          </Label>
          <div className="flex flex-col gap-2 sm:flex-row">
            <Input
              id="pref-slack-webhook"
              type="url"
              inputMode="url"
              placeholder="https://hooks.slack.com/services/…"
              autoComplete="off"
              spellCheck={false}
              className="font-mono text-xs md:text-xs"
              aria-invalid={webhookError ? true : undefined}
              aria-describedby="pref-slack-webhook-hint"
              {...form.register('slack_webhook_url')}
            />
            <Button
              variant="outline"
              className="shrink-0"
              disabled={!webhookUsable}
              onClick={() => navigate(ADD_PROVIDER_PATH, { state: { type: 'slack', webhookUrl: webhook } })}
            >
              <Send />
              Add as Slack provider
            </Button>
          </div>
          {webhookError ? <FieldError message={webhookError} /> : null}
          <p id="pref-slack-webhook-hint" className="text-muted-foreground text-xs">
            Not saved with these settings: Slack alerts go to the Slack providers on the Providers tab. Paste an incoming webhook
            here to add it as one.
          </p>
        </div>
      </ToggleRow>
      <ToggleRow
        control={form.control}
        name="batch_similar_notifications"
        label="Batch similar notifications"
        description="Fold repeats of the same alert within a minute into one message that says how often it happened."
      />
      <ToggleRow
        control={form.control}
        name="security_alerts_enabled"
        label="Security alerts"
        description="Accounts locked after repeated failed sign-ins."
      />
      <div className="grid gap-2 px-6 py-4">
        <Label htmlFor="pref-minimum-severity">Minimum severity</Label>
        <Controller
          control={form.control}
          name="minimum_severity"
          render={({ field }) => (
            <Select value={field.value} onValueChange={(value) => field.onChange(value as NotificationSeverity)}>
              <SelectTrigger id="pref-minimum-severity" className="max-w-xs" onBlur={field.onBlur}>
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                {NOTIFICATION_SEVERITIES.map((severity) => (
                  <SelectItem key={severity} value={severity}>
                    {SEVERITY_LABEL[severity].label}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          )}
        />
        <p className="text-muted-foreground text-xs">{SEVERITY_LABEL[form.watch('minimum_severity')].hint}</p>
      </div>
    </PreferencesCard>
  );
}
