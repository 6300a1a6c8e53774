import { createHmac } from 'node:crypto';

/**
 * Who a frequency cap counts for. In order: Nativa's own cookie (set by the retargeting pixel,
 * sent where the browser allows third-party cookies); the id the loader keeps in the publisher's
 * localStorage (first-party, so per site); else a keyed hash of address and User-Agent. The hash
 * is keyed with the signing secret and the day, so it cannot be reversed, nor linked from one day
 * to the next; it is never written anywhere but the day's counters, which expire in two days.
 */
export interface VisitorSignals {
  cookieId: string | undefined;
  loaderId: string | undefined;
  address: string;
  userAgent: string | undefined;
}

/** What a loader may send as its visitor or page id: 16–64 URL-safe characters. */
export const LOADER_ID_PATTERN = '^[A-Za-z0-9_-]{16,64}$';

export function frequencyVisitor(signals: VisitorSignals, secret: string, day: string): string {
  if (signals.cookieId !== undefined) return `c:${signals.cookieId}`;
  if (signals.loaderId !== undefined) return `l:${signals.loaderId}`;
  const hash = createHmac('sha256', secret)
    .update(`${day}\n${signals.address}\n${signals.userAgent ?? ''}`)
    .digest('base64url')
    .slice(0, 22);
  return `h:${hash}`;
}
