import { type PlatformSettings, platformSettingsSchema } from '@launchbay/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api';
import { accessInfoQuery } from '@/lib/platform';

export const settingsQueryKey = ['settings'] as const;

export function useSettings() {
  return useQuery({
    queryKey: settingsQueryKey,
    queryFn: ({ signal }) => api('/settings', { signal, response: platformSettingsSchema }),
  });
}

export function useUpdateSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Partial<PlatformSettings>) => api('/settings', { method: 'PUT', body, response: platformSettingsSchema }),
    onSuccess: (settings) => {
      queryClient.setQueryData(settingsQueryKey, settings);
      // The access mode and external URL also feed the platform access info (and the body class).
      void queryClient.invalidateQueries({ queryKey: accessInfoQuery.queryKey });
    },
  });
}
