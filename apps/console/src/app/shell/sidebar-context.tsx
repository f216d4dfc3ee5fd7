import { createContext, type ReactNode, use, useCallback, useEffect, useMemo, useState } from 'react';
import { useLocation } from 'react-router';
import {
  MOBILE_BREAKPOINT,
  SIDEBAR_COOKIE_MAX_AGE,
  SIDEBAR_COOKIE_NAME,
  SIDEBAR_KEYBOARD_SHORTCUT,
  SIDEBAR_MINIMAL_STORAGE_KEY,
} from '@/lib/constants';
import { getCookie, setCookie } from '@/lib/cookies';
import { projectSlugFromPath } from '../navigation';

interface SidebarContextValue {
  /** Desktop: expanded (16rem) or collapsed to the minimal icon rail (4rem). */
  open: boolean;
  setOpen: (open: boolean) => void;
  openMobile: boolean;
  setOpenMobile: (open: boolean) => void;
  isMobile: boolean;
  toggleSidebar: () => void;
}

const SidebarContext = createContext<SidebarContextValue | null>(null);

/**
 * The collapsed state lives in the 'sidebar_state' cookie (7 days), read at startup; the minimal
 * mode is mirrored in localStorage so it outlives the cookie.
 */
function readStoredOpen(): boolean {
  const cookie = getCookie(SIDEBAR_COOKIE_NAME);
  if (cookie === 'true' || cookie === 'false') return cookie === 'true';
  try {
    return localStorage.getItem(SIDEBAR_MINIMAL_STORAGE_KEY) !== 'true';
  } catch {
    return true;
  }
}

function persistOpen(open: boolean): void {
  setCookie(SIDEBAR_COOKIE_NAME, String(open), SIDEBAR_COOKIE_MAX_AGE);
  try {
    localStorage.setItem(SIDEBAR_MINIMAL_STORAGE_KEY, String(!open));
  } catch {
    // Storage unavailable: the cookie still holds the state.
  }
}

const mobileQuery = `(max-width: ${MOBILE_BREAKPOINT - 1}px)`;

export function useIsMobile(): boolean {
  const [isMobile, setIsMobile] = useState(() => window.matchMedia(mobileQuery).matches);
  useEffect(() => {
    const media = window.matchMedia(mobileQuery);
    const onChange = () => setIsMobile(media.matches);
    media.addEventListener('change', onChange);
    onChange();
    return () => media.removeEventListener('change', onChange);
  }, []);
  return isMobile;
}

export function SidebarProvider({ children }: { children: ReactNode }) {
  const isMobile = useIsMobile();
  const { pathname } = useLocation();
  const inProject = projectSlugFromPath(pathname) !== null;
  const [preference, setPreference] = useState(readStoredOpen);
  // Inside a project the sidebar collapses to icons; a toggle there is not persisted.
  const [projectOpen, setProjectOpen] = useState(false);
  const [openMobile, setOpenMobile] = useState(false);

  useEffect(() => {
    if (inProject) setProjectOpen(false);
  }, [inProject]);

  // Close the drawer after navigating.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on path change only
  useEffect(() => {
    setOpenMobile(false);
  }, [pathname]);

  const open = inProject ? projectOpen : preference;

  const setOpen = useCallback(
    (value: boolean) => {
      if (inProject) {
        setProjectOpen(value);
        return;
      }
      setPreference(value);
      persistOpen(value);
    },
    [inProject],
  );

  const toggleSidebar = useCallback(() => {
    if (isMobile) setOpenMobile((value) => !value);
    else setOpen(!open);
  }, [isMobile, open, setOpen]);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() === SIDEBAR_KEYBOARD_SHORTCUT && (event.metaKey || event.ctrlKey)) {
        event.preventDefault();
        toggleSidebar();
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [toggleSidebar]);

  const value = useMemo(
    () => ({ open, setOpen, openMobile, setOpenMobile, isMobile, toggleSidebar }),
    [open, setOpen, openMobile, isMobile, toggleSidebar],
  );
  return <SidebarContext value={value}>{children}</SidebarContext>;
}

export function useSidebar(): SidebarContextValue {
  const context = use(SidebarContext);
  if (!context) throw new Error('useSidebar must be used inside SidebarProvider');
  return context;
}
