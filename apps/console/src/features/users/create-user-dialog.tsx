import { zodResolver } from '@hookform/resolvers/zod';
import { createUserRequestSchema, ROLE_TYPES, type RoleType } from '@launchbay/contract';
import { CheckCircle2, RefreshCw, UserPlus } from 'lucide-react';
import { useState } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { z } from 'zod';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from '@/components/ui/dialog';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { Spinner } from '@/components/ui/spinner';
import { errorDetail, isApiError } from '@/lib/api';
import { toast } from '@/lib/toast';
import { generatePassword, useCreateUser } from './api';
import { ROLE_DESCRIPTIONS } from './roles';

const formSchema = createUserRequestSchema.pick({ username: true, email: true, password: true }).extend({
  role: z.enum(ROLE_TYPES),
});
type FormValues = z.infer<typeof formSchema>;

export function CreateUserDialog() {
  const [open, setOpen] = useState(false);
  const [created, setCreated] = useState<{ email: string; password: string } | null>(null);
  const createUser = useCreateUser();
  const form = useForm<FormValues>({
    resolver: zodResolver(formSchema),
    defaultValues: { username: '', email: '', password: generatePassword(), role: 'user' },
  });
  const { register, control, handleSubmit, setValue, watch, reset, setError, formState } = form;
  const password = watch('password');

  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (!next) {
      setCreated(null);
      reset({ username: '', email: '', password: generatePassword(), role: 'user' });
    }
  };

  const onSubmit = handleSubmit(async (values) => {
    try {
      await createUser.mutateAsync({
        username: values.username,
        email: values.email,
        password: values.password,
        roles: [values.role],
      });
      toast.success('User created', { description: `${values.username} can now sign in.` });
      setCreated({ email: values.email, password: values.password });
    } catch (error) {
      if (isApiError(error)) {
        for (const fieldError of error.errors) {
          const field = fieldError.path === 'roles' ? 'role' : fieldError.path;
          if (field === 'username' || field === 'email' || field === 'password' || field === 'role') {
            setError(field, { message: fieldError.message });
          }
        }
      }
      toast.error('Failed to create user', { description: errorDetail(error) });
    }
  });

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger asChild>
        <Button>
          <UserPlus />
          Create user
        </Button>
      </DialogTrigger>
      <DialogContent>
        {created ? (
          <>
            <DialogHeader>
              <div className="mb-1 flex size-10 items-center justify-center rounded-full bg-success/10 text-success">
                <CheckCircle2 className="size-5" />
              </div>
              <DialogTitle>User created</DialogTitle>
              <DialogDescription>
                Hand this first password to {created.email} over a secure channel. It is shown only now; they can change it from
                their account page.
              </DialogDescription>
            </DialogHeader>
            <div className="flex items-center gap-2 rounded-lg border bg-muted/50 p-3">
              <code className="min-w-0 flex-1 break-all font-mono text-sm">{created.password}</code>
              <CopyButton value={created.password} label="Copy password" />
            </div>
            <DialogFooter>
              <Button onClick={() => onOpenChange(false)}>Done</Button>
            </DialogFooter>
          </>
        ) : (
          <form onSubmit={onSubmit} noValidate className="grid gap-4">
            <DialogHeader>
              <DialogTitle>Create user</DialogTitle>
              <DialogDescription>Add someone to this Launchbay platform and choose their role.</DialogDescription>
            </DialogHeader>
            <div className="grid gap-2">
              <Label htmlFor="new-user-name">Name</Label>
              <Input
                id="new-user-name"
                autoComplete="off"
                aria-invalid={formState.errors.username ? true : undefined}
                {...register('username')}
              />
              <FieldError message={formState.errors.username?.message} />
            </div>
            <div className="grid gap-2">
              <Label htmlFor="new-user-email">Email</Label>
              <Input
                id="new-user-email"
                type="email"
                autoComplete="off"
                aria-invalid={formState.errors.email ? true : undefined}
                {...register('email')}
              />
              <FieldError message={formState.errors.email?.message} />
            </div>
            <div className="grid gap-2">
              <Label htmlFor="new-user-role">Role</Label>
              <Controller
                control={control}
                name="role"
                render={({ field }) => (
                  <Select value={field.value} onValueChange={(value) => field.onChange(value as RoleType)}>
                    <SelectTrigger id="new-user-role">
                      <SelectValue />
                    </SelectTrigger>
                    <SelectContent>
                      {ROLE_TYPES.map((role) => (
                        <SelectItem key={role} value={role}>
                          <span className="capitalize">{role}</span>
                        </SelectItem>
                      ))}
                    </SelectContent>
                  </Select>
                )}
              />
              <p className="text-muted-foreground text-xs">{ROLE_DESCRIPTIONS[watch('role')]}</p>
            </div>
            <div className="grid gap-2">
              <Label htmlFor="new-user-password">First password</Label>
              <div className="flex gap-2">
                <Input
                  id="new-user-password"
                  readOnly
                  className="font-mono"
                  value={password}
                  aria-invalid={formState.errors.password ? true : undefined}
                />
                <Button
                  variant="outline"
                  size="icon"
                  aria-label="Generate a new password"
                  onClick={() => setValue('password', generatePassword(), { shouldValidate: true })}
                >
                  <RefreshCw />
                </Button>
                <CopyButton value={password} label="Copy" />
              </div>
              <p className="text-muted-foreground text-xs">Generated for you. Copy it to hand over to the user.</p>
              <FieldError message={formState.errors.password?.message} />
            </div>
            <DialogFooter>
              <Button variant="outline" onClick={() => onOpenChange(false)}>
                Cancel
              </Button>
              <Button type="submit" disabled={formState.isSubmitting}>
                {formState.isSubmitting ? <Spinner /> : null}
                Create user
              </Button>
            </DialogFooter>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}
