import type { GitConnection, GitProvider } from '@launchbay/contract';
import { GitBranch, KeyRound, TriangleAlert, Unplug } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { Link, useParams } from 'react-router';
import { GIT_PROVIDER_LABEL, GitProviderIcon } from '@/components/git/git-provider-icon';
import { RepositoryBrowser } from '@/components/git/repository-browser';
import { EmptyState, Page } from '@/components/layout/page';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail, isApiError } from '@/lib/api';
import { formatDateTime } from '@/lib/format';
import { useIsAdmin } from '@/lib/roles';
import { toast } from '@/lib/toast';
import { useAuthorizeGitProvider, useGitConnections, useGitProvider } from './api';
import { ConnectionCard } from './connection-card';
import { DeleteGitProviderButton } from './delete-provider';
import { GIT_SOURCES_PATH, parseProviderId, safeHref } from './model';
import { authMethodLabel, BackToGitProviders, ProviderBadges, ScopeList } from './provider-parts';

function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 py-3 first:pt-0 last:pb-0 sm:grid-cols-[6.5rem_minmax(0,1fr)] sm:gap-4">
      <dt className="text-muted-foreground text-sm">{label}</dt>
      <dd className="min-w-0 break-words text-sm">{children}</dd>
    </div>
  );
}

function ExternalAddress({ url }: { url: string }) {
  const href = safeHref(url);
  if (!href) return <span className="font-mono text-xs">{url}</span>;
  return (
    <a href={href} target="_blank" rel="noreferrer" className="break-all font-mono text-xs underline-offset-4 hover:underline">
      {url}
    </a>
  );
}

/** Spec section 2 route table: an unknown id shows the not-found state detail pages use. */
function ProviderNotFound({ id }: { id: string | undefined }) {
  return (
    <Page title="Git provider not found" documentTitle="Git provider not found" back={<BackToGitProviders />}>
      <EmptyState
        icon={<Unplug />}
        title="This git provider does not exist"
        description={
          <>
            There is no git provider
            {id ? (
              <>
                {' '}
                with ID <span className="font-mono">{id}</span>
              </>
            ) : null}
            . It may have been deleted.
          </>
        }
        action={
          <Link to={GIT_SOURCES_PATH} className={buttonVariants({ variant: 'outline' })}>
            Back to Git providers
          </Link>
        }
      />
    </Page>
  );
}

function DetailsCard({ provider }: { provider: GitProvider }) {
  return (
    <Card className="min-w-0 gap-4">
      <CardHeader>
        <CardTitle>Details</CardTitle>
      </CardHeader>
      <CardContent>
        <dl className="divide-y">
          <Detail label="Host">
            <ExternalAddress url={provider.base_url} />
          </Detail>
          <Detail label="API">
            <span className="break-all font-mono text-xs">{provider.api_url}</span>
          </Detail>
          <Detail label="Signs in with">{authMethodLabel(provider)}</Detail>
          <Detail label="Account">
            {provider.account_login ? (
              <span className="font-medium">@{provider.account_login}</span>
            ) : (
              <span className="text-muted-foreground">Not authorised yet</span>
            )}
          </Detail>
          <Detail label="Scopes">
            <ScopeList scopes={provider.scopes} />
          </Detail>
          <Detail label="Added">{formatDateTime(provider.created_at)}</Detail>
          <Detail label="Changed">{formatDateTime(provider.updated_at)}</Detail>
        </dl>
      </CardContent>
    </Card>
  );
}

function NotAuthorisedNotice({ provider }: { provider: GitProvider }) {
  const isAdmin = useIsAdmin();
  if (provider.is_active) return null;
  return (
    <div
      role="status"
      className="flex flex-wrap items-start gap-3 rounded-lg border border-warning/50 bg-warning/10 p-3 text-amber-800 text-sm dark:text-warning"
    >
      <TriangleAlert className="mt-0.5 size-4 shrink-0" />
      <p className="min-w-0 flex-1">
        {GIT_PROVIDER_LABEL[provider.provider_type]} has not authorised Launchbay yet: the OAuth sign-in was not finished.
        {isAdmin ? ' Authorise it to connect its account.' : ' An admin can authorise it.'}
      </p>
      {isAdmin ? <AuthorizeButton provider={provider} label="Authorise" /> : null}
    </div>
  );
}

/** Sends the browser to GitLab for a new authorisation; GitLab sends it back to this page. */
function AuthorizeButton({ provider, label }: { provider: GitProvider; label: string }) {
  const authorize = useAuthorizeGitProvider();
  const run = async () => {
    try {
      const started = await authorize.mutateAsync(provider.id);
      window.location.assign(started.authorize_url);
    } catch (error) {
      toast.error('Could not start the authorisation', { description: errorDetail(error) });
    }
  };
  return (
    <Button variant="outline" size="sm" onClick={() => void run()} disabled={authorize.isPending}>
      <KeyRound />
      {authorize.isPending ? 'Opening GitLab...' : label}
    </Button>
  );
}

function ConnectionsCard({
  provider,
  connections,
}: {
  provider: GitProvider;
  connections: ReturnType<typeof useGitConnections>;
}) {
  return (
    <Card className="min-w-0 gap-0 pb-0">
      <CardHeader className="pb-4">
        <CardTitle>{connections.data && connections.data.length > 1 ? 'Connections' : 'Connection'}</CardTitle>
        <CardDescription>The account the credential acts as, and the repositories it reaches.</CardDescription>
      </CardHeader>
      {connections.isPending ? (
        <div className="border-t p-4">
          <Skeleton className="h-10 w-full" />
        </div>
      ) : connections.isError ? (
        <div role="alert" className="grid justify-items-start gap-2 border-t p-4 text-sm">
          <p className="text-destructive">{errorDetail(connections.error)}</p>
          <Button variant="outline" size="sm" onClick={() => void connections.refetch()} disabled={connections.isFetching}>
            Retry
          </Button>
        </div>
      ) : connections.data.length === 0 ? (
        <p className="border-t p-4 text-muted-foreground text-sm">
          {provider.is_active
            ? 'No connection: add the provider again to connect its account.'
            : 'Connected once GitLab authorises Launchbay.'}
        </p>
      ) : (
        <ul className="divide-y border-t" aria-label="Connections">
          {connections.data.map((connection) => (
            <ConnectionCard key={connection.id} connection={connection} provider={provider} />
          ))}
        </ul>
      )}
    </Card>
  );
}

function RepositoriesCard({ connections }: { connections: GitConnection[] }) {
  const [chosen, setChosen] = useState<number | null>(null);
  const connection = connections.find((item) => item.id === chosen) ?? connections[0];
  if (!connection) return null;
  return (
    <Card className="min-w-0 gap-4" aria-labelledby="git-provider-repositories">
      <CardHeader className="has-data-[slot=card-action]:grid-cols-[minmax(0,1fr)_auto]">
        <CardTitle id="git-provider-repositories" className="flex items-center gap-2">
          <GitBranch className="size-4 text-muted-foreground" />
          Repositories
        </CardTitle>
        <CardDescription>As last synced, most recently pushed first. Sync to read new ones from the host.</CardDescription>
        {connections.length > 1 ? (
          <div data-slot="card-action" className="col-start-2 row-span-2 row-start-1 w-44 self-start">
            <Select value={String(connection.id)} onValueChange={(value) => setChosen(Number(value))}>
              <SelectTrigger aria-label="Connection">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                {connections.map((item) => (
                  <SelectItem key={item.id} value={String(item.id)}>
                    @{item.account_login}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </div>
        ) : null}
      </CardHeader>
      <CardContent>
        <RepositoryBrowser
          key={connection.id}
          connectionId={connection.id}
          idPrefix={`connection-${connection.id}`}
          perPage={10}
        />
      </CardContent>
    </Card>
  );
}

function GitProviderView({ provider }: { provider: GitProvider }) {
  const isAdmin = useIsAdmin();
  const connections = useGitConnections(provider.id);
  return (
    <Page
      title={
        <span className="flex min-w-0 items-center gap-3">
          <GitProviderIcon type={provider.provider_type} />
          <span className="truncate">{provider.name}</span>
        </span>
      }
      documentTitle={provider.name}
      description={<ProviderBadges provider={provider} />}
      back={<BackToGitProviders />}
      actions={
        isAdmin ? (
          <>
            {provider.auth_method === 'oauth' && provider.is_active ? (
              <AuthorizeButton provider={provider} label="Authorise again" />
            ) : null}
            <DeleteGitProviderButton provider={provider} />
          </>
        ) : null
      }
    >
      <NotAuthorisedNotice provider={provider} />
      <div className="grid items-start gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="grid min-w-0 gap-6">
          <ConnectionsCard provider={provider} connections={connections} />
          {connections.data && connections.data.length > 0 ? <RepositoriesCard connections={connections.data} /> : null}
          {provider.is_active ? (
            <p className="text-muted-foreground text-sm">
              Deploy one of these repositories from{' '}
              <Link to="/projects/new?source=repository" className="font-medium text-foreground underline underline-offset-4">
                Create Project
              </Link>
              .
            </p>
          ) : null}
        </div>
        <DetailsCard provider={provider} />
      </div>
    </Page>
  );
}

export default function GitProviderPage() {
  const { id: param } = useParams();
  const id = parseProviderId(param);
  const { data: provider, isPending, isError, error, refetch, isFetching } = useGitProvider(id);

  if (id === null || (isApiError(error) && error.status === 404)) return <ProviderNotFound id={param} />;
  if (isError) {
    return (
      <Page title="Git provider" documentTitle="Git provider" back={<BackToGitProviders />}>
        <EmptyState
          title="Could not load this git provider"
          description={errorDetail(error)}
          action={
            <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
              Retry
            </Button>
          }
        />
      </Page>
    );
  }
  if (isPending || !provider) {
    return (
      <Page title={<Skeleton className="h-8 w-56" />} documentTitle="Git provider" back={<BackToGitProviders />}>
        <div className="grid gap-6 lg:grid-cols-[1fr_22rem]">
          <div className="grid gap-6">
            <Skeleton className="h-32 rounded-xl" />
            <Skeleton className="h-72 rounded-xl" />
          </div>
          <Skeleton className="h-80 rounded-xl" />
        </div>
      </Page>
    );
  }
  return <GitProviderView key={provider.id} provider={provider} />;
}
