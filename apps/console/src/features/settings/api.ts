import { type PlatformSettings, platformSettingsSchema } from '@launchbay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api';
import { accessInfoQuery } from '@/lib/platform';
import { settingsQueryKey } from '@/lib/settings';

export { settingsQueryKey, useSettings } from '@/lib/settings';

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
