import type { AuditLog } from '@launchbay/contract';
import { Filter } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { Sheet, SheetContent, SheetDescription, SheetTitle } from '@/components/ui/sheet';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail, isApiError } from '@/lib/api';
import { formatRelativeTime } from '@/lib/format';
import { useAuditLog } from './api';
import { ACTOR_TYPE_LABEL, ActionBadge, Actor, StatusCode, Target } from './audit-parts';

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[7.5rem_1fr] gap-3 py-2.5">
      <dt className="text-muted-foreground text-sm">{label}</dt>
      <dd className="min-w-0 break-words text-sm">{children}</dd>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="grid gap-1">
      <h3 className="font-medium text-muted-foreground text-xs uppercase tracking-wide">{title}</h3>
      <dl className="divide-y">{children}</dl>
    </section>
  );
}

const Mono = ({ children }: { children: ReactNode }) => <span className="font-mono text-xs">{children}</span>;

function FilterButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <Button
      variant="ghost"
      size="icon-sm"
      className="-my-1 size-6 text-muted-foreground"
      aria-label={label}
      title={label}
      onClick={onClick}
    >
      <Filter className="size-3.5" />
    </Button>
  );
}

function targetLink(log: AuditLog): string | null {
  if (!log.target_id) return null;
  if (log.target_type === 'api_key') return `/keys/${encodeURIComponent(log.target_id)}`;
  if (log.target_type === 'user') return '/users';
  if (log.target_type === 'settings') return '/settings';
  return null;
}

function Details({ log, onFilter }: { log: AuditLog; onFilter: (filter: Record<string, string>) => void }) {
  const summary = JSON.stringify(log.summary, null, 2);
  const link = targetLink(log);
  return (
    <div className="grid gap-6">
      <Section title="Event">
        <Row label="Time">
          <span className="grid gap-0.5">
            <span>{new Date(log.created_at).toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'medium' })}</span>
            <span className="text-muted-foreground text-xs">
              {formatRelativeTime(log.created_at)} · <Mono>{log.created_at}</Mono>
            </span>
          </span>
        </Row>
        <Row label="Action">
          <span className="flex items-center gap-1">
            <ActionBadge log={log} />
            <FilterButton label="Show only this action" onClick={() => onFilter({ action: log.action })} />
          </span>
        </Row>
        <Row label="Status">
          <StatusCode code={log.status_code} />
        </Row>
        <Row label="Entry ID">
          <Mono>{log.id}</Mono>
        </Row>
      </Section>

      <Section title="Actor">
        <Row label="Who">
          <span className="flex items-center gap-1">
            <Actor log={log} />
            {log.actor_label || log.actor_user_id ? (
              <FilterButton
                label="Show only this actor"
                onClick={() => onFilter({ actor: log.actor_label ?? String(log.actor_user_id) })}
              />
            ) : null}
          </span>
        </Row>
        <Row label="Type">{ACTOR_TYPE_LABEL[log.actor_type]}</Row>
        <Row label="User ID">{log.actor_user_id ?? <span className="text-muted-foreground">—</span>}</Row>
        <Row label="API key ID">
          {log.actor_api_key_id ? (
            <Link to={`/keys/${log.actor_api_key_id}`} className="underline-offset-4 hover:underline">
              {log.actor_api_key_id}
            </Link>
          ) : (
            <span className="text-muted-foreground">—</span>
          )}
        </Row>
      </Section>

      <Section title="Target">
        <Row label="Target">
          {link ? (
            <Link to={link} className="underline-offset-4 hover:underline">
              <Target log={log} />
            </Link>
          ) : (
            <Target log={log} />
          )}
        </Row>
      </Section>

      <Section title="Request">
        <Row label="Request">
          <Mono>
            {log.method} {log.path}
          </Mono>
        </Row>
        <Row label="IP address">{log.ip ? <Mono>{log.ip}</Mono> : <span className="text-muted-foreground">—</span>}</Row>
        <Row label="User agent">
          {log.user_agent ? (
            <span className="text-muted-foreground text-xs">{log.user_agent}</span>
          ) : (
            <span className="text-muted-foreground">—</span>
          )}
        </Row>
      </Section>

      <section className="grid gap-2">
        <div className="flex items-center justify-between gap-2">
          <h3 className="font-medium text-muted-foreground text-xs uppercase tracking-wide">Summary</h3>
          <CopyButton value={summary} label="Copy JSON" className="h-7" />
        </div>
        <pre
          data-testid="audit-summary"
          className="max-h-96 overflow-auto rounded-lg border bg-muted/50 p-3 font-mono text-xs leading-relaxed"
        >
          {summary}
        </pre>
        <p className="text-muted-foreground text-xs">Secrets (passwords, tokens, keys) are redacted before they are stored.</p>
      </section>
    </div>
  );
}

export function AuditDetailSheet({
  id,
  initial,
  onClose,
  onFilter,
}: {
  id: number | null;
  initial?: AuditLog;
  onClose: () => void;
  onFilter: (filter: Record<string, string>) => void;
}) {
  const { data: log, isPending, error } = useAuditLog(id, initial);
  return (
    <Sheet open={id !== null} onOpenChange={(open) => !open && onClose()}>
      <SheetContent side="right" className="w-full gap-0 sm:max-w-xl">
        <div className="border-b px-6 py-4 pr-12">
          <SheetTitle className="font-semibold text-lg">Audit entry</SheetTitle>
          <SheetDescription className="text-muted-foreground text-sm">
            {log ? `${log.action} by ${log.actor_label ?? ACTOR_TYPE_LABEL[log.actor_type].toLowerCase()}` : 'Loading…'}
          </SheetDescription>
        </div>
        <div className="flex-1 overflow-y-auto px-6 py-5">
          {log ? (
            <Details log={log} onFilter={onFilter} />
          ) : isPending ? (
            <div className="grid gap-3">
              <Skeleton className="h-5 w-48" />
              <Skeleton className="h-40 w-full" />
              <Skeleton className="h-40 w-full" />
            </div>
          ) : (
            <p className="text-muted-foreground text-sm">
              {isApiError(error) && error.status === 404 ? 'This audit entry does not exist (any more).' : errorDetail(error)}
            </p>
          )}
        </div>
      </SheetContent>
    </Sheet>
  );
}
