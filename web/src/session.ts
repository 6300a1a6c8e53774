import { useQuery } from '@tanstack/react-query';
import { ApiError, api, data } from './api.ts';

export type User = Awaited<ReturnType<typeof fetchMe>>;

async function fetchMe() {
  return data(api.GET('/api/me'));
}

/** The signed-in account; `null` when there is no session (the sign-in page shows then). */
export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async () => {
      try {
        return await fetchMe();
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 30_000,
  });
}

/**
 * Whether the account has two-factor sign-in, and must (`REQUIRE_2FA_FOR`): the app shows an
 * account that must and has not its enrolment before anything else.
 */
export function useTwoFactor(enabled = true) {
  return useQuery({ queryKey: ['two-factor'], queryFn: () => data(api.GET('/api/me/two-factor')), enabled });
}
