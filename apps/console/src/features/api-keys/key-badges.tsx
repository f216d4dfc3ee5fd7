import type { ApiKey, Permission } from '@launchbay/contract';
import { CircleCheck, CircleOff, Clock } from 'lucide-react';
import { Badge } from '@/components/ui/badge';
import { Tooltip, TooltipContent, TooltipTrigger } from '@/components/ui/tooltip';
import { formatRelativeTime } from '@/lib/format';
import { cn } from '@/lib/utils';
import { accessByArea, accessLabel, areaTitle, expiresSoon, formatDate, keyStatus, permissionsHeadline } from './model';

export function KeyStatusBadge({ apiKey }: { apiKey: Pick<ApiKey, 'is_active' | 'expires_at'> }) {
  const status = keyStatus(apiKey);
  if (status === 'expired') {
    return (
      <Badge variant="warning">
        <Clock />
        Expired
      </Badge>
    );
  }
  if (status === 'inactive') {
    return (
      <Badge variant="secondary">
        <CircleOff />
        Inactive
      </Badge>
    );
  }
  return (
    <Badge variant="success">
      <CircleCheck />
      Active
    </Badge>
  );
}

/** 'Never', 'in 3 days' (amber when under a week) or 'Expired 2 days ago'; the date on hover. */
export function ExpiryText({ apiKey, className }: { apiKey: Pick<ApiKey, 'expires_at'>; className?: string }) {
  if (!apiKey.expires_at) return <span className={cn('text-muted-foreground', className)}>Never</span>;
  const past = new Date(apiKey.expires_at).getTime() <= Date.now();
  const when = new Date(apiKey.expires_at).toLocaleString();
  return (
    <span
      title={past ? `Expired ${formatRelativeTime(apiKey.expires_at)} (${when})` : when}
      className={cn(
        past ? 'text-destructive' : expiresSoon(apiKey) ? 'text-amber-700 dark:text-warning' : 'text-muted-foreground',
        className,
      )}
    >
      {formatDate(apiKey.expires_at)}
    </span>
  );
}

function AreaChip({ area, read, write }: { area: string; read: boolean; write: boolean }) {
  return (
    <Badge variant="outline" className="font-normal">
      {areaTitle(area)}
      <span className="text-muted-foreground">· {write ? (read ? 'Read/write' : 'Write') : 'Read'}</span>
    </Badge>
  );
}

/**
 * The permissions of a key for lists: one or two areas as chips ('Projects · Read'), more as a
 * headline badge ('12 permissions', 'Full access'); the tooltip lists every area and its access.
 */
export function PermissionSummary({ permissions }: { permissions: Permission[] }) {
  const areas = accessByArea(permissions);
  const headline = permissionsHeadline(permissions);
  const asChips = areas.length <= 2 && headline !== 'Full access';
  return (
    <Tooltip>
      <TooltipTrigger asChild>
        <button
          type="button"
          className="flex flex-wrap gap-1 rounded-md text-left outline-none focus-visible:ring-2 focus-visible:ring-ring/50"
          aria-label={`${headline}: ${areas.map((a) => `${areaTitle(a.area)} ${accessLabel(a).toLowerCase()}`).join(', ')}`}
        >
          {asChips ? (
            areas.map((entry) => <AreaChip key={entry.area} {...entry} />)
          ) : (
            <Badge variant={headline === 'Full access' ? 'default' : 'secondary'}>{headline}</Badge>
          )}
        </button>
      </TooltipTrigger>
      <TooltipContent side="bottom" align="start" className="max-w-xs p-3">
        <p className="mb-1.5 font-medium">{headline === 'Read-only' ? 'Read-only, every area' : headline}</p>
        <ul className="grid gap-1">
          {areas.map((entry) => (
            <li key={entry.area} className="flex items-center justify-between gap-6">
              <span>{areaTitle(entry.area)}</span>
              <span className="opacity-70">{accessLabel(entry)}</span>
            </li>
          ))}
        </ul>
      </TooltipContent>
    </Tooltip>
  );
}
