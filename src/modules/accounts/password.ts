import { randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';

/** Letters and digits without the look-alikes (0/O, 1/l/I), so a password can be typed from paper. */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** Cost parameters of scrypt (RFC 7914); stored with each hash so they can be raised later. */
const COST = { N: 16_384, r: 8, p: 1 };
const KEY_LENGTH = 32;

/** A new password of 16 characters from a 56-letter alphabet (about 93 bits). */
export function generatePassword(length = 16): string {
  let password = '';
  for (let index = 0; index < length; index++) password += ALPHABET[randomInt(ALPHABET.length)];
  return password;
}

function derive(password: string, salt: Buffer, cost: typeof COST): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, { ...cost, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$salt$key` with salt and key in base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
