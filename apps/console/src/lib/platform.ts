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
