import {
  type CreateUserRequest,
  type RoleType,
  type UpdateUserRequest,
  userListResponseSchema,
  userSchema,
} from '@launchbay/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api';

export const usersQueryKey = ['users'] as const;

export function useUsers() {
  return useQuery({
    queryKey: usersQueryKey,
    queryFn: ({ signal }) => api('/users', { signal, response: userListResponseSchema }),
    retry: false,
  });
}

function useUserMutation<TVariables>(fn: (variables: TVariables) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => queryClient.invalidateQueries({ queryKey: usersQueryKey }),
  });
}

export function useCreateUser() {
  return useUserMutation((body: CreateUserRequest) => api('/users', { method: 'POST', body, response: userSchema }));
}

export function useUpdateUser() {
  return useUserMutation(({ id, ...body }: UpdateUserRequest & { id: number }) =>
    api(`/users/${id}`, { method: 'PATCH', body, response: userSchema }),
  );
}

export function useDeleteUser() {
  return useUserMutation((id: number) => api(`/users/${id}`, { method: 'DELETE' }));
}

export function useAddRole() {
  return useUserMutation(({ id, role }: { id: number; role: RoleType }) =>
    api(`/users/${id}/roles`, { method: 'POST', body: { role_type: role }, response: userSchema }),
  );
}

export function useRemoveRole() {
  return useUserMutation(({ id, role }: { id: number; role: RoleType }) =>
    api(`/users/${id}/roles/${role}`, { method: 'DELETE', response: userSchema }),
  );
}

/** A strong first password: 20 characters from a 69-symbol alphabet (about 122 bits). */
export function generatePassword(length = 20): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!@#$%^&*-_=+';
  const limit = 256 - (256 % alphabet.length);
  const out: string[] = [];
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const byte of bytes) {
      if (byte < limit && out.length < length) out.push(alphabet[byte % alphabet.length] ?? '');
    }
  }
  return out.join('');
}
