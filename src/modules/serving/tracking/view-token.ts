import { createHmac, timingSafeEqual } from 'node:crypto';
import { decodeBase64url } from './base64url.ts';
import { FastHmac } from './fast-hmac.ts';

/**
 * Impression tokens: one per served teaser, handed to the loader with the teaser and sent back
 * by its beacon when the teaser has been viewable (docs/serving.md, Viewability). Like a click
 * link, the token carries everything the view is counted under (ad, campaign, site, block,
 * device, country, when it was served), signed, so the beacon needs no lookup to trust it. Its id
 * is the served teaser's click id: one impression, one id, which the seen-set keeps to count a
 * token once. A teaser of a frequency-capped campaign also carries the visitor its cap counts for
 * (16 bytes, already a keyed hash: visitor-id.ts), so the beacon counts the view toward the cap of
 * the visitor it was served to; other teasers' tokens stay short.
 */
export interface ViewClaims {
  /** The impression's id (the click id of the same teaser's link, 128 random bits). */
  impressionId: string;
  offerId: number;
  campaignId: number;
  siteId: number;
  blockId: number;
  device: number;
  country: string;
  /** When the teaser was served, epoch ms. */
  issuedAt: number;
  /** The frequency visitor (22 base64url characters), only on teasers of capped campaigns. */
  visitor?: string;
}

export type ViewVerdict =
  | { kind: 'valid'; claims: ViewClaims }
  | { kind: 'expired'; claims: ViewClaims }
  | { kind: 'forged'; claims: undefined };

/** A teaser must be viewed within an hour of being served, as its click link must be followed within one. */
export const VIEW_TOKEN_TTL_MS = 60 * 60 * 1000;
/** Tokens stamped this far in the future still verify: instances' clocks differ a little. */
export const VIEW_TOKEN_SKEW_MS = 60_000;

/** Layout: impression id, four ids, device, two country letters, time (6 bytes of epoch ms). */
const PAYLOAD_BYTES = 16 + 4 * 4 + 1 + 2 + 6;
/** A capped campaign's teaser: the payload, then the frequency visitor. */
const VISITOR_BYTES = 16;
/** HMAC-SHA256 truncated to 128 bits, as the click link's. */
const MAC_BYTES = 16;
/** Base64url length of a token without a visitor (76 characters). */
export const VIEW_TOKEN_LENGTH = Math.ceil(((PAYLOAD_BYTES + MAC_BYTES) * 4) / 3);
/** Base64url length of a token with a visitor (98 characters): a token has one of these two lengths. */
export const CAPPED_VIEW_TOKEN_LENGTH = Math.ceil(((PAYLOAD_BYTES + VISITOR_BYTES + MAC_BYTES) * 4) / 3);
const TOKEN_PATTERN = /^[A-Za-z0-9_-]+$/;

/**
 * Format-1 impression tokens (76 or 98 characters, their own MAC). Serving signs format 2 now
 * (teaser-token.ts, docs/adr/0037); TeaserSigner still verifies these for the hour after an
 * upgrade in which tokens handed out before it come back.
 */
export class ViewSigner {
  readonly ttlMs: number;
  private readonly hmac: FastHmac;

  /**
   * The key is derived from the signing secret for this one purpose, so an impression token can
   * never pass for a click link or the other way round, whatever their lengths.
   */
  constructor(secret: string, ttlMs = VIEW_TOKEN_TTL_MS) {
    this.ttlMs = ttlMs;
    const key = createHmac('sha256', secret).update('nativa impression token v1').digest();
    this.hmac = new FastHmac(key, PAYLOAD_BYTES + VISITOR_BYTES);
  }

  /**
   * A URL-safe token, base64url of the payload and its MAC: VIEW_TOKEN_LENGTH characters, or
   * CAPPED_VIEW_TOKEN_LENGTH with a visitor. The MAC covers the whole payload, so a visitor can
   * neither be removed from a token nor changed.
   */
  sign(claims: ViewClaims): string {
    const payloadBytes = claims.visitor === undefined ? PAYLOAD_BYTES : PAYLOAD_BYTES + VISITOR_BYTES;
    const buffer = Buffer.allocUnsafe(payloadBytes + MAC_BYTES);
    buffer.fill(0, 0, 16);
    buffer.write(claims.impressionId, 0, 16, 'base64url');
    buffer.writeUInt32BE(claims.offerId, 16);
    buffer.writeUInt32BE(claims.campaignId, 20);
    buffer.writeUInt32BE(claims.siteId, 24);
    buffer.writeUInt32BE(claims.blockId, 28);
    buffer.writeUInt8(claims.device, 32);
    buffer.write((claims.country || '--').padEnd(2, '-').slice(0, 2), 33, 'latin1');
    buffer.writeUIntBE(claims.issuedAt, 35, 6);
    if (claims.visitor !== undefined) {
      buffer.fill(0, PAYLOAD_BYTES, payloadBytes);
      buffer.write(claims.visitor, PAYLOAD_BYTES, VISITOR_BYTES, 'base64url');
    }
    this.mac(buffer.subarray(0, payloadBytes), buffer, payloadBytes);
    return buffer.toString('base64url');
  }

  /** Forged: not a token of ours (bad length, characters or MAC); expired: older than the TTL, or from the future. */
  verify(token: string, nowMs: number): ViewVerdict {
    const capped = token.length === CAPPED_VIEW_TOKEN_LENGTH;
    if ((!capped && token.length !== VIEW_TOKEN_LENGTH) || !TOKEN_PATTERN.test(token))
      return { kind: 'forged', claims: undefined };
    const payloadBytes = capped ? PAYLOAD_BYTES + VISITOR_BYTES : PAYLOAD_BYTES;
    const buffer = decodeBase64url(token);
    if (buffer === undefined || buffer.length !== payloadBytes + MAC_BYTES) return { kind: 'forged', claims: undefined };
    const payload = buffer.subarray(0, payloadBytes);
    const expected = Buffer.allocUnsafe(MAC_BYTES);
    this.mac(payload, expected, 0);
    if (!timingSafeEqual(buffer.subarray(payloadBytes), expected)) return { kind: 'forged', claims: undefined };
    const claims = parseClaims(payload);
    if (claims === undefined) return { kind: 'forged', claims: undefined };
    if (nowMs - claims.issuedAt > this.ttlMs || claims.issuedAt - nowMs > VIEW_TOKEN_SKEW_MS) return { kind: 'expired', claims };
    return { kind: 'valid', claims };
  }

  /** Writes the payload's MAC (MAC_BYTES) into `target` at `offset`. */
  private mac(payload: Buffer, target: Buffer, offset: number): void {
    this.hmac.writeMac(payload, target, offset, MAC_BYTES);
  }
}

function parseClaims(payload: Buffer): ViewClaims | undefined {
  const country = payload.toString('latin1', 33, 35);
  if (country !== '--' && !/^[A-Z]{2}$/.test(country)) return undefined;
  const claims: ViewClaims = {
    impressionId: payload.subarray(0, 16).toString('base64url'),
    offerId: payload.readUInt32BE(16),
    campaignId: payload.readUInt32BE(20),
    siteId: payload.readUInt32BE(24),
    blockId: payload.readUInt32BE(28),
    device: payload.readUInt8(32),
    country: country === '--' ? '' : country,
    issuedAt: payload.readUIntBE(35, 6),
  };
  if (payload.length > PAYLOAD_BYTES) claims.visitor = payload.subarray(PAYLOAD_BYTES).toString('base64url');
  return claims;
}
