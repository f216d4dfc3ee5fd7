import { NavLink } from 'react-router';
import { cn } from '@/lib/utils';

export interface SubNavItem {
  title: string;
  to: string;
  /** Active only on exactly this path (default); false: also on the pages below it. */
  end?: boolean;
}

/** Tab-style links between sibling pages of one area (each tab is its own route, so it is linkable). */
export function SubNav({ items, label }: { items: SubNavItem[]; label: string }) {
  return (
    <nav aria-label={label} className="-mt-2 overflow-x-auto border-b">
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
