import type { LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { cn } from '@/lib/utils';

const TONES = {
  warning: {
    box: 'border-warning/50 bg-warning/10',
    icon: 'text-amber-600 dark:text-warning',
    title: 'text-amber-800 dark:text-warning',
    body: 'text-amber-900/80 dark:text-warning/80',
  },
  info: {
    box: 'border-sky-500/40 bg-sky-500/10',
    icon: 'text-sky-700 dark:text-sky-300',
    title: 'text-sky-900 dark:text-sky-200',
    body: 'text-sky-950/80 dark:text-sky-200/80',
  },
} as const;

/** A boxed notice above a page's content: an icon, a one-line title and what it means (a status, not an error). */
export function Callout({
  tone,
  icon: Icon,
  title,
  children,
  className,
  ...rest
}: {
  tone: keyof typeof TONES;
  icon: LucideIcon;
  title: ReactNode;
  children: ReactNode;
  className?: string;
  'data-testid'?: string;
}) {
  const colors = TONES[tone];
  return (
    <div
      role="status"
      className={cn('flex items-start gap-3 rounded-lg border px-4 py-3 text-sm', colors.box, className)}
      {...rest}
    >
      <Icon className={cn('mt-0.5 size-4 shrink-0', colors.icon)} aria-hidden="true" />
      <div className="grid min-w-0 gap-1">
        <p className={cn('font-medium', colors.title)}>{title}</p>
        <p className={colors.body}>{children}</p>
      </div>
    </div>
  );
}
