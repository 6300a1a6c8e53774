import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a signed ticket is for; a ticket made for one purpose never passes for another. */
export type TicketPurpose = 'second-factor' | 'passkey-sign-in' | 'passkey-registration';

export interface Ticket {
  purpose: TicketPurpose;
  /** The account it was made for; 0 when it names none (a passkey sign-in starts without one). */
  accountId: number;
  expiresAtMs: number;
}

/**
 * The keys that keep account secrets, each derived (HKDF-SHA-256) from the signing secret that
 * already signs click links (SIGNING_SECRET, or DATA_DIR/signing.secret): one seals TOTP secrets
 * (AES-256-GCM), one keys the hashes of recovery codes, one signs sign-in tickets and WebAuthn
 * challenges. A database dump or backup without the signing secret yields none of them.
 */
export class AccountKeys {
  private readonly sealKey: Buffer;
  private readonly codeKey: Buffer;
  private readonly ticketKey: Buffer;

  constructor(signingSecret: string) {
    const derive = (info: string) => Buffer.from(hkdfSync('sha256', signingSecret, 'nativa-accounts', info, 32));
    this.sealKey = derive('totp-seal');
    this.codeKey = derive('recovery-code');
    this.ticketKey = derive('ticket');
  }

  /** `iv ‖ tag ‖ ciphertext`; the account id is bound in, so a sealed secret cannot be moved to another account. */
  seal(plain: string, accountId: number): Buffer {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    cipher.setAAD(Buffer.from(String(accountId)));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  /** The sealed text, or undefined when it does not open (another signing secret, another account). */
  open(sealed: Buffer, accountId: number): string | undefined {
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, sealed.subarray(0, 12));
      decipher.setAAD(Buffer.from(String(accountId)));
      decipher.setAuthTag(sealed.subarray(12, 28));
      return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }

  /** The stored form of a recovery code: a keyed hash of its letters, whatever the case or dashes typed. */
  hashRecoveryCode(code: string): Buffer {
    return createHmac('sha256', this.codeKey).update(normalizeRecoveryCode(code)).digest();
  }

  /** A ticket as text: `payload.mac`, base64url; it carries what it is for and when it ends. */
  signTicket(ticket: Ticket): string {
    const payload = Buffer.from(
      JSON.stringify({ p: ticket.purpose, a: ticket.accountId, e: ticket.expiresAtMs, n: randomBytes(12).toString('base64url') }),
    ).toString('base64url');
    return `${payload}.${this.mac(payload)}`;
  }

  /** The ticket a text carries when its MAC holds, it is for `purpose` and it has not expired at `nowMs`. */
  readTicket(text: string, purpose: TicketPurpose, nowMs: number): Ticket | undefined {
    if (text.length > 400) return undefined;
    const [payload, mac, extra] = text.split('.');
    if (payload === undefined || mac === undefined || extra !== undefined) return undefined;
    const expected = Buffer.from(this.mac(payload));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let claims: { p?: unknown; a?: unknown; e?: unknown };
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (claims.p !== purpose || typeof claims.a !== 'number' || typeof claims.e !== 'number' || claims.e <= nowMs) {
      return undefined;
    }
    return { purpose, accountId: claims.a, expiresAtMs: claims.e };
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.ticketKey).update(payload).digest('base64url');
  }
}

/** Recovery codes are read without case, spaces or dashes: `ABCDE-12345` and `abcde12345` are one code. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}
