import { RefreshCw, ServerCrash, WifiOff } from 'lucide-react';
import type { ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { useDocumentTitle } from '@/lib/document-title';

export function FullScreenLoader({ message }: { message?: string }) {
  return (
    <div className="flex min-h-svh flex-col items-center justify-center gap-3 bg-background text-muted-foreground">
      <Spinner className="size-6 text-foreground/70" label={message ?? 'Loading'} />
      {message ? <p className="text-sm">{message}</p> : null}
    </div>
  );
}

function StatusScreen({
  icon,
  title,
  description,
  action,
  children,
}: {
  icon: ReactNode;
  title: string;
  description: string;
  action: ReactNode;
  children?: ReactNode;
}) {
  useDocumentTitle(title);
  return (
    <main className="flex min-h-svh items-center justify-center bg-muted/40 p-6">
      <div className="w-full max-w-md rounded-xl border bg-card p-8 text-center shadow-sm">
        <div className="mx-auto mb-5 flex size-12 items-center justify-center rounded-full bg-muted text-muted-foreground">
          {icon}
        </div>
        <h1 className="font-semibold text-xl tracking-tight">{title}</h1>
        <p className="mt-2 text-muted-foreground text-sm leading-relaxed">{description}</p>
        {children}
        <div className="mt-6 flex justify-center">{action}</div>
      </div>
    </main>
  );
}

export function CannotConnectScreen({ onRetry, retrying }: { onRetry: () => void; retrying: boolean }) {
  return (
    <StatusScreen
      icon={<WifiOff className="size-6" />}
      title="Cannot Connect to Server"
      description="Launchbay's server is not answering. It may be stopped, restarting or unreachable from this network. Your work is safe; reconnect once it is back."
      action={
        <Button onClick={onRetry} disabled={retrying}>
          {retrying ? <Spinner /> : <RefreshCw />}
          Retry Connection
        </Button>
      }
    />
  );
}

export function ServerErrorScreen({ detail, onRetry, retrying }: { detail?: string; onRetry: () => void; retrying: boolean }) {
  return (
    <StatusScreen
      icon={<ServerCrash className="size-6" />}
      title="Server Error"
      description="The server answered with an unexpected error while checking your session."
      action={
        <Button onClick={onRetry} disabled={retrying}>
          {retrying ? <Spinner /> : <RefreshCw />}
          Retry
        </Button>
      }
    >
      {detail ? (
        <p className="mt-4 rounded-md border bg-muted/60 px-3 py-2 text-left font-mono text-muted-foreground text-xs">{detail}</p>
      ) : null}
    </StatusScreen>
  );
}
