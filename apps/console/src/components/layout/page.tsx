import type { ReactNode } from 'react';
import { useDocumentTitle } from '@/lib/document-title';
import { cn } from '@/lib/utils';

/** Standard page frame: sets the document title and renders a heading row. */
export function Page({
  title,
  documentTitle,
  description,
  actions,
  back,
  children,
  className,
}: {
  title: ReactNode;
  documentTitle: string;
  description?: ReactNode;
  actions?: ReactNode;
  /** A link above the heading back to the parent page. */
  back?: ReactNode;
  children?: ReactNode;
  className?: string;
}) {
  useDocumentTitle(documentTitle);
  return (
    <div className={cn('mx-auto flex w-full max-w-6xl flex-1 flex-col gap-6 px-4 py-6 sm:px-6 lg:px-8', className)}>
      {back ? <div className="-mb-3">{back}</div> : null}
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0 space-y-1">
          <h1 className="font-semibold text-2xl tracking-tight">{title}</h1>
          {description ? <p className="text-muted-foreground text-sm">{description}</p> : null}
        </div>
        {actions ? <div className="flex shrink-0 flex-wrap items-center gap-2">{actions}</div> : null}
      </div>
      {children}
    </div>
  );
}

export function EmptyState({
  icon,
  title,
  description,
  action,
  className,
}: {
  icon?: ReactNode;
  title: string;
  description: ReactNode;
  action?: ReactNode;
  className?: string;
}) {
  return (
    <div
      className={cn(
        'flex flex-col items-center justify-center rounded-xl border border-dashed px-6 py-16 text-center',
        className,
      )}
    >
      {icon ? (
        <div className="mb-4 flex size-12 items-center justify-center rounded-full bg-muted text-muted-foreground [&_svg]:size-6">
          {icon}
        </div>
      ) : null}
      <h2 className="font-semibold text-lg">{title}</h2>
      <p className="mt-1.5 max-w-sm text-muted-foreground text-sm">{description}</p>
      {action ? <div className="mt-6">{action}</div> : null}
    </div>
  );
}
