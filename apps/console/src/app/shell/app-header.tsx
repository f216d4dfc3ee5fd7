import { ChevronRight, PanelLeft, Plus, Search } from 'lucide-react';
import { Fragment } from 'react';
import { Link, useLocation } from 'react-router';
import { Button } from '@/components/ui/button';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { Separator } from '@/components/ui/separator';
import { usePageTitle } from '@/lib/document-title';
import { cn } from '@/lib/utils';
import { QUICK_ACTIONS } from '../navigation';
import { breadcrumbsFor } from './breadcrumbs';
import { useCommandPalette } from './command-palette-context';
import { useSidebar } from './sidebar-context';
import { ThemeMenu } from './theme-menu';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

function Breadcrumbs() {
  const { pathname } = useLocation();
  const pageTitle = usePageTitle();
  const crumbs = breadcrumbsFor(pathname);
  // A page whose path ends in an id (/domains/7) is named by its own title (shop.example.com).
  const lastCrumb = crumbs.at(-1);
  if (lastCrumb && /^#\d+$/.test(lastCrumb.label) && pageTitle) lastCrumb.label = pageTitle;
  return (
    <nav aria-label="Breadcrumb" className="min-w-0">
      <ol className="flex min-w-0 items-center gap-1.5 text-muted-foreground text-sm">
        {crumbs.map((crumb, index) => {
          const last = index === crumbs.length - 1;
          return (
            <Fragment key={crumb.to}>
              {index > 0 ? (
                <li aria-hidden="true" className={cn(!last && 'hidden sm:block')}>
                  <ChevronRight className="size-3.5" />
                </li>
              ) : null}
              <li
                className={cn(
                  'min-w-0',
                  // A parent keeps its own width (up to a quarter of the screen): a long current page is cut,
                  // not "Pr…" before it. (A share of the list's width would be of a width its items make.)
                  !last && 'max-w-[25vw] shrink-0',
                  // On small screens keep only the last two crumbs (and the chevron between them).
                  index < crumbs.length - 2 && 'hidden sm:block',
                )}
              >
                {last ? (
                  <span aria-current="page" className="block truncate font-medium text-foreground">
                    {crumb.label}
                  </span>
                ) : (
                  <Link to={crumb.to} className="block truncate transition-colors hover:text-foreground">
                    {crumb.label}
                  </Link>
                )}
              </li>
            </Fragment>
          );
        })}
      </ol>
    </nav>
  );
}

export function AppHeader() {
  const { toggleSidebar } = useSidebar();
  const { setOpen: setPaletteOpen } = useCommandPalette();

  return (
    <header className="sticky top-0 z-30 flex h-14 shrink-0 items-center gap-2 border-b bg-background/85 px-3 backdrop-blur supports-[backdrop-filter]:bg-background/70 sm:px-4">
      <Button variant="ghost" size="icon" className="-ml-1 size-8" aria-label="Toggle Sidebar" onClick={toggleSidebar}>
        <PanelLeft />
      </Button>
      <Separator orientation="vertical" className="mr-1 data-[orientation=vertical]:h-4" />
      <Breadcrumbs />
      <div className="ml-auto flex items-center gap-1.5">
        <Button
          variant="outline"
          size="sm"
          className="hidden h-8 w-52 justify-start gap-2 text-muted-foreground md:flex lg:w-64"
          onClick={() => setPaletteOpen(true)}
        >
          <Search />
          <span className="flex-1 text-left font-normal">Search...</span>
          <kbd className="pointer-events-none rounded border bg-muted px-1.5 font-mono text-[10px]">{isMac ? '⌘' : 'Ctrl'} K</kbd>
        </Button>
        <Button variant="ghost" size="icon" className="size-8 md:hidden" aria-label="Search" onClick={() => setPaletteOpen(true)}>
          <Search />
        </Button>
        <DropdownMenu modal={false}>
          <DropdownMenuTrigger asChild>
            <Button size="sm" className="h-8" aria-label="Create new">
              <Plus />
              <span className="hidden sm:inline">Create new</span>
            </Button>
          </DropdownMenuTrigger>
          <DropdownMenuContent align="end" className="w-52">
            <DropdownMenuLabel>Quick Actions</DropdownMenuLabel>
            <DropdownMenuSeparator />
            {QUICK_ACTIONS.map((action) => (
              <DropdownMenuItem key={action.url} asChild>
                <Link to={action.url}>{action.title}</Link>
              </DropdownMenuItem>
            ))}
          </DropdownMenuContent>
        </DropdownMenu>
        <ThemeMenu />
      </div>
    </header>
  );
}
