import { Outlet, useLocation, useNavigation } from 'react-router';
import { ErrorBoundary } from '@/components/errors/error-boundary';
import { HeaderErrorFallback, PageErrorFallback, SidebarErrorFallback } from '@/components/errors/fallbacks';
import { TooltipProvider } from '@/components/ui/tooltip';
import { AppHeader } from './app-header';
import { AppSidebar } from './app-sidebar';
import { CommandPalette } from './command-palette';
import { CommandPaletteProvider } from './command-palette-context';
import { SidebarProvider } from './sidebar-context';

function NavigationProgress() {
  const navigation = useNavigation();
  if (navigation.state === 'idle') return null;
  return (
    <div role="progressbar" aria-label="Loading page" className="fixed inset-x-0 top-0 z-[60] h-0.5 animate-pulse bg-primary" />
  );
}

export function AppShell() {
  const { pathname } = useLocation();
  return (
    <TooltipProvider delayDuration={200}>
      <SidebarProvider>
        <CommandPaletteProvider>
          <NavigationProgress />
          <a
            href="#main"
            className="sr-only z-50 rounded-md bg-background px-3 py-2 focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
          >
            Skip to content
          </a>
          <div className="flex min-h-svh w-full bg-background">
            <ErrorBoundary fallback={(props) => <SidebarErrorFallback {...props} />}>
              <AppSidebar />
            </ErrorBoundary>
            <div className="flex min-w-0 flex-1 flex-col">
              <ErrorBoundary fallback={(props) => <HeaderErrorFallback {...props} />}>
                <AppHeader />
              </ErrorBoundary>
              <main id="main" className="flex flex-1 flex-col">
                <ErrorBoundary resetKeys={[pathname]} fallback={(props) => <PageErrorFallback {...props} />}>
                  <Outlet />
                </ErrorBoundary>
              </main>
            </div>
          </div>
          <CommandPalette />
        </CommandPaletteProvider>
      </SidebarProvider>
    </TooltipProvider>
  );
}
