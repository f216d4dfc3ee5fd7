import { zodResolver } from '@hookform/resolvers/zod';
import { createCronJobRequestSchema } from '@launchbay/contract';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { FormField } from '@/components/form/form-field';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail, isApiError } from '@/lib/api';
import { toast } from '@/lib/toast';
import { describeSchedule } from './schedule';

/** The contract's own rules and messages for the two fields. */
export const cronJobFormSchema = createCronJobRequestSchema.pick({ path: true, schedule: true });
export type CronJobFormValues = z.infer<typeof cronJobFormSchema>;

/** Common patterns, one click away (Render and Vercel offer the same). */
const EXAMPLES: { label: string; schedule: string }[] = [
  { label: 'Every 5 minutes', schedule: '*/5 * * * *' },
  { label: 'Hourly', schedule: '0 * * * *' },
  { label: 'Daily at 03:00', schedule: '0 3 * * *' },
  { label: 'Mondays at 09:00', schedule: '0 9 * * 1' },
];

function ScheduleHint({ schedule }: { schedule: string }) {
  const reading = schedule.trim() ? describeSchedule(schedule) : null;
  return (
    <span aria-live="polite">
      {reading ? (
        <>
          Runs <span className="font-medium text-foreground">{reading}</span>.{' '}
        </>
      ) : null}
      Minute, hour, day of month, month, day of week — read in UTC.
    </span>
  );
}

export interface CronJobFormProps {
  /** Prefix of the fields' ids (two forms may be on one page). */
  idPrefix?: string;
  defaultValues?: CronJobFormValues;
  submitLabel: string;
  /** The error toast's title when the server refuses. */
  failureTitle: string;
  /** Throws the API's error on failure: its field errors go under the fields, its detail into a toast. */
  onSubmit: (values: CronJobFormValues) => Promise<void>;
  onCancel?: () => void;
}

/** Path and schedule of a cron job, checked with the contract's schemas before anything is sent. */
export function CronJobForm({
  idPrefix = 'cron',
  defaultValues = { path: '', schedule: '' },
  submitLabel,
  failureTitle,
  onSubmit,
  onCancel,
}: CronJobFormProps) {
  const form = useForm<CronJobFormValues>({ resolver: zodResolver(cronJobFormSchema), defaultValues });
  const { errors, isSubmitting, isSubmitted } = form.formState;
  const schedule = form.watch('schedule');
  const submit = form.handleSubmit(async (values) => {
    try {
      await onSubmit(values);
    } catch (error) {
      if (isApiError(error)) {
        for (const fieldError of error.errors) {
          if (fieldError.path === 'path' || fieldError.path === 'schedule') {
            form.setError(fieldError.path, { message: fieldError.message });
          }
        }
      }
      toast.error(failureTitle, { description: errorDetail(error) });
    }
  });
  const pathId = `${idPrefix}-path`;
  const scheduleId = `${idPrefix}-schedule`;
  return (
    <form onSubmit={submit} noValidate className="grid gap-5">
      <fieldset disabled={isSubmitting} className="grid min-w-0 gap-5">
        <legend className="sr-only">Cron job</legend>
        <FormField
          id={pathId}
          label="Path"
          hint="Launchbay sends a GET request to this path on the environment's live deployment."
          error={errors.path?.message}
        >
          <Input
            id={pathId}
            className="font-mono"
            placeholder="/api/cron/cleanup"
            autoComplete="off"
            spellCheck={false}
            aria-invalid={errors.path ? true : undefined}
            {...form.register('path')}
          />
        </FormField>
        <div className="grid min-w-0 gap-2">
          <FormField
            id={scheduleId}
            label="Schedule"
            hint={<ScheduleHint schedule={schedule} />}
            error={errors.schedule?.message}
          >
            <Input
              id={scheduleId}
              className="font-mono"
              placeholder="0 3 * * *"
              autoComplete="off"
              spellCheck={false}
              aria-invalid={errors.schedule ? true : undefined}
              {...form.register('schedule')}
            />
          </FormField>
          <fieldset className="flex min-w-0 flex-wrap gap-1.5">
            <legend className="sr-only">Example schedules</legend>
            {EXAMPLES.map((example) => (
              <Button
                key={example.schedule}
                variant="outline"
                size="sm"
                className="h-7 rounded-full px-2.5 font-normal text-xs"
                title={example.schedule}
                onClick={() => form.setValue('schedule', example.schedule, { shouldDirty: true, shouldValidate: isSubmitted })}
              >
                {example.label}
              </Button>
            ))}
          </fieldset>
        </div>
      </fieldset>
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        {onCancel ? (
          <Button variant="outline" disabled={isSubmitting} onClick={onCancel}>
            Cancel
          </Button>
        ) : null}
        <Button type="submit" disabled={isSubmitting}>
          {isSubmitting ? <Spinner /> : null}
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}
