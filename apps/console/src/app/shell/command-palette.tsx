import Fuse from 'fuse.js';
import { ArrowRight, FolderGit2, FolderOpen, LogOut, Plus, SunMoon, UserRound } from 'lucide-react';
import { Dialog as DialogPrimitive } from 'radix-ui';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { ProjectAvatar } from '@/components/project-avatar';
import {
  Command,
  CommandEmpty,
  CommandGroup,
  CommandInput,
  CommandItem,
  CommandList,
  CommandSeparator,
} from '@/components/ui/command';
import { useLogout } from '@/features/auth/use-logout';
import { PALETTE_PROJECTS_PER_PAGE } from '@/lib/constants';
import { useProjects } from '@/lib/projects';
import { MAIN_NAV, PROJECT_PAGES, projectSlugFromPath, QUICK_ACTIONS, SETTINGS_NAV } from '../navigation';
import { useTheme } from '../theme';
import { useCommandPalette } from './command-palette-context';

interface PaletteItem {
  id: string;
  group: string;
  title: string;
  url: string;
  keywords: string[];
  icon: ReactNode;
  run?: () => void;
}

/** Spec section 2: fuzzy search over title, url and keywords with threshold 0.3. */
const FUSE_OPTIONS = {
  keys: ['title', 'url', 'keywords'],
  threshold: 0.3,
  ignoreLocation: true,
};

export function CommandPalette() {
  const { open, setOpen } = useCommandPalette();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const { resolvedTheme, setTheme } = useTheme();
  const { logout } = useLogout();
  const [search, setSearch] = useState('');
  const projects = useProjects(1, PALETTE_PROJECTS_PER_PAGE, { enabled: open });
  const { refetch } = projects;

  // Refetch the project list each time the palette opens.
  useEffect(() => {
    if (open) void refetch();
    else setSearch('');
  }, [open, refetch]);

  const slug = projectSlugFromPath(pathname);

  const items = useMemo<PaletteItem[]>(() => {
    const list: PaletteItem[] = [];
    for (const item of MAIN_NAV) {
      const Icon = item.icon;
      list.push({
        id: `nav:${item.url}`,
        group: 'Navigation',
        title: item.title,
        url: item.url,
        keywords: item.keywords ?? [],
        icon: <Icon />,
      });
    }
    for (const item of SETTINGS_NAV) {
      const Icon = item.icon;
      list.push({
        id: `settings:${item.url}`,
        group: 'Settings',
        title: item.title,
        url: item.url,
        keywords: item.keywords ?? [],
        icon: <Icon />,
      });
    }
    list.push({
      id: 'account:profile',
      group: 'Account',
      title: 'Account',
      url: '/account',
      keywords: ['profile', 'password', 'mfa', 'two-factor', 'avatar'],
      icon: <UserRound />,
    });
    list.push({
      id: 'account:logout',
      group: 'Account',
      title: 'Log out',
      url: '/logout',
      keywords: ['sign out', 'exit'],
      icon: <LogOut />,
      run: () => void logout(),
    });
    for (const project of projects.data?.projects ?? []) {
      list.push({
        id: `project:${project.id}`,
        group: 'Projects',
        title: project.name,
        url: `/projects/${encodeURIComponent(project.slug)}`,
        keywords: [project.slug, 'project'],
        icon: <ProjectAvatar project={project} className="size-4 text-[9px]" />,
      });
    }
    list.push({
      id: 'projects:all',
      group: 'Projects',
      title: 'All Projects',
      url: '/projects',
      keywords: ['projects', 'list'],
      icon: <FolderOpen />,
    });
    if (slug) {
      for (const page of PROJECT_PAGES) {
        list.push({
          id: `current:${page.path}`,
          group: `Project: ${slug}`,
          title: page.title,
          url: `/projects/${encodeURIComponent(slug)}${page.path}`,
          keywords: [slug, ...(page.keywords ?? [])],
          icon: <FolderGit2 />,
        });
      }
    }
    for (const action of QUICK_ACTIONS) {
      list.push({
        id: `action:${action.url}`,
        group: 'Actions',
        title: action.title,
        url: action.url,
        keywords: ['create', 'new', 'add'],
        icon: <Plus />,
      });
    }
    list.push({
      id: 'action:theme',
      group: 'Actions',
      title: 'Toggle Theme',
      url: '#theme',
      keywords: ['dark', 'light', 'mode', 'appearance'],
      icon: <SunMoon />,
      run: () => setTheme(resolvedTheme === 'dark' ? 'light' : 'dark'),
    });
    return list;
  }, [projects.data, slug, logout, resolvedTheme, setTheme]);

  const fuse = useMemo(() => new Fuse(items, FUSE_OPTIONS), [items]);
  const query = search.trim();
  const results = query ? fuse.search(query).map((result) => result.item) : items;

  const groups = useMemo(() => {
    const map = new Map<string, PaletteItem[]>();
    const order = ['Navigation', 'Settings', 'Account', 'Projects'];
    if (slug) order.push(`Project: ${slug}`);
    order.push('Actions');
    for (const name of order) map.set(name, []);
    for (const item of results) map.get(item.group)?.push(item);
    return [...map.entries()].filter(([, list]) => list.length > 0);
  }, [results, slug]);

  const select = (item: PaletteItem) => {
    setOpen(false);
    if (item.run) item.run();
    else navigate(item.url);
  };

  return (
    <DialogPrimitive.Root open={open} onOpenChange={setOpen}>
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className="fixed inset-0 z-50 bg-black/50 data-[state=open]:animate-overlay" />
        <DialogPrimitive.Content
          aria-describedby={undefined}
          className="fixed top-[12svh] left-1/2 z-50 w-[calc(100%-2rem)] max-w-xl -translate-x-1/2 overflow-hidden rounded-xl border bg-popover shadow-2xl outline-none data-[state=open]:animate-in"
        >
          <DialogPrimitive.Title className="sr-only">Command palette</DialogPrimitive.Title>
          <Command shouldFilter={false} loop>
            <CommandInput placeholder="Type a command or search..." value={search} onValueChange={setSearch} />
            <CommandList>
              <CommandEmpty>No results found.</CommandEmpty>
              {groups.map(([name, list], index) => (
                <div key={name}>
                  {index > 0 ? <CommandSeparator /> : null}
                  <CommandGroup heading={name}>
                    {list.map((item) => (
                      <CommandItem key={item.id} value={item.id} className="group" onSelect={() => select(item)}>
                        {item.icon}
                        <span className="truncate">{item.title}</span>
                        {item.run ? null : (
                          <ArrowRight className="ml-auto size-3.5 opacity-0 group-data-[selected=true]:opacity-100" />
                        )}
                      </CommandItem>
                    ))}
                  </CommandGroup>
                </div>
              ))}
            </CommandList>
            <div className="flex items-center gap-3 border-t px-3 py-2 text-muted-foreground text-xs">
              <span>
                <kbd className="rounded border bg-muted px-1 font-mono">↑↓</kbd> to navigate
              </span>
              <span>
                <kbd className="rounded border bg-muted px-1 font-mono">↵</kbd> to select
              </span>
              <span className="ml-auto">
                <kbd className="rounded border bg-muted px-1 font-mono">esc</kbd> to close
              </span>
            </div>
          </Command>
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}
