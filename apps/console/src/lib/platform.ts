import type { AccessInfo, accessInfoSchema } from '@launchbay/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, declared } from './api';
import { ACCESS_INFO_RETRY, ACCESS_INFO_STALE_TIME } from './constants';

export const accessInfoQuery = queryOptions({
  queryKey: ['platform', 'access-info'],
  // Loaded before the login page shows: typed from the contract's schema, not parsed (see `declared`).
  queryFn: ({ signal }) => api('/platform/access-info', { signal, response: declared<typeof accessInfoSchema>() }),
  staleTime: ACCESS_INFO_STALE_TIME,
  retry: ACCESS_INFO_RETRY,
  // Short back-off: the console waits on this before it shows anything else.
  retryDelay: (attempt) => Math.min(250 * 2 ** attempt, 1000),
  refetchOnWindowFocus: true,
});

export function useAccessInfo() {
  return useQuery(accessInfoQuery);
}

export const ACCESS_MODE_CLASS: Record<AccessInfo['access_mode'], string> = {
  local: 'platform-local',
  cloudflare_tunnel: 'platform-cloudflare',
  nat: 'platform-nat',
  direct: 'platform-direct',
};

export const ACCESS_MODE_LABEL: Record<AccessInfo['access_mode'], string> = {
  local: 'Local',
  cloudflare_tunnel: 'Cloudflare Tunnel',
  nat: 'NAT',
  direct: 'Direct',
};

/** One line on what each access mode means (Settings and External Connectivity). */
export const ACCESS_MODE_HINT: Record<AccessInfo['access_mode'], string> = {
  local: 'Reached on this machine or its local network only.',
  nat: 'Behind a router that forwards ports 80 and 443 to this machine.',
  cloudflare_tunnel: 'Traffic arrives through a Cloudflare Tunnel; no open ports needed.',
  direct: 'This machine has its own public IP address.',
};
