import type { ApiKey, User } from '@launchbay/contract';
import { CircleCheck, CircleOff, Eye, KeyRound, MoreHorizontal, Pencil, Plus, Trash2 } from 'lucide-react';
import { Link, useNavigate } from 'react-router';
import { EmptyState, Page } from '@/components/layout/page';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { Skeleton } from '@/components/ui/skeleton';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table';
import { errorDetail } from '@/lib/api';
import { useCurrentUser } from '@/lib/current-user';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { hasRole } from '@/lib/roles';
import { useIsNarrow } from '@/lib/use-media-query';
import { useApiKeys, useKeyOwners } from './api';
import { type KeyActions, useKeyActions } from './key-actions';
import { ExpiryText, KeyStatusBadge, PermissionSummary } from './key-badges';
import { keyStatus } from './model';

function CreateKeyLink() {
  return (
    <Link to="/keys/new" className={buttonVariants()}>
      <Plus />
      Create API Key
    </Link>
  );
}

function KeyRowMenu({ apiKey, actions }: { apiKey: ApiKey; actions: KeyActions }) {
  const navigate = useNavigate();
  const expired = keyStatus(apiKey) === 'expired';
  return (
    <DropdownMenu modal={false}>
      <DropdownMenuTrigger asChild>
        <Button
          variant="ghost"
          size="icon-sm"
          aria-label={`Actions for ${apiKey.name}`}
          disabled={actions.pendingId === apiKey.id}
        >
          <MoreHorizontal />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-48">
        <DropdownMenuLabel className="truncate font-mono font-normal text-muted-foreground text-xs">
          {apiKey.key_prefix}…
        </DropdownMenuLabel>
        <DropdownMenuItem onSelect={() => navigate(`/keys/${apiKey.id}`)}>
          <Eye />
          View
        </DropdownMenuItem>
        <DropdownMenuItem onSelect={() => navigate(`/keys/${apiKey.id}/edit`)}>
          <Pencil />
          Edit
        </DropdownMenuItem>
        {apiKey.is_active ? (
          <DropdownMenuItem onSelect={() => void actions.setActive(apiKey, false)}>
            <CircleOff />
            Deactivate
          </DropdownMenuItem>
        ) : (
          <DropdownMenuItem onSelect={() => void actions.setActive(apiKey, true)}>
            <CircleCheck />
            Activate
          </DropdownMenuItem>
        )}
        {expired ? (
          <DropdownMenuLabel className="font-normal text-muted-foreground text-xs">
            Expired: edit the expiry to use it again.
          </DropdownMenuLabel>
        ) : null}
        <DropdownMenuSeparator />
        <DropdownMenuItem variant="destructive" onSelect={() => actions.requestDelete(apiKey)}>
          <Trash2 />
          Delete
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

function LastUsed({ apiKey }: { apiKey: ApiKey }) {
  if (!apiKey.last_used_at) return <span className="text-muted-foreground">Never used</span>;
  return (
    <div className="grid gap-0.5">
      <span title={formatDateTime(apiKey.last_used_at)}>{formatRelativeTime(apiKey.last_used_at)}</span>
      {apiKey.last_used_ip ? <span className="font-mono text-muted-foreground text-xs">{apiKey.last_used_ip}</span> : null}
    </div>
  );
}

function KeyName({ apiKey, owner }: { apiKey: ApiKey; owner?: User }) {
  return (
    <div className="min-w-0 max-w-64">
      <Link
        to={`/keys/${apiKey.id}`}
        className="block max-w-64 truncate font-medium underline-offset-4 outline-none hover:underline focus-visible:underline"
      >
        {apiKey.name}
      </Link>
      <p className="truncate text-muted-foreground text-xs">
        <span className="font-mono">{apiKey.key_prefix}…</span>
        {owner ? <span> · {owner.email}</span> : null}
      </p>
    </div>
  );
}

function KeysTable({
  keys,
  owners,
  actions,
}: {
  keys: ApiKey[];
  owners: (key: ApiKey) => User | undefined;
  actions: KeyActions;
}) {
  return (
    <Card className="gap-0 overflow-hidden p-0">
      <Table>
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead className="pl-4">Name</TableHead>
            <TableHead>Permissions</TableHead>
            <TableHead>Status</TableHead>
            <TableHead>Created</TableHead>
            <TableHead>Last used</TableHead>
            <TableHead>Expires</TableHead>
            <TableHead className="w-11 pr-3 pl-0">
              <span className="sr-only">Actions</span>
            </TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {keys.map((apiKey) => (
            <TableRow key={apiKey.id} data-testid={`api-key-row-${apiKey.id}`}>
              <TableCell className="pl-4">
                <KeyName apiKey={apiKey} owner={owners(apiKey)} />
              </TableCell>
              <TableCell>
                <PermissionSummary permissions={apiKey.permissions} />
              </TableCell>
              <TableCell>
                <KeyStatusBadge apiKey={apiKey} />
              </TableCell>
              <TableCell className="text-muted-foreground" title={formatDateTime(apiKey.created_at)}>
                {formatRelativeTime(apiKey.created_at)}
              </TableCell>
              <TableCell>
                <LastUsed apiKey={apiKey} />
              </TableCell>
              <TableCell>
                <ExpiryText apiKey={apiKey} />
              </TableCell>
              <TableCell className="pr-3 pl-0 text-right">
                <KeyRowMenu apiKey={apiKey} actions={actions} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Card>
  );
}

function KeyCards({ keys, owners, actions }: { keys: ApiKey[]; owners: (key: ApiKey) => User | undefined; actions: KeyActions }) {
  return (
    <ul className="grid gap-3" aria-label="API keys">
      {keys.map((apiKey) => (
        <li key={apiKey.id} data-testid={`api-key-row-${apiKey.id}`}>
          <Card className="gap-3 px-4 py-4">
            <div className="flex items-start justify-between gap-3">
              <KeyName apiKey={apiKey} owner={owners(apiKey)} />
              <div className="-mt-1 -mr-2 flex shrink-0 items-center gap-1">
                <KeyStatusBadge apiKey={apiKey} />
                <KeyRowMenu apiKey={apiKey} actions={actions} />
              </div>
            </div>
            <PermissionSummary permissions={apiKey.permissions} />
            <dl className="grid grid-cols-3 gap-2 border-t pt-3 text-xs">
              <div className="grid gap-0.5">
                <dt className="text-muted-foreground">Created</dt>
                <dd title={formatDateTime(apiKey.created_at)}>{formatRelativeTime(apiKey.created_at)}</dd>
              </div>
              <div className="grid gap-0.5">
                <dt className="text-muted-foreground">Last used</dt>
                <dd>
                  <LastUsed apiKey={apiKey} />
                </dd>
              </div>
              <div className="grid gap-0.5">
                <dt className="text-muted-foreground">Expires</dt>
                <dd>
                  <ExpiryText apiKey={apiKey} />
                </dd>
              </div>
            </dl>
          </Card>
        </li>
      ))}
    </ul>
  );
}

export default function ApiKeysPage() {
  const { data: keys, isPending, isError, error, refetch, isFetching } = useApiKeys();
  const { data: me } = useCurrentUser();
  const isAdmin = hasRole(me, 'admin');
  const hasOthers = !!me && !!keys?.some((key) => key.user_id !== me.id);
  const { data: owners } = useKeyOwners(isAdmin && hasOthers);
  const actions = useKeyActions();
  const narrow = useIsNarrow();
  const ownerOf = (key: ApiKey) => (me && key.user_id !== me.id ? owners?.get(key.user_id) : undefined);

  return (
    <Page
      title="API Keys"
      documentTitle="API Keys"
      description={
        <>
          Keys let scripts, CI pipelines and other tools call the Launchbay API. Send one as{' '}
          <code className="rounded bg-muted px-1 py-0.5 font-mono text-xs">Authorization: Bearer &lt;key&gt;</code>.
        </>
      }
      actions={keys && keys.length > 0 ? <CreateKeyLink /> : null}
    >
      {isPending ? (
        <Card className="gap-0 p-0">
          {Array.from({ length: 3 }, (_, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
            <div key={index} className="flex items-center gap-4 border-b p-4 last:border-0">
              <div className="grid gap-1.5">
                <Skeleton className="h-4 w-40" />
                <Skeleton className="h-3 w-24" />
              </div>
              <Skeleton className="ml-auto h-5 w-24" />
              <Skeleton className="h-5 w-16" />
            </div>
          ))}
        </Card>
      ) : isError ? (
        <EmptyState
          title="Could not load API keys"
          description={errorDetail(error)}
          action={
            <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
              Retry
            </Button>
          }
        />
      ) : keys.length === 0 ? (
        <EmptyState
          icon={<KeyRound />}
          title="No API keys yet"
          description="Create a key to call the Launchbay API from scripts, CI pipelines or other tools, with only the permissions they need."
          action={<CreateKeyLink />}
        />
      ) : narrow ? (
        <KeyCards keys={keys} owners={ownerOf} actions={actions} />
      ) : (
        <KeysTable keys={keys} owners={ownerOf} actions={actions} />
      )}
      {actions.dialog}
    </Page>
  );
}
