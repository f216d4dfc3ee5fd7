import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { isConnectionError, isUnauthorized } from '@/lib/api';
import { currentUserQueryKey } from '@/lib/current-user';

function isCurrentUserKey(key: readonly unknown[]): boolean {
  return key[0] === currentUserQueryKey[0] && key[1] === currentUserQueryKey[1];
}

export function createQueryClient(): QueryClient {
  let client: QueryClient | undefined;

  /**
   * When any call fails because the server is unreachable (or the session ended), make the auth
   * gate re-check the current user, so it can show 'Cannot Connect to Server' or the login screen.
   */
  const recheckSession = (error: unknown) => {
    if (!client) return;
    if (!isConnectionError(error) && !isUnauthorized(error)) return;
    void client.invalidateQueries({ queryKey: currentUserQueryKey, refetchType: 'active' });
  };

  client = new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (isCurrentUserKey(query.queryKey)) return;
        recheckSession(error);
      },
    }),
    mutationCache: new MutationCache({
      onError: (error, _variables, _context, mutation) => {
        // Auth calls answer 401 for bad credentials: only a lost connection matters there.
        if (mutation.meta?.authCall && !isConnectionError(error)) return;
        recheckSession(error);
      },
    }),
    defaultOptions: {
      queries: {
        // Spec section 9: other queries do not refetch on window focus.
        refetchOnWindowFocus: false,
        staleTime: 30_000,
        retry: (failureCount, error) => failureCount < 2 && !isConnectionError(error) && !isUnauthorized(error),
      },
    },
  });
  return client;
}
