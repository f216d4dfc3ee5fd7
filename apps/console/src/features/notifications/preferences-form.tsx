import { zodResolver } from '@hookform/resolvers/zod';
import { DEFAULT_NOTIFICATION_PREFERENCES, type NotificationPreferences } from '@launchbay/contract';
import { useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import {
  type Control,
  Controller,
  type DefaultValues,
  type FieldPath,
  type FieldValues,
  type UseFormReturn,
  useForm,
} from 'react-hook-form';
import type { z } from 'zod';
import { FormField } from '@/components/form/form-field';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { Switch } from '@/components/ui/switch';
import { errorDetail } from '@/lib/api';
import { toast } from '@/lib/toast';
import { cn } from '@/lib/utils';
import { preferencesQueryKey, useSavePreferences } from './api';

/** Spec section 8: the name each preferences tab uses in its toasts. */
export type AlertTopic = 'Project' | 'Domain' | 'Backup' | 'Route' | 'Notification';

const PREFERENCE_KEYS = Object.keys(DEFAULT_NOTIFICATION_PREFERENCES) as (keyof NotificationPreferences)[];

/** Only the preferences among a form's values: anything else (the Slack webhook field) is never sent. */
function preferencesIn(values: Record<string, unknown>): Partial<NotificationPreferences> {
  return Object.fromEntries(PREFERENCE_KEYS.filter((key) => key in values).map((key) => [key, values[key]]));
}

/**
 * One tab's form over its part of the preferences. Saving merges the tab's values into the loaded
 * object and sends the whole of it (spec section 7), then the form is clean again.
 */
export function usePreferencesForm<TValues extends FieldValues>({
  topic,
  schema,
  defaultValues,
}: {
  topic: AlertTopic;
  schema: z.ZodType<TValues, TValues>;
  defaultValues: TValues;
}) {
  const queryClient = useQueryClient();
  const save = useSavePreferences();
  const form = useForm<TValues, unknown, TValues>({
    resolver: zodResolver(schema),
    defaultValues: defaultValues as DefaultValues<TValues>,
  });

  const submit = form.handleSubmit(async (values) => {
    const loaded = queryClient.getQueryData<NotificationPreferences>(preferencesQueryKey);
    if (!loaded) return;
    try {
      await save.mutateAsync({ ...loaded, ...preferencesIn(values) });
      form.reset(values);
      toast.success(`${topic} alert settings saved successfully`);
    } catch (error) {
      toast.error(`Failed to save ${topic.toLowerCase()} alert settings`, { description: errorDetail(error) });
    }
  });

  return { form, submit };
}

export function PreferencesCard<TValues extends FieldValues>({
  title,
  description,
  form,
  submit,
  readOnly,
  children,
}: {
  title: string;
  description: ReactNode;
  form: UseFormReturn<TValues, unknown, TValues>;
  submit: () => Promise<void>;
  readOnly: boolean;
  children: ReactNode;
}) {
  const { isDirty, isSubmitting } = form.formState;
  return (
    <Card className="gap-0 overflow-hidden py-0">
      <form onSubmit={submit} noValidate aria-label={title}>
        <CardHeader className="border-b py-6">
          <CardTitle>{title}</CardTitle>
          <CardDescription>{description}</CardDescription>
        </CardHeader>
        <CardContent className="px-0">
          <fieldset disabled={readOnly || isSubmitting} className="min-w-0">
            <legend className="sr-only">{title}</legend>
            <div className="divide-y">{children}</div>
          </fieldset>
        </CardContent>
        <CardFooter className="flex-wrap justify-between gap-3 border-t bg-muted/30 px-6 py-3">
          <p className="text-muted-foreground text-xs" aria-live="polite">
            {readOnly
              ? 'You can view these settings; changing them needs the user role.'
              : isDirty
                ? 'You have unsaved changes.'
                : 'Changes apply to the next alert.'}
          </p>
          {readOnly ? null : (
            <div className="flex shrink-0 gap-2">
              {isDirty ? (
                <Button variant="ghost" size="sm" disabled={isSubmitting} onClick={() => form.reset()}>
                  Discard
                </Button>
              ) : null}
              <Button type="submit" size="sm" disabled={!isDirty || isSubmitting}>
                {isSubmitting ? <Spinner /> : null}
                Save Changes
              </Button>
            </div>
          )}
        </CardFooter>
      </form>
    </Card>
  );
}

/** A row with a label, a description and a switch bound to a boolean preference. */
export function ToggleRow<TValues extends FieldValues>({
  control,
  name,
  label,
  description,
  children,
}: {
  control: Control<TValues, unknown, TValues>;
  name: FieldPath<TValues>;
  label: string;
  description: string;
  /** Settings that belong to this alert, shown under it. */
  children?: ReactNode;
}) {
  const id = `pref-${name}`;
  return (
    <div className="grid gap-4 px-6 py-4">
      <div className="flex items-start justify-between gap-4">
        <div className="grid gap-1">
          <Label htmlFor={id}>{label}</Label>
          <p id={`${id}-description`} className="text-muted-foreground text-sm">
            {description}
          </p>
        </div>
        <Controller
          control={control}
          name={name}
          render={({ field }) => (
            <Switch
              id={id}
              checked={Boolean(field.value)}
              onCheckedChange={field.onChange}
              onBlur={field.onBlur}
              aria-describedby={`${id}-description`}
            />
          )}
        />
      </div>
      {children}
    </div>
  );
}

/** A whole-number preference (typed as a number for the contract's range messages). */
export function NumberField<TValues extends FieldValues>({
  form,
  name,
  label,
  unit,
  hint,
  min,
  max,
  className,
}: {
  form: UseFormReturn<TValues, unknown, TValues>;
  name: FieldPath<TValues>;
  label: string;
  unit: string;
  hint: string;
  min: number;
  max: number;
  className?: string;
}) {
  const id = `pref-${name}`;
  const error = form.formState.errors[name]?.message;
  const message = typeof error === 'string' ? error : undefined;
  return (
    <FormField
      id={id}
      label={label}
      error={message}
      hint={hint}
      hintId={`${id}-hint`}
      keepHint
      className={cn('max-w-xs', className)}
    >
      <div className="flex items-center gap-2">
        <Input
          id={id}
          type="number"
          inputMode="numeric"
          min={min}
          max={max}
          step={1}
          className="w-28"
          aria-invalid={message ? true : undefined}
          aria-describedby={`${id}-hint`}
          {...form.register(name, { valueAsNumber: true })}
        />
        <span className="text-muted-foreground text-sm">{unit}</span>
      </div>
    </FormField>
  );
}
