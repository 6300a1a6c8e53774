import type { AcceptanceVerdict, IncomingClick } from '../billing/acceptance.ts';
import type { ViewClaims } from '../tracking/view-token.ts';
import type { EventPublisher } from './event-publisher.ts';

/** Where a request's event goes when the log does not acknowledge it in time: the database path. */
export interface LogFallback {
  acceptClick(click: IncomingClick): Promise<AcceptanceVerdict>;
  /** Counts the views in the database now; resolves after the commit. */
  countViews(views: ViewClaims[]): Promise<void>;
  onError(error: unknown, what: string): void;
}

/**
 * A click's acceptance through the event log: accepted once its event is stored (the PubAck of
 * the batch holding it; a click followed twice is settled once, the second as a duplicate). When the log cannot take it (no PubAck within the
 * publish timeout: servers lost, a leader being elected) the click is accepted by the database as
 * without a log, so it is durable either way before its redirect; should the event have been
 * stored after all, its settlement finds the click already accepted or settled and bills it once.
 * While the log is known to be away (log-availability.ts) the click goes to the database at once.
 */
export async function acceptThroughLog(
  publisher: EventPublisher,
  click: IncomingClick,
  fallback: LogFallback,
  tally: { logFallbacks: number },
): Promise<AcceptanceVerdict> {
  if (!publisher.available) {
    tally.logFallbacks += 1;
    return fallback.acceptClick(click);
  }
  try {
    await publisher.publishClick(click);
    return click.refusal ?? 'accepted';
  } catch (error) {
    fallback.onError(error, 'logging a click');
    tally.logFallbacks += 1;
    return fallback.acceptClick(click);
  }
}

/**
 * A beacon's views through the event log; resolves once every one is stored (or, when the log
 * cannot take them, counted in the database), so its 204 is sent for views that are durable.
 * Replays are told apart at settlement, which claims each view's id once.
 */
export async function logViews(
  publisher: EventPublisher,
  views: ViewClaims[],
  fallback: LogFallback,
  tally: { logFallbacks: number },
): Promise<void> {
  if (views.length === 0) return;
  if (!publisher.available) {
    tally.logFallbacks += 1;
    await fallback.countViews(views);
    return;
  }
  try {
    await publisher.publishViews(views);
  } catch (error) {
    fallback.onError(error, 'logging views');
    tally.logFallbacks += 1;
    await fallback.countViews(views);
  }
}
