import type { ReactNode } from 'react';
import { PRODUCT_NAME } from '@/lib/constants';

export function LaunchbayMark({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" aria-hidden="true" className={className}>
      <rect width="32" height="32" rx="8" fill="currentColor" />
      <path d="M16 6l7 12h-4.5v8h-5v-8H9z" className="fill-background" />
    </svg>
  );
}

/** Centered card layout shared by the sign-in and MFA screens. */
export function AuthLayout({ children, footer }: { children: ReactNode; footer?: ReactNode }) {
  return (
    <main className="relative flex min-h-svh flex-col items-center justify-center bg-muted/40 px-4 py-10">
      <div
        aria-hidden="true"
        className="pointer-events-none absolute inset-0 bg-[radial-gradient(ellipse_at_top,var(--color-background),transparent_70%)]"
      />
      <div className="relative w-full max-w-sm">
        <div className="mb-8 flex items-center justify-center gap-2.5">
          <LaunchbayMark className="size-8 text-foreground" />
          <span className="font-semibold text-lg tracking-tight">{PRODUCT_NAME}</span>
        </div>
        <div className="rounded-xl border bg-card p-6 text-card-foreground shadow-sm sm:p-8">{children}</div>
        {footer ? <div className="mt-6 text-center text-muted-foreground text-xs">{footer}</div> : null}
      </div>
    </main>
  );
}
