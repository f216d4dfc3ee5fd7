import type { currentUserSchema } from '@launchbay/contract';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { ApiRequestError, api, declared, isConnectionError, isUnauthorized } from './api';
import { CURRENT_USER_GC_TIME, CURRENT_USER_RETRY_DELAY, CURRENT_USER_STALE_TIME } from './constants';

export const currentUserQueryKey = ['user', 'me'] as const;

/**
 * Spec section 8: the current-user fetch is retried once after 100 ms, except on 401, an aborted
 * request, 504, a connection-refused code or a 'Failed to fetch' message.
 */
export function shouldRetryCurrentUser(failureCount: number, error: unknown): boolean {
  if (failureCount >= 1) return false;
  if (error instanceof ApiRequestError) {
    if (error.status === 401 || error.status === 504 || error.aborted) return false;
    if (error.code === 'ECONNREFUSED') return false;
  }
  if (isUnauthorized(error) || isConnectionError(error)) return false;
  if (error instanceof Error && error.message.includes('Failed to fetch')) return false;
  return true;
}

export const currentUserQuery = queryOptions({
  queryKey: currentUserQueryKey,
  // On the login path: typed from the contract's schema, not parsed (see `declared`).
  queryFn: ({ signal }) => api('/user/me', { signal, response: declared<typeof currentUserSchema>() }),
  staleTime: CURRENT_USER_STALE_TIME,
  gcTime: CURRENT_USER_GC_TIME,
  retry: shouldRetryCurrentUser,
  retryDelay: CURRENT_USER_RETRY_DELAY,
  // Re-check on focus only when the last check failed.
  refetchOnWindowFocus: (query) => query.state.status === 'error',
});

/** The signed-in user (the auth gate loads it before any page shows). */
export function useCurrentUser() {
  return useQuery(currentUserQuery);
}
