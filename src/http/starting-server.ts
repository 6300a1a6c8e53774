import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { TlsMaterial } from '../tls.ts';
import { errorBody } from './errors.ts';

/** What a client is told to wait, as for any answer while the database is away. */
const RETRY_AFTER_SECONDS = 2;

/** The port held while start-up waits for the database, until the application takes it over. */
export interface StartingServer {
  /** The port it listens on (the configured one, or the one the system chose for port 0). */
  port: number;
  /** Stops listening and drops its connections, so the application can listen on the port. */
  close(): Promise<void>;
}

export interface StartingServerOptions {
  host: string;
  port: number;
  tls: TlsMaterial;
  /** Whether REDIS_URL and NATS_URL are set: readiness reports them `down` (not connected yet), else `none`. */
  redis: boolean;
  nats: boolean;
}

/**
 * Listens on the server's port while start-up waits for the database, so that a supervisor, a
 * balancer and an operator see an instance that is alive and not ready rather than a closed port:
 * liveness answers 200 `{"status":"starting"}`, readiness 503 naming the database, and every other
 * request 503 `database_unavailable` with Retry-After. Nothing here touches the database or any
 * other dependency; the application replaces it once the database answers and is migrated.
 */
export async function listenWhileStarting(options: StartingServerOptions): Promise<StartingServer> {
  const readiness = JSON.stringify({
    status: 'unavailable',
    database: 'down',
    redis: options.redis ? 'down' : 'none',
    nats: options.nats ? 'down' : 'none',
  });
  const unavailable = JSON.stringify(
    errorBody(
      503,
      'The server is starting: the database is not available yet. Please try again shortly.',
      'database_unavailable',
    ),
  );
  const server = https.createServer({ cert: options.tls.cert, key: options.tls.key }, (request, response) =>
    answer(request, response, readiness, unavailable),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : options.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function answer(request: IncomingMessage, response: ServerResponse, readiness: string, unavailable: string): void {
  const path = (request.url ?? '').split('?')[0];
  response.setHeader('Cache-Control', 'no-store');
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (path === '/api/health') {
    response.writeHead(200).end('{"status":"starting"}');
  } else if (path === '/api/health/ready') {
    response.writeHead(503).end(readiness);
  } else {
    response.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    response.writeHead(503).end(unavailable);
  }
}
