import { GitBranch, GitBranchPlus, Lock } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { GIT_PROVIDER_LABEL, GitProviderIcon } from '@/components/git/git-provider-icon';
import { RepositoryBrowser } from '@/components/git/repository-browser';
import { Button, buttonVariants } from '@/components/ui/button';
import { FieldError } from '@/components/ui/field-error';
import { Label } from '@/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail } from '@/lib/api';
import { ADD_GIT_PROVIDER_PATH, type GitConnection, type Repository, useGitConnections } from '@/lib/git-queries';

/** Shown instead of the picker while no git provider is connected. */
export function NoGitProviderNote() {
  return (
    <div className="flex flex-col items-start gap-3 rounded-lg border border-dashed bg-muted/30 p-4 text-sm sm:flex-row sm:items-center">
      <GitBranchPlus className="size-5 shrink-0 text-muted-foreground" />
      <p className="flex-1 text-muted-foreground">
        No git provider is connected yet. Connect GitHub or GitLab to pick one of its repositories here.
      </p>
      <Link to={ADD_GIT_PROVIDER_PATH} className={buttonVariants({ variant: 'outline', size: 'sm' })}>
        Add Git Provider
      </Link>
    </div>
  );
}

function connectionLabel(connection: GitConnection): string {
  return `${connection.provider_name} · @${connection.account_login}`;
}

/** The repository picked, with a way back to the list. */
function PickedRepository({
  repository,
  connection,
  onChange,
  disabled,
}: {
  repository: Repository;
  connection: GitConnection | undefined;
  onChange: () => void;
  disabled?: boolean;
}) {
  return (
    <div className="flex items-center gap-3 rounded-lg border bg-muted/30 p-3" data-testid="picked-repository">
      {connection ? <GitProviderIcon type={connection.provider_type} className="size-9" /> : null}
      <div className="grid min-w-0 flex-1 gap-0.5">
        <p className="flex min-w-0 items-center gap-1.5 text-sm">
          {repository.private ? <Lock className="size-3.5 shrink-0 text-muted-foreground" aria-label="Private" /> : null}
          <span className="truncate font-medium">{repository.full_name}</span>
        </p>
        <p className="flex flex-wrap items-center gap-x-2 text-muted-foreground text-xs">
          {connection ? (
            <span>
              {GIT_PROVIDER_LABEL[connection.provider_type]} · @{connection.account_login}
            </span>
          ) : null}
          <span className="inline-flex items-center gap-1 font-mono">
            <GitBranch className="size-3" aria-hidden />
            {repository.default_branch}
          </span>
        </p>
      </div>
      <Button variant="outline" size="sm" onClick={onChange} disabled={disabled}>
        Change
      </Button>
    </div>
  );
}

/**
 * Picks a repository of a connected git provider: the account (when there are several), then a
 * search over its synced repositories. Answers null while none is picked.
 */
export function RepositoryPicker({
  value,
  onChange,
  error,
  disabled,
}: {
  value: Repository | null;
  onChange: (repository: Repository | null) => void;
  error?: string;
  disabled?: boolean;
}) {
  const connections = useGitConnections();
  const [chosen, setChosen] = useState<number | null>(null);

  if (connections.isPending) {
    return (
      <div className="grid gap-3" role="status" aria-busy="true" aria-label="Loading connected accounts">
        <Skeleton className="h-9 w-full" />
        <Skeleton className="h-40 w-full rounded-lg" />
      </div>
    );
  }
  if (connections.isError) {
    return (
      <div
        role="alert"
        className="grid justify-items-start gap-2 rounded-lg border border-destructive/30 bg-destructive/5 p-3 text-sm"
      >
        <p className="font-medium text-destructive">Could not load the connected accounts</p>
        <p className="text-muted-foreground">{errorDetail(connections.error)}</p>
        <Button variant="outline" size="sm" onClick={() => void connections.refetch()} disabled={connections.isFetching}>
          Retry
        </Button>
      </div>
    );
  }
  const list = connections.data;
  if (list.length === 0) return <NoGitProviderNote />;

  const connection = list.find((item) => item.id === (value?.connection_id ?? chosen)) ?? list[0];
  if (!connection) return <NoGitProviderNote />;

  if (value) {
    return (
      <div className="grid gap-2">
        <PickedRepository repository={value} connection={connection} onChange={() => onChange(null)} disabled={disabled} />
        <FieldError message={error} />
      </div>
    );
  }

  return (
    <div className="grid gap-4">
      {list.length > 1 ? (
        <div className="grid gap-2">
          <Label htmlFor="project-connection">Account</Label>
          <Select value={String(connection.id)} onValueChange={(next) => setChosen(Number(next))} disabled={disabled}>
            <SelectTrigger id="project-connection">
              <SelectValue />
            </SelectTrigger>
            <SelectContent>
              {list.map((item) => (
                <SelectItem key={item.id} value={String(item.id)}>
                  {connectionLabel(item)}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
        </div>
      ) : (
        <p className="flex items-center gap-2 text-muted-foreground text-sm">
          <GitProviderIcon type={connection.provider_type} className="size-7 rounded-md [&_svg]:size-4" />
          <span className="min-w-0 truncate">
            Repositories of <span className="font-medium text-foreground">@{connection.account_login}</span> on{' '}
            {connection.provider_name}
          </span>
        </p>
      )}
      <RepositoryBrowser
        key={connection.id}
        connectionId={connection.id}
        idPrefix="project"
        perPage={10}
        onSelect={onChange}
        emptyHint={
          <>
            @{connection.account_login} has no repositories as last synced. Create one on{' '}
            {GIT_PROVIDER_LABEL[connection.provider_type]}, then sync it from its git provider page.
          </>
        }
      />
      <FieldError message={error} />
    </div>
  );
}
