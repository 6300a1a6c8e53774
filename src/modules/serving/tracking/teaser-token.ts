import { createHmac, timingSafeEqual } from 'node:crypto';
import { decodeBase64url } from './base64url.ts';
import { CLICK_LINK_TTL_MS, type ClickClaims, ClickSigner, type ClickVerdict, writeNewClickId } from './click-token.ts';
import { FastHmac } from './fast-hmac.ts';
import { CAPPED_VIEW_TOKEN_LENGTH, VIEW_TOKEN_LENGTH, type ViewClaims, ViewSigner, type ViewVerdict } from './view-token.ts';

/**
 * A served teaser's click link and impression token under one MAC (docs/adr/0037). Both carry the
 * same payload (everything the click is billed and the view counted under) and each one half of
 * the payload's HMAC-SHA256: the click link the first 128 bits, the impression token the last
 * 128. Knowing one half tells nothing about the other (HMAC is a pseudo-random function), so an
 * impression token cannot be turned into a click link nor the other way round, and since the MAC
 * covers the whole payload (the click id included), no part of one teaser's token passes for
 * another's. One MAC per teaser instead of two: two SHA-256 calls instead of four.
 */
export interface TeaserClaims extends ClickClaims {
  /** The frequency visitor (22 base64url characters), only on teasers of capped campaigns. */
  visitor?: string;
}

/** A teaser's claims before its click id is drawn (TeaserSigner.signNew draws it). */
export type ServedClaims = Omit<TeaserClaims, 'clickId'>;

export interface TeaserTokens {
  /** The click link's token (the last part of `/api/serve/click/{token}`). */
  click: string;
  /** The impression token the loader's beacon sends back. */
  view: string;
}

/**
 * The first payload byte: this format. The links of ADR 0016/0023 (format 1) had none; format 2
 * lacked the served network, and its tokens are still verified for the hour after an upgrade.
 */
const FORMAT = 3;
const FORMAT_2 = 2;
/** Format 2's layout: format, click id, four ids, device, two country letters, charge (6 bytes), time (6 bytes of epoch ms). */
const FORMAT_2_PAYLOAD_BYTES = 1 + 16 + 4 * 4 + 1 + 2 + 6 + 6;
/** Format 3 adds the network (AS number, 3 bytes) the teaser was served to, for the rule network_mismatch. */
const PAYLOAD_BYTES = FORMAT_2_PAYLOAD_BYTES + 3;
/** AS numbers above this do not fit the 3 bytes: none is assigned yet; they are carried as unknown (0). */
const MAX_ASN = 0xffffff;
/** A capped campaign's teaser: the payload, then the frequency visitor. */
const VISITOR_BYTES = 16;
/** Each token carries one half of the HMAC-SHA256 (128 bits, as RFC 2104 allows). */
const TAG_BYTES = 16;
const MAC_BYTES = 2 * TAG_BYTES;
/** Base64url characters of one MAC half (no padding). */
const TAG_TEXT_LENGTH = Math.ceil((TAG_BYTES * 4) / 3);
/** Base64url length of a token without a visitor (90 characters; a format-1 click link has 84). */
export const TEASER_TOKEN_LENGTH = Math.ceil(((PAYLOAD_BYTES + TAG_BYTES) * 4) / 3);
/** Base64url length of a token with a visitor (111 characters). */
export const CAPPED_TEASER_TOKEN_LENGTH = Math.ceil(((PAYLOAD_BYTES + VISITOR_BYTES + TAG_BYTES) * 4) / 3);
/** Format 2's lengths (86 and 107 characters). */
const FORMAT_2_LENGTH = Math.ceil(((FORMAT_2_PAYLOAD_BYTES + TAG_BYTES) * 4) / 3);
const FORMAT_2_CAPPED_LENGTH = Math.ceil(((FORMAT_2_PAYLOAD_BYTES + VISITOR_BYTES + TAG_BYTES) * 4) / 3);
/** The longest token either endpoint takes (route schemas bound their input with it). */
export const MAX_TEASER_TOKEN_LENGTH = Math.max(CAPPED_TEASER_TOKEN_LENGTH, CAPPED_VIEW_TOKEN_LENGTH);
/** Format-1 click links: still verified for their hour after an upgrade (docs/adr/0037). */
const FORMAT_1_CLICK_LENGTH = 84;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]+$/;
/** Which half of the MAC a token carries. */
const CLICK_TAG = 0;
const VIEW_TAG = TAG_BYTES;

export class TeaserSigner {
  readonly ttlMs: number;
  private readonly hmac: FastHmac;
  /** Verifiers of format-1 tokens, handed out before an upgrade and valid one hour. */
  private readonly format1Click: ClickSigner;
  private readonly format1View: ViewSigner;
  private readonly expected = Buffer.alloc(MAC_BYTES);
  /** Where a token is put together: the longest payload, its MAC and two bytes to align the second half. */
  private readonly scratch = Buffer.alloc(PAYLOAD_BYTES + VISITOR_BYTES + MAC_BYTES + 2);

  /** The key is derived from the signing secret for this one purpose. */
  constructor(secret: string, ttlMs = CLICK_LINK_TTL_MS) {
    this.ttlMs = ttlMs;
    const key = createHmac('sha256', secret).update('nativa teaser tokens v2').digest();
    this.hmac = new FastHmac(key, PAYLOAD_BYTES + VISITOR_BYTES);
    this.format1Click = new ClickSigner(secret, ttlMs);
    this.format1View = new ViewSigner(secret, ttlMs);
  }

  /**
   * The teaser's click link token and impression token: base64url of the payload and one half of
   * its MAC each, TEASER_TOKEN_LENGTH characters (CAPPED_TEASER_TOKEN_LENGTH with a visitor).
   */
  sign(claims: TeaserClaims): TeaserTokens {
    const buffer = this.scratch;
    buffer.fill(0, 1, 17);
    buffer.write(claims.clickId, 1, 16, 'base64url');
    return this.seal(claims);
  }

  /**
   * A served teaser's tokens under a new click id (the impression's id), drawn straight into the
   * payload: what serving signs per teaser, without the id's text on the way.
   */
  signNew(claims: ServedClaims): TeaserTokens {
    writeNewClickId(this.scratch, 1);
    return this.seal(claims);
  }

  /** Writes the payload after the click id (already in the scratch buffer), MACs it and encodes both tokens. */
  private seal(claims: ServedClaims): TeaserTokens {
    const buffer = this.scratch;
    const payloadBytes = claims.visitor === undefined ? PAYLOAD_BYTES : PAYLOAD_BYTES + VISITOR_BYTES;
    buffer[0] = FORMAT;
    buffer.writeUInt32BE(claims.offerId, 17);
    buffer.writeUInt32BE(claims.campaignId, 21);
    buffer.writeUInt32BE(claims.siteId, 25);
    buffer.writeUInt32BE(claims.blockId, 29);
    buffer.writeUInt8(claims.device, 33);
    buffer.write((claims.country || '--').padEnd(2, '-').slice(0, 2), 34, 'latin1');
    buffer.writeUIntBE(claims.chargeMicros, 36, 6);
    buffer.writeUIntBE(claims.issuedAt, 42, 6);
    const asn = claims.servedAsn ?? 0;
    buffer.writeUIntBE(asn > MAX_ASN ? 0 : asn, 48, 3);
    if (claims.visitor !== undefined) {
      buffer.fill(0, PAYLOAD_BYTES, payloadBytes);
      buffer.write(claims.visitor, PAYLOAD_BYTES, VISITOR_BYTES, 'base64url');
    }
    const tagAt = payloadBytes;
    this.hmac.writeMac(buffer.subarray(0, payloadBytes), buffer, tagAt, MAC_BYTES);
    if (payloadBytes % 3 === 0) {
      // Whole 3-byte groups: the payload's text is a prefix of both tokens'. The view half moves two
      // zero bytes on, to a group boundary, so one encoding holds the payload, the click half (its
      // last group padded with zeros encodes to the same two characters the half alone ends with)
      // and the view half: both tokens are slices of one string.
      const viewAt = tagAt + TAG_BYTES + 2;
      buffer.copy(buffer, viewAt, tagAt + TAG_BYTES, tagAt + MAC_BYTES);
      buffer[tagAt + TAG_BYTES] = 0;
      buffer[tagAt + TAG_BYTES + 1] = 0;
      const text = buffer.toString('base64url', 0, viewAt + TAG_BYTES);
      const headLength = (payloadBytes / 3) * 4;
      return {
        click: text.slice(0, headLength + TAG_TEXT_LENGTH),
        view: text.slice(0, headLength) + text.slice((viewAt / 3) * 4),
      };
    }
    const click = buffer.toString('base64url', 0, tagAt + TAG_BYTES);
    buffer.copy(buffer, tagAt, tagAt + TAG_BYTES, tagAt + MAC_BYTES);
    return { click, view: buffer.toString('base64url', 0, tagAt + TAG_BYTES) };
  }

  /**
   * A click link's token. Forged: not a click link of ours (bad length, characters, format, MAC
   * or payload; an impression token is one), so nothing in it is believed; expired: older than
   * the TTL, or from the future.
   */
  verifyClick(token: string, nowMs: number): ClickVerdict {
    if (token.length === FORMAT_1_CLICK_LENGTH) return this.format1Click.verify(token, nowMs);
    const claims = this.read(token, CLICK_TAG);
    if (claims === undefined) return { kind: 'forged', claims: undefined };
    const { visitor: _visitor, ...click } = claims;
    return { kind: this.fresh(claims.issuedAt, nowMs) ? 'valid' : 'expired', claims: click };
  }

  /** An impression token, as verifyClick judges a click link (a click link is forged here). */
  verifyView(token: string, nowMs: number): ViewVerdict {
    if (token.length === VIEW_TOKEN_LENGTH || token.length === CAPPED_VIEW_TOKEN_LENGTH)
      return this.format1View.verify(token, nowMs);
    const claims = this.read(token, VIEW_TAG);
    if (claims === undefined) return { kind: 'forged', claims: undefined };
    const view: ViewClaims = {
      impressionId: claims.clickId,
      offerId: claims.offerId,
      campaignId: claims.campaignId,
      siteId: claims.siteId,
      blockId: claims.blockId,
      device: claims.device,
      country: claims.country,
      issuedAt: claims.issuedAt,
    };
    if (claims.visitor !== undefined) view.visitor = claims.visitor;
    return { kind: this.fresh(claims.issuedAt, nowMs) ? 'valid' : 'expired', claims: view };
  }

  private fresh(issuedAt: number, nowMs: number): boolean {
    return nowMs - issuedAt <= this.ttlMs && issuedAt - nowMs <= 60_000;
  }

  /** The claims of a format-2 token whose MAC half at `tag` matches; undefined when it does not. */
  private read(token: string, tag: number): TeaserClaims | undefined {
    const layout = LAYOUTS.get(token.length);
    if (layout === undefined || !TOKEN_PATTERN.test(token)) return undefined;
    const payloadBytes = layout.payloadBytes;
    const buffer = decodeBase64url(token);
    if (buffer === undefined || buffer.length !== payloadBytes + TAG_BYTES || buffer[0] !== layout.format) return undefined;
    const payload = buffer.subarray(0, payloadBytes);
    this.hmac.writeMac(payload, this.expected, 0, MAC_BYTES);
    if (!timingSafeEqual(buffer.subarray(payloadBytes), this.expected.subarray(tag, tag + TAG_BYTES))) return undefined;
    return parseClaims(payload, layout.format === FORMAT ? PAYLOAD_BYTES : FORMAT_2_PAYLOAD_BYTES);
  }
}

/** Each token length's format and payload size. */
const LAYOUTS = new Map([
  [TEASER_TOKEN_LENGTH, { format: FORMAT, payloadBytes: PAYLOAD_BYTES }],
  [CAPPED_TEASER_TOKEN_LENGTH, { format: FORMAT, payloadBytes: PAYLOAD_BYTES + VISITOR_BYTES }],
  [FORMAT_2_LENGTH, { format: FORMAT_2, payloadBytes: FORMAT_2_PAYLOAD_BYTES }],
  [FORMAT_2_CAPPED_LENGTH, { format: FORMAT_2, payloadBytes: FORMAT_2_PAYLOAD_BYTES + VISITOR_BYTES }],
]);

function parseClaims(payload: Buffer, fixedBytes: number): TeaserClaims | undefined {
  const country = payload.toString('latin1', 34, 36);
  if (country !== '--' && !/^[A-Z]{2}$/.test(country)) return undefined;
  const claims: TeaserClaims = {
    clickId: payload.subarray(1, 17).toString('base64url'),
    offerId: payload.readUInt32BE(17),
    campaignId: payload.readUInt32BE(21),
    siteId: payload.readUInt32BE(25),
    blockId: payload.readUInt32BE(29),
    device: payload.readUInt8(33),
    country: country === '--' ? '' : country,
    chargeMicros: payload.readUIntBE(36, 6),
    issuedAt: payload.readUIntBE(42, 6),
  };
  if (fixedBytes === PAYLOAD_BYTES) {
    const asn = payload.readUIntBE(48, 3);
    if (asn > 0) claims.servedAsn = asn;
  }
  if (payload.length > fixedBytes) claims.visitor = payload.subarray(fixedBytes).toString('base64url');
  return claims;
}
