import { useQuery } from '@tanstack/react-query';
import { api, data } from '../../api.ts';

/** Whether the account has two-factor sign-in, and must. */
export function useTwoFactor(enabled = true) {
  return useQuery({ queryKey: ['two-factor'], queryFn: () => data(api.GET('/api/me/two-factor')), enabled });
}
