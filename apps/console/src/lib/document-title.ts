import { useEffect, useSyncExternalStore } from 'react';
import { PRODUCT_NAME } from '@/lib/constants';

export function formatTitle(page: string): string {
  return `${page} - ${PRODUCT_NAME}`;
}

let pageTitle = '';
const listeners = new Set<() => void>();

/** Spec section 2: the document title is '{page} - Launchbay'. */
export function useDocumentTitle(page: string): void {
  useEffect(() => {
    document.title = formatTitle(page);
    pageTitle = page;
    for (const listener of listeners) listener();
  }, [page]);
}

/** The current page's own title (what useDocumentTitle set): the header names a page by it where its path has only an id. */
export function usePageTitle(): string {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => pageTitle,
  );
}
