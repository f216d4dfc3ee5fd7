import { EmptyState } from '@/components/layout/page';
import { Button } from '@/components/ui/button';
import { errorDetail } from '@/lib/api';

/** A list or page that could not be loaded: what failed, the server's reason, and Retry. */
export function LoadFailed({
  title,
  query,
}: {
  title: string;
  query: { error: unknown; refetch: () => unknown; isFetching: boolean };
}) {
  return (
    <EmptyState
      title={title}
      description={errorDetail(query.error)}
      action={
        <Button variant="outline" onClick={() => void query.refetch()} disabled={query.isFetching}>
          Retry
        </Button>
      }
    />
  );
}
