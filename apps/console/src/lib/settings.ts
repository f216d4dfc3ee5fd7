import { platformSettingsSchema } from '@launchbay/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from './api';

/*
 * The platform's settings (GET /settings, any signed-in role may read them): the /settings page
 * edits them (features/settings), and project pages read a few (the branch polling interval).
 */

export const settingsQueryKey = ['settings'] as const;

export const settingsQuery = queryOptions({
  queryKey: settingsQueryKey,
  queryFn: ({ signal }) => api('/settings', { signal, response: platformSettingsSchema }),
});

export function useSettings() {
  return useQuery(settingsQuery);
}
