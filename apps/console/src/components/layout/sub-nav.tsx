import { type RefObject, useLayoutEffect, useRef } from 'react';
import { NavLink, useLocation } from 'react-router';
import { cn } from '@/lib/utils';

export interface SubNavItem {
  title: string;
  to: string;
  /** Active only on exactly this path (default); false: also on the pages below it. */
  end?: boolean;
}

/**
 * A row of links that scrolls sideways on a small screen keeps its current link in view, so the page
 * one is on is never the tab cut off at the edge. Only the row scrolls, never the page.
 */
export function useCurrentLinkInView(row: RefObject<HTMLElement | null>): void {
  const { pathname } = useLocation();
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs again when the current page (so the current link) changes
  useLayoutEffect(() => {
    const nav = row.current;
    const current = nav?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!nav || !current || nav.scrollWidth <= nav.clientWidth) return;
    // Where the link sits in the row's scrolled content.
    const left = current.getBoundingClientRect().left - nav.getBoundingClientRect().left + nav.scrollLeft;
    if (left < nav.scrollLeft || left + current.offsetWidth > nav.scrollLeft + nav.clientWidth) {
      nav.scrollLeft = Math.max(0, left - (nav.clientWidth - current.offsetWidth) / 2);
    }
  }, [pathname, row]);
}

/** Tab-style links between sibling pages of one area (each tab is its own route, so it is linkable). */
export function SubNav({ items, label }: { items: SubNavItem[]; label: string }) {
  const row = useRef<HTMLElement>(null);
  useCurrentLinkInView(row);
  return (
    <nav ref={row} aria-label={label} className="-mt-2 overflow-x-auto border-b">
      <ul className="flex min-w-max gap-1">
        {items.map((item) => (
          <li key={item.to}>
            <NavLink
              to={item.to}
              end={item.end ?? true}
              className={({ isActive }) =>
                cn(
                  '-mb-px inline-flex h-10 items-center border-b-2 px-3 font-medium text-sm outline-none transition-colors focus-visible:ring-2 focus-visible:ring-ring/50',
                  isActive
                    ? 'border-foreground text-foreground'
                    : 'border-transparent text-muted-foreground hover:border-border hover:text-foreground',
                )
              }
            >
              {item.title}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** /settings and /settings/audit-logs share these tabs. */
export const SETTINGS_TABS: SubNavItem[] = [
  { title: 'Settings', to: '/settings' },
  { title: 'Audit Logs', to: '/settings/audit-logs' },
];

export function SettingsNav() {
  return <SubNav items={SETTINGS_TABS} label="Settings sections" />;
}
