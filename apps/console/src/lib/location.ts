import { useSyncExternalStore } from 'react';

/**
 * A tiny location store for the parts that live outside the router (the auth gate, the login
 * screen and /mfa-verify), so the router and the shell can stay out of the login bundle.
 * React Router's BrowserRouter reads window.location when it mounts, so the two stay in sync.
 */
const LOCATION_EVENT = 'launchbay:location';

function subscribe(callback: () => void): () => void {
  window.addEventListener('popstate', callback);
  window.addEventListener(LOCATION_EVENT, callback);
  return () => {
    window.removeEventListener('popstate', callback);
    window.removeEventListener(LOCATION_EVENT, callback);
  };
}

export function usePathname(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname);
}

export function navigateTo(path: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  window.dispatchEvent(new Event(LOCATION_EVENT));
}
