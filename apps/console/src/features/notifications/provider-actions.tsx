import {
  type NotificationProvider,
  type ProviderType,
  TEST_NOTIFICATION_FAILED_MESSAGE,
  TEST_NOTIFICATION_SENT_MESSAGE,
} from '@launchbay/contract';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { errorDetail } from '@/lib/api';
import { useCanManage } from '@/lib/roles';
import { toast } from '@/lib/toast';
import { type ProviderBody, useDeleteProvider, useTestProvider, useUpdateProvider } from './api';

/** Spec section 2 'Edit provider page': the delete confirmation. */
export const DELETE_PROVIDER_MESSAGE = 'This will permanently delete the provider. This action cannot be undone.';

/** Changing preferences and providers needs the user (or admin) role; readers only look. */
export function useCanManageAlerts(): boolean {
  return useCanManage();
}

/** Spec section 8: the per-type toast titles of provider updates. */
export const UPDATED_MESSAGE = {
  email: 'Email provider updated successfully',
  slack: 'Slack provider updated successfully',
} as const;
export const UPDATE_FAILED_MESSAGE = {
  email: 'Failed to update email provider',
  slack: 'Failed to update Slack provider',
} as const;
export const ADDED_MESSAGE = { email: 'Email provider added successfully', slack: 'Slack provider added successfully' } as const;
export const ADD_FAILED_MESSAGE = { email: 'Failed to add email provider', slack: 'Failed to add Slack provider' } as const;

/** The provider as an update body: name, enabled and config (the masked secrets keep the stored ones). */
export function providerBody(provider: NotificationProvider, enabled = provider.enabled): ProviderBody<ProviderType> {
  if (provider.provider_type === 'email') return { name: provider.name, enabled, config: provider.config };
  return { name: provider.name, enabled, config: provider.config };
}

/** Sends a test notification now and says how it went. */
export function useTestAction() {
  const test = useTestProvider();
  const run = async (provider: NotificationProvider) => {
    try {
      const result = await test.mutateAsync(provider.id);
      toast.success(result?.message || TEST_NOTIFICATION_SENT_MESSAGE);
    } catch (error) {
      // Spec section 8: the server's detail (the receiving server's refusal) or the generic message.
      toast.error('Failed to test provider', { description: errorDetail(error, TEST_NOTIFICATION_FAILED_MESSAGE) });
    }
  };
  return { run, isPending: test.isPending };
}

/** Spec section 7: the status toggle sends name, the flipped enabled and config. */
export function useToggleAction() {
  const update = useUpdateProvider();
  const run = async (provider: NotificationProvider) => {
    try {
      await update.mutateAsync({
        type: provider.provider_type,
        id: provider.id,
        body: providerBody(provider, !provider.enabled),
      });
      toast.success('Provider status updated successfully');
    } catch (error) {
      toast.error('Failed to update provider status', { description: errorDetail(error) });
    }
  };
  return { run, isPending: update.isPending, pendingEnabled: update.variables?.body.enabled };
}

/** Asks first (spec text), then deletes; `onDeleted` runs after the success toast. */
export function DeleteProviderDialog({
  provider,
  open,
  onOpenChange,
  onDeleted,
}: {
  provider: NotificationProvider | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onDeleted?: () => void;
}) {
  const remove = useDeleteProvider();
  const confirm = async () => {
    if (!provider) return;
    try {
      await remove.mutateAsync(provider.id);
      toast.success('Provider deleted successfully');
      onOpenChange(false);
      onDeleted?.();
    } catch (error) {
      toast.error('Failed to delete provider', { description: errorDetail(error) });
    }
  };
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={onOpenChange}
      title={`Delete ${provider?.name ?? 'provider'}?`}
      description={DELETE_PROVIDER_MESSAGE}
      confirmLabel="Delete provider"
      onConfirm={confirm}
    />
  );
}
