import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { NatsSettings } from '../../../config.ts';
import { connectNats, type NatsEvents } from '../../../nats/connection.ts';
import type { IncomingClick } from '../billing/acceptance.ts';
import type { ViewClaims } from '../tracking/view-token.ts';
import { decodeEvents } from './event-batcher.ts';
import { EventConsumer } from './event-consumer.ts';
import { EventPublisher } from './event-publisher.ts';
import { ensureEventStream } from './event-stream.ts';
import { LOG_PROBE_INTERVAL_MS, LogAvailability } from './log-availability.ts';

/** What the log's consumers hand their batches to (the serving engine, which tallies them). */
export interface EventSettlement {
  settleClicks(clicks: IncomingClick[]): Promise<void>;
  settleViews(views: ViewClaims[]): Promise<void>;
}

/**
 * The event log in front of the database (docs/adr/0029): the connection to NATS, the stream, the
 * publisher the click and beacon requests append to, and this instance's consumers, which settle
 * what any instance appended.
 */
export class EventLog {
  readonly publisher: EventPublisher;
  private consumers: EventConsumer<unknown>[] = [];
  private readonly connection: NatsConnection;
  private readonly settings: NatsSettings;
  private readonly availability: LogAvailability;

  private constructor(connection: NatsConnection, settings: NatsSettings, availability: LogAvailability) {
    this.connection = connection;
    this.settings = settings;
    this.availability = availability;
    this.publisher = new EventPublisher(jetstream(connection), settings.stream, { availability });
  }

  /**
   * Connects, and creates (or brings up to date) the stream and its consumers. A lost connection
   * or a failed publish makes the log unavailable until a probe (the stream's info, which needs a
   * leader) answers; `events` hears of both, once each.
   */
  static async open(settings: NatsSettings, events: NatsEvents): Promise<EventLog> {
    let connection: NatsConnection | undefined;
    const availability = new LogAvailability({
      probe: async () => {
        if (connection === undefined) throw new Error('not connected');
        await (await jetstreamManager(connection, { timeout: LOG_PROBE_INTERVAL_MS, checkAPI: false })).streams.info(
          settings.stream,
        );
      },
      onChange: (available, downForMs) =>
        available
          ? events.onStatus('log available', `again after ${(downForMs / 1000).toFixed(1)} s: clicks and views go to the log`)
          : events.onStatus('log unavailable', 'clicks and views go to the database until it answers'),
      now: Date.now,
    });
    connection = await connectNats(settings.servers, {
      onStatus: (kind, detail) => {
        if (kind === 'disconnect') availability.markDown();
        if (kind === 'reconnect') void availability.probeNow();
        events.onStatus(kind, detail);
      },
    });
    // A cluster that lost a server may take a few seconds to elect the stream's leader: the
    // stream's check is asked again (three times in all) before the start gives up.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await ensureEventStream(await jetstreamManager(connection), settings);
        break;
      } catch (error) {
        if (attempt < 3 && /timeout/i.test((error as Error).message)) continue;
        await connection.close();
        throw error;
      }
    }
    return new EventLog(connection, settings, availability);
  }

  /** Starts settling both kinds of event. */
  async startConsumers(
    settlement: EventSettlement,
    options: { onError(error: unknown): void; afterCommit?(): void },
  ): Promise<void> {
    const js = jetstream(this.connection);
    const common = { js, stream: this.settings.stream, onError: options.onError, afterCommit: options.afterCommit };
    const clicks = new EventConsumer<IncomingClick>({
      ...common,
      kind: 'click',
      decode: (data) => decodeEvents<IncomingClick>(data, isClickEvent),
      settle: (events) => settlement.settleClicks(events),
    });
    const views = new EventConsumer<ViewClaims>({
      ...common,
      kind: 'view',
      decode: (data) => decodeEvents<ViewClaims>(data, isViewEvent),
      settle: (events) => settlement.settleViews(events),
    });
    await clicks.start();
    await views.start();
    this.consumers = [clicks, views] as EventConsumer<unknown>[];
  }

  /** Settlements committed and the events in them, per kind, since start. */
  get counts(): { settlements: number; events: number }[] {
    return this.consumers.map((consumer) => ({ ...consumer.counts }));
  }

  /** Resolves when the NATS server answers a round trip (readiness). */
  async ping(): Promise<void> {
    await this.connection.flush();
  }

  /**
   * Sends the batches being gathered, settles what was delivered, then drains the connection
   * (publishes in flight get their PubAcks).
   */
  async close(): Promise<void> {
    this.availability.close();
    this.publisher.flush();
    await Promise.all(this.consumers.map((consumer) => consumer.close()));
    await this.connection.drain().catch(() => undefined);
  }
}

/** A click event: its claims name the click. */
export function isClickEvent(event: Record<string, unknown>): boolean {
  const claims = event.claims as { clickId?: unknown } | undefined;
  return typeof claims === 'object' && claims !== null && typeof claims.clickId === 'string';
}

/** A view event: the claims of an impression token. */
export function isViewEvent(event: Record<string, unknown>): boolean {
  return typeof event.impressionId === 'string';
}
