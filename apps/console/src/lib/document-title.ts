import { useEffect } from 'react';
import { PRODUCT_NAME } from '@/lib/constants';

export function formatTitle(page: string): string {
  return `${page} - ${PRODUCT_NAME}`;
}

/** Spec section 2: the document title is '{page} - Launchbay'. */
export function useDocumentTitle(page: string): void {
  useEffect(() => {
    document.title = formatTitle(page);
  }, [page]);
}
