import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { FastHmac } from './fast-hmac.ts';

/**
 * The conversion pixel's proof that it runs in the browser that made the click: the click
 * redirect (on Nativa's domain) adds a tag of the click to a cookie, and the pixel counts a
 * conversion only when the browser sends that tag back. A tag is a MAC of the click id under a
 * key of the signing secret, so the click id alone (readable from the click link) does not make
 * one; the cookie holds no visitor id, only the tags of the browser's latest clicks.
 */
export const CONVERSION_COOKIE = 'nv_cv';
/** As long as a conversion may follow its click. */
export const CONVERSION_COOKIE_MAX_AGE = 30 * 86_400;
/** The latest clicks a browser keeps tags of: a few ads clicked before one converts. */
const MAX_TAGS = 20;
/** 96 bits of the MAC, as base64url. */
const TAG_BYTES = 12;
const TAG_PATTERN = /^[A-Za-z0-9_-]{16}$/;

/** Click ids the fast MAC takes; a longer one (never a real click's) takes createHmac's path. */
const FAST_CLICK_ID_BYTES = 64;

/**
 * The tags of click ids under the pixel's key: HMAC-SHA256's first 96 bits, as base64url. Every
 * followed click link makes one, so the MAC is the fast one (createHmac cost a click ~10 µs).
 */
export class ConversionTagger {
  private readonly fast: FastHmac;
  private readonly key: KeyObject;
  private readonly mac = Buffer.alloc(TAG_BYTES);

  constructor(key: string) {
    const bytes = Buffer.from(key, 'utf8');
    this.fast = new FastHmac(bytes, FAST_CLICK_ID_BYTES);
    this.key = createSecretKey(bytes);
  }

  tagOf(clickId: string): string {
    const message = Buffer.from(clickId, 'utf8');
    if (message.length > FAST_CLICK_ID_BYTES) {
      return createHmac('sha256', this.key).update(message).digest().subarray(0, TAG_BYTES).toString('base64url');
    }
    this.fast.writeMac(message, this.mac, 0, TAG_BYTES);
    return this.mac.toString('base64url');
  }
}

/** The tags of a Cookie header's `nv_cv` (none when it is absent or malformed). */
export function conversionTags(cookieHeader: string | undefined): string[] {
  if (cookieHeader === undefined) return [];
  for (const part of cookieHeader.split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === CONVERSION_COOKIE && value !== undefined) return value.split('.').filter((tag) => TAG_PATTERN.test(tag));
  }
  return [];
}

/** The cookie's new value with `tag` added last, the oldest forgotten past MAX_TAGS. */
export function withTag(tags: readonly string[], tag: string): string {
  return [...tags.filter((known) => known !== tag), tag].slice(-MAX_TAGS).join('.');
}

/**
 * The Set-Cookie of the click redirect: third-party on the advertiser's page, hence
 * `SameSite=None; Secure`; read only by the pixel's path.
 */
export function conversionCookie(value: string): string {
  return `${CONVERSION_COOKIE}=${value}; Max-Age=${CONVERSION_COOKIE_MAX_AGE}; Path=/api/serve/pixel.gif; Secure; HttpOnly; SameSite=None`;
}
