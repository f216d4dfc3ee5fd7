import { zodResolver } from '@hookform/resolvers/zod';
import { type PlatformSettings, platformSettingsSchema } from '@launchbay/contract';
import { type QueryKey, useMutation, useQueryClient } from '@tanstack/react-query';
import { type DefaultValues, type FieldValues, type Path, useForm } from 'react-hook-form';
import type { z } from 'zod';
import { api, errorDetail, isApiError } from './api';
import { accessInfoQuery } from './platform';
import { settingsQueryKey } from './settings';
import { toast } from './toast';

type Patch = Partial<PlatformSettings>;

/** PUT /settings with only the fields given; the settings query and the access info follow. */
export function useUpdateSettings(alsoRefresh: QueryKey[] = []) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Patch) => api('/settings', { method: 'PUT', body, response: platformSettingsSchema }),
    onSuccess: (settings) => {
      queryClient.setQueryData(settingsQueryKey, settings);
      // The access mode and external URL also feed the platform access info (and the body class).
      void queryClient.invalidateQueries({ queryKey: accessInfoQuery.queryKey });
      for (const queryKey of alsoRefresh) void queryClient.invalidateQueries({ queryKey });
    },
  });
}

/**
 * One settings section: its own form, validated with the contract's schema (and messages), saving
 * only the fields that changed. Server field errors land on the fields; other sections keep their
 * unsaved edits when this one saves.
 */
export function useSectionForm<TIn extends FieldValues, TOut extends Patch>({
  schema,
  values,
  current,
  messages = { saved: 'Settings saved', failed: 'Failed to save settings' },
  alsoRefresh = [],
}: {
  schema: z.ZodType<TOut, TIn>;
  /** The form's values for the current settings. */
  values: TIn;
  current: PlatformSettings;
  /** The toasts' titles. */
  messages?: { saved: string; failed: string };
  /** Queries that follow the settings (e.g. the connectivity page's records). */
  alsoRefresh?: QueryKey[];
}) {
  const update = useUpdateSettings(alsoRefresh);
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
      toast.success(messages.saved);
    } catch (error) {
      if (isApiError(error)) {
        for (const fieldError of error.errors) {
          if (fieldError.path in values) form.setError(fieldError.path as Path<TIn>, { message: fieldError.message });
        }
      }
      toast.error(messages.failed, { description: errorDetail(error) });
    }
  });

  return { form, save, reset: () => form.reset(values as DefaultValues<TIn>) };
}
