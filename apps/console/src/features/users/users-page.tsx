import { ROLE_TYPES, type RoleType, type User } from '@launchbay/contract';
import { Ban, CheckCircle2, MoreHorizontal, ShieldAlert, ShieldCheck, ShieldOff, Trash2, UserCog, Users } from 'lucide-react';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { DataTable, type DataTableColumn } from '@/components/data-table/data-table';
import { EmptyState, Page } from '@/components/layout/page';
import { Avatar, AvatarFallback, AvatarImage } from '@/components/ui/avatar';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import {
  DropdownMenu,
  DropdownMenuCheckboxItem,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuSub,
  DropdownMenuSubContent,
  DropdownMenuSubTrigger,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail, isApiError } from '@/lib/api';
import { useCurrentUser } from '@/lib/current-user';
import { formatDateTime, formatRelativeTime } from '@/lib/format';
import { toast } from '@/lib/toast';
import { initials } from '@/lib/utils';
import { useAddRole, useDeleteUser, useRemoveRole, useUpdateUser, useUsers } from './api';
import { CreateUserDialog } from './create-user-dialog';

interface Confirmation {
  title: string;
  description: string;
  action: string;
  run: () => Promise<unknown>;
}

function RoleBadges({ roles }: { roles: RoleType[] }) {
  return (
    <div className="flex flex-wrap gap-1">
      {roles.length === 0 ? <span className="text-muted-foreground text-xs">No role</span> : null}
      {roles.map((role) => (
        <Badge key={role} variant={role === 'admin' ? 'default' : 'secondary'} className="capitalize">
          {role}
        </Badge>
      ))}
    </div>
  );
}

function UserRowMenu({ user, isSelf, confirm }: { user: User; isSelf: boolean; confirm: (c: Confirmation) => void }) {
  const updateUser = useUpdateUser();
  const deleteUser = useDeleteUser();
  const addRole = useAddRole();
  const removeRole = useRemoveRole();

  const withToast = async (task: () => Promise<unknown>, success: string, failure: string) => {
    try {
      await task();
      toast.success(success);
    } catch (error) {
      toast.error(failure, { description: errorDetail(error) });
    }
  };

  const toggleRole = (role: RoleType, has: boolean) => {
    if (has) {
      confirm({
        title: `Remove the ${role} role?`,
        description: `${user.username} will lose the permissions of the ${role} role.`,
        action: 'Remove role',
        run: () => withToast(() => removeRole.mutateAsync({ id: user.id, role }), 'Role removed', 'Failed to remove role'),
      });
    } else {
      void withToast(() => addRole.mutateAsync({ id: user.id, role }), 'Role added', 'Failed to add role');
    }
  };

  return (
    <DropdownMenu modal={false}>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="icon-sm" aria-label={`Actions for ${user.username}`}>
          <MoreHorizontal />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-52">
        <DropdownMenuLabel className="truncate text-muted-foreground text-xs">{user.email}</DropdownMenuLabel>
        <DropdownMenuSub>
          <DropdownMenuSubTrigger>
            <UserCog />
            Change role
          </DropdownMenuSubTrigger>
          <DropdownMenuSubContent className="w-44">
            {ROLE_TYPES.map((role) => {
              const has = user.roles.includes(role);
              return (
                <DropdownMenuCheckboxItem
                  key={role}
                  checked={has}
                  className="capitalize"
                  onSelect={(event) => {
                    event.preventDefault();
                    toggleRole(role, has);
                  }}
                >
                  {role}
                </DropdownMenuCheckboxItem>
              );
            })}
          </DropdownMenuSubContent>
        </DropdownMenuSub>
        {user.disabled ? (
          <DropdownMenuItem
            onSelect={() =>
              void withToast(
                () => updateUser.mutateAsync({ id: user.id, disabled: false }),
                'User enabled',
                'Failed to enable user',
              )
            }
          >
            <CheckCircle2 />
            Enable
          </DropdownMenuItem>
        ) : (
          <DropdownMenuItem
            disabled={isSelf}
            onSelect={() =>
              confirm({
                title: `Disable ${user.username}?`,
                description: 'They will be signed out and cannot sign in until an admin enables them again.',
                action: 'Disable user',
                run: () =>
                  withToast(
                    () => updateUser.mutateAsync({ id: user.id, disabled: true }),
                    'User disabled',
                    'Failed to disable user',
                  ),
              })
            }
          >
            <Ban />
            Disable
          </DropdownMenuItem>
        )}
        <DropdownMenuSeparator />
        <DropdownMenuItem
          variant="destructive"
          disabled={isSelf}
          onSelect={() =>
            confirm({
              title: `Delete ${user.username}?`,
              description: 'This permanently deletes the user and their sessions. This action cannot be undone.',
              action: 'Delete user',
              run: () => withToast(() => deleteUser.mutateAsync(user.id), 'User deleted', 'Failed to delete user'),
            })
          }
        >
          <Trash2 />
          Delete
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

function userColumns(meId: number | undefined, confirm: (c: Confirmation) => void): DataTableColumn<User>[] {
  return [
    {
      id: 'user',
      header: 'User',
      headClassName: 'pl-4',
      cellClassName: 'pl-4',
      cell: (user) => (
        <div className="flex items-center gap-3">
          <Avatar className="size-8">
            {user.avatar_url ? <AvatarImage src={user.avatar_url} alt="" /> : null}
            <AvatarFallback>{initials(user.username)}</AvatarFallback>
          </Avatar>
          <div className="min-w-0">
            <p className="flex items-center gap-1.5 font-medium">
              {user.username}
              {meId === user.id ? (
                <Badge variant="outline" className="px-1.5 py-0 font-normal text-[10px]">
                  You
                </Badge>
              ) : null}
            </p>
            <p className="text-muted-foreground text-xs">{user.email}</p>
          </div>
        </div>
      ),
    },
    { id: 'roles', header: 'Roles', cell: (user) => <RoleBadges roles={user.roles} /> },
    {
      id: 'mfa',
      header: 'MFA',
      cell: (user) =>
        user.mfa_enabled ? (
          <span className="inline-flex items-center gap-1 text-success text-xs">
            <ShieldCheck className="size-3.5" /> On
          </span>
        ) : (
          <span className="inline-flex items-center gap-1 text-muted-foreground text-xs">
            <ShieldOff className="size-3.5" /> Off
          </span>
        ),
    },
    {
      id: 'status',
      header: 'Status',
      cell: (user) => (user.disabled ? <Badge variant="destructive">Disabled</Badge> : <Badge variant="success">Active</Badge>),
    },
    {
      id: 'last-login',
      header: 'Last login',
      cellClassName: 'text-muted-foreground text-xs',
      cellProps: (user) => ({ title: formatDateTime(user.last_login_at) }),
      cell: (user) => formatRelativeTime(user.last_login_at),
    },
    {
      id: 'actions',
      header: 'Actions',
      srOnly: true,
      headClassName: 'w-12 pr-4',
      cellClassName: 'pr-4 text-right',
      cell: (user) => <UserRowMenu user={user} isSelf={meId === user.id} confirm={confirm} />,
    },
  ];
}

export default function UsersPage() {
  const { data, isPending, isError, error, refetch, isFetching } = useUsers();
  const { data: me } = useCurrentUser();
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  const forbidden = isApiError(error) && error.status === 403;

  return (
    <Page
      title="Users"
      documentTitle="Users"
      description="People who can sign in to this platform, and what they may do."
      actions={forbidden ? null : <CreateUserDialog />}
    >
      {isPending ? (
        <Card className="gap-0 p-0">
          {Array.from({ length: 3 }, (_, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
            <div key={index} className="flex items-center gap-3 border-b p-4 last:border-0">
              <Skeleton className="size-8 rounded-full" />
              <Skeleton className="h-4 w-40" />
              <Skeleton className="ml-auto h-4 w-24" />
            </div>
          ))}
        </Card>
      ) : forbidden ? (
        <EmptyState
          icon={<ShieldAlert />}
          title="You need the admin role to manage users"
          description="Ask an administrator of this Launchbay platform to grant you the admin role."
        />
      ) : isError ? (
        <EmptyState
          title="Could not load users"
          description={errorDetail(error)}
          action={
            <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
              Retry
            </Button>
          }
        />
      ) : data.users.length === 0 ? (
        <EmptyState icon={<Users />} title="No users" description="Create the first user to share this platform." />
      ) : (
        <Card className="gap-0 overflow-hidden p-0">
          <DataTable
            columns={userColumns(me?.id, setConfirmation)}
            rows={data.users}
            rowKey={(user) => user.id}
            rowProps={(user) => ({ 'data-testid': `user-row-${user.id}` })}
          />
        </Card>
      )}

      <ConfirmDialog
        open={confirmation !== null}
        onOpenChange={(open) => !open && setConfirmation(null)}
        title={confirmation?.title}
        description={confirmation?.description}
        confirmLabel={confirmation?.action}
        onConfirm={async () => {
          if (!confirmation) return;
          await confirmation.run();
          setConfirmation(null);
        }}
      />
    </Page>
  );
}
