import type { CurrentUser } from '@launchbay/contract';
import { ChevronsUpDown, LogOut, UserRound } from 'lucide-react';
import { Link } from 'react-router';
import { Avatar, AvatarFallback, AvatarImage } from '@/components/ui/avatar';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuGroup,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { useLogout } from '@/features/auth/use-logout';
import { VERSION_LABEL } from '@/lib/constants';
import { useCurrentUser } from '@/lib/current-user';
import { cn, initials } from '@/lib/utils';

export function UserAvatar({ user, className }: { user: CurrentUser | undefined; className?: string }) {
  return (
    <Avatar className={cn('rounded-lg', className)}>
      {user?.avatar_url ? <AvatarImage src={user.avatar_url} alt="" /> : null}
      <AvatarFallback className="rounded-lg">{initials(user?.username)}</AvatarFallback>
    </Avatar>
  );
}

export function UserMenu({ collapsed }: { collapsed: boolean }) {
  const { data: user } = useCurrentUser();
  const { logout, pending } = useLogout();
  const name = user?.username || 'User';
  const email = user?.email ?? '';

  return (
    <DropdownMenu>
      <DropdownMenuTrigger
        aria-label="User menu"
        className={cn(
          'flex w-full items-center gap-2 rounded-md p-2 text-left text-sm outline-none ring-sidebar-ring transition-colors hover:bg-sidebar-accent focus-visible:ring-2 data-[state=open]:bg-sidebar-accent',
          collapsed && 'justify-center p-1.5',
        )}
      >
        <UserAvatar user={user} className="size-8" />
        {collapsed ? null : (
          <>
            <span className="grid min-w-0 flex-1 leading-tight">
              <span className="truncate font-medium">{name}</span>
              <span className="truncate text-muted-foreground text-xs">{email}</span>
            </span>
            <ChevronsUpDown className="ml-auto size-4 text-muted-foreground" />
          </>
        )}
      </DropdownMenuTrigger>
      <DropdownMenuContent side={collapsed ? 'right' : 'top'} align="end" className="w-60 rounded-lg">
        <DropdownMenuLabel className="p-0 font-normal">
          <div className="flex items-center gap-2 px-1 py-1.5 text-left text-sm">
            <UserAvatar user={user} className="size-8" />
            <div className="grid min-w-0 flex-1 leading-tight">
              <span className="truncate font-medium">{name}</span>
              <span className="truncate text-muted-foreground text-xs">{email}</span>
            </div>
          </div>
        </DropdownMenuLabel>
        <DropdownMenuSeparator />
        <DropdownMenuGroup>
          <DropdownMenuItem asChild>
            <Link to="/account">
              <UserRound />
              Account
            </Link>
          </DropdownMenuItem>
        </DropdownMenuGroup>
        <DropdownMenuSeparator />
        <DropdownMenuItem disabled={pending} onSelect={() => void logout()}>
          <LogOut />
          Log out
        </DropdownMenuItem>
        <DropdownMenuSeparator />
        <div className="px-2 py-1 text-muted-foreground text-xs">Launchbay {VERSION_LABEL}</div>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
