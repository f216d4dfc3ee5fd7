import { ChevronLeft, ChevronRight, ExternalLink, GitBranch, Lock, Search } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail } from '@/lib/api';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { type Repository, useRepositories } from '@/lib/git-queries';
import { useDebouncedValue } from '@/lib/use-debounced-value';
import { cn } from '@/lib/utils';

export interface RepositoryBrowserProps {
  connectionId: number;
  /** For the ids of the search box. */
  idPrefix: string;
  /** Picking: each row is a button that answers its repository. Without it, rows link to the host. */
  onSelect?: (repository: Repository) => void;
  perPage?: number;
  /** What to say when the connection has no repositories at all. */
  emptyHint?: ReactNode;
  className?: string;
}

function RepositoryName({ repository }: { repository: Repository }) {
  const owner = repository.full_name.slice(0, repository.full_name.length - repository.name.length);
  return (
    <span className="flex min-w-0 items-center gap-1.5">
      {repository.private ? <Lock className="size-3.5 shrink-0 text-muted-foreground" aria-label="Private" /> : null}
      <span className="truncate">
        <span className="text-muted-foreground">{owner}</span>
        <span className="font-medium text-foreground">{repository.name}</span>
      </span>
    </span>
  );
}

function RepositoryMeta({ repository }: { repository: Repository }) {
  return (
    <span className="flex flex-wrap items-center gap-x-3 gap-y-1 text-muted-foreground text-xs">
      <span className="inline-flex items-center gap-1 font-mono">
        <GitBranch className="size-3" aria-hidden />
        {repository.default_branch}
      </span>
      {repository.pushed_at ? (
        <span title={formatDateTime(repository.pushed_at)}>Pushed {formatRelativeTime(repository.pushed_at)}</span>
      ) : (
        <span>No pushes yet</span>
      )}
    </span>
  );
}

function RepositoryRow({ repository, onSelect }: { repository: Repository; onSelect?: (repository: Repository) => void }) {
  const body = (
    <span className="grid min-w-0 flex-1 gap-1">
      <RepositoryName repository={repository} />
      {repository.description ? <span className="truncate text-muted-foreground text-xs">{repository.description}</span> : null}
      <RepositoryMeta repository={repository} />
    </span>
  );
  if (onSelect) {
    return (
      <button
        type="button"
        onClick={() => onSelect(repository)}
        aria-label={`Select ${repository.full_name}`}
        className="flex w-full items-center gap-3 px-3 py-3 text-left text-sm outline-none transition-colors hover:bg-accent/50 focus-visible:bg-accent/50 focus-visible:ring-2 focus-visible:ring-ring/50 focus-visible:ring-inset"
      >
        {body}
        <span className="hidden shrink-0 rounded-md border px-2.5 py-1 font-medium text-xs sm:inline">Select</span>
        <ChevronRight className="size-4 shrink-0 text-muted-foreground sm:hidden" aria-hidden />
      </button>
    );
  }
  return (
    <div className="flex items-center gap-3 px-3 py-3 text-sm">
      {body}
      <a
        href={repository.html_url}
        target="_blank"
        rel="noreferrer"
        className="inline-flex shrink-0 items-center gap-1 rounded-sm text-muted-foreground text-xs outline-none hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring/50"
        aria-label={`Open ${repository.full_name} on the host`}
      >
        <ExternalLink className="size-3.5" />
        <span className="hidden sm:inline">Open</span>
      </a>
    </div>
  );
}

/**
 * A connection's repositories (as last synced): a search box (debounced), one page of rows and
 * Previous/Next. The git provider page lists them; the new-project form picks one.
 */
export function RepositoryBrowser({
  connectionId,
  idPrefix,
  onSelect,
  perPage,
  emptyHint = 'This account has no repositories yet. Create one on the host, then sync.',
  className,
}: RepositoryBrowserProps) {
  const [search, setSearch] = useState('');
  const debounced = useDebouncedValue(search.trim());
  // A new search (or another connection) starts at the first page.
  const pagingKey = `${connectionId}:${debounced}`;
  const [paging, setPaging] = useState({ key: pagingKey, page: 1 });
  const page = paging.key === pagingKey ? paging.page : 1;
  const setPage = (next: number) => setPaging({ key: pagingKey, page: next });
  const { data, isPending, isError, error, refetch, isFetching, isPlaceholderData } = useRepositories(connectionId, {
    search: debounced,
    page,
    perPage,
  });
  const searchId = `${idPrefix}-repository-search`;
  const pages = data ? Math.max(1, Math.ceil(data.total / data.per_page)) : 1;
  const searching = debounced !== '';
  const waiting = search.trim() !== debounced || (isFetching && isPlaceholderData);

  return (
    <div className={cn('grid gap-3', className)}>
      <div className="relative">
        <label htmlFor={searchId} className="sr-only">
          Search repositories
        </label>
        <Search className="-translate-y-1/2 pointer-events-none absolute top-1/2 left-3 size-4 text-muted-foreground" />
        <Input
          id={searchId}
          type="search"
          autoComplete="off"
          spellCheck={false}
          placeholder="Search repositories…"
          className="pl-9"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
        {waiting ? (
          <Spinner className="-translate-y-1/2 absolute top-1/2 right-3 size-3.5 text-muted-foreground" label="Searching" />
        ) : null}
      </div>
      {isPending ? (
        <div className="divide-y rounded-lg border" role="status" aria-busy="true" aria-label="Loading repositories">
          {[0, 1, 2].map((key) => (
            <div key={key} className="grid gap-2 px-3 py-3">
              <Skeleton className="h-4 w-48" />
              <Skeleton className="h-3 w-32" />
            </div>
          ))}
        </div>
      ) : isError ? (
        <div
          role="alert"
          className="grid justify-items-start gap-2 rounded-lg border border-destructive/30 bg-destructive/5 p-3 text-sm"
        >
          <p className="font-medium text-destructive">Could not load the repositories</p>
          <p className="text-muted-foreground">{errorDetail(error)}</p>
          <Button variant="outline" size="sm" onClick={() => void refetch()} disabled={isFetching}>
            Retry
          </Button>
        </div>
      ) : data.repositories.length === 0 ? (
        <p className="rounded-lg border border-dashed px-4 py-8 text-center text-muted-foreground text-sm">
          {searching ? (
            <>
              No repositories match <span className="font-medium text-foreground">“{debounced}”</span>.
            </>
          ) : (
            emptyHint
          )}
        </p>
      ) : (
        <>
          <ul
            aria-label="Repositories"
            aria-busy={waiting || undefined}
            className={cn('divide-y overflow-hidden rounded-lg border transition-opacity', waiting && 'opacity-60')}
          >
            {data.repositories.map((repository) => (
              <li key={repository.id} data-testid={`repository-${repository.full_name}`}>
                <RepositoryRow repository={repository} onSelect={onSelect} />
              </li>
            ))}
          </ul>
          <div className="flex flex-wrap items-center justify-between gap-2 text-muted-foreground text-xs">
            <span aria-live="polite">
              {searching
                ? `${data.total} ${data.total === 1 ? 'match' : 'matches'}`
                : `${data.total} ${data.total === 1 ? 'repository' : 'repositories'}`}
              {pages > 1 ? ` · page ${data.page} of ${pages}` : ''}
            </span>
            {pages > 1 ? (
              <div className="flex gap-2">
                <Button variant="outline" size="sm" disabled={page <= 1 || waiting} onClick={() => setPage(page - 1)}>
                  <ChevronLeft />
                  Previous
                </Button>
                <Button variant="outline" size="sm" disabled={page >= pages || waiting} onClick={() => setPage(page + 1)}>
                  Next
                  <ChevronRight />
                </Button>
              </div>
            ) : null}
          </div>
        </>
      )}
    </div>
  );
}
