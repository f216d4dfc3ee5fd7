import type { GitConnection, GitProvider } from '@launchbay/contract';
import { CheckCircle2, KeyRound, MoreHorizontal, RefreshCw, Unplug } from 'lucide-react';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuTrigger } from '@/components/ui/dropdown-menu';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail } from '@/lib/api';
import { useCanManage, useIsAdmin } from '@/lib/roles';
import { toast } from '@/lib/toast';
import { initials } from '@/lib/utils';
import { useDeleteConnection, useSyncConnection } from './api';
import { LastSynced, repositoryCount, SyncError } from './provider-parts';
import { UpdateTokenDialog } from './update-token-dialog';

/** One account a provider acts as: its repository count and last sync, with Sync, Update token and Remove. */
export function ConnectionCard({ connection, provider }: { connection: GitConnection; provider: GitProvider }) {
  const isAdmin = useIsAdmin();
  const canSync = useCanManage();
  const sync = useSyncConnection();
  const remove = useDeleteConnection();
  const [synced, setSynced] = useState<number | null>(null);
  const [updatingToken, setUpdatingToken] = useState(false);
  const [removing, setRemoving] = useState(false);

  const runSync = async () => {
    setSynced(null);
    try {
      const result = await sync.mutateAsync(connection.id);
      setSynced(result.repository_count);
      toast.success('Repositories synced', {
        description: `${repositoryCount(result.repository_count)} from @${connection.account_login}.`,
      });
    } catch (error) {
      toast.error('Failed to sync repositories', { description: errorDetail(error) });
    }
  };

  const confirmRemove = async () => {
    try {
      await remove.mutateAsync(connection.id);
      toast.success('Connection removed', { description: `@${connection.account_login}` });
      setRemoving(false);
    } catch (error) {
      toast.error('Failed to remove connection', { description: errorDetail(error) });
      setRemoving(false);
    }
  };

  return (
    <li className="grid gap-3 p-4" data-testid={`git-connection-${connection.id}`}>
      <div className="flex flex-wrap items-start gap-3">
        <span
          aria-hidden
          className="flex size-9 shrink-0 items-center justify-center rounded-full bg-muted font-medium text-muted-foreground text-xs"
        >
          {initials(connection.account_login)}
        </span>
        <div className="grid min-w-0 flex-1 gap-0.5">
          <p className="flex flex-wrap items-center gap-2">
            <span className="truncate font-medium">@{connection.account_login}</span>
            <Badge variant="outline" className="font-normal text-muted-foreground">
              {connection.account_type}
            </Badge>
          </p>
          <p className="text-muted-foreground text-xs">
            <span className="font-medium text-foreground">{repositoryCount(connection.repository_count)}</span> ·{' '}
            <LastSynced connection={connection} />
          </p>
        </div>
        <div className="flex shrink-0 items-center gap-1.5">
          {canSync ? (
            <Button variant="outline" size="sm" onClick={() => void runSync()} disabled={sync.isPending}>
              {sync.isPending ? <Spinner label="Syncing" /> : <RefreshCw />}
              {sync.isPending ? 'Syncing…' : 'Sync'}
            </Button>
          ) : null}
          {isAdmin && provider.auth_method === 'pat' ? (
            <Button variant="outline" size="sm" onClick={() => setUpdatingToken(true)}>
              <KeyRound />
              Update token
            </Button>
          ) : null}
          {isAdmin ? (
            <DropdownMenu modal={false}>
              <DropdownMenuTrigger asChild>
                <Button variant="ghost" size="icon-sm" aria-label={`More for @${connection.account_login}`}>
                  <MoreHorizontal />
                </Button>
              </DropdownMenuTrigger>
              <DropdownMenuContent align="end" className="w-48">
                <DropdownMenuItem variant="destructive" onSelect={() => setRemoving(true)}>
                  <Unplug />
                  Remove connection
                </DropdownMenuItem>
              </DropdownMenuContent>
            </DropdownMenu>
          ) : null}
        </div>
      </div>
      {synced !== null && !sync.isPending ? (
        <p className="flex items-center gap-1.5 text-success text-xs" aria-live="polite">
          <CheckCircle2 className="size-3.5" />
          Synced: {repositoryCount(synced)} found.
        </p>
      ) : null}
      <SyncError error={connection.sync_error} />
      {isAdmin && provider.auth_method === 'pat' ? (
        <UpdateTokenDialog
          connection={connection}
          type={provider.provider_type}
          open={updatingToken}
          onOpenChange={setUpdatingToken}
        />
      ) : null}
      <ConfirmDialog
        open={removing}
        onOpenChange={setRemoving}
        title={`Remove @${connection.account_login}?`}
        description="Its synced repositories are removed from Launchbay; the provider and its token stay. Refused while projects deploy from it."
        confirmLabel="Remove connection"
        onConfirm={confirmRemove}
      />
    </li>
  );
}
