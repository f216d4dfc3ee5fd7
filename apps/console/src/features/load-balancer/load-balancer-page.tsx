import { ExternalLink, FolderGit2, Plus, Server, Split } from 'lucide-react';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { DataTable, type DataTableColumn } from '@/components/data-table/data-table';
import { LoadFailed } from '@/components/errors/load-failed';
import { EmptyState, Page } from '@/components/layout/page';
import { RowActionsMenu } from '@/components/row-actions-menu';
import { SkeletonRows } from '@/components/skeleton-rows';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { errorDetail } from '@/lib/api';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { useIsAdmin } from '@/lib/roles';
import { toast } from '@/lib/toast';
import { useIsNarrow } from '@/lib/use-media-query';
import { type LbRoute, useCreateLbRoute, useDeleteLbRoute, useLbRoutes, useUpdateLbRoute } from './api';
import { healthCheckSummary, type LbRouteRequest, routeToForm } from './model';
import { RouteForm } from './route-form';
import { UpstreamHealthList } from './upstream-health';

export const ROUTE_CREATED = 'Route created';
export const ROUTE_UPDATED = 'Route updated';
export const ROUTE_DELETED = 'Route deleted';

function DomainCell({ route }: { route: LbRoute }) {
  return (
    <a
      href={route.url}
      target="_blank"
      rel="noreferrer"
      title={`Open ${route.url}`}
      className="group inline-flex min-w-0 max-w-full items-start gap-1.5 font-medium text-sm underline-offset-4 outline-none hover:underline focus-visible:underline"
    >
      <span className="min-w-0 [overflow-wrap:anywhere]">{route.domain}</span>
      <ExternalLink
        className="mt-0.5 size-3.5 shrink-0 text-muted-foreground opacity-60 group-hover:opacity-100"
        aria-hidden="true"
      />
    </a>
  );
}

/**
 * What the route sends to: a project environment by name, or upstream addresses by count (the
 * addresses themselves are listed with their health next to it).
 */
function TargetCell({ route }: { route: LbRoute }) {
  const { target } = route;
  const count = target.kind === 'upstreams' ? target.upstreams.length : 0;
  return (
    <div className="flex min-w-0 items-start gap-2">
      <span className="mt-0.5 text-muted-foreground [&_svg]:size-4" aria-hidden="true">
        {target.kind === 'environment' ? <FolderGit2 /> : <Server />}
      </span>
      <div className="grid min-w-0 gap-0.5">
        {target.kind === 'environment' ? (
          <>
            <span className="text-sm [overflow-wrap:anywhere]">{route.target_label}</span>
            <span className="text-muted-foreground text-xs">Project environment</span>
          </>
        ) : (
          <>
            <span className="text-sm" title={route.target_label}>
              Upstream addresses
            </span>
            <span className="text-muted-foreground text-xs">
              {count} upstream{count === 1 ? '' : 's'}, in turn
            </span>
          </>
        )}
      </div>
    </div>
  );
}

function HealthCheckCell({ route }: { route: LbRoute }) {
  const summary = healthCheckSummary(route.health_check);
  if (!summary) return <span className="text-muted-foreground text-sm">Off</span>;
  return (
    <div className="grid gap-0.5">
      <span className="whitespace-nowrap font-mono text-xs">{summary}</span>
      <span className="text-muted-foreground text-xs">{route.health_check.timeout_seconds} s timeout</span>
    </div>
  );
}

function UpdatedCell({ route }: { route: LbRoute }) {
  return (
    <span className="whitespace-nowrap text-muted-foreground text-sm" title={formatDateTime(route.updated_at)}>
      {formatRelativeTime(route.updated_at)}
    </span>
  );
}

interface RowActions {
  onEdit: (route: LbRoute) => void;
  onDelete: (route: LbRoute) => void;
}

function RoutesList({ routes, actions }: { routes: LbRoute[]; actions: RowActions | null }) {
  const narrow = useIsNarrow();
  if (narrow) {
    return (
      <ul className="grid grid-cols-[minmax(0,1fr)] gap-3" aria-label="Routes">
        {routes.map((route) => (
          <li key={route.id} data-testid={`lb-route-${route.domain}`}>
            <Card className="gap-4 px-4 py-4">
              <div className="flex items-start justify-between gap-3">
                <DomainCell route={route} />
                {actions ? (
                  <div className="-mt-1 -mr-2 shrink-0">
                    <RowActionsMenu
                      name={route.domain}
                      onEdit={() => actions.onEdit(route)}
                      onDelete={() => actions.onDelete(route)}
                    />
                  </div>
                ) : null}
              </div>
              <TargetCell route={route} />
              <div className="grid gap-2 rounded-lg border bg-muted/30 p-3">
                <UpstreamHealthList upstreams={route.upstream_health} check={route.health_check} />
              </div>
              <dl className="grid grid-cols-2 gap-3 text-xs">
                <div className="grid content-start gap-1">
                  <dt className="text-muted-foreground">Health check</dt>
                  <dd>
                    <HealthCheckCell route={route} />
                  </dd>
                </div>
                <div className="grid content-start gap-1">
                  <dt className="text-muted-foreground">Updated</dt>
                  <dd>
                    <UpdatedCell route={route} />
                  </dd>
                </div>
              </dl>
            </Card>
          </li>
        ))}
      </ul>
    );
  }
  const columns: DataTableColumn<LbRoute>[] = [
    {
      id: 'domain',
      header: 'Domain',
      headClassName: 'pl-4',
      cellClassName: 'pl-4 max-w-60 whitespace-normal align-top',
      cell: (route) => <DomainCell route={route} />,
    },
    {
      id: 'target',
      header: 'Target',
      cellClassName: 'max-w-52 whitespace-normal align-top',
      cell: (route) => <TargetCell route={route} />,
    },
    {
      id: 'health',
      header: 'Upstream health',
      headClassName: 'w-[30%]',
      cellClassName: 'whitespace-normal align-top',
      cell: (route) => <UpstreamHealthList upstreams={route.upstream_health} check={route.health_check} />,
    },
    { id: 'check', header: 'Health check', cellClassName: 'align-top', cell: (route) => <HealthCheckCell route={route} /> },
    { id: 'updated', header: 'Updated', cellClassName: 'align-top', cell: (route) => <UpdatedCell route={route} /> },
  ];
  if (actions) {
    columns.push({
      id: 'actions',
      header: 'Actions',
      srOnly: true,
      headClassName: 'w-11 pr-3 pl-0',
      cellClassName: 'pr-3 pl-0 text-right align-top',
      cell: (route) => (
        <RowActionsMenu name={route.domain} onEdit={() => actions.onEdit(route)} onDelete={() => actions.onDelete(route)} />
      ),
    });
  }
  return (
    <Card className="gap-0 overflow-hidden p-0">
      <DataTable
        columns={columns}
        rows={routes}
        rowKey={(route) => route.id}
        rowProps={(route) => ({ 'data-testid': `lb-route-${route.domain}` })}
        className="[&_td]:py-3.5"
      />
    </Card>
  );
}

function LoadingRows() {
  return <SkeletonRows label="Loading routes" cells={['h-4 w-40', 'h-4 w-32', 'ml-auto h-5 w-20 rounded-full']} />;
}

function updateBody(body: LbRouteRequest) {
  const { domain: _domain, ...rest } = body;
  return rest;
}

/** /load-balancer: domains routed to a project environment or to upstream addresses, with their health. */
export default function LoadBalancerPage() {
  const isAdmin = useIsAdmin();
  const routes = useLbRoutes();
  const create = useCreateLbRoute();
  const update = useUpdateLbRoute();
  const remove = useDeleteLbRoute();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<LbRoute | null>(null);
  // The route asked about stays set while the confirmation closes, so its text does not change under the animation.
  const [deleting, setDeleting] = useState<LbRoute | null>(null);
  const [confirmOpen, setConfirmOpen] = useState(false);
  const list = routes.data ?? [];

  const addButton = isAdmin ? (
    <Button onClick={() => setAdding(true)}>
      <Plus />
      Add route
    </Button>
  ) : null;

  const addRoute = async (body: LbRouteRequest) => {
    const created = await create.mutateAsync(body);
    toast.success(ROUTE_CREATED, { description: `${created.domain} → ${created.target_label}` });
    setAdding(false);
  };

  const editRoute = async (route: LbRoute, body: LbRouteRequest) => {
    const updated = await update.mutateAsync({ domain: route.domain, ...updateBody(body) });
    toast.success(ROUTE_UPDATED, { description: `${updated.domain} → ${updated.target_label}` });
    setEditing(null);
  };

  return (
    <Page
      title="Load balancer"
      documentTitle="Load balancer"
      description={
        <>
          Route domains to a project environment or to your own servers, with health checks.
          {isAdmin ? null : ' Only admins can change routes.'}
        </>
      }
      actions={list.length > 0 ? addButton : null}
    >
      {routes.isPending ? (
        <LoadingRows />
      ) : routes.isError && !routes.data ? (
        // Only when nothing was loaded: a failed refresh keeps the last list on screen.
        <LoadFailed title="Could not load routes" query={routes} />
      ) : list.length === 0 ? (
        <EmptyState
          icon={<Split />}
          title="No load-balancer routes"
          description={
            isAdmin
              ? 'Route a domain to a project environment or to upstream addresses: the edge spreads requests across them and leaves out any that fail their health check.'
              : 'Routes send a domain to a project environment or to upstream addresses. An admin can add them here.'
          }
          action={addButton}
        />
      ) : (
        <RoutesList
          routes={list}
          actions={
            isAdmin
              ? {
                  onEdit: (route) => setEditing(route),
                  onDelete: (route) => {
                    setDeleting(route);
                    setConfirmOpen(true);
                  },
                }
              : null
          }
        />
      )}

      <Dialog open={adding} onOpenChange={(open) => !create.isPending && setAdding(open)}>
        <DialogContent className="sm:max-w-xl">
          <DialogHeader>
            <DialogTitle>Add route</DialogTitle>
            <DialogDescription>The edge applies it at once, without a restart.</DialogDescription>
          </DialogHeader>
          {adding ? (
            <RouteForm
              mode="create"
              submitLabel="Create route"
              failureTitle="Failed to create route"
              onSubmit={addRoute}
              onCancel={() => setAdding(false)}
            />
          ) : null}
        </DialogContent>
      </Dialog>

      <Dialog open={editing !== null} onOpenChange={(open) => !open && !update.isPending && setEditing(null)}>
        <DialogContent className="sm:max-w-xl">
          <DialogHeader>
            <DialogTitle>Edit route</DialogTitle>
            <DialogDescription>
              {editing ? (
                <>
                  Changes to <span className="font-medium font-mono text-foreground">{editing.domain}</span> apply at once,
                  without a restart.
                </>
              ) : null}
            </DialogDescription>
          </DialogHeader>
          {editing ? (
            <RouteForm
              key={editing.id}
              mode="edit"
              defaultValues={routeToForm(editing)}
              submitLabel="Save changes"
              failureTitle="Failed to update route"
              onSubmit={(body) => editRoute(editing, body)}
              onCancel={() => setEditing(null)}
            />
          ) : null}
        </DialogContent>
      </Dialog>

      <ConfirmDialog
        open={confirmOpen}
        onOpenChange={setConfirmOpen}
        title={`Delete route for ${deleting?.domain ?? ''}?`}
        description={
          <>Requests to {deleting?.domain ?? ''} get the edge’s “no app here” page afterwards. This action cannot be undone.</>
        }
        confirmLabel="Delete route"
        onConfirm={async () => {
          if (!deleting) return;
          try {
            await remove.mutateAsync(deleting.domain);
            toast.success(ROUTE_DELETED, { description: deleting.domain });
            setConfirmOpen(false);
          } catch (error) {
            toast.error('Failed to delete route', { description: errorDetail(error) });
          }
        }}
      />
    </Page>
  );
}
