import type { NatsConnection } from '@nats-io/transport-node';
import { connect } from '@nats-io/transport-node';

/** What the connection reports: lost and regained servers, never an exception on its own. */
export interface NatsEvents {
  /** A status change worth a log line (disconnected, reconnected, an error the client saw). */
  onStatus(kind: string, detail: string): void;
}

/**
 * Connects to NATS (NATS_URL) for the event log. The client keeps reconnecting for ever, to any of
 * the servers, and buffers what is published meanwhile; a publish that gets no PubAck in time fails
 * on its own, so a lost server is a logged status, never an exit. At start the first connection is
 * awaited: a server that cannot be reached is an error naming NATS_URL.
 */
export async function connectNats(servers: readonly string[], events: NatsEvents): Promise<NatsConnection> {
  let connection: NatsConnection;
  try {
    connection = await connect({
      servers: [...servers],
      name: `nativa-${process.pid}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      reconnectJitter: 100,
      pingInterval: 5000,
      maxPingOut: 2,
      timeout: 5000,
    });
  } catch (error) {
    throw new Error(`cannot connect to NATS at ${servers.join(', ')} (NATS_URL): ${(error as Error).message}`);
  }
  watchStatus(connection, events);
  return connection;
}

function watchStatus(connection: NatsConnection, events: NatsEvents): void {
  (async () => {
    for await (const status of connection.status()) {
      if (status.type === 'ping' || status.type === 'reconnecting') continue;
      const detail = 'server' in status ? String(status.server) : 'error' in status ? String(status.error) : '';
      events.onStatus(status.type, detail);
    }
  })().catch((error: unknown) => events.onStatus('error', (error as Error).message));
}
