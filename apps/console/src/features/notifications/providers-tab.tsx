import type { NotificationProvider } from '@launchbay/contract';
import { BellPlus, MoreHorizontal, Pencil, Plus, Send, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { EmptyState } from '@/components/layout/page';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { Skeleton } from '@/components/ui/skeleton';
import { Spinner } from '@/components/ui/spinner';
import { Switch } from '@/components/ui/switch';
import { errorDetail } from '@/lib/api';
import { useProviders } from './api';
import { EditProviderForm } from './edit-provider-form';
import { DeleteProviderDialog, useCanManageAlerts, useTestAction, useToggleAction } from './provider-actions';
import { LastDelivery, ProviderIcon, ProviderTypeBadge, providerTarget } from './provider-parts';

export const ADD_PROVIDER_PATH = '/monitoring/providers/add';
export const editProviderPath = (id: number) => `/monitoring/providers/edit/${id}`;

function ProviderCard({
  provider,
  canManage,
  onEdit,
  onDelete,
}: {
  provider: NotificationProvider;
  canManage: boolean;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const test = useTestAction();
  const toggle = useToggleAction();
  const target = providerTarget(provider);
  const enabled = toggle.isPending && toggle.pendingEnabled !== undefined ? toggle.pendingEnabled : provider.enabled;
  const switchId = `provider-${provider.id}-enabled`;

  return (
    <Card
      data-testid={`provider-card-${provider.id}`}
      aria-labelledby={`provider-${provider.id}-name`}
      role="article"
      className="min-w-0 gap-4 px-5 py-5"
    >
      <div className="flex items-start gap-3">
        <ProviderIcon type={provider.provider_type} />
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-2">
            <h3 id={`provider-${provider.id}-name`} className="truncate font-semibold leading-tight">
              {provider.name}
            </h3>
            <ProviderTypeBadge type={provider.provider_type} />
          </div>
          <p className="mt-1 flex min-w-0 items-baseline gap-1.5 text-muted-foreground text-sm">
            <span className="shrink-0">{target.label}</span>
            <span className="truncate font-mono text-xs" title={target.value}>
              {target.value}
            </span>
          </p>
        </div>
        <DropdownMenu modal={false}>
          <DropdownMenuTrigger asChild>
            <Button variant="ghost" size="icon-sm" aria-label={`Actions for ${provider.name}`} className="-mt-1 -mr-2">
              {test.isPending ? <Spinner label="Sending test notification" /> : <MoreHorizontal />}
            </Button>
          </DropdownMenuTrigger>
          <DropdownMenuContent align="end" className="w-48">
            <DropdownMenuItem disabled={!canManage} onSelect={onEdit}>
              <Pencil />
              Edit
            </DropdownMenuItem>
            <DropdownMenuItem disabled={!canManage || test.isPending} onSelect={() => void test.run(provider)}>
              <Send />
              Test
            </DropdownMenuItem>
            <DropdownMenuSeparator />
            <DropdownMenuItem variant="destructive" disabled={!canManage} onSelect={onDelete}>
              <Trash2 />
              Delete
            </DropdownMenuItem>
          </DropdownMenuContent>
        </DropdownMenu>
      </div>
      <div className="flex flex-wrap items-center justify-between gap-3 border-t pt-3">
        <div className="min-w-0 flex-1">
          {test.isPending ? (
            <p className="flex items-center gap-1.5 text-muted-foreground text-xs">
              <Spinner className="size-3" label="Sending" />
              Sending a test notification…
            </p>
          ) : (
            <LastDelivery delivery={provider.last_delivery} />
          )}
        </div>
        <div className="flex shrink-0 items-center gap-2">
          <label htmlFor={switchId} className="text-muted-foreground text-xs">
            {enabled ? 'Enabled' : 'Disabled'}
          </label>
          <Switch
            id={switchId}
            aria-label={`${provider.name} enabled`}
            checked={enabled}
            disabled={!canManage || toggle.isPending}
            onCheckedChange={() => void toggle.run(provider)}
          />
        </div>
      </div>
    </Card>
  );
}

function EditProviderDialog({
  provider,
  onOpenChange,
}: {
  provider: NotificationProvider | null;
  onOpenChange: (open: boolean) => void;
}) {
  return (
    <Dialog open={provider !== null} onOpenChange={onOpenChange}>
      <DialogContent className="sm:max-w-xl">
        <DialogHeader>
          <DialogTitle>Edit provider</DialogTitle>
          <DialogDescription>
            {provider ? (
              <>
                Change how <span className="font-medium text-foreground">{provider.name}</span> delivers alerts, or{' '}
                <Link to={editProviderPath(provider.id)} className="text-foreground underline underline-offset-4">
                  open the full page
                </Link>
                .
              </>
            ) : null}
          </DialogDescription>
        </DialogHeader>
        {provider ? (
          <EditProviderForm provider={provider} onSaved={() => onOpenChange(false)}>
            {({ isSubmitting, isDirty }) => (
              <DialogFooter>
                <Button variant="outline" onClick={() => onOpenChange(false)} disabled={isSubmitting}>
                  Cancel
                </Button>
                <Button type="submit" disabled={!isDirty || isSubmitting}>
                  {isSubmitting ? <Spinner /> : null}
                  Save Changes
                </Button>
              </DialogFooter>
            )}
          </EditProviderForm>
        ) : null}
      </DialogContent>
    </Dialog>
  );
}

export function AddProviderLink({ className }: { className?: string }) {
  return (
    <Link to={ADD_PROVIDER_PATH} className={buttonVariants({ className })}>
      <Plus />
      Add Provider
    </Link>
  );
}

export function ProvidersTab() {
  const { data: providers, isPending, isError, error, refetch, isFetching } = useProviders();
  const canManage = useCanManageAlerts();
  const [editing, setEditing] = useState<NotificationProvider | null>(null);
  const [deleting, setDeleting] = useState<NotificationProvider | null>(null);

  if (isPending) {
    return (
      <div className="grid gap-4 sm:grid-cols-2" role="status" aria-busy="true" aria-label="Loading providers">
        {[0, 1].map((key) => (
          <Skeleton key={key} className="h-40 rounded-xl" />
        ))}
      </div>
    );
  }
  if (isError) {
    return (
      <EmptyState
        title="Failed to load providers"
        description={errorDetail(error)}
        action={
          <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
            Retry
          </Button>
        }
      />
    );
  }
  if (providers.length === 0) {
    return (
      <EmptyState
        icon={<BellPlus />}
        title="No notification providers configured"
        description="Add an email or Slack provider to start receiving alerts."
        action={canManage ? <AddProviderLink /> : undefined}
      />
    );
  }
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-muted-foreground text-sm">
          {providers.length === 1 ? '1 provider' : `${providers.length} providers`}, {providers.filter((p) => p.enabled).length}{' '}
          enabled. Alerts go to every enabled provider whose channel is on.
        </p>
        {canManage ? <AddProviderLink /> : null}
      </div>
      <div className="grid gap-4 sm:grid-cols-2">
        {providers.map((provider) => (
          <ProviderCard
            key={provider.id}
            provider={provider}
            canManage={canManage}
            onEdit={() => setEditing(provider)}
            onDelete={() => setDeleting(provider)}
          />
        ))}
      </div>
      <EditProviderDialog provider={editing} onOpenChange={(open) => !open && setEditing(null)} />
      <DeleteProviderDialog provider={deleting} open={deleting !== null} onOpenChange={(open) => !open && setDeleting(null)} />
    </div>
  );
}
