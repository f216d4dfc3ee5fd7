import { Suspense } from 'react';
import { ErrorBoundary } from '@/components/errors/error-boundary';
import { FullPageErrorFallback, RootErrorFallback } from '@/components/errors/fallbacks';
import { usePathname } from '@/lib/location';
import { AuthGate } from './auth-gate';
import { lazyWithTimeout } from './lazy';
import { PlatformBoot } from './platform-boot';
import { Providers } from './providers';
import { FullScreenLoader } from './status-screens';

/** The signed-in app (router, shell, every page) is one lazy chunk graph: the login path stays small. */
const AuthenticatedApp = lazyWithTimeout(() => import('./router'));
const MfaVerifyPage = lazyWithTimeout(() => import('@/features/auth/mfa-verify-page'));

function Routes() {
  const pathname = usePathname();
  if (pathname === '/mfa-verify') {
    return (
      <ErrorBoundary fallback={(props) => <FullPageErrorFallback {...props} />}>
        <Suspense fallback={<FullScreenLoader />}>
          <MfaVerifyPage />
        </Suspense>
      </ErrorBoundary>
    );
  }
  return (
    <AuthGate>
      <ErrorBoundary fallback={(props) => <FullPageErrorFallback {...props} />}>
        <Suspense fallback={<FullScreenLoader />}>
          <AuthenticatedApp />
        </Suspense>
      </ErrorBoundary>
    </AuthGate>
  );
}

export function Root() {
  return (
    <ErrorBoundary fallback={(props) => <RootErrorFallback {...props} />}>
      <Providers>
        <PlatformBoot>
          <Routes />
        </PlatformBoot>
      </Providers>
    </ErrorBoundary>
  );
}
