import { screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { ApiRequestError } from '@/lib/api';
import { toast } from '@/lib/toast';
import { renderWithProviders } from '@/test/render';
import { CronJobForm, type CronJobFormValues } from './cron-job-form';
import { describeSchedule } from './schedule';

vi.mock('@/lib/toast', () => ({ toast: { success: vi.fn(), error: vi.fn(), info: vi.fn(), warning: vi.fn() } }));

function renderForm(onSubmit: (values: CronJobFormValues) => Promise<void> = vi.fn(async () => {})) {
  const result = renderWithProviders(
    <CronJobForm submitLabel="Add Cron Job" failureTitle="Failed to add cron job" onSubmit={onSubmit} />,
  );
  return { ...result, onSubmit };
}

const submit = () => screen.getByRole('button', { name: 'Add Cron Job' });

describe('CronJobForm validation', () => {
  it("an empty submit shows the contract's required messages and sends nothing", async () => {
    const { user, onSubmit } = renderForm();
    await user.click(submit());
    expect(await screen.findByText('Path is required')).toBeInTheDocument();
    expect(screen.getByText('Schedule is required')).toBeInTheDocument();
    expect(screen.getByLabelText('Path')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Schedule')).toHaveAttribute('aria-invalid', 'true');
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it("refuses a path without a leading slash and a schedule that is not a cron pattern, with the contract's messages", async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Path'), 'api/cron');
    await user.type(screen.getByLabelText('Schedule'), 'every day');
    await user.click(submit());
    expect(await screen.findByText('Must start with / (e.g. /api/cron/cleanup), without spaces')).toBeInTheDocument();
    expect(
      screen.getByText('Must be a cron expression, e.g. `0 3 * * *` (5 fields, or 6 with seconds first)'),
    ).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('reads a valid schedule aloud, fills an example, and sends the trimmed values', async () => {
    const { user, onSubmit } = renderForm();
    await user.type(screen.getByLabelText('Path'), ' /api/cron/cleanup ');
    await user.click(screen.getByRole('button', { name: 'Daily at 03:00' }));
    expect(screen.getByLabelText('Schedule')).toHaveValue('0 3 * * *');
    expect(screen.getByText('every day at 03:00 UTC')).toBeInTheDocument();
    await user.click(submit());
    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
    expect(onSubmit).toHaveBeenCalledWith({ path: '/api/cron/cleanup', schedule: '0 3 * * *' });
  });

  it("puts the server's field errors under the fields and its detail in a toast", async () => {
    const onSubmit = vi.fn(async () => {
      throw new ApiRequestError({
        status: 400,
        detail: 'Validation failed',
        errors: [{ path: 'schedule', message: 'Not a valid cron expression: invalid range' }],
      });
    });
    const { user } = renderForm(onSubmit);
    await user.type(screen.getByLabelText('Path'), '/');
    await user.type(screen.getByLabelText('Schedule'), '99 * * * *');
    await user.click(submit());
    expect(await screen.findByText('Not a valid cron expression: invalid range')).toBeInTheDocument();
    expect(vi.mocked(toast.error)).toHaveBeenCalledWith('Failed to add cron job', { description: 'Validation failed' });
  });
});

describe('describeSchedule', () => {
  it('reads the common shapes and leaves the rest to the raw pattern', () => {
    expect(describeSchedule('*/5 * * * *')).toBe('every 5 minutes');
    expect(describeSchedule('* * * * *')).toBe('every minute');
    expect(describeSchedule('0 * * * *')).toBe('every hour, on the hour');
    expect(describeSchedule('15 */6 * * *')).toBe('every 6 hours at minute 15');
    expect(describeSchedule('0 3 * * *')).toBe('every day at 03:00 UTC');
    expect(describeSchedule('0 0 3 * * *')).toBe('every day at 03:00 UTC');
    expect(describeSchedule('30 9 * * 1')).toBe('every Monday at 09:30 UTC');
    expect(describeSchedule('0 8 * * 1-5')).toBe('every weekday at 08:00 UTC');
    expect(describeSchedule('0 0 1 * *')).toBe('on the 1st of every month at 00:00 UTC');
    expect(describeSchedule('@daily')).toBe('every day at 00:00 UTC');
    expect(describeSchedule('0 3 * 1 *')).toBeNull();
    expect(describeSchedule('5,35 * * * *')).toBeNull();
    expect(describeSchedule('30 0 3 * * *')).toBeNull();
  });
});
