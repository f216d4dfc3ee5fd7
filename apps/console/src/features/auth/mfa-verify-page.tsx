import { zodResolver } from '@hookform/resolvers/zod';
import { type VerifyMfaRequest, verifyMfaRequestSchema } from '@launchbay/contract';
import { useQueryClient } from '@tanstack/react-query';
import { ShieldCheck } from 'lucide-react';
import { useForm } from 'react-hook-form';
import { Button } from '@/components/ui/button';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail } from '@/lib/api';
import { currentUserQueryKey } from '@/lib/current-user';
import { useDocumentTitle } from '@/lib/document-title';
import { navigateTo } from '@/lib/location';
import { toast } from '@/lib/toast';
import { useVerifyMfa } from './api';
import { AuthLayout } from './auth-layout';

export default function MfaVerifyPage() {
  useDocumentTitle('Two-factor verification');
  const queryClient = useQueryClient();
  const verify = useVerifyMfa();
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<VerifyMfaRequest>({
    resolver: zodResolver(verifyMfaRequestSchema),
    defaultValues: { code: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    try {
      await verify.mutateAsync({ code: values.code.trim() });
      toast.success('Logged in successfully');
      navigateTo('/dashboard', { replace: true });
      await queryClient.resetQueries({ queryKey: currentUserQueryKey });
    } catch (error) {
      toast.error('Failed to verify code', { description: errorDetail(error) });
    }
  });

  const busy = isSubmitting || verify.isPending;

  return (
    <AuthLayout
      footer={
        <button
          type="button"
          className="underline underline-offset-4 hover:text-foreground"
          onClick={() => navigateTo('/', { replace: true })}
        >
          Back to sign in
        </button>
      }
    >
      <div className="mb-6 space-y-1.5">
        <div className="mb-4 flex size-10 items-center justify-center rounded-full bg-muted">
          <ShieldCheck className="size-5" />
        </div>
        <h1 className="font-semibold text-2xl tracking-tight">Two-factor verification</h1>
        <p className="text-muted-foreground text-sm">
          Enter the 6-digit code from your authenticator app, or one of your recovery codes.
        </p>
      </div>
      <form onSubmit={onSubmit} noValidate className="grid gap-4">
        <div className="grid gap-2">
          <Label htmlFor="mfa-code">Authentication code</Label>
          <Input
            id="mfa-code"
            autoComplete="one-time-code"
            autoCapitalize="off"
            spellCheck={false}
            placeholder="123456 or abcd-efgh-ijkl"
            autoFocus
            className="font-mono tracking-wider"
            aria-invalid={errors.code ? true : undefined}
            aria-describedby={errors.code ? 'mfa-code-error' : undefined}
            {...register('code')}
          />
          <FieldError id="mfa-code-error" message={errors.code?.message} />
        </div>
        <Button type="submit" className="w-full" disabled={busy}>
          {busy ? <Spinner /> : null}
          {busy ? 'Verifying...' : 'Verify'}
        </Button>
      </form>
    </AuthLayout>
  );
}
