import { createHash } from 'node:crypto';

/**
 * The SHA-256 of an advertiser's postback key: what is stored (advertiser/postback-keys) and what
 * a postback is compared by. A key is 32 random bytes, so a plain hash keeps it as safe as a token.
 */
export function hashPostbackKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}
