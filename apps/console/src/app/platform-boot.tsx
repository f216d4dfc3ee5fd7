import { type ReactNode, useEffect } from 'react';
import { ACCESS_MODE_CLASS, useAccessInfo } from '@/lib/platform';
import { FullScreenLoader } from './status-screens';

/**
 * Spec section 2: while platform access info loads show 'Initializing platform...'; the body gets
 * a class for the access mode; if loading fails, the failure is logged and the app continues.
 */
export function PlatformBoot({ children }: { children: ReactNode }) {
  const { data, error, isPending } = useAccessInfo();

  useEffect(() => {
    if (!data) return;
    const className = ACCESS_MODE_CLASS[data.access_mode];
    const all = Object.values(ACCESS_MODE_CLASS);
    document.body.classList.remove(...all);
    document.body.classList.add(className);
  }, [data]);

  useEffect(() => {
    if (error) console.error('[Launchbay] Failed to load platform access info', error);
  }, [error]);

  if (isPending && !error) return <FullScreenLoader message="Initializing platform..." />;
  return children;
}
