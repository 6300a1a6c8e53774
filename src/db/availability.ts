import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { wrapPoolClients } from './pool-wrapper.ts';

/**
 * PostgreSQL going away (a restart, a failover, a managed database's maintenance window) is an
 * event the server lives through, not a bug: the request that needed it answers 503 with
 * `Retry-After` (src/http maps this error), background work retries on its timer, and the next
 * connection after the database's return works again (docs/operating.md has the figures).
 */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`the database is not available: ${describe(cause)}`, { cause });
    this.name = 'DatabaseUnavailableError';
  }
}

/** Connection-level failures from Node's sockets: the server is not there, or went away. */
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOENT',
]);

/**
 * SQLSTATEs that mean the session, not the statement, failed: class 08 (connection exception),
 * 57P01 admin_shutdown (`pg_ctl stop -m fast`), 57P02 crash_shutdown, 57P03 cannot_connect_now
 * (starting up or shutting down), 53300 too_many_connections.
 */
const SESSION_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres's error when a statement got no answer within `query_timeout`. */
const ANSWER_TIMEOUT_MESSAGE = 'Query read timeout';

/**
 * node-postgres reports a connection that ended, and a connect that timed out, with a plain Error
 * and no code, so these few are recognised by their text; this is the only place that does so.
 */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'is not queryable',
  'timeout expired',
  // The pool's own limit on waiting for an answer (database.ts): the server did not answer at all.
  ANSWER_TIMEOUT_MESSAGE,
];

/**
 * SQLSTATEs that mean the server this connection reached cannot take the statement, though
 * another one (the primary, behind the same address once it has moved) can: 25006
 * read_only_sql_transaction (a standby, such as an old primary that came back as one after a
 * failover) and 40001, which on a standby is a recovery conflict (Nativa runs no serializable
 * transaction, so nowhere else does it meet one). Like a lost connection, the request answers 503,
 * and the connection is closed rather than reused, so the next one goes where the address now points.
 */
const WRONG_SERVER_STATES = new Set(['25006', '40001']);

/** Whether `error` says this connection reached a server that cannot take writes (see WRONG_SERVER_STATES). */
export function isWrongServer(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && WRONG_SERVER_STATES.has(code);
}

/** Whether `error` says the database could not be reached or the connection was lost. */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_ERRORS.has(code) || SESSION_STATES.has(code) || code.startsWith('08'))) return true;
  if (error instanceof AggregateError) return error.errors.some(isConnectionFailure);
  return DRIVER_MESSAGES.some((text) => error.message.includes(text));
}

/**
 * Whether `error` is a statement the server cancelled (SQLSTATE 57014, query_canceled): the
 * statement timeout (DATABASE_STATEMENT_TIMEOUT_MS) ran out, since nothing else here cancels
 * statements. The database is too slow or a lock is held: the request answers 503 as when it is away.
 */
export function isStatementTimeout(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === '57014';
}

/** The state of the database as this process last saw it, and the events that moved it. */
export interface AvailabilityEvents {
  /** A connection failed or was lost (counted; logged once per outage by `onDown`). */
  connectionFailed(error: unknown): void;
  /** A connection was made after failures: the database is back. */
  connectionMade(): void;
}

/**
 * Reports the connections of `pool` to `events`, and turns connection failures of `connect` and
 * of queries, and statements a standby refused (`isWrongServer`), into DatabaseUnavailableError,
 * so every caller (routes, workers, a click's redirect) sees one type.
 */
export function reportingPool(pool: PostgresPool, events: AvailabilityEvents): PostgresPool {
  const translate = (error: unknown): unknown => {
    if (!(isConnectionFailure(error) || isWrongServer(error)) || error instanceof DatabaseUnavailableError) return error;
    events.connectionFailed(error);
    return new DatabaseUnavailableError(error);
  };
  const wrapped = wrapPoolClients(pool, (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    // A statement that got no answer is still running, or waiting to, on that connection: the
    // connection is closed on release rather than handed to the next borrower behind it. So is a
    // connection to a standby: the next borrower connects again, to wherever the address points.
    let discard: Error | undefined;
    return {
      get processID() {
        return (client as { processID?: number }).processID;
      },
      query: (...args: unknown[]) =>
        query(...args).catch((error: unknown) => {
          if (error instanceof Error && (error.message === ANSWER_TIMEOUT_MESSAGE || isWrongServer(error))) discard = error;
          throw translate(error);
        }),
      release: (...args: unknown[]) => (client.release as (...rest: unknown[]) => void)(discard ?? args[0]),
    } as unknown as PostgresPoolClient;
  });
  return {
    ...wrapped,
    connect: async () => {
      try {
        const client = await wrapped.connect();
        events.connectionMade();
        return client;
      } catch (error) {
        throw translate(error);
      }
    },
  } as PostgresPool;
}

/** `postgres://user:secret@host:5432/db` without its password, to name it in logs and errors. */
export function redactedUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

/** `host:port` of a database URL (the socket directory for a Unix socket). */
export function databaseHost(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    const socket = url.searchParams.get('host');
    return socket ?? `${url.hostname || 'localhost'}:${url.port || '5432'}`;
  } catch {
    return '(unknown host)';
  }
}

export function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code} ${error.message}` : error.message;
}

export interface StartWait {
  /** Give up (and exit) after this long; 0 fails at the first refusal, Infinity never gives up. */
  maxWaitMs: number;
  log: { warn(message: string): void; info(message: string): void };
  /** Called once, when the first attempt failed and the waiting begins (start-up opens its port then). */
  onWaiting?: () => Promise<void>;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * Start-up with the database away: tries `probe` with backoff (0.25 s doubling to 5 s), logging
 * what it waits for on every attempt, and gives up after `maxWaitMs` (by default never) with an error that names the
 * host and DATABASE_URL (without its password). Errors that are not about reaching the server
 * (a wrong password, a database that does not exist) are not waited for.
 */
export async function waitForDatabase(databaseUrl: string, probe: () => Promise<unknown>, wait: StartWait): Promise<void> {
  const now = wait.now ?? Date.now;
  const sleep = wait.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  const target = `the database at ${databaseHost(databaseUrl)} (DATABASE_URL=${redactedUrl(databaseUrl)})`;
  const started = now();
  let delay = 250;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await probe();
      if (attempt > 1) wait.log.info(`${target} answers after ${((now() - started) / 1000).toFixed(1)} s`);
      return;
    } catch (error) {
      if (!isConnectionFailure(error)) throw new Error(`cannot use ${target}: ${describe(error)}`, { cause: error });
      const waited = now() - started;
      if (waited + delay > wait.maxWaitMs) {
        throw new Error(
          `cannot reach ${target} after ${(waited / 1000).toFixed(1)} s (DATABASE_WAIT_SECONDS): ${describe(error)}`,
          { cause: error },
        );
      }
      wait.log.warn(`waiting for ${target}: ${describe(error)}; next attempt in ${(delay / 1000).toFixed(2)} s`);
      if (attempt === 1) await wait.onWaiting?.();
      await sleep(delay);
      delay = Math.min(delay * 2, 5000);
    }
  }
}
