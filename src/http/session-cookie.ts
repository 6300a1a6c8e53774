import type { FastifyRequest } from 'fastify';

/** The cookie that carries a browser session's id. */
export const SESSION_COOKIE = 'nativa_session';

/** `Set-Cookie` for a session id, kept by the browser for `maxAgeSeconds` (0 deletes it). */
export function sessionCookie(value: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${value}; Max-Age=${maxAgeSeconds}; Path=/; HttpOnly; Secure; SameSite=Lax`;
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
