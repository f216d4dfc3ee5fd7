import type { PlatformSettings } from '@launchbay/contract';
import type { ReactNode } from 'react';
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/utils';

type Patch = Partial<PlatformSettings>;

export { useSectionForm } from '@/lib/settings-form';

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
