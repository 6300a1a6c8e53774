import { createHmac, type KeyObject } from 'node:crypto';

/**
 * Who a frequency cap counts for. In order: Nativa's own cookie (set by the retargeting pixel,
 * sent where the browser allows third-party cookies); the id the loader keeps in the publisher's
 * localStorage (first-party, so per site); else the address and User-Agent of the day. Whichever
 * it is, the visitor is a keyed hash of it (HMAC with the signing secret; for address and
 * User-Agent, also with the day), so it cannot be reversed, address and browser cannot be linked
 * from one day to the next, and it has a fixed size: 16 bytes, which a capped teaser's impression
 * token carries to the beacon (view-token.ts). It is never written anywhere but the day's
 * counters, which expire in two days.
 */
export interface VisitorSignals {
  cookieId: string | undefined;
  loaderId: string | undefined;
  address: string;
  userAgent: string | undefined;
}

/** What a loader may send as its visitor or page id: 16–64 URL-safe characters. */
export const LOADER_ID_PATTERN = '^[A-Za-z0-9_-]{16,64}$';

/** The visitor's key: 22 base64url characters (16 bytes). */
export function frequencyVisitor(signals: VisitorSignals, secret: string | KeyObject, day: string): string {
  let source: string;
  if (signals.cookieId !== undefined) source = `c\n${signals.cookieId}`;
  else if (signals.loaderId !== undefined) source = `l\n${signals.loaderId}`;
  else source = `h\n${day}\n${signals.address}\n${signals.userAgent ?? ''}`;
  return createHmac('sha256', secret).update(source).digest().subarray(0, 16).toString('base64url');
}
