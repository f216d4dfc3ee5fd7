import type { healthSchema } from '@launchbay/contract';
import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { api } from '@/lib/api';

export type Health = z.infer<typeof healthSchema>;

export function useHealth() {
  return useQuery({
    queryKey: ['platform', 'health'],
    queryFn: ({ signal }) => api<Health>('/health', { signal }),
    staleTime: 30_000,
  });
}
