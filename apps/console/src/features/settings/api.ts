import type { PlatformSettings } from '@launchbay/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { accessInfoQuery } from '@/features/platform/api';
import { api } from '@/lib/api';

export const settingsQueryKey = ['settings'] as const;

export function useSettings() {
  return useQuery({
    queryKey: settingsQueryKey,
    queryFn: ({ signal }) => api<PlatformSettings>('/settings', { signal }),
  });
}

export function useUpdateSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Partial<PlatformSettings>) => api<PlatformSettings>('/settings', { method: 'PUT', body }),
    onSuccess: (settings) => {
      queryClient.setQueryData(settingsQueryKey, settings);
      // The access mode and external URL also feed the platform access info (and the body class).
      void queryClient.invalidateQueries({ queryKey: accessInfoQuery.queryKey });
    },
  });
}
