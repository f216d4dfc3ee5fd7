import type { ExternalToast } from 'sonner';

/**
 * Toasts via sonner, loaded on first use so it stays out of the login bundle. The <LazyToaster>
 * host (app/toaster-host.tsx) mounts sonner's <Toaster> and resolves `ready` once it listens.
 */
type SonnerModule = typeof import('sonner');
type ToastFn = (message: string, data?: ExternalToast) => void;

let mountToaster: ((sonner: SonnerModule) => Promise<void>) | null = null;
let ready: Promise<SonnerModule> | null = null;

export function setToasterMounter(mount: (sonner: SonnerModule) => Promise<void>): void {
  mountToaster = mount;
}

export function loadToaster(): Promise<SonnerModule> {
  if (!ready) {
    ready = import('sonner').then(async (sonner) => {
      if (mountToaster) await mountToaster(sonner);
      return sonner;
    });
    ready.catch(() => {
      ready = null;
    });
  }
  return ready;
}

function show(kind: 'success' | 'error' | 'info' | 'warning' | 'message'): ToastFn {
  return (message, data) => {
    loadToaster().then(
      (sonner) => {
        if (kind === 'message') sonner.toast(message, data);
        else sonner.toast[kind](message, data);
      },
      (error: unknown) => console.error('[Launchbay] toast failed to load', message, error),
    );
  };
}

export const toast = {
  success: show('success'),
  error: show('error'),
  info: show('info'),
  warning: show('warning'),
  message: show('message'),
};
