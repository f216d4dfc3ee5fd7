import {
  type CreateEmailProviderRequest,
  type CreateSlackProviderRequest,
  messageSchema,
  type NotificationPreferences,
  type NotificationProvider,
  notificationListResponseSchema,
  notificationPreferencesSchema,
  notificationProviderListResponseSchema,
  notificationProviderSchema,
  type ProviderType,
} from '@launchbay/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api';

export const preferencesQueryKey = ['notification-preferences'] as const;
export const providersQueryKey = ['notification-providers'] as const;
export const providerQueryKey = (id: number) => [...providersQueryKey, id] as const;
export const notificationsQueryKey = ['notifications'] as const;

export type ProviderBody<T extends ProviderType> = T extends 'email' ? CreateEmailProviderRequest : CreateSlackProviderRequest;

// ---------------------------------------------------------------------------------------------
// Alert preferences

export function usePreferences() {
  return useQuery({
    queryKey: preferencesQueryKey,
    queryFn: ({ signal }) => api('/notification-preferences', { signal, response: notificationPreferencesSchema }),
  });
}

/** Spec section 7: PUT /notification-preferences sends the whole object inside `preferences`. */
export function useSavePreferences() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (preferences: NotificationPreferences) =>
      api('/notification-preferences', { method: 'PUT', body: { preferences }, response: notificationPreferencesSchema }),
    onSuccess: (saved) => queryClient.setQueryData(preferencesQueryKey, saved),
  });
}

// ---------------------------------------------------------------------------------------------
// Providers

export function useProviders() {
  return useQuery({
    queryKey: providersQueryKey,
    queryFn: ({ signal }) => api('/notification-providers', { signal, response: notificationProviderListResponseSchema }),
  });
}

export function useProvider(id: number | null) {
  return useQuery({
    queryKey: providerQueryKey(id ?? 0),
    queryFn: ({ signal }) => api(`/notification-providers/${id}`, { signal, response: notificationProviderSchema }),
    enabled: id !== null,
    retry: false,
  });
}

/** Spec section 7: create bodies are name, enabled (true) and config. */
export function useCreateProvider() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ type, body }: { type: ProviderType; body: ProviderBody<ProviderType> }) =>
      api(`/notification-providers/${type}`, { method: 'POST', body, response: notificationProviderSchema }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: providersQueryKey }),
  });
}

/** Spec section 7: update bodies (and the status toggle) are name, enabled and config, on the typed route. */
export function useUpdateProvider() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ type, id, body }: { type: ProviderType; id: number; body: ProviderBody<ProviderType> }) =>
      api(`/notification-providers/${type}/${id}`, { method: 'PUT', body, response: notificationProviderSchema }),
    onSuccess: (provider) => {
      queryClient.setQueryData(providerQueryKey(provider.id), provider);
      queryClient.setQueryData<NotificationProvider[]>(providersQueryKey, (list) =>
        list?.map((item) => (item.id === provider.id ? provider : item)),
      );
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: providersQueryKey }),
  });
}

export function useDeleteProvider() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api(`/notification-providers/${id}`, { method: 'DELETE' }),
    onSuccess: (_data, id) => {
      queryClient.setQueryData<NotificationProvider[]>(providersQueryKey, (list) => list?.filter((item) => item.id !== id));
    },
    // Only the list: the deleted provider's own query would answer 404 while its page leaves.
    onSettled: () => queryClient.invalidateQueries({ queryKey: providersQueryKey, exact: true }),
  });
}

export function useTestProvider() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => api(`/notification-providers/${id}/test`, { method: 'POST', response: messageSchema }),
    // The provider's last delivery and the notification record both change, sent or not.
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: providersQueryKey });
      void queryClient.invalidateQueries({ queryKey: notificationsQueryKey });
    },
  });
}

// ---------------------------------------------------------------------------------------------
// The record of sent notifications

export function useRecentNotifications(perPage = 10) {
  return useQuery({
    queryKey: [...notificationsQueryKey, { page: 1, perPage }],
    queryFn: ({ signal }) =>
      api('/notifications', { signal, query: { page: 1, per_page: perPage }, response: notificationListResponseSchema }),
  });
}
