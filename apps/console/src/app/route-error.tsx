import { isRouteErrorResponse, useRouteError } from 'react-router';
import { FullPageErrorFallback, PageErrorFallback } from '@/components/errors/fallbacks';
import { ChunkLoadError } from './lazy';

function toError(value: unknown): Error {
  if (value instanceof Error) return value;
  if (isRouteErrorResponse(value)) return new Error(`${value.status} ${value.statusText}`);
  return new Error(String(value));
}

/** Route errorElement: a chunk that fails to load shows the full error screen; render errors the page variant. */
export function RouteError({ inShell = false }: { inShell?: boolean }) {
  const error = toError(useRouteError());
  const isChunkError =
    error instanceof ChunkLoadError || /dynamically imported module|Importing a module script failed/i.test(error.message);
  const reload = () => window.location.reload();
  if (isChunkError) return <FullPageErrorFallback error={error} reset={reload} inShell={inShell} />;
  return <PageErrorFallback error={error} reset={reload} />;
}
