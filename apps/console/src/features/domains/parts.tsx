import { ArrowLeft, CircleAlert, TriangleAlert } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { CopyButton } from '@/components/ui/copy-button';
import { cn } from '@/lib/utils';
import { DOMAINS_PATH } from './model';

export function BackToDomains() {
  return (
    <Link
      to={DOMAINS_PATH}
      className="inline-flex w-fit items-center gap-1.5 rounded-sm text-muted-foreground text-sm outline-none transition-colors hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring/50"
    >
      <ArrowLeft className="size-4" />
      Domains
    </Link>
  );
}

/** A red box for what went wrong (the last error, the CA's refusal, a missing TXT record). */
export function ErrorCallout({
  title,
  children,
  className,
  testId,
}: {
  title?: ReactNode;
  children: ReactNode;
  className?: string;
  testId?: string;
}) {
  return (
    <div
      role="alert"
      data-testid={testId}
      className={cn(
        'flex items-start gap-2.5 rounded-lg border border-destructive/30 bg-destructive/5 px-3 py-2.5 text-destructive text-sm dark:bg-destructive/10',
        className,
      )}
    >
      <CircleAlert className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <div className="grid min-w-0 gap-0.5">
        {title ? <p className="font-medium">{title}</p> : null}
        <div className="text-foreground/85 [overflow-wrap:anywhere]">{children}</div>
      </div>
    </div>
  );
}

export function WarningCallout({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div
      role="status"
      className={cn(
        'flex items-start gap-2.5 rounded-lg border border-warning/50 bg-warning/10 px-3 py-2.5 text-amber-800 text-sm dark:text-warning',
        className,
      )}
    >
      <TriangleAlert className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <div className="min-w-0 [overflow-wrap:anywhere]">{children}</div>
    </div>
  );
}

/** A value to paste somewhere else (a DNS record's name or value): monospace, wrapped, with a copy button. */
export function CopyValue({ value, label, className }: { value: string; label: string; className?: string }) {
  return (
    <div className={cn('flex min-w-0 items-start gap-2', className)}>
      <code className="min-w-0 flex-1 break-all rounded-md border bg-muted/40 px-2 py-1.5 font-mono text-xs leading-relaxed">
        {value}
      </code>
      <CopyButton value={value} label={label} iconOnly variant="outline" size="icon-sm" className="shrink-0" />
    </div>
  );
}
