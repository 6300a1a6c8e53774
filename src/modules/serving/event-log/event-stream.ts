import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import type { NatsSettings } from '../../../config.ts';

/** The two kinds of event in the log, each its own subject and durable consumer. */
export const EVENT_KINDS = ['click', 'view'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Events older than this are dropped unsettled: a database away for a week is a disaster of its own. */
const MAX_AGE_MS = 7 * 86_400_000;
/**
 * A batch's message sent twice within this window (a publish the client retried) is stored once:
 * JetStream remembers each message id that long, in memory. A click link used twice is two events,
 * told apart by the settlement (`clicks` has the id; docs/adr/0036).
 */
export const DUPLICATE_WINDOW_MS = 120_000;
/** Events delivered to a consumer and not yet acknowledged, at most (a batch is a few thousand). */
const MAX_ACK_PENDING = 20_000;

const nanos = (ms: number) => ms * 1_000_000;

export function subjectOf(stream: string, kind: EventKind): string {
  return `${stream}.${kind}`;
}

export function durableOf(kind: EventKind): string {
  return `settle-${kind}s`;
}

/**
 * Creates the stream and its two durable pull consumers, or brings existing ones to the configured
 * replicas and acknowledgement wait. File storage, work-queue retention: an event is kept until its
 * consumer acknowledges it (after its settlement committed), then removed.
 */
export async function ensureEventStream(manager: JetStreamManager, settings: NatsSettings): Promise<void> {
  const config = {
    name: settings.stream,
    subjects: EVENT_KINDS.map((kind) => subjectOf(settings.stream, kind)),
    storage: StorageType.File,
    retention: RetentionPolicy.Workqueue,
    num_replicas: settings.replicas,
    max_age: nanos(MAX_AGE_MS),
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
  };
  const existing = await manager.streams.info(settings.stream).catch(notFoundAs(JetStreamApiCodes.StreamNotFound));
  try {
    if (existing === undefined) await manager.streams.add(config);
    else if (existing.config.num_replicas !== settings.replicas) await manager.streams.update(settings.stream, config);
  } catch (error) {
    throw new Error(
      `cannot set up the JetStream stream ${settings.stream} with ${settings.replicas} replicas (NATS_REPLICAS; 1 on a single server): ${(error as Error).message}`,
    );
  }
  for (const kind of EVENT_KINDS) {
    const durable = durableOf(kind);
    const consumer = {
      durable_name: durable,
      filter_subject: subjectOf(settings.stream, kind),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(settings.ackWaitMs),
      max_ack_pending: MAX_ACK_PENDING,
    };
    const info = await manager.consumers.info(settings.stream, durable).catch(notFoundAs(JetStreamApiCodes.ConsumerNotFound));
    if (info === undefined) await manager.consumers.add(settings.stream, consumer);
    else if (info.config.ack_wait !== consumer.ack_wait) {
      await manager.consumers.update(settings.stream, durable, { ack_wait: consumer.ack_wait, max_ack_pending: MAX_ACK_PENDING });
    }
  }
}

/** Turns JetStream's "not found" of the given code into undefined; anything else is rethrown. */
function notFoundAs(code: number): (error: unknown) => undefined {
  return (error) => {
    if (error instanceof JetStreamApiError && error.code === code) return undefined;
    throw error;
  };
}
