import { useRef } from 'react';
import { NavLink, Outlet } from 'react-router';
import { useCurrentLinkInView } from '@/components/layout/sub-nav';
import { cn } from '@/lib/utils';
import { projectBase, useRouteProject } from './model';

const SECTIONS = [
  { title: 'General', path: 'general' },
  { title: 'Domains', path: 'domains' },
  { title: 'Environments', path: 'environments' },
  { title: 'Environment Variables', path: 'environment-variables' },
  { title: 'Git', path: 'git' },
  { title: 'Cron Jobs', path: 'cron-jobs' },
];

/** /projects/{slug}/settings/*: the sections' menu (a column on wide screens, a scrolling row on small ones) and the section. */
export default function ProjectSettingsLayout() {
  const { slug } = useRouteProject();
  const base = `${projectBase(slug)}/settings`;
  const row = useRef<HTMLElement>(null);
  useCurrentLinkInView(row);
  return (
    <div className="mx-auto grid w-full max-w-6xl flex-1 grid-cols-[minmax(0,1fr)] content-start gap-6 px-4 py-6 sm:px-6 lg:grid-cols-[12rem_minmax(0,1fr)] lg:gap-10 lg:px-8">
      <nav ref={row} aria-label="Project settings" className="-mx-4 overflow-x-auto px-4 sm:mx-0 sm:px-0">
        <ul className="flex min-w-max gap-1 lg:min-w-0 lg:flex-col">
          {SECTIONS.map((section) => (
            <li key={section.path}>
              <NavLink
                to={`${base}/${section.path}`}
                className={({ isActive }) =>
                  cn(
                    'flex h-8 items-center whitespace-nowrap rounded-md px-3 text-sm outline-none transition-colors focus-visible:ring-2 focus-visible:ring-ring/50',
                    isActive
                      ? 'bg-accent font-medium text-accent-foreground'
                      : 'text-muted-foreground hover:bg-accent/50 hover:text-foreground',
                  )
                }
              >
                {section.title}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className="min-w-0">
        <Outlet />
      </div>
    </div>
  );
}
