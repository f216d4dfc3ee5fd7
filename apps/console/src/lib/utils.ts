import { type ClassValue, clsx } from 'clsx';

type ClassMerger = (classes: string) => string;

let mergeClasses: ClassMerger = (classes) => classes;

/**
 * The signed-in app registers tailwind-merge here when its chunk loads (see app/router.tsx), so
 * tailwind-merge (~8 KB gzipped) stays out of the login bundle. Components on the login path pass
 * no conflicting utilities, so plain clsx is exact for them.
 */
export function registerClassMerger(merger: ClassMerger): void {
  mergeClasses = merger;
}

export function cn(...inputs: ClassValue[]): string {
  return mergeClasses(clsx(inputs));
}

export function initials(name: string | null | undefined): string {
  const trimmed = (name ?? '').trim();
  if (!trimmed) return 'U';
  const parts = trimmed.split(/[\s._-]+/).filter(Boolean);
  const first = parts[0]?.[0] ?? '';
  const second = parts.length > 1 ? (parts[parts.length - 1]?.[0] ?? '') : '';
  return (first + second).toUpperCase() || 'U';
}
