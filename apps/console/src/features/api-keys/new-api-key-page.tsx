import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Page } from '@/components/layout/page';
import { toast } from '@/lib/toast';
import { type CreatedApiKey, useCreateApiKey } from './api';
import { ApiKeyForm } from './api-key-form';
import { BackToKeys } from './back-to-keys';
import { SecretDialog } from './secret-dialog';

export default function NewApiKeyPage() {
  const navigate = useNavigate();
  const createKey = useCreateApiKey();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);

  return (
    <Page
      title="Create API Key"
      documentTitle="Create API Key"
      description="The secret is shown once, right after you create the key."
      className="max-w-3xl"
      back={<BackToKeys />}
    >
      <ApiKeyForm
        submitLabel="Create API Key"
        cancelTo="/keys"
        failureTitle="Failed to create API key"
        onSubmit={async (body) => {
          const key = await createKey.mutateAsync({
            name: body.name ?? '',
            permissions: body.permissions ?? [],
            expires_at: body.expires_at ?? null,
          });
          toast.success('API key created', { description: `${key.name} (${key.key_prefix}…)` });
          setCreated(key);
        }}
      />
      <SecretDialog
        apiKey={created}
        onDone={() => {
          const id = created?.id;
          setCreated(null);
          createKey.reset();
          navigate(id ? `/keys/${id}` : '/keys', { replace: true });
        }}
      />
    </Page>
  );
}
