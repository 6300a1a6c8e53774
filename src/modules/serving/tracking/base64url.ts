/** The value of each base64url character; -1 for any other character. */
const VALUES = new Int8Array(128).fill(-1);
for (const [index, character] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].entries()) {
  VALUES[character.charCodeAt(0)] = index;
}

/**
 * The bytes of a base64url text (no padding) that is the one spelling of them, else undefined.
 * Node's decoder also reads other spellings of the same bytes: a last character whose unused low
 * bits are not zero (`…A` and `…B` both end in the same byte), or a length no byte count gives.
 * A signed token read that way would be a second token for one click or view, so a token that is
 * not written the way we write it is not ours. The check is on the last character alone.
 */
export function decodeBase64url(text: string): Buffer | undefined {
  const leftOver = text.length % 4;
  if (leftOver === 1) return undefined;
  if (leftOver !== 0) {
    const last = VALUES[text.charCodeAt(text.length - 1)] ?? -1;
    // Two characters carry one byte (4 bits unused), three carry two bytes (2 bits unused).
    if (last < 0 || (last & (leftOver === 2 ? 0b1111 : 0b11)) !== 0) return undefined;
  }
  return Buffer.from(text, 'base64url');
}
