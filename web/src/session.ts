import { useQuery } from '@tanstack/react-query';
import { ApiError, api, data } from './api.ts';
import { appKeys } from './query-keys.ts';

export type User = Awaited<ReturnType<typeof fetchMe>>;

async function fetchMe() {
  return data(api.GET('/api/me'));
}

/**
 * The server sends this readable cookie beside the HttpOnly session cookie, with its lifetime: a
 * page without it has no session to ask about, and asks nothing that must fail.
 */
const SIGNED_IN_MARKER = 'nativa_signed_in=1';

function maybeSignedIn(): boolean {
  return document.cookie.split(';').some((part) => part.trim() === SIGNED_IN_MARKER);
}

/** The signed-in account; `null` when there is no session (the sign-in page shows then). */
export function useMe() {
  return useQuery({
    queryKey: appKeys.me(),
    queryFn: async () => {
      if (!maybeSignedIn()) return null;
      try {
        return await fetchMe();
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) {
          // The session ended on the server (expired, ended elsewhere): so does the marker.
          // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Firefox and older Safari.
          document.cookie = 'nativa_signed_in=; Max-Age=0; Path=/; Secure; SameSite=Lax';
          return null;
        }
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
  return useQuery({ queryKey: appKeys.twoFactor(), queryFn: () => data(api.GET('/api/me/two-factor')), enabled });
}
