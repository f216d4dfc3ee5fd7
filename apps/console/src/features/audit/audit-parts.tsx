import type { AuditLog } from '@launchbay/contract';
import { Bot, KeyRound, type LucideIcon, UserRound, UserX } from 'lucide-react';
import { Badge } from '@/components/ui/badge';
import { cn } from '@/lib/utils';

const ACTOR_ICON: Record<AuditLog['actor_type'], LucideIcon> = {
  user: UserRound,
  api_key: KeyRound,
  anonymous: UserX,
  system: Bot,
};

export const ACTOR_TYPE_LABEL: Record<AuditLog['actor_type'], string> = {
  user: 'User',
  api_key: 'API key',
  anonymous: 'Anonymous',
  system: 'System',
};

export function actorName(log: AuditLog): string {
  if (log.actor_label) return log.actor_label;
  if (log.actor_type === 'anonymous') return 'Anonymous';
  if (log.actor_type === 'system') return 'Launchbay';
  return log.actor_user_id ? `User ${log.actor_user_id}` : ACTOR_TYPE_LABEL[log.actor_type];
}

export function Actor({ log, className }: { log: AuditLog; className?: string }) {
  const Icon = ACTOR_ICON[log.actor_type];
  return (
    <span className={cn('flex min-w-0 items-center gap-2', className)}>
      <span
        className={cn(
          'flex size-6 shrink-0 items-center justify-center rounded-full bg-muted text-muted-foreground',
          log.actor_type === 'api_key' && 'bg-primary/10 text-foreground',
        )}
        title={ACTOR_TYPE_LABEL[log.actor_type]}
      >
        <Icon className="size-3.5" aria-hidden="true" />
        <span className="sr-only">{ACTOR_TYPE_LABEL[log.actor_type]}:</span>
      </span>
      <span className={cn('truncate', log.actor_type === 'anonymous' && 'text-muted-foreground')}>{actorName(log)}</span>
    </span>
  );
}

export function ActionBadge({ log }: { log: Pick<AuditLog, 'action' | 'status_code'> }) {
  const failed = log.status_code >= 400 || log.action.endsWith('_failed');
  return (
    <Badge
      variant={failed ? 'destructive' : 'outline'}
      className={cn('max-w-full truncate font-mono font-normal', !failed && 'bg-muted/50')}
    >
      {log.action}
    </Badge>
  );
}

export function StatusCode({ code }: { code: number }) {
  return (
    <span
      className={cn(
        'font-mono text-xs tabular-nums',
        code >= 500
          ? 'text-destructive'
          : code >= 400
            ? 'text-amber-700 dark:text-warning'
            : code >= 200 && code < 300
              ? 'text-success'
              : 'text-muted-foreground',
      )}
    >
      {code}
    </span>
  );
}

export function Target({ log }: { log: AuditLog }) {
  if (!log.target_type && !log.target_id) return <span className="text-muted-foreground">—</span>;
  return (
    <span className="inline-flex items-baseline gap-1.5">
      <span>{log.target_type ?? 'unknown'}</span>
      {log.target_id ? <span className="font-mono text-muted-foreground text-xs">#{log.target_id}</span> : null}
    </span>
  );
}

export function formatLogTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const sameYear = date.getFullYear() === new Date().getFullYear();
  return date.toLocaleString(undefined, {
    year: sameYear ? undefined : 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
  });
}
