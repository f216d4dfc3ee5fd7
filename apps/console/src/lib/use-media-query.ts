import { useCallback, useSyncExternalStore } from 'react';

/** True while the CSS media query matches (re-renders when it changes). */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const media = window.matchMedia(query);
      media.addEventListener('change', onChange);
      return () => media.removeEventListener('change', onChange);
    },
    [query],
  );
  return useSyncExternalStore(subscribe, () => window.matchMedia(query).matches);
}

/** Below Tailwind's `md` breakpoint (768px): tables collapse to cards there. */
export function useIsNarrow(): boolean {
  return useMediaQuery('(max-width: 767px)');
}
