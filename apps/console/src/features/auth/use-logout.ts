import { useState } from 'react';
import { errorDetail } from '@/lib/api';
import { toast } from '@/lib/toast';
import { logout } from './api';

/** Spec section 4: logout reloads the page on success; failure shows 'Failed to logout'. */
export function useLogout() {
  const [pending, setPending] = useState(false);
  const run = async () => {
    setPending(true);
    try {
      await logout();
      window.location.reload();
    } catch (error) {
      setPending(false);
      toast.error('Failed to logout', { description: errorDetail(error) });
    }
  };
  return { logout: run, pending };
}
