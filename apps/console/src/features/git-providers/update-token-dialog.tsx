import { zodResolver } from '@hookform/resolvers/zod';
import type { GitConnection, GitProviderType } from '@launchbay/contract';
import { KeyRound } from 'lucide-react';
import { useEffect } from 'react';
import { useForm } from 'react-hook-form';
import { FormField } from '@/components/form/form-field';
import { GIT_PROVIDER_LABEL } from '@/components/git/git-provider-icon';
import { Button } from '@/components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail, isApiError } from '@/lib/api';
import { toast } from '@/lib/toast';
import { useUpdateConnectionToken } from './api';
import { REQUIRED_SCOPES, type UpdateTokenFormInput, updateTokenFormSchema } from './model';

/** Gives a connection a new token (same account, checked by the host), then it syncs. Admins only. */
export function UpdateTokenDialog({
  connection,
  type,
  open,
  onOpenChange,
}: {
  connection: GitConnection;
  type: GitProviderType;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const update = useUpdateConnectionToken();
  const form = useForm<UpdateTokenFormInput>({ resolver: zodResolver(updateTokenFormSchema), defaultValues: { token: '' } });
  const { register, handleSubmit, setError, reset, formState } = form;
  const busy = formState.isSubmitting;
  const error = formState.errors.token?.message;
  const id = `update-token-${connection.id}`;

  useEffect(() => {
    if (open) reset({ token: '' });
  }, [open, reset]);

  const submit = handleSubmit(async ({ token }) => {
    try {
      const updated = await update.mutateAsync({ connectionId: connection.id, token });
      toast.success('Token updated', {
        description: `@${updated.account_login}: ${updated.repository_count} ${updated.repository_count === 1 ? 'repository' : 'repositories'} synced.`,
      });
      onOpenChange(false);
    } catch (failure) {
      const message = errorDetail(failure);
      const onField = isApiError(failure) ? failure.errors.find((item) => item.path === 'token') : undefined;
      setError('token', { type: 'server', message: onField?.message ?? message }, { shouldFocus: true });
      toast.error('Failed to update token', { description: message });
    }
  });

  return (
    <Dialog open={open} onOpenChange={(next) => !busy && onOpenChange(next)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Update token</DialogTitle>
          <DialogDescription>
            A new {GIT_PROVIDER_LABEL[type]} token of{' '}
            <span className="font-medium text-foreground">@{connection.account_login}</span> with the{' '}
            {REQUIRED_SCOPES[type].join(' and ')} scope{REQUIRED_SCOPES[type].length > 1 ? 's' : ''}. Launchbay checks it, then
            syncs the repositories again.
          </DialogDescription>
        </DialogHeader>
        <form onSubmit={submit} noValidate className="grid gap-4">
          <FormField id={id} label="Token" error={error}>
            <Input
              id={id}
              type="password"
              autoComplete="new-password"
              spellCheck={false}
              className="font-mono"
              disabled={busy}
              aria-invalid={error ? true : undefined}
              {...register('token')}
            />
          </FormField>
          <DialogFooter>
            <Button variant="outline" onClick={() => onOpenChange(false)} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" disabled={busy}>
              {busy ? <Spinner /> : <KeyRound />}
              Update token
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
