import { useNavigate, useParams } from 'react-router';
import { EmptyState, Page } from '@/components/layout/page';
import { Button } from '@/components/ui/button';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail, isApiError } from '@/lib/api';
import { toast } from '@/lib/toast';
import { useApiKey, useUpdateApiKey } from './api';
import { ApiKeyForm } from './api-key-form';
import { BackToKeys } from './back-to-keys';
import { KeyNotFound } from './key-not-found';
import { parseKeyId } from './model';

export default function EditApiKeyPage() {
  const { id: param } = useParams();
  const id = parseKeyId(param);
  const navigate = useNavigate();
  const { data: apiKey, isPending, isError, error, refetch, isFetching } = useApiKey(id);
  const updateKey = useUpdateApiKey();

  if (id === null || (isApiError(error) && error.status === 404)) return <KeyNotFound id={param} />;

  const back = <BackToKeys to={`/keys/${id}`} label={apiKey?.name ?? 'API Key'} />;

  return (
    <Page
      title="Edit API Key"
      documentTitle="Edit API Key"
      description="Changes apply to the next call made with the key. The secret stays the same."
      className="max-w-3xl"
      back={back}
    >
      {isError ? (
        <EmptyState
          title="Could not load this API key"
          description={errorDetail(error)}
          action={
            <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
              Retry
            </Button>
          }
        />
      ) : isPending || !apiKey ? (
        <div className="grid gap-6">
          <Skeleton className="h-56 rounded-xl" />
          <Skeleton className="h-96 rounded-xl" />
        </div>
      ) : (
        <ApiKeyForm
          key={apiKey.id}
          apiKey={apiKey}
          submitLabel="Save changes"
          cancelTo={`/keys/${apiKey.id}`}
          failureTitle="Failed to update API key"
          onSubmit={async (body) => {
            const updated = await updateKey.mutateAsync({ id: apiKey.id, ...body });
            toast.success('API key updated', { description: updated.name });
            navigate(`/keys/${updated.id}`);
          }}
        />
      )}
    </Page>
  );
}
