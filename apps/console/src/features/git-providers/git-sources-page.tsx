import type { GitConnection, GitProvider } from '@launchbay/contract';
import { FolderGit2, GitBranchPlus, Plus } from 'lucide-react';
import { Link } from 'react-router';
import { LoadFailed } from '@/components/errors/load-failed';
import { GitProviderIcon } from '@/components/git/git-provider-icon';
import { EmptyState, Page } from '@/components/layout/page';
import { buttonVariants } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Skeleton } from '@/components/ui/skeleton';
import { formatDateTime } from '@/lib/format';
import { useIsAdmin } from '@/lib/roles';
import { useGitConnections, useGitProviders } from './api';
import { ADD_GIT_PROVIDER_PATH, gitProviderPath } from './model';
import { lastSyncedText, ProviderBadges, repositoryCount, ScopeList, SyncError } from './provider-parts';

function AddProviderLink() {
  return (
    <Link to={ADD_GIT_PROVIDER_PATH} className={buttonVariants()}>
      <Plus />
      Add Git Provider
    </Link>
  );
}

/** What a provider's connections add up to: repositories, the latest sync, the first sync error. */
function connectionSummary(connections: GitConnection[]) {
  const synced = connections
    .map((connection) => connection.last_synced_at)
    .filter((at): at is string => at !== null)
    .sort()
    .at(-1);
  return {
    repositories: connections.reduce((sum, connection) => sum + connection.repository_count, 0),
    lastSyncedAt: synced ?? null,
    syncError: connections.find((connection) => connection.sync_error)?.sync_error ?? null,
  };
}

function ProviderCard({
  provider,
  connections,
}: {
  provider: GitProvider;
  /** Undefined while they load, null when they could not be loaded. */
  connections: GitConnection[] | null | undefined;
}) {
  const summary = connections && provider.connection_count > 0 ? connectionSummary(connections) : null;
  const nameId = `git-provider-${provider.id}-name`;
  return (
    <Card
      role="article"
      aria-labelledby={nameId}
      data-testid={`git-provider-card-${provider.id}`}
      className="relative min-w-0 gap-4 px-5 py-5 transition-colors focus-within:ring-2 focus-within:ring-ring/50 hover:bg-accent/30"
    >
      <div className="flex items-start gap-3">
        <GitProviderIcon type={provider.provider_type} />
        <div className="grid min-w-0 flex-1 gap-1">
          <h2 id={nameId} className="truncate font-semibold leading-tight">
            <Link
              to={gitProviderPath(provider.id)}
              className="outline-none after:absolute after:inset-0 after:rounded-xl hover:underline focus-visible:underline"
            >
              {provider.name}
            </Link>
          </h2>
          <p className="truncate font-mono text-muted-foreground text-xs" title={provider.base_url}>
            {provider.base_url}
          </p>
          <div className="mt-1">
            <ProviderBadges provider={provider} />
          </div>
        </div>
      </div>
      <dl className="grid grid-cols-[5.5rem_minmax(0,1fr)] items-start gap-x-3 gap-y-2 text-sm">
        <dt className="text-muted-foreground">Account</dt>
        <dd className="truncate">
          {provider.account_login ? (
            <span className="font-medium">@{provider.account_login}</span>
          ) : (
            <span className="text-muted-foreground">Waiting for the GitLab sign-in</span>
          )}
        </dd>
        <dt className="text-muted-foreground">Scopes</dt>
        <dd className="min-w-0">
          <ScopeList scopes={provider.scopes} />
        </dd>
      </dl>
      <div className="grid gap-2 border-t pt-3">
        <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-muted-foreground text-xs">
          {provider.connection_count === 0 ? (
            <span>No connection yet</span>
          ) : summary ? (
            <>
              <span className="inline-flex items-center gap-1 font-medium text-foreground">
                <FolderGit2 className="size-3.5 text-muted-foreground" />
                {repositoryCount(summary.repositories)}
              </span>
              <span aria-hidden>·</span>
              <span title={summary.lastSyncedAt ? formatDateTime(summary.lastSyncedAt) : undefined}>
                {lastSyncedText({ last_synced_at: summary.lastSyncedAt })}
              </span>
            </>
          ) : connections === null ? (
            <span>Repository count unavailable</span>
          ) : (
            <Skeleton className="h-4 w-40" />
          )}
        </p>
        <SyncError error={summary?.syncError ?? null} className="relative z-10" />
      </div>
    </Card>
  );
}

export default function GitSourcesPage() {
  const providers = useGitProviders();
  const connections = useGitConnections();
  const isAdmin = useIsAdmin();
  const byProvider = (id: number) => connections.data?.filter((connection) => connection.provider_id === id);
  const list = providers.data;

  return (
    <Page
      title="Git providers"
      documentTitle="Git providers"
      description="The GitHub and GitLab accounts whose repositories Launchbay deploys."
      actions={isAdmin && list && list.length > 0 ? <AddProviderLink /> : null}
    >
      {providers.isPending ? (
        <div className="grid gap-4 md:grid-cols-2" role="status" aria-busy="true" aria-label="Loading git providers">
          {[0, 1].map((key) => (
            <Skeleton key={key} className="h-52 rounded-xl" />
          ))}
        </div>
      ) : providers.isError ? (
        <LoadFailed title="Could not load git providers" query={providers} />
      ) : !list || list.length === 0 ? (
        <EmptyState
          icon={<GitBranchPlus />}
          title="No git providers yet"
          description={
            isAdmin
              ? 'Connect GitHub or GitLab with a token (or a GitLab OAuth application) to deploy its repositories.'
              : 'An administrator connects GitHub or GitLab here; then their repositories can be deployed.'
          }
          action={isAdmin ? <AddProviderLink /> : undefined}
        />
      ) : (
        <ul className="grid grid-cols-[minmax(0,1fr)] gap-4 md:grid-cols-2" aria-label="Git providers">
          {list.map((provider) => (
            <li key={provider.id} className="min-w-0">
              <ProviderCard provider={provider} connections={connections.isError ? null : byProvider(provider.id)} />
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}
