import type { ReactNode } from 'react';
import { LoginScreen } from '@/features/auth/login-screen';
import { errorDetail, isConnectionError, isUnauthorized } from '@/lib/api';
import { useCurrentUser } from '@/lib/current-user';
import { CannotConnectScreen, FullScreenLoader, ServerErrorScreen } from './status-screens';

/**
 * Spec section 4: loading spinner; authenticated shows the app; 'Authentication Required' or
 * 'Unauthorized' shows the login screen; a gateway timeout or network failure shows 'Cannot
 * Connect to Server'; any other error shows 'Server Error'.
 */
export function AuthGate({ children }: { children: ReactNode }) {
  const { data, error, isPending, isFetching, refetch } = useCurrentUser();
  const retry = () => void refetch();

  if (isPending && !error) return <FullScreenLoader />;
  if (error) {
    if (isConnectionError(error)) return <CannotConnectScreen onRetry={retry} retrying={isFetching} />;
    if (isUnauthorized(error)) return <LoginScreen />;
    return <ServerErrorScreen detail={errorDetail(error)} onRetry={retry} retrying={isFetching} />;
  }
  if (!data) return <FullScreenLoader />;
  return children;
}
