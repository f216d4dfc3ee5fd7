import type { ApiKey } from '@launchbay/contract';
import { type ReactNode, useState } from 'react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { errorDetail } from '@/lib/api';
import { toast } from '@/lib/toast';
import { useDeleteApiKey, useSetApiKeyActive } from './api';

export interface KeyActions {
  /** Activates or deactivates the key, with a toast either way. */
  setActive: (key: ApiKey, active: boolean) => Promise<void>;
  /** Asks for confirmation, then deletes; `onDeleted` runs after a successful delete. */
  requestDelete: (key: ApiKey, onDeleted?: () => void) => void;
  pendingId: number | null;
  /** The confirmation dialog: render it once on the page. */
  dialog: ReactNode;
}

export function useKeyActions(): KeyActions {
  const setActiveMutation = useSetApiKeyActive();
  const deleteMutation = useDeleteApiKey();
  const [pendingId, setPendingId] = useState<number | null>(null);
  const [toDelete, setToDelete] = useState<{ key: ApiKey; onDeleted?: () => void } | null>(null);

  const setActive = async (key: ApiKey, active: boolean) => {
    setPendingId(key.id);
    try {
      await setActiveMutation.mutateAsync({ id: key.id, active });
      toast.success(active ? 'API key activated' : 'API key deactivated', {
        description: active ? `${key.name} can be used again.` : `Calls made with ${key.name} are refused from now on.`,
      });
    } catch (error) {
      toast.error(active ? 'Failed to activate API key' : 'Failed to deactivate API key', { description: errorDetail(error) });
    } finally {
      setPendingId(null);
    }
  };

  const confirmDelete = async () => {
    if (!toDelete) return;
    try {
      await deleteMutation.mutateAsync(toDelete.key.id);
      toast.success('API key deleted', { description: `${toDelete.key.name} no longer works.` });
      toDelete.onDeleted?.();
      setToDelete(null);
    } catch (error) {
      toast.error('Failed to delete API key', { description: errorDetail(error) });
    }
  };

  const dialog = (
    <ConfirmDialog
      open={toDelete !== null}
      onOpenChange={(open) => !open && setToDelete(null)}
      title={`Delete ${toDelete?.key.name}?`}
      description={
        <>
          Every script or service that uses this key (<span className="font-mono">{toDelete?.key.key_prefix}…</span>) stops
          working at once. This action cannot be undone.
        </>
      }
      confirmLabel="Delete API key"
      onConfirm={confirmDelete}
    />
  );

  return {
    setActive,
    requestDelete: (key, onDeleted) => setToDelete({ key, onDeleted }),
    pendingId,
    dialog,
  };
}
