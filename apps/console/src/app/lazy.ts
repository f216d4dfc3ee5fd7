import { type ComponentType, lazy } from 'react';
import { CHUNK_LOAD_TIMEOUT_MS } from '@/lib/constants';

export class ChunkLoadError extends Error {
  override name = 'ChunkLoadError';
}

/** Spec section 9: a script chunk that does not load within 120 s fails (and shows the error screen). */
export function withChunkTimeout<T>(load: () => Promise<T>, timeoutMs = CHUNK_LOAD_TIMEOUT_MS): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ChunkLoadError(`Loading chunk timed out after ${timeoutMs / 1000} s`)), timeoutMs);
    load().then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(
          new ChunkLoadError(
            error instanceof Error ? `Failed to load part of the app: ${error.message}` : 'Failed to load part of the app',
          ),
        );
      },
    );
  });
}

export function lazyWithTimeout<P extends object>(load: () => Promise<{ default: ComponentType<P> }>): ComponentType<P> {
  return lazy(() => withChunkTimeout(load));
}
