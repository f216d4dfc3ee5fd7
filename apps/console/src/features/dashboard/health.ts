import { healthSchema } from '@launchbay/contract';
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { api } from '@/lib/api';

export type Health = z.infer<typeof healthSchema>;

export function useHealth() {
  return useQuery({
    queryKey: ['platform', 'health'],
    queryFn: ({ signal }) => api('/health', { signal, response: healthSchema }),
    staleTime: 30_000,
  });
}
