import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import type { Db } from '../../src/db/database.ts';
import { hashPassword } from '../../src/modules/accounts/password.ts';
import type { RequestOptions, TestResponse } from './http-client.ts';
import type { TestServer } from './server.ts';

export const TEST_PASSWORD = 'correct horse battery';

/** Gives an account a known password, as the invitation link would. */
export async function setPassword(db: Db, accountId: number, password = TEST_PASSWORD): Promise<void> {
  await db
    .updateTable('accounts')
    .set({ password_hash: await hashPassword(password) })
    .where('id', '=', accountId)
    .execute();
}

/** The value of the session cookie a response sets. */
export function sessionOf(response: TestResponse): string {
  const cookie = response.header('set-cookie') ?? '';
  const value = /nativa_session=([^;]*)/.exec(cookie)?.[1];
  assert.ok(value, `no session cookie in ${cookie}`);
  return value;
}

/** A request as a page of the server itself sends it: the session cookie and this server's Origin. */
export function asBrowser(server: TestServer, cookie: string) {
  return (method: string, path: string, body?: unknown, extra: RequestOptions = {}) =>
    server.anonymous.request(method, path, {
      body,
      ...extra,
      headers: { Cookie: `nativa_session=${cookie}`, Origin: server.url, ...extra.headers },
    });
}

/** The code an authenticator app shows for `secret` (base32) at `nowMs`. */
export function totpCode(secret: string, nowMs: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: nowMs });
}
