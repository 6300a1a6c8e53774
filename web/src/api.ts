import { ApiError, createNativaClient, data } from '@nativa/sdk';

/** The API of the server that served this page: same origin, the session cookie, no token. */
export const api = createNativaClient({ baseUrl: '', credentials: 'include' });

export { ApiError, data };

/** The message to show for a failed call. */
export function problem(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'The server could not be reached. Check your connection and try again.';
}

/** The field errors of a 422, by field, for showing each beside its field. */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  return Object.fromEntries(error.errors.map((entry) => [entry.field, entry.message]));
}
