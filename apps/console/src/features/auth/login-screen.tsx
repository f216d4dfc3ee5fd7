import type { LoginRequest } from '@launchbay/contract';
import { useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Button } from '@/components/ui/button';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail, isApiError } from '@/lib/api';
import { currentUserQueryKey } from '@/lib/current-user';
import { useDocumentTitle } from '@/lib/document-title';
import { navigateTo } from '@/lib/location';
import { toast } from '@/lib/toast';
import { useLogin } from './api';
import { AuthLayout } from './auth-layout';
import { loginResolver } from './login-schema';

export function LoginScreen() {
  useDocumentTitle('Sign in');
  const queryClient = useQueryClient();
  const login = useLogin();
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<LoginRequest>({
    resolver: loginResolver,
    defaultValues: { email: '', password: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    try {
      const result = await login.mutateAsync(values);
      if (result.mfa_required) {
        toast.info('Please complete MFA verification');
        navigateTo('/mfa-verify');
        return;
      }
      toast.success('Logged in successfully');
      // Move to /dashboard before the app mounts, so the router starts there.
      navigateTo('/dashboard', { replace: true });
      await queryClient.refetchQueries({ queryKey: currentUserQueryKey });
    } catch (error) {
      if (isApiError(error)) {
        for (const fieldError of error.errors) {
          if (fieldError.path === 'email' || fieldError.path === 'password') {
            setError(fieldError.path, { message: fieldError.message });
          }
        }
      }
      toast.error('Login failed', { description: errorDetail(error) });
    }
  });

  const busy = isSubmitting || login.isPending;

  return (
    <AuthLayout footer="Access to this console is restricted to authorized operators.">
      <div className="mb-6 space-y-1.5">
        <h1 className="font-semibold text-2xl tracking-tight">Welcome back</h1>
        <p className="text-muted-foreground text-sm">Sign in to your account to continue.</p>
      </div>
      <form onSubmit={onSubmit} noValidate className="grid gap-4">
        <div className="grid gap-2">
          <Label htmlFor="login-email">Email</Label>
          <Input
            id="login-email"
            type="email"
            autoComplete="username"
            placeholder="you@company.com"
            autoFocus
            aria-invalid={errors.email ? true : undefined}
            aria-describedby={errors.email ? 'login-email-error' : undefined}
            {...register('email')}
          />
          <FieldError id="login-email-error" message={errors.email?.message} />
        </div>
        <div className="grid gap-2">
          <Label htmlFor="login-password">Password</Label>
          <Input
            id="login-password"
            type="password"
            autoComplete="current-password"
            placeholder="••••••••"
            aria-invalid={errors.password ? true : undefined}
            aria-describedby={errors.password ? 'login-password-error' : undefined}
            {...register('password')}
          />
          <FieldError id="login-password-error" message={errors.password?.message} />
        </div>
        <Button type="submit" className="mt-2 w-full" disabled={busy}>
          {busy ? <Spinner /> : null}
          {busy ? 'Signing in...' : 'Sign in'}
        </Button>
      </form>
    </AuthLayout>
  );
}
