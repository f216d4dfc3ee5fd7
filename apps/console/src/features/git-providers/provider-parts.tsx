import type { GitConnection, GitProvider } from '@launchbay/contract';
import { ArrowLeft, TriangleAlert } from 'lucide-react';
import { Link } from 'react-router';
import { GIT_PROVIDER_LABEL } from '@/components/git/git-provider-icon';
import { Badge } from '@/components/ui/badge';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { cn } from '@/lib/utils';
import { AUTH_METHOD_LABEL, GIT_SOURCES_PATH } from './model';

export function BackToGitProviders() {
  return (
    <Link
      to={GIT_SOURCES_PATH}
      className="inline-flex w-fit items-center gap-1.5 rounded-sm text-muted-foreground text-sm outline-none transition-colors hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring/50"
    >
      <ArrowLeft className="size-4" />
      Git providers
    </Link>
  );
}

/** Host, how it authenticates, and whether an OAuth sign-in is still open. */
export function ProviderBadges({ provider }: { provider: GitProvider }) {
  return (
    <span className="flex flex-wrap items-center gap-1.5">
      <Badge variant="secondary">{GIT_PROVIDER_LABEL[provider.provider_type]}</Badge>
      <Badge variant="outline" className="font-normal">
        {provider.auth_method === 'pat' ? 'Token' : 'OAuth'}
      </Badge>
      {provider.is_active ? null : <Badge variant="warning">Not authorised</Badge>}
    </span>
  );
}

export function authMethodLabel(provider: GitProvider): string {
  return AUTH_METHOD_LABEL[provider.auth_method];
}

/** What the host says the credential may do. */
export function ScopeList({ scopes, className }: { scopes: string[]; className?: string }) {
  if (scopes.length === 0) return <span className={cn('text-muted-foreground text-xs', className)}>None reported</span>;
  return (
    <span className={cn('flex flex-wrap gap-1', className)}>
      {scopes.map((scope) => (
        <Badge key={scope} variant="outline" className="font-mono font-normal">
          {scope}
        </Badge>
      ))}
    </span>
  );
}

export function lastSyncedText(connection: Pick<GitConnection, 'last_synced_at'>): string {
  return connection.last_synced_at ? `Synced ${formatRelativeTime(connection.last_synced_at)}` : 'Never synced';
}

export function LastSynced({ connection, className }: { connection: GitConnection; className?: string }) {
  return (
    <span className={className} title={connection.last_synced_at ? formatDateTime(connection.last_synced_at) : undefined}>
      {lastSyncedText(connection)}
    </span>
  );
}

/** Why the last sync failed (a revoked token, say), as a warning. */
export function SyncError({ error, className }: { error: string | null; className?: string }) {
  if (!error) return null;
  return (
    <p
      role="status"
      className={cn(
        'flex items-start gap-2 rounded-lg border border-warning/50 bg-warning/10 px-3 py-2 text-amber-800 text-xs dark:text-warning',
        className,
      )}
    >
      <TriangleAlert className="mt-px size-3.5 shrink-0" />
      <span className="min-w-0 break-words">
        <span className="font-medium">Last sync failed:</span> {error}
      </span>
    </p>
  );
}

export function repositoryCount(n: number): string {
  return `${n} ${n === 1 ? 'repository' : 'repositories'}`;
}
