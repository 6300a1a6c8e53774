import type { JetStreamClient } from '@nats-io/jetstream';
import type { IncomingClick } from '../billing/acceptance.ts';
import type { ViewClaims } from '../tracking/view-token.ts';
import { type BatchWindow, DEFAULT_BATCH_WINDOW, EventBatcher, type Schedule } from './event-batcher.ts';
import { type EventKind, subjectOf } from './event-stream.ts';
import type { LogAvailability } from './log-availability.ts';

/**
 * How long a request waits for its batch's PubAck: long enough for a stream leader's election
 * after a server is lost (a few seconds on 2.9), short enough that the visitor is not kept
 * waiting when the log is away (the click then falls back to the database).
 */
export const PUBLISH_TIMEOUT_MS = 3000;

export interface EventPublisherOptions {
  window?: BatchWindow;
  /** Told of every failed publish: the requests that follow then skip the log until it answers. */
  availability?: LogAvailability;
  /** What holds a batch's window open (tests hold it themselves). */
  schedule?: Schedule;
}

/**
 * Appends clicks and views to the JetStream log, the events of concurrent requests gathered into
 * one message per kind (event-batcher.ts, docs/adr/0036). A returned promise resolves only after
 * the PubAck of the message holding the event, i.e. once it is stored on a majority of the
 * stream's replicas. A click or beacon sent twice is two events in the log; the settlement, which
 * writes each event's id once, counts it once.
 */
export class EventPublisher {
  private readonly batchers: Record<EventKind, EventBatcher>;

  constructor(js: JetStreamClient, stream: string, options: EventPublisherOptions = {}) {
    const batcher = (kind: EventKind) => {
      const subject = subjectOf(stream, kind);
      const send = async (body: string, msgID: string) => {
        try {
          await js.publish(subject, body, { msgID, timeout: PUBLISH_TIMEOUT_MS });
        } catch (error) {
          options.availability?.markDown();
          throw error;
        }
      };
      return new EventBatcher(kind, send, options.window ?? DEFAULT_BATCH_WINDOW, options.schedule);
    };
    this.batchers = { click: batcher('click'), view: batcher('view') };
    this.availability = options.availability;
  }

  private readonly availability: LogAvailability | undefined;

  /** False while the log is known to be away: events go to the database path without waiting. */
  get available(): boolean {
    return this.availability?.available ?? true;
  }

  /** Resolves once the click is stored. */
  publishClick(click: IncomingClick): Promise<void> {
    return this.batchers.click.add([JSON.stringify(click)]);
  }

  /** Resolves once every one of a beacon's views is stored (they travel in one batch). */
  publishViews(views: readonly ViewClaims[]): Promise<void> {
    return this.batchers.view.add(views.map((view) => JSON.stringify(view)));
  }

  /** Sends what is gathered now (shutdown: before the connection drains). */
  flush(): void {
    this.batchers.click.flush();
    this.batchers.view.flush();
  }

  /** Messages published and the events in them, per kind, since start. */
  get counts(): Record<EventKind, { batches: number; events: number }> {
    return { click: { ...this.batchers.click.counts }, view: { ...this.batchers.view.counts } };
  }
}
