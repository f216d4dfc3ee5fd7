import type { Permission } from '@launchbay/contract';
import { Check } from 'lucide-react';
import { useId, useMemo } from 'react';
import { Button } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';
import { Tooltip, TooltipContent, TooltipTrigger } from '@/components/ui/tooltip';
import { cn } from '@/lib/utils';
import type { PermissionCatalogue, PermissionInfo } from './api';
import { areaTitle } from './model';

interface AreaRow {
  area: string;
  read?: PermissionInfo;
  write?: PermissionInfo;
}

function rowsOf(catalogue: PermissionCatalogue): AreaRow[] {
  const rows = new Map<string, AreaRow>();
  for (const permission of catalogue.permissions) {
    const row = rows.get(permission.area) ?? { area: permission.area };
    row[permission.access] = permission;
    rows.set(permission.area, row);
  }
  return [...rows.values()];
}

/** 'Read deployments and pipelines' -> 'Deployments and pipelines' (nothing when it repeats the title). */
function areaSubtitle(row: AreaRow): string | null {
  const text = row.read?.description.replace(/^Read\s+/i, '').replace(/^the\s+/i, '') ?? '';
  if (!text || text.toLowerCase() === areaTitle(row.area).toLowerCase()) return null;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && b.every((p) => a.includes(p));

function roleLabel(role: string): string {
  return role.charAt(0).toUpperCase() + role.slice(1);
}

/**
 * Permissions grouped by area with Read and Write checkboxes, column toggles and role presets.
 * Write implies read: ticking Write ticks Read, clearing Read clears Write.
 */
export function PermissionPicker({
  catalogue,
  value,
  onChange,
  invalid,
  disabled,
  describedBy,
}: {
  catalogue: PermissionCatalogue;
  value: Permission[];
  onChange: (next: Permission[]) => void;
  invalid?: boolean;
  disabled?: boolean;
  describedBy?: string;
}) {
  const baseId = useId();
  const rows = useMemo(() => rowsOf(catalogue), [catalogue]);
  const selected = useMemo(() => new Set<Permission>(value), [value]);
  // Sorted like the server stores them, so an unchanged selection compares equal to the saved one.
  const ordered = (set: Set<Permission>) => [...set].sort();

  const update = (mutate: (set: Set<Permission>) => void) => {
    const next = new Set(selected);
    mutate(next);
    onChange(ordered(next));
  };

  const toggle = (row: AreaRow, access: 'read' | 'write', checked: boolean) =>
    update((set) => {
      const permission = row[access];
      if (!permission) return;
      if (checked) {
        set.add(permission.name);
        if (access === 'write' && row.read) set.add(row.read.name);
      } else {
        set.delete(permission.name);
        if (access === 'read' && row.write) set.delete(row.write.name);
      }
    });

  const column = (access: 'read' | 'write') => {
    const names = rows.flatMap((row) => (row[access] ? [row[access].name] : []));
    const count = names.filter((name) => selected.has(name)).length;
    const state: boolean | 'indeterminate' = count === 0 ? false : count === names.length ? true : 'indeterminate';
    const set = (checked: boolean) =>
      update((next) => {
        for (const row of rows) {
          if (checked) {
            if (row[access]) next.add(row[access].name);
            if (access === 'write' && row.read) next.add(row.read.name);
          } else {
            if (row[access]) next.delete(row[access].name);
            if (access === 'read' && row.write) next.delete(row.write.name);
          }
        }
      });
    return { state, set };
  };
  const readColumn = column('read');
  const writeColumn = column('write');
  const total = catalogue.permissions.length;

  return (
    <div className="grid gap-3">
      <div className="flex flex-wrap items-center gap-2">
        <span className="mr-1 text-muted-foreground text-sm">Presets</span>
        {catalogue.presets.map((preset) => {
          const active = value.length > 0 && sameSet(value, preset.permissions);
          return (
            <Tooltip key={preset.role}>
              <TooltipTrigger asChild>
                <Button
                  variant={active ? 'secondary' : 'outline'}
                  size="sm"
                  disabled={disabled}
                  aria-pressed={active}
                  onClick={() => onChange(ordered(new Set(preset.permissions)))}
                >
                  {active ? <Check /> : null}
                  {roleLabel(preset.role)}
                </Button>
              </TooltipTrigger>
              <TooltipContent>
                {preset.label} ({preset.permissions.length} permissions)
              </TooltipContent>
            </Tooltip>
          );
        })}
        <Button variant="ghost" size="sm" disabled={disabled || value.length === 0} onClick={() => onChange([])}>
          Clear
        </Button>
        <span className="ml-auto text-muted-foreground text-xs tabular-nums" aria-live="polite">
          {value.length} of {total} selected
        </span>
      </div>

      <fieldset
        aria-describedby={describedBy}
        aria-invalid={invalid ? true : undefined}
        className={cn(
          'min-w-0 overflow-hidden rounded-lg border',
          invalid && 'border-destructive ring-[3px] ring-destructive/20 dark:ring-destructive/40',
        )}
      >
        <legend className="sr-only">Permissions</legend>
        <div className="grid grid-cols-[1fr_4rem_4rem] items-center gap-2 border-b bg-muted/50 px-3 py-2 font-medium text-muted-foreground text-xs sm:grid-cols-[1fr_6rem_6rem] sm:px-4">
          <span>Area</span>
          <label className="flex items-center gap-2" htmlFor={`${baseId}-all-read`}>
            <Checkbox
              id={`${baseId}-all-read`}
              checked={readColumn.state}
              disabled={disabled}
              aria-label="Read access to every area"
              onCheckedChange={(checked) => readColumn.set(checked === true)}
            />
            Read
          </label>
          <label className="flex items-center gap-2" htmlFor={`${baseId}-all-write`}>
            <Checkbox
              id={`${baseId}-all-write`}
              checked={writeColumn.state}
              disabled={disabled}
              aria-label="Write access to every area"
              onCheckedChange={(checked) => writeColumn.set(checked === true)}
            />
            Write
          </label>
        </div>
        <ul className="divide-y">
          {rows.map((row) => {
            const subtitle = areaSubtitle(row);
            return (
              <li
                key={row.area}
                className="grid grid-cols-[1fr_4rem_4rem] items-center gap-2 px-3 py-2.5 transition-colors hover:bg-muted/30 sm:grid-cols-[1fr_6rem_6rem] sm:px-4"
              >
                <div className="min-w-0">
                  <p className="font-medium text-sm">{areaTitle(row.area)}</p>
                  {subtitle ? <p className="text-muted-foreground text-xs">{subtitle}</p> : null}
                </div>
                {(['read', 'write'] as const).map((access) => {
                  const permission = row[access];
                  if (!permission) return <span key={access} />;
                  const id = `${baseId}-${permission.name}`;
                  return (
                    <label
                      key={access}
                      htmlFor={id}
                      title={permission.name}
                      className="flex w-fit items-center gap-2 text-muted-foreground text-sm has-[[data-state=checked]]:text-foreground"
                    >
                      <Checkbox
                        id={id}
                        checked={selected.has(permission.name)}
                        disabled={disabled}
                        aria-label={permission.description}
                        data-permission={permission.name}
                        onCheckedChange={(checked) => toggle(row, access, checked === true)}
                      />
                      <span className="hidden sm:inline">{access === 'read' ? 'Read' : 'Write'}</span>
                    </label>
                  );
                })}
              </li>
            );
          })}
        </ul>
      </fieldset>
      <p className="text-muted-foreground text-xs">
        Write includes read. A key can never do more than the role of the user who owns it allows.
      </p>
    </div>
  );
}
