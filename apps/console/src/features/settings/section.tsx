import { zodResolver } from '@hookform/resolvers/zod';
import type { PlatformSettings } from '@launchbay/contract';
import type { ReactNode } from 'react';
import { type DefaultValues, type FieldValues, type Path, type UseFormReturn, useForm } from 'react-hook-form';
import type { z } from 'zod';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail, isApiError } from '@/lib/api';
import { toast } from '@/lib/toast';
import { cn } from '@/lib/utils';
import { useUpdateSettings } from './api';

type Patch = Partial<PlatformSettings>;

/**
 * One settings section: its own form, validated with the contract's schema (and messages), saving
 * only the fields that changed. Server field errors land on the fields; other sections keep their
 * unsaved edits when this one saves.
 */
export function useSectionForm<TIn extends FieldValues, TOut extends Patch>({
  schema,
  values,
  current,
}: {
  schema: z.ZodType<TOut, TIn>;
  /** The form's values for the current settings. */
  values: TIn;
  current: PlatformSettings;
}) {
  const update = useUpdateSettings();
  const form = useForm<TIn, unknown, TOut>({ resolver: zodResolver(schema), values });

  const save = form.handleSubmit(async (output) => {
    const patch = Object.fromEntries(
      Object.entries(output).filter(([key, value]) => value !== current[key as keyof PlatformSettings]),
    ) as Patch;
    if (Object.keys(patch).length === 0) {
      form.reset(values);
      return;
    }
    try {
      await update.mutateAsync(patch);
      toast.success('Settings saved');
    } catch (error) {
      if (isApiError(error)) {
        for (const fieldError of error.errors) {
          if (fieldError.path in values) form.setError(fieldError.path as Path<TIn>, { message: fieldError.message });
        }
      }
      toast.error('Failed to save settings', { description: errorDetail(error) });
    }
  });

  return { form, save, reset: () => form.reset(values as DefaultValues<TIn>) };
}

export function SettingsSection<TIn extends FieldValues, TOut extends Patch>({
  title,
  description,
  section,
  readOnly,
  children,
}: {
  title: string;
  description: ReactNode;
  section: { form: UseFormReturn<TIn, unknown, TOut>; save: () => Promise<void>; reset: () => void };
  readOnly: boolean;
  children: ReactNode;
}) {
  const { isDirty, isSubmitting } = section.form.formState;
  const id = `settings-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <section aria-labelledby={id}>
      <Card className="gap-0 overflow-hidden py-0">
        <form onSubmit={section.save} noValidate>
          <CardHeader className="pt-6">
            <CardTitle id={id}>{title}</CardTitle>
            <CardDescription>{description}</CardDescription>
          </CardHeader>
          <CardContent className="py-6">
            <fieldset
              disabled={readOnly || isSubmitting}
              className={cn(
                'grid min-w-0 gap-5',
                // Read-only values stay fully legible; only editing is off.
                readOnly && '[&_:disabled]:cursor-default! [&_:disabled]:opacity-100!',
              )}
            >
              <legend className="sr-only">{title}</legend>
              {children}
            </fieldset>
          </CardContent>
          {readOnly ? null : (
            <CardFooter className="justify-between gap-3 border-t bg-muted/30 py-3">
              <p className="text-muted-foreground text-xs" aria-live="polite">
                {isDirty ? 'You have unsaved changes.' : 'Saved settings apply at once, without a restart.'}
              </p>
              <div className="flex shrink-0 gap-2">
                {isDirty ? (
                  <Button variant="ghost" size="sm" disabled={isSubmitting} onClick={section.reset}>
                    Discard
                  </Button>
                ) : null}
                <Button type="submit" size="sm" disabled={!isDirty || isSubmitting} aria-label={`Save ${title}`}>
                  {isSubmitting ? <Spinner /> : null}
                  Save
                </Button>
              </div>
            </CardFooter>
          )}
        </form>
      </Card>
    </section>
  );
}
