import type { ApiKey } from '@launchbay/contract';
import { CircleCheck, CircleOff, ClipboardList, Clock, Pencil, Trash2 } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { EmptyState, Page } from '@/components/layout/page';
import { Badge } from '@/components/ui/badge';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { CopyButton } from '@/components/ui/copy-button';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail, isApiError } from '@/lib/api';
import { useCurrentUser } from '@/lib/current-user';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { hasRole } from '@/lib/roles';
import { useApiKey, useKeyOwners } from './api';
import { BackToKeys } from './back-to-keys';
import { useKeyActions } from './key-actions';
import { ExpiryText, KeyStatusBadge } from './key-badges';
import { KeyNotFound } from './key-not-found';
import { accessByArea, areaTitle, formatUntil, keyStatus, parseKeyId, permissionsSentence } from './model';

function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 py-3 first:pt-0 last:pb-0 sm:grid-cols-[6.5rem_1fr] sm:gap-4">
      <dt className="text-muted-foreground text-sm">{label}</dt>
      <dd className="min-w-0 text-sm">{children}</dd>
    </div>
  );
}

function StatusNotice({ apiKey }: { apiKey: ApiKey }) {
  const status = keyStatus(apiKey);
  if (status === 'active') return null;
  return (
    <div
      role="status"
      className="flex items-start gap-3 rounded-lg border border-warning/50 bg-warning/10 p-3 text-amber-800 text-sm dark:text-warning"
    >
      {status === 'expired' ? <Clock className="mt-0.5 size-4 shrink-0" /> : <CircleOff className="mt-0.5 size-4 shrink-0" />}
      <p>
        {status === 'expired'
          ? `This key expired on ${formatDateTime(apiKey.expires_at)}. Calls made with it are refused; edit its expiry to use it again.`
          : 'This key is deactivated. Calls made with it are refused until you activate it again.'}
      </p>
    </div>
  );
}

function PermissionsCard({ apiKey }: { apiKey: ApiKey }) {
  const areas = accessByArea(apiKey.permissions);
  return (
    <Card className="gap-4">
      <CardHeader>
        <CardTitle>Permissions</CardTitle>
        <CardDescription>{permissionsSentence(apiKey.permissions)}</CardDescription>
      </CardHeader>
      <CardContent>
        <ul className="divide-y rounded-lg border">
          {areas.map((entry) => (
            <li key={entry.area} className="flex flex-wrap items-center justify-between gap-2 px-3 py-2.5">
              <span className="font-medium text-sm">{areaTitle(entry.area)}</span>
              <span className="flex flex-wrap gap-1.5">
                {entry.read ? (
                  <Badge variant="secondary" className="font-mono font-normal">
                    {entry.area}:read
                  </Badge>
                ) : null}
                {entry.write ? (
                  <Badge variant="outline" className="font-mono font-normal">
                    {entry.area}:write
                  </Badge>
                ) : null}
              </span>
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}

function UsageCard() {
  const example = `curl -H "Authorization: Bearer $LAUNCHBAY_API_KEY" ${window.location.origin}/api/projects`;
  return (
    <Card className="gap-4">
      <CardHeader>
        <CardTitle>Use this key</CardTitle>
        <CardDescription>Send the secret you stored when the key was created as a bearer token.</CardDescription>
      </CardHeader>
      <CardContent>
        <div className="flex items-start gap-2 rounded-lg border bg-muted/50 p-3">
          <code className="min-w-0 flex-1 break-all font-mono text-xs leading-relaxed">{example}</code>
          <CopyButton value={example} label="Copy command" iconOnly size="icon-sm" className="size-7 shrink-0" />
        </div>
      </CardContent>
    </Card>
  );
}

export default function ApiKeyDetailPage() {
  const { id: param } = useParams();
  const id = parseKeyId(param);
  const navigate = useNavigate();
  const { data: apiKey, isPending, isError, error, refetch, isFetching } = useApiKey(id);
  const { data: me } = useCurrentUser();
  const isAdmin = hasRole(me, 'admin');
  const ownedByOther = !!apiKey && !!me && apiKey.user_id !== me.id;
  const { data: owners } = useKeyOwners(isAdmin && ownedByOther);
  const actions = useKeyActions();

  if (id === null || (isApiError(error) && error.status === 404)) return <KeyNotFound id={param} />;

  if (isError) {
    return (
      <Page title="API Key" documentTitle="API Key" back={<BackToKeys />}>
        <EmptyState
          title="Could not load this API key"
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

  if (isPending || !apiKey) {
    return (
      <Page title={<Skeleton className="h-8 w-56" />} documentTitle="API Key" back={<BackToKeys />}>
        <div className="grid gap-6 lg:grid-cols-[1fr_22rem]">
          <Skeleton className="h-80 rounded-xl" />
          <Skeleton className="h-64 rounded-xl" />
        </div>
      </Page>
    );
  }

  const busy = actions.pendingId === apiKey.id;
  const owner = ownedByOther ? owners?.get(apiKey.user_id) : undefined;

  return (
    <Page
      title={
        <span className="flex flex-wrap items-center gap-3">
          <span className="break-all">{apiKey.name}</span>
          <KeyStatusBadge apiKey={apiKey} />
        </span>
      }
      documentTitle={apiKey.name}
      description={
        <>
          <span className="font-mono">{apiKey.key_prefix}…</span> · created {formatRelativeTime(apiKey.created_at)}
        </>
      }
      back={<BackToKeys />}
      actions={
        <>
          {apiKey.is_active ? (
            <Button variant="outline" disabled={busy} onClick={() => void actions.setActive(apiKey, false)}>
              {busy ? <Spinner /> : <CircleOff />}
              Deactivate
            </Button>
          ) : (
            <Button variant="outline" disabled={busy} onClick={() => void actions.setActive(apiKey, true)}>
              {busy ? <Spinner /> : <CircleCheck />}
              Activate
            </Button>
          )}
          <Link to={`/keys/${apiKey.id}/edit`} className={buttonVariants({ variant: 'outline' })}>
            <Pencil />
            Edit
          </Link>
          <Button
            variant="outline"
            className="text-destructive hover:bg-destructive/10 hover:text-destructive"
            onClick={() => actions.requestDelete(apiKey, () => navigate('/keys', { replace: true }))}
          >
            <Trash2 />
            Delete
          </Button>
        </>
      }
    >
      <StatusNotice apiKey={apiKey} />
      <div className="grid items-start gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <Card className="min-w-0 gap-4 lg:order-last">
          <CardHeader>
            <CardTitle>Details</CardTitle>
          </CardHeader>
          <CardContent>
            <dl className="divide-y">
              <Detail label="Key">
                <span className="font-mono">{apiKey.key_prefix}…</span>
              </Detail>
              <Detail label="Status">
                <KeyStatusBadge apiKey={apiKey} />
              </Detail>
              <Detail label="Created">{formatDateTime(apiKey.created_at)}</Detail>
              <Detail label="Last used">
                {apiKey.last_used_at ? (
                  <span className="grid gap-0.5">
                    <span title={formatDateTime(apiKey.last_used_at)}>{formatRelativeTime(apiKey.last_used_at)}</span>
                    {apiKey.last_used_ip ? (
                      <span className="font-mono text-muted-foreground text-xs">from {apiKey.last_used_ip}</span>
                    ) : null}
                  </span>
                ) : (
                  <span className="text-muted-foreground">Never used</span>
                )}
              </Detail>
              <Detail label="Expires">
                <span className="grid gap-0.5">
                  <ExpiryText apiKey={apiKey} />
                  {apiKey.expires_at ? (
                    <span className="text-muted-foreground text-xs">
                      {keyStatus(apiKey) === 'expired'
                        ? `expired ${formatRelativeTime(apiKey.expires_at)}`
                        : formatUntil(apiKey.expires_at)}
                    </span>
                  ) : null}
                </span>
              </Detail>
              {ownedByOther ? (
                <Detail label="Owner">{owner ? owner.email : <span className="font-mono">User {apiKey.user_id}</span>}</Detail>
              ) : null}
            </dl>
            {isAdmin ? (
              <Link
                to={`/settings/audit-logs?target_type=api_key&target_id=${apiKey.id}`}
                className={buttonVariants({ variant: 'outline', size: 'sm', className: 'mt-5 w-full' })}
              >
                <ClipboardList />
                Changes in the audit log
              </Link>
            ) : null}
          </CardContent>
        </Card>
        <div className="grid min-w-0 gap-6">
          <PermissionsCard apiKey={apiKey} />
          <UsageCard />
        </div>
      </div>
      {actions.dialog}
    </Page>
  );
}
