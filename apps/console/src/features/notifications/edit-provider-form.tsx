import type { NotificationProvider } from '@launchbay/contract';
import type { ReactNode } from 'react';
import { errorDetail } from '@/lib/api';
import { toast } from '@/lib/toast';
import { useUpdateProvider } from './api';
import { UPDATE_FAILED_MESSAGE, UPDATED_MESSAGE } from './provider-actions';
import { EmailProviderForm, type ProviderFormState, SlackProviderForm } from './provider-form';
import { emailProviderValues, slackProviderValues } from './provider-schema';

/** The provider form prefilled from the server, saving to PUT /notification-providers/{type}/{id}. */
export function EditProviderForm({
  provider,
  disabled,
  onSaved,
  className,
  children,
}: {
  provider: NotificationProvider;
  disabled?: boolean;
  onSaved?: (provider: NotificationProvider) => void;
  className?: string;
  children: (state: ProviderFormState) => ReactNode;
}) {
  const update = useUpdateProvider();
  const type = provider.provider_type;

  const save = async (body: Parameters<typeof update.mutateAsync>[0]['body']) => {
    try {
      const saved = await update.mutateAsync({ type, id: provider.id, body });
      toast.success(UPDATED_MESSAGE[type]);
      onSaved?.(saved);
      return saved;
    } catch (error) {
      toast.error(UPDATE_FAILED_MESSAGE[type], { description: errorDetail(error) });
      throw error;
    }
  };

  if (provider.provider_type === 'email') {
    return (
      <EmailProviderForm
        key={provider.id}
        mode="edit"
        defaultValues={emailProviderValues(provider)}
        onSubmit={save}
        disabled={disabled}
        className={className}
      >
        {children}
      </EmailProviderForm>
    );
  }
  return (
    <SlackProviderForm
      key={provider.id}
      mode="edit"
      defaultValues={slackProviderValues(provider)}
      onSubmit={save}
      disabled={disabled}
      className={className}
    >
      {children}
    </SlackProviderForm>
  );
}
