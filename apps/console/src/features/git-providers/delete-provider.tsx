import type { GitProvider, ProjectRef } from '@launchbay/contract';
import { FolderGit2, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail } from '@/lib/api';
import { toast } from '@/lib/toast';
import { useDeleteGitProvider, useDeletionCheck } from './api';
import { GIT_SOURCES_PATH, projectPath } from './model';

export const DELETE_GIT_PROVIDER_MESSAGE =
  'Launchbay forgets its token, its connections and their synced repositories. This action cannot be undone.';

/**
 * Delete asks the server first which projects use the provider: while any does, the dialog names
 * them (with links) and offers no delete; otherwise it confirms, deletes and goes back to the list.
 */
export function DeleteGitProviderButton({ provider }: { provider: GitProvider }) {
  const navigate = useNavigate();
  const check = useDeletionCheck();
  const remove = useDeleteGitProvider();
  const [confirming, setConfirming] = useState(false);
  const [inUse, setInUse] = useState<ProjectRef[] | null>(null);

  const start = async () => {
    try {
      const result = await check.mutateAsync(provider.id);
      if (result.can_delete) setConfirming(true);
      else setInUse(result.projects);
    } catch (error) {
      toast.error('Failed to delete git provider', { description: errorDetail(error) });
    }
  };

  const confirm = async () => {
    try {
      await remove.mutateAsync(provider.id);
      toast.success('Git provider deleted', { description: provider.name });
      setConfirming(false);
      navigate(GIT_SOURCES_PATH, { replace: true });
      remove.forget(provider.id);
    } catch (error) {
      toast.error('Failed to delete git provider', { description: errorDetail(error) });
      setConfirming(false);
    }
  };

  return (
    <>
      <Button
        variant="outline"
        className="text-destructive hover:bg-destructive/10 hover:text-destructive"
        onClick={() => void start()}
        disabled={check.isPending}
      >
        {check.isPending ? <Spinner label="Checking which projects use it" /> : <Trash2 />}
        Delete
      </Button>
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title={`Delete ${provider.name}?`}
        description={DELETE_GIT_PROVIDER_MESSAGE}
        confirmLabel="Delete provider"
        onConfirm={confirm}
      />
      <Dialog open={inUse !== null} onOpenChange={(open) => !open && setInUse(null)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>{provider.name} is in use</DialogTitle>
            <DialogDescription>
              {inUse?.length === 1
                ? 'This project deploys from its repositories: delete the project before deleting the provider.'
                : `These ${inUse?.length ?? 0} projects deploy from its repositories: delete them before deleting the provider.`}
            </DialogDescription>
          </DialogHeader>
          <ul className="divide-y rounded-lg border" aria-label="Projects using this provider">
            {(inUse ?? []).map((project) => (
              <li key={project.id}>
                <Link
                  to={projectPath(project.slug)}
                  className="flex items-center gap-2.5 px-3 py-2.5 text-sm outline-none transition-colors hover:bg-accent/50 focus-visible:bg-accent/50"
                >
                  <FolderGit2 className="size-4 shrink-0 text-muted-foreground" />
                  <span className="min-w-0 truncate font-medium">{project.name}</span>
                  <span className="ml-auto truncate font-mono text-muted-foreground text-xs">{project.slug}</span>
                </Link>
              </li>
            ))}
          </ul>
          <DialogFooter>
            <Button variant="outline" onClick={() => setInUse(null)}>
              Close
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </>
  );
}
