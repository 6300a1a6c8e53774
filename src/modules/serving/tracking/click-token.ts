import { randomBytes, randomFillSync, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeBase64url } from './base64url.ts';
import { FastHmac } from './fast-hmac.ts';

/**
 * Click links carry everything billing needs (which ad, where it was shown, at what price),
 * signed with HMAC-SHA256, so the click endpoint needs no lookup to trust them. The click id is
 * 128 random bits: it makes the link single-use (a unique key in `clicks`) and is what an
 * advertiser passes back in conversion postbacks.
 */
export interface ClickClaims {
  clickId: string;
  offerId: number;
  campaignId: number;
  siteId: number;
  blockId: number;
  device: number;
  country: string;
  chargeMicros: number;
  /** When the teaser was served, epoch ms. */
  issuedAt: number;
  /** The network (AS number) the teaser was served to; absent or 0 when unknown (older links). */
  servedAsn?: number;
}

export type ClickVerdict =
  | { kind: 'valid'; claims: ClickClaims }
  | { kind: 'expired'; claims: ClickClaims }
  | { kind: 'forged'; claims: undefined };

export const CLICK_LINK_TTL_MS = 60 * 60 * 1000;

/** Random bytes are drawn in blocks: one system call per 256 click ids instead of one each. */
const idPool = Buffer.alloc(16 * 256);
let idOffset = idPool.length;

export function newClickId(): string {
  const at = drawId();
  return idPool.toString('base64url', at, at + 16);
}

/** Writes a new click id's 16 random bytes into `target` at `offset` (a token's payload: no text on the way). */
export function writeNewClickId(target: Buffer, offset: number): void {
  const at = drawId();
  idPool.copy(target, offset, at, at + 16);
}

/** The offset in the pool of 16 bytes no id has used, refilling the pool when it is spent. */
function drawId(): number {
  if (idOffset >= idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  const at = idOffset;
  idOffset += 16;
  return at;
}

/** Layout of a token's payload: click id, six ids and amounts, two country letters, time. */
const PAYLOAD_BYTES = 16 + 4 * 4 + 1 + 2 + 6 + 6;
/** HMAC-SHA256 truncated to 128 bits (as RFC 2104 allows): keeps links short. */
const MAC_BYTES = 16;

/**
 * Format-1 click links (84 characters, their own MAC). Serving signs format 2 now
 * (teaser-token.ts, docs/adr/0037); TeaserSigner still verifies these for the hour after an
 * upgrade in which links handed out before it are followed.
 */
export class ClickSigner {
  readonly ttlMs: number;
  private readonly hmac: FastHmac;

  constructor(secret: string, ttlMs = CLICK_LINK_TTL_MS) {
    this.ttlMs = ttlMs;
    this.hmac = new FastHmac(Buffer.from(secret, 'utf8'), PAYLOAD_BYTES);
  }

  /** A URL-safe token of 84 characters: base64url of the payload and its MAC. */
  sign(claims: ClickClaims): string {
    // Every byte is written below, so the buffer need not be zeroed first.
    const buffer = Buffer.allocUnsafe(PAYLOAD_BYTES + MAC_BYTES);
    buffer.fill(0, 0, 16);
    buffer.write(claims.clickId, 0, 16, 'base64url');
    buffer.writeUInt32BE(claims.offerId, 16);
    buffer.writeUInt32BE(claims.campaignId, 20);
    buffer.writeUInt32BE(claims.siteId, 24);
    buffer.writeUInt32BE(claims.blockId, 28);
    buffer.writeUInt8(claims.device, 32);
    buffer.write((claims.country || '--').padEnd(2, '-').slice(0, 2), 33, 'latin1');
    buffer.writeUIntBE(claims.chargeMicros, 35, 6);
    buffer.writeUIntBE(claims.issuedAt, 41, 6);
    this.mac(buffer.subarray(0, PAYLOAD_BYTES), buffer, PAYLOAD_BYTES);
    return buffer.toString('base64url');
  }

  /**
   * Forged: not a token of ours (bad length, characters, MAC or payload), so nothing in it is
   * believed, not even the ad; expired: older than the TTL, or from the future.
   */
  verify(token: string, nowMs: number): ClickVerdict {
    if (!/^[A-Za-z0-9_-]+$/.test(token)) return { kind: 'forged', claims: undefined };
    const buffer = decodeBase64url(token);
    if (buffer === undefined || buffer.length !== PAYLOAD_BYTES + MAC_BYTES) return { kind: 'forged', claims: undefined };
    const payload = buffer.subarray(0, PAYLOAD_BYTES);
    const expected = Buffer.allocUnsafe(MAC_BYTES);
    this.mac(payload, expected, 0);
    if (!timingSafeEqual(buffer.subarray(PAYLOAD_BYTES), expected)) return { kind: 'forged', claims: undefined };
    const claims = parseClaims(payload);
    if (claims === undefined) return { kind: 'forged', claims: undefined };
    if (nowMs - claims.issuedAt > this.ttlMs || claims.issuedAt - nowMs > 60_000) return { kind: 'expired', claims };
    return { kind: 'valid', claims };
  }

  /** Writes the payload's MAC (MAC_BYTES) into `target` at `offset`. */
  private mac(payload: Buffer, target: Buffer, offset: number): void {
    this.hmac.writeMac(payload, target, offset, MAC_BYTES);
  }
}

function parseClaims(payload: Buffer): ClickClaims | undefined {
  const country = payload.toString('latin1', 33, 35);
  if (country !== '--' && !/^[A-Z]{2}$/.test(country)) return undefined;
  return {
    clickId: payload.subarray(0, 16).toString('base64url'),
    offerId: payload.readUInt32BE(16),
    campaignId: payload.readUInt32BE(20),
    siteId: payload.readUInt32BE(24),
    blockId: payload.readUInt32BE(28),
    device: payload.readUInt8(32),
    country: country === '--' ? '' : country,
    chargeMicros: payload.readUIntBE(35, 6),
    issuedAt: payload.readUIntBE(41, 6),
  };
}

/**
 * SIGNING_SECRET when set; otherwise a secret generated once into DATA_DIR/signing.secret
 * (mode 0600), so instances sharing a DATA_DIR agree. Instances on different machines must all
 * be given the same SIGNING_SECRET.
 */
export function loadSigningSecret(configured: string | undefined, dataDir: string): string {
  if (configured !== undefined) return configured;
  const file = path.join(dataDir, 'signing.secret');
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored.length >= 32) return stored;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  } catch {
    // Another instance wrote it first: use theirs.
    return readFileSync(file, 'utf8').trim();
  }
  chmodSync(file, 0o600);
  return secret;
}
