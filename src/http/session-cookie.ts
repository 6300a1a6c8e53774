import type { FastifyRequest } from 'fastify';

/** The cookie that carries a browser session's id. */
export const SESSION_COOKIE = 'nativa_session';

/**
 * A cookie the web app's script can read, sent beside the session cookie with the same lifetime:
 * it says only that a session may be there, so that a page opened without one (sign-in, a
 * password link) asks nothing that must fail. It carries no secret; the session cookie stays
 * HttpOnly.
 */
export const SIGNED_IN_COOKIE = 'nativa_signed_in';

/**
 * The `Set-Cookie` values for a session id, kept by the browser for `maxAgeSeconds` (0 deletes
 * them): the session cookie, then the web app's signed-in marker.
 */
export function sessionCookie(value: string, maxAgeSeconds: number): string[] {
  return [
    `${SESSION_COOKIE}=${value}; Max-Age=${maxAgeSeconds}; Path=/; HttpOnly; Secure; SameSite=Lax`,
    `${SIGNED_IN_COOKIE}=${maxAgeSeconds > 0 ? '1' : ''}; Max-Age=${maxAgeSeconds}; Path=/; Secure; SameSite=Lax`,
  ];
}

/** The signed-in marker alone, for the idle lifetime of a session (14 days). */
export function signedInMarker(): string {
  return `${SIGNED_IN_COOKIE}=1; Max-Age=${14 * 24 * 3600}; Path=/; Secure; SameSite=Lax`;
}

/** The session cookie's value in a `Cookie` header, if there is one. */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === SESSION_COOKIE) {
      const value = part.slice(separator + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

/**
 * Whether a request comes from a page of this server: the browser says so (`Sec-Fetch-Site`), or
 * its `Origin` is this server's public URL or the host it was reached at. A request without
 * either cannot prove it, and is not trusted with a session.
 */
export function isSameOrigin(request: FastifyRequest, publicUrl: string | undefined): boolean {
  if (request.headers['sec-fetch-site'] === 'same-origin') return true;
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return false;
  if (publicUrl !== undefined && origin === new URL(publicUrl).origin) return true;
  return origin === `https://${request.host}`;
}
