import type { JetStreamClient } from '@nats-io/jetstream';
import type { IncomingClick } from '../billing/acceptance.ts';
import type { ViewClaims } from '../tracking/view-token.ts';
import { type EventKind, subjectOf } from './event-stream.ts';

/**
 * How long a request waits for its event's PubAck: long enough for a stream leader's election
 * after a server is lost (a few seconds on 2.9), short enough that the visitor is not kept
 * waiting when the log is away (the click then falls back to the database).
 */
export const PUBLISH_TIMEOUT_MS = 3000;

/**
 * Appends clicks and views to the JetStream log. Each event's message id is its token's id (with
 * its kind: a teaser's click and view share one id), so a link or beacon sent twice within the
 * duplicate window is stored once and acknowledged as a duplicate. A returned promise resolves
 * only after the PubAck, i.e. once the event is stored on a majority of the stream's replicas.
 */
export class EventPublisher {
  private readonly js: JetStreamClient;
  private readonly subjects: Record<EventKind, string>;

  constructor(js: JetStreamClient, stream: string) {
    this.js = js;
    this.subjects = { click: subjectOf(stream, 'click'), view: subjectOf(stream, 'view') };
  }

  /** True when the log took the click, false when it already had it (a duplicate). */
  async publishClick(click: IncomingClick): Promise<boolean> {
    const ack = await this.js.publish(this.subjects.click, JSON.stringify(click), {
      msgID: `click:${click.claims.clickId}`,
      timeout: PUBLISH_TIMEOUT_MS,
    });
    return !ack.duplicate;
  }

  /** Logs each view; resolves when every one is stored, with whether each was new. */
  publishViews(views: readonly ViewClaims[]): Promise<boolean[]> {
    return Promise.all(
      views.map(async (view) => {
        const ack = await this.js.publish(this.subjects.view, JSON.stringify(view), {
          msgID: `view:${view.impressionId}`,
          timeout: PUBLISH_TIMEOUT_MS,
        });
        return !ack.duplicate;
      }),
    );
  }
}
