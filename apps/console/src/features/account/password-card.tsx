import { zodResolver } from '@hookform/resolvers/zod';
import { passwordSchema } from '@launchbay/contract';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail } from '@/lib/api';
import { toast } from '@/lib/toast';
import { useUpdateMe } from './api';

const passwordFormSchema = z
  .object({
    current_password: z.string().min(1, 'Current password is required'),
    new_password: passwordSchema,
    confirm_password: z.string(),
  })
  .refine((values) => values.new_password === values.confirm_password, {
    message: 'Passwords do not match',
    path: ['confirm_password'],
  });
type PasswordValues = z.infer<typeof passwordFormSchema>;

export function PasswordCard() {
  const updateMe = useUpdateMe();
  const { register, handleSubmit, reset, formState } = useForm<PasswordValues>({
    resolver: zodResolver(passwordFormSchema),
    defaultValues: { current_password: '', new_password: '', confirm_password: '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    try {
      await updateMe.mutateAsync({
        current_password: values.current_password,
        new_password: values.new_password,
      });
      reset();
      toast.success('Password changed');
    } catch (error) {
      toast.error('Failed to change password', { description: errorDetail(error) });
    }
  });

  return (
    <Card>
      <CardHeader>
        <CardTitle>Password</CardTitle>
        <CardDescription>Confirm your current password to choose a new one.</CardDescription>
      </CardHeader>
      <form onSubmit={onSubmit} noValidate>
        <CardContent className="grid gap-4">
          <div className="grid gap-2">
            <Label htmlFor="current-password">Current password</Label>
            <Input id="current-password" type="password" autoComplete="current-password" {...register('current_password')} />
            <FieldError message={formState.errors.current_password?.message} />
          </div>
          <div className="grid gap-4 sm:grid-cols-2">
            <div className="grid gap-2">
              <Label htmlFor="new-password">New password</Label>
              <Input id="new-password" type="password" autoComplete="new-password" {...register('new_password')} />
              <FieldError message={formState.errors.new_password?.message} />
            </div>
            <div className="grid gap-2">
              <Label htmlFor="confirm-password">Confirm new password</Label>
              <Input id="confirm-password" type="password" autoComplete="new-password" {...register('confirm_password')} />
              <FieldError message={formState.errors.confirm_password?.message} />
            </div>
          </div>
        </CardContent>
        <CardFooter className="mt-6 justify-end border-t pt-6">
          <Button type="submit" disabled={formState.isSubmitting}>
            {formState.isSubmitting ? <Spinner /> : null}
            Change password
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}
