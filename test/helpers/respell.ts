import assert from 'node:assert/strict';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * The same bytes spelt another way: the last character with one of its unused low bits set, which
 * a lenient base64url decoder ignores. Only a length that leaves bits unused has such spellings.
 */
export function respell(token: string): string {
  const value = ALPHABET.indexOf(token.slice(-1));
  assert.ok(token.length % 4 !== 0 && value >= 0, 'a length with unused bits');
  return `${token.slice(0, -1)}${ALPHABET[value | 1]}`;
}
