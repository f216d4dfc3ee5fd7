import { ChevronRight, Plus } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import { ProjectAvatar } from '@/components/project-avatar';
import { Sheet, SheetContent, SheetDescription, SheetTitle } from '@/components/ui/sheet';
import { Skeleton } from '@/components/ui/skeleton';
import { Tooltip, TooltipContent, TooltipTrigger } from '@/components/ui/tooltip';
import { LaunchbayMark } from '@/features/auth/auth-layout';
import {
  PRODUCT_NAME,
  SIDEBAR_PROJECTS_PER_PAGE,
  SIDEBAR_WIDTH,
  SIDEBAR_WIDTH_MINIMAL,
  SIDEBAR_WIDTH_MOBILE,
  VERSION_LABEL,
} from '@/lib/constants';
import { useProjects } from '@/lib/projects';
import { cn } from '@/lib/utils';
import { activeNavUrl, MAIN_NAV, type NavItem, projectSlugFromPath, SETTINGS_NAV } from '../navigation';
import { useSidebar } from './sidebar-context';
import { UserMenu } from './user-menu';

function WithTooltip({ collapsed, label, children }: { collapsed: boolean; label: string; children: ReactNode }) {
  if (!collapsed) return children;
  return (
    <Tooltip>
      <TooltipTrigger asChild>{children}</TooltipTrigger>
      <TooltipContent side="right">{label}</TooltipContent>
    </Tooltip>
  );
}

const itemClass =
  'flex h-8 w-full items-center gap-2 overflow-hidden rounded-md px-2 text-left text-sm outline-none ring-sidebar-ring transition-colors hover:bg-sidebar-accent hover:text-sidebar-accent-foreground focus-visible:ring-2 [&>svg]:size-4 [&>svg]:shrink-0';

function NavLink({ item, active, collapsed }: { item: NavItem; active: boolean; collapsed: boolean }) {
  const Icon = item.icon;
  return (
    <li>
      <WithTooltip collapsed={collapsed} label={item.title}>
        <Link
          to={item.url}
          aria-current={active ? 'page' : undefined}
          aria-label={collapsed ? item.title : undefined}
          className={cn(
            itemClass,
            active && 'bg-sidebar-accent font-medium text-sidebar-accent-foreground',
            collapsed && 'justify-center px-0',
          )}
        >
          <Icon className={cn(active ? 'text-sidebar-accent-foreground' : 'text-muted-foreground')} />
          {collapsed ? null : <span className="truncate">{item.title}</span>}
        </Link>
      </WithTooltip>
    </li>
  );
}

function NavGroup({ label, collapsed, children }: { label: string; collapsed: boolean; children: ReactNode }) {
  return (
    <div className="px-2 py-2">
      <div
        className={cn(
          'flex h-8 items-center px-2 font-medium text-muted-foreground text-xs transition-opacity',
          collapsed && 'h-0 overflow-hidden opacity-0',
        )}
      >
        {label}
      </div>
      <ul className="flex flex-col gap-0.5">{children}</ul>
    </div>
  );
}

function ProjectsGroup({ collapsed }: { collapsed: boolean }) {
  const { pathname } = useLocation();
  const currentSlug = projectSlugFromPath(pathname);
  const { data, isPending, isError } = useProjects(1, SIDEBAR_PROJECTS_PER_PAGE);
  const projects = data?.projects ?? [];

  return (
    <NavGroup label="Projects" collapsed={collapsed}>
      {isPending
        ? Array.from({ length: 2 }, (_, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
            <li key={index} className="px-2 py-1.5">
              <Skeleton className="h-4 w-full" />
            </li>
          ))
        : null}
      {projects.map((project) => {
        const active = currentSlug === project.slug;
        return (
          <li key={project.id}>
            <WithTooltip collapsed={collapsed} label={project.name}>
              <Link
                to={`/projects/${encodeURIComponent(project.slug)}`}
                aria-current={active ? 'page' : undefined}
                aria-label={collapsed ? project.name : undefined}
                className={cn(itemClass, active && 'bg-sidebar-accent font-medium', collapsed && 'justify-center px-0')}
              >
                <ProjectAvatar project={project} className="size-4 text-[9px]" />
                {collapsed ? null : <span className="truncate">{project.name}</span>}
              </Link>
            </WithTooltip>
          </li>
        );
      })}
      {!isPending && !isError && projects.length === 0 && !collapsed ? (
        <li>
          <Link to="/projects/new" className={cn(itemClass, 'text-muted-foreground')}>
            <Plus />
            <span className="truncate">No projects yet</span>
          </Link>
        </li>
      ) : null}
      <li>
        <WithTooltip collapsed={collapsed} label="More">
          <Link
            to="/projects"
            aria-label={collapsed ? 'More projects' : undefined}
            className={cn(itemClass, 'text-muted-foreground', collapsed && 'justify-center px-0')}
          >
            <ChevronRight />
            {collapsed ? null : <span>More</span>}
          </Link>
        </WithTooltip>
      </li>
    </NavGroup>
  );
}

function SidebarBody({ collapsed }: { collapsed: boolean }) {
  const { pathname } = useLocation();
  const active = activeNavUrl(pathname);
  return (
    <>
      <div className={cn('flex h-14 shrink-0 items-center gap-2 px-4', collapsed && 'justify-center px-0')}>
        <Link
          to="/dashboard"
          aria-label={`${PRODUCT_NAME} home`}
          className="flex items-center gap-2 rounded-md outline-none focus-visible:ring-2 focus-visible:ring-sidebar-ring"
        >
          <LaunchbayMark className="size-7 shrink-0 text-sidebar-primary" />
          {collapsed ? null : (
            <span className="grid leading-tight">
              <span className="font-semibold text-sm">{PRODUCT_NAME}</span>
              <span className="text-muted-foreground text-xs">Deployment platform</span>
            </span>
          )}
        </Link>
      </div>
      <nav aria-label="Main" className="flex min-h-0 flex-1 flex-col overflow-y-auto overflow-x-hidden">
        <NavGroup label="Platform" collapsed={collapsed}>
          {MAIN_NAV.map((item) => (
            <NavLink key={item.url} item={item} active={active === item.url} collapsed={collapsed} />
          ))}
        </NavGroup>
        <ProjectsGroup collapsed={collapsed} />
        <NavGroup label="Settings" collapsed={collapsed}>
          {SETTINGS_NAV.map((item) => (
            <NavLink key={item.url} item={item} active={active === item.url} collapsed={collapsed} />
          ))}
        </NavGroup>
      </nav>
      <div className="shrink-0 border-sidebar-border border-t p-2">
        <UserMenu collapsed={collapsed} />
        {collapsed ? null : (
          <p className="px-2 pt-1 text-[11px] text-muted-foreground" data-testid="version-label">
            {VERSION_LABEL}
          </p>
        )}
      </div>
    </>
  );
}

export function AppSidebar() {
  const { open, isMobile, openMobile, setOpenMobile } = useSidebar();

  if (isMobile) {
    return (
      <Sheet open={openMobile} onOpenChange={setOpenMobile}>
        <SheetContent
          side="left"
          className="bg-sidebar p-0 text-sidebar-foreground"
          style={{ width: SIDEBAR_WIDTH_MOBILE, maxWidth: '85vw' }}
        >
          <SheetTitle className="sr-only">Navigation</SheetTitle>
          <SheetDescription className="sr-only">Main navigation for {PRODUCT_NAME}</SheetDescription>
          <div
            data-testid="sidebar"
            data-state={openMobile ? 'expanded' : 'collapsed'}
            data-mobile="true"
            className="flex h-full flex-col"
          >
            <SidebarBody collapsed={false} />
          </div>
        </SheetContent>
      </Sheet>
    );
  }

  const collapsed = !open;
  return (
    <aside
      data-testid="sidebar"
      data-state={collapsed ? 'collapsed' : 'expanded'}
      aria-label="Sidebar"
      className="sticky top-0 flex h-svh shrink-0 flex-col border-sidebar-border border-r bg-sidebar text-sidebar-foreground transition-[width] duration-200 ease-linear"
      style={{ width: collapsed ? SIDEBAR_WIDTH_MINIMAL : SIDEBAR_WIDTH }}
    >
      <SidebarBody collapsed={collapsed} />
    </aside>
  );
}
