import type { Environment } from '@launchbay/contract';
import { ChevronDown } from 'lucide-react';
import { Button } from '@/components/ui/button';
import {
  DropdownMenu,
  DropdownMenuCheckboxItem,
  DropdownMenuContent,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { environmentLabel } from '@/lib/project-queries';
import { cn } from '@/lib/utils';

export function environmentsLabel(environments: Environment[], ids: number[]): string {
  if (ids.length === 0) return 'No environment';
  if (environments.length > 1 && environments.every((env) => ids.includes(env.id))) return 'All environments';
  const names = environments.filter((env) => ids.includes(env.id)).map((env) => environmentLabel(env.name));
  return names.length <= 2 ? names.join(', ') : `${names.length} environments`;
}

/** Which environments a variable is for: several may be checked; all by default. */
export function EnvironmentPicker({
  id,
  environments,
  value,
  onChange,
  invalid,
  className,
}: {
  id?: string;
  environments: Environment[];
  value: number[];
  onChange: (ids: number[]) => void;
  invalid?: boolean;
  className?: string;
}) {
  const all = environments.every((env) => value.includes(env.id));
  const toggle = (envId: number, checked: boolean) =>
    onChange(checked ? [...new Set([...value, envId])] : value.filter((item) => item !== envId));
  return (
    <DropdownMenu modal={false}>
      <DropdownMenuTrigger asChild>
        <Button
          id={id}
          variant="outline"
          className={cn('w-full justify-between font-normal', className)}
          aria-invalid={invalid ? true : undefined}
        >
          <span className="truncate">{environmentsLabel(environments, value)}</span>
          <ChevronDown className="opacity-50" />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="start" className="w-(--radix-dropdown-menu-trigger-width) min-w-48">
        {environments.length > 1 ? (
          <>
            <DropdownMenuCheckboxItem
              checked={all}
              onSelect={(event) => {
                event.preventDefault();
                onChange(all ? [] : environments.map((env) => env.id));
              }}
            >
              All environments
            </DropdownMenuCheckboxItem>
            <DropdownMenuSeparator />
          </>
        ) : null}
        {environments.map((env) => (
          <DropdownMenuCheckboxItem
            key={env.id}
            checked={value.includes(env.id)}
            onSelect={(event) => {
              event.preventDefault();
              toggle(env.id, !value.includes(env.id));
            }}
          >
            {environmentLabel(env.name)}
            {env.is_production ? <span className="ml-auto text-muted-foreground text-xs normal-case">production</span> : null}
          </DropdownMenuCheckboxItem>
        ))}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
