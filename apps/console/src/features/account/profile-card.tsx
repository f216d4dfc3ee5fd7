import { zodResolver } from '@hookform/resolvers/zod';
import { avatarUrlSchema, type CurrentUser, usernameSchema } from '@launchbay/contract';
import { useMemo } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { Avatar, AvatarFallback, AvatarImage } from '@/components/ui/avatar';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail, isApiError } from '@/lib/api';
import { toast } from '@/lib/toast';
import { initials } from '@/lib/utils';
import { useUpdateMe } from './api';

const sameEmail = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The current password is asked for only when the email changes (the server insists on it then). */
function profileSchemaFor(currentEmail: string) {
  return z
    .object({
      username: usernameSchema,
      email: z.email('Please enter a valid email address'),
      avatar_url: z.union([z.literal(''), avatarUrlSchema]),
      current_password: z.string(),
    })
    .refine((values) => sameEmail(values.email, currentEmail) || values.current_password !== '', {
      message: 'Current password is required to change your email',
      path: ['current_password'],
    });
}
type ProfileValues = z.infer<ReturnType<typeof profileSchemaFor>>;
const SERVER_FIELDS = ['username', 'email', 'avatar_url', 'current_password'] as const;

export function ProfileCard({ user }: { user: CurrentUser }) {
  const updateMe = useUpdateMe();
  const schema = useMemo(() => profileSchemaFor(user.email), [user.email]);
  const { register, handleSubmit, watch, reset, setError, formState } = useForm<ProfileValues>({
    resolver: zodResolver(schema),
    values: { username: user.username, email: user.email, avatar_url: user.avatar_url ?? '', current_password: '' },
  });
  const avatarUrl = watch('avatar_url');
  const previewOk = avatarUrl === '' || avatarUrlSchema.safeParse(avatarUrl).success;
  const emailChanged = !sameEmail(watch('email'), user.email);

  const onSubmit = handleSubmit(async (values) => {
    const changingEmail = !sameEmail(values.email, user.email);
    try {
      const updated = await updateMe.mutateAsync({
        username: values.username,
        avatar_url: values.avatar_url === '' ? null : values.avatar_url,
        // Sent only when it changes: a new email needs the current password, an unchanged one does not.
        ...(changingEmail ? { email: values.email, current_password: values.current_password } : {}),
      });
      reset({ username: updated.username, email: updated.email, avatar_url: updated.avatar_url ?? '', current_password: '' });
      toast.success('Profile updated');
    } catch (error) {
      if (isApiError(error)) {
        for (const fieldError of error.errors) {
          const field = SERVER_FIELDS.find((name) => name === fieldError.path);
          if (field) setError(field, { type: 'server', message: fieldError.message });
        }
      }
      toast.error('Failed to update profile', { description: errorDetail(error) });
    }
  });

  return (
    <Card>
      <CardHeader>
        <CardTitle>Profile</CardTitle>
        <CardDescription>Your name, email and avatar as other users see them.</CardDescription>
      </CardHeader>
      <form onSubmit={onSubmit} noValidate>
        <CardContent className="grid gap-5">
          <div className="flex items-center gap-4">
            <Avatar className="size-16 rounded-xl">
              {avatarUrl && previewOk ? <AvatarImage src={avatarUrl} alt="Avatar preview" /> : null}
              <AvatarFallback className="rounded-xl text-lg">{initials(watch('username'))}</AvatarFallback>
            </Avatar>
            <div className="text-muted-foreground text-sm">
              <p className="font-medium text-foreground">{watch('username') || 'User'}</p>
              <p>{watch('email')}</p>
            </div>
          </div>
          <div className="grid gap-4 sm:grid-cols-2">
            <div className="grid gap-2">
              <Label htmlFor="profile-name">Name</Label>
              <Input id="profile-name" autoComplete="name" {...register('username')} />
              <FieldError message={formState.errors.username?.message} />
            </div>
            <div className="grid gap-2">
              <Label htmlFor="profile-email">Email</Label>
              <Input id="profile-email" type="email" autoComplete="email" {...register('email')} />
              <FieldError message={formState.errors.email?.message} />
            </div>
          </div>
          {emailChanged ? (
            <div className="grid gap-2">
              <Label htmlFor="profile-current-password">Current password</Label>
              <Input
                id="profile-current-password"
                type="password"
                autoComplete="current-password"
                aria-invalid={formState.errors.current_password ? true : undefined}
                {...register('current_password')}
              />
              <FieldError message={formState.errors.current_password?.message} />
              <p className="text-muted-foreground text-xs">Confirm your current password to change your email.</p>
            </div>
          ) : null}
          <div className="grid gap-2">
            <Label htmlFor="profile-avatar">Avatar URL</Label>
            <Input id="profile-avatar" type="url" placeholder="https://example.com/me.png" {...register('avatar_url')} />
            <FieldError message={formState.errors.avatar_url?.message} />
            <p className="text-muted-foreground text-xs">Leave empty to use your initials.</p>
          </div>
        </CardContent>
        <CardFooter className="mt-6 justify-end border-t pt-6">
          <Button type="submit" disabled={!formState.isDirty || formState.isSubmitting}>
            {formState.isSubmitting ? <Spinner /> : null}
            Save profile
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}
