import { AlertTriangle, RefreshCw } from 'lucide-react';
import { Button, buttonVariants } from '@/components/ui/button';
import { cn } from '@/lib/utils';
import type { FallbackProps } from './error-boundary';

/** Root fallback: spec 'Something went wrong' / 'An error occurred while rendering this component.' */
export function RootErrorFallback({ reset }: FallbackProps) {
  return (
    <div role="alert" className="flex min-h-svh items-center justify-center bg-background p-6">
      <div className="max-w-md text-center">
        <div className="mx-auto mb-5 flex size-12 items-center justify-center rounded-full bg-destructive/10 text-destructive">
          <AlertTriangle className="size-6" />
        </div>
        <h1 className="font-semibold text-xl tracking-tight">Something went wrong</h1>
        <p className="mt-2 text-muted-foreground text-sm">An error occurred while rendering this component.</p>
        <Button className="mt-6" onClick={reset}>
          <RefreshCw />
          Try again
        </Button>
      </div>
    </div>
  );
}

/** Page-level variant, rendered inside the shell so navigation stays usable. */
export function PageErrorFallback({ reset }: FallbackProps) {
  return (
    <div role="alert" className="flex flex-1 items-center justify-center p-6 py-16">
      <div className="max-w-md text-center">
        <div className="mx-auto mb-5 flex size-12 items-center justify-center rounded-full bg-destructive/10 text-destructive">
          <AlertTriangle className="size-6" />
        </div>
        <h2 className="font-semibold text-lg tracking-tight">Something went wrong</h2>
        <p className="mt-2 text-muted-foreground text-sm">An unexpected error occurred while rendering this page</p>
        <Button className="mt-6" variant="outline" onClick={reset}>
          <RefreshCw />
          Try again
        </Button>
      </div>
    </div>
  );
}

/** Full-page variant with the error's details and a way home (also used for chunk load failures). */
export function FullPageErrorFallback({
  error,
  reset,
  inShell = false,
}: Partial<FallbackProps> & { error: Error; inShell?: boolean }) {
  // Inside the shell it fills the content area (the sidebar and header stay); alone, the viewport.
  const Wrapper = inShell ? 'div' : 'main';
  return (
    <Wrapper
      role="alert"
      className={cn('flex items-center justify-center p-6', inShell ? 'flex-1 py-16' : 'min-h-svh bg-muted/40')}
    >
      <div className="w-full max-w-lg rounded-xl border bg-card p-8 shadow-sm">
        <div className="mb-5 flex size-12 items-center justify-center rounded-full bg-destructive/10 text-destructive">
          <AlertTriangle className="size-6" />
        </div>
        <h1 className="font-semibold text-xl tracking-tight">Something went wrong</h1>
        <p className="mt-2 text-muted-foreground text-sm">An unexpected error occurred while rendering this page</p>
        <div className="mt-5 rounded-lg border bg-muted/50 p-4">
          <p className="font-medium text-xs uppercase tracking-wide text-muted-foreground">Error Details</p>
          <pre className="mt-2 max-h-40 overflow-auto whitespace-pre-wrap break-words font-mono text-xs">
            {error.name}: {error.message}
          </pre>
        </div>
        <div className="mt-6 flex flex-wrap gap-2">
          <a href="/dashboard" className={cn(buttonVariants())}>
            Back to Dashboard
          </a>
          <Button variant="outline" onClick={reset ?? (() => window.location.reload())}>
            <RefreshCw />
            Try again
          </Button>
        </div>
      </div>
    </Wrapper>
  );
}

/** Component-level fallback: '{component} Error' with a retry. */
export function ComponentErrorFallback({
  component,
  reset,
  className,
}: FallbackProps & { component: string; className?: string }) {
  return (
    <div
      role="alert"
      className={cn(
        'flex flex-col items-start gap-2 rounded-lg border border-destructive/30 bg-destructive/5 p-4 text-sm',
        className,
      )}
    >
      <div className="flex items-center gap-2 font-medium text-destructive">
        <AlertTriangle className="size-4" />
        {component} Error
      </div>
      <p className="text-muted-foreground">This section failed to render.</p>
      <Button size="sm" variant="outline" onClick={reset}>
        <RefreshCw />
        Retry
      </Button>
    </div>
  );
}

export function SidebarErrorFallback({ reset }: FallbackProps) {
  return (
    <div className="hidden w-64 shrink-0 border-r bg-sidebar p-3 md:block">
      <ComponentErrorFallback component="Sidebar" reset={reset} error={new Error('Sidebar')} />
      <a href="/dashboard" className="mt-3 block px-1 text-muted-foreground text-sm underline underline-offset-4">
        Back to Dashboard
      </a>
    </div>
  );
}

export function HeaderErrorFallback({ reset }: FallbackProps) {
  return (
    <div className="flex h-14 items-center gap-3 border-b px-4 text-sm">
      <span className="flex items-center gap-2 font-medium text-destructive">
        <AlertTriangle className="size-4" />
        Header Error
      </span>
      <Button size="sm" variant="ghost" onClick={reset}>
        Retry
      </Button>
    </div>
  );
}
