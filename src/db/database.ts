import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, type RawBuilder } from 'kysely';
import type pg from 'pg';
import { arrayTextPool } from './array-parameter.ts';
import { type AvailabilityEvents, reportingPool } from './availability.ts';
import { createPgliteQueue } from './pglite-pool.ts';
import { preparingPool } from './prepared.ts';
import type { DatabaseSchema } from './schema.ts';
import { WriteTracker } from './write-tracker.ts';

export type Db = Kysely<DatabaseSchema>;

/** A data-modifying statement that a larger statement runs as the common table expression `name`. */
export interface NamedWrite {
  name: string;
  statement: RawBuilder<unknown>;
}

/** Runs SQL text (several statements allowed when there are no parameters) on one connection. */
export type SessionRunner = (sqlText: string, parameters?: unknown[]) => Promise<Record<string, unknown>[]>;

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Holds one connection for `work`, for scripts such as migrations. */
  withSession<T>(work: (run: SessionRunner) => Promise<T>): Promise<T>;
  /**
   * How many writes to `table` this process has committed so far; caches of rows keep a row only
   * while this number is unchanged (see write-tracker.ts).
   */
  writeGeneration?(table: string): number;
  /** PGlite only: the whole data directory as a tarball, to start other instances from. */
  snapshot?(): Promise<Blob>;
  /**
   * PGlite only: a consistent copy of the whole database (a gzipped data directory tarball), taken
   * between transactions while the server keeps running.
   */
  backup?(): Promise<Blob>;
  /** Connections in use and idle, and borrowers waiting for one (PGlite: its one connection's queue). */
  poolStats?(): PoolStats;
  /**
   * PostgreSQL only: where lost and refused connections, and the first connection after them, are
   * reported (PGlite runs in this process: it has no connection to lose).
   */
  reportAvailability?(events: AvailabilityEvents): void;
  close(): Promise<void>;
}

/**
 * Both drivers return the same JavaScript values: bigint and numeric as numbers (every amount is
 * a safe integer of micro-units, every ratio small), dates as `YYYY-MM-DD` strings, timestamps as Date.
 */
const INT8 = 20;
const NUMERIC = 1700;
const DATE = 1082;
const toNumber = (value: string): number => Number(value);
const asText = (value: string): string => value;

export interface PoolStats {
  inUse: number;
  idle: number;
  waiting: number;
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /** A migrated PGlite data directory dump to start from (tests use it to skip migrations). */
  pgliteSnapshot?: Blob;
  /** Keep the PGlite database in memory only (tests). */
  inMemory?: boolean;
  poolSize?: number;
  /**
   * PostgreSQL only: a statement running longer is cancelled by the server (`statement_timeout`),
   * so a slow or locked database answers 503 instead of holding requests and connections. Sessions
   * of `withSession` (migrations) run without it. Undefined or 0: none.
   */
  statementTimeoutMs?: number;
  /**
   * PostgreSQL only: how long a borrower waits for a connection, a new one or a turn in the
   * pool's queue, before it fails as unavailable (default 2 s).
   */
  connectTimeoutMs?: number;
  /**
   * PostgreSQL only: a session left idle inside a transaction (its client stopped, or stopped
   * answering, between two statements) is ended by the server after this long, so its locks are
   * not held for ever (`idle_in_transaction_session_timeout`). Undefined or 0: none.
   */
  idleInTransactionTimeoutMs?: number;
}

/**
 * PGlite's PostgreSQL sets its shared buffers up in WebAssembly memory at start, so all of
 * `shared_buffers` (128 MB by default) is resident from the first second. 16 MB holds an embedded
 * installation's working set (32 MB cost 20 MB more of idle RSS, against a 200 MB goal for an idle
 * installation: docs/adr/0045); what falls out of it is read again from the kernel's page cache
 * (NODEFS files), not from the disk. Measured idle RSS: docs/performance.md, "Memory". PGlite's own
 * start parameters (fsync off among them: docs/adr/0009) are kept.
 */
const PGLITE_SETTINGS = ['-c', 'shared_buffers=16MB'];

/**
 * Settings of every PostgreSQL session the server opens (docs/adr/0021). Its statements read a few
 * hundred index rows each while many requests share the cores, and the planner, misled by the
 * skew of the summary keys, judged some of them worth two parallel workers (new processes that
 * load the catalog caches again before their first row: tens to hundreds of ms) or worth JIT
 * compilation (a quarter of a second). Neither pays off for this workload. An `options`
 * parameter in DATABASE_URL replaces these.
 */
const SESSION_OPTIONS = '-c max_parallel_workers_per_gather=0 -c jit=off';

/**
 * How long a request waits for a connection (a new one, or a turn in the pool's queue) unless told
 * otherwise (DATABASE_CONNECT_TIMEOUT_MS): a database that is away answers a loopback connect at
 * once (refused), one behind a dead network route or frozen does not, and a request must not wait
 * on it for longer than this.
 */
const CONNECT_TIMEOUT_MS = 2000;

/**
 * The statement timeout is the server's to enforce, and a server that stopped answering (frozen,
 * or behind a partition that keeps its connections open) enforces nothing: the pool stops waiting
 * for an answer this long after the statement timeout, when a working server's cancellation would
 * long have arrived, and drops that connection (docs/operating.md, "A database that stops answering").
 */
const ANSWER_GRACE_MS = 1000;

/**
 * `withSession` (migrations, long maintenance) has no bound of its own: pg takes a per-query
 * `query_timeout` of 0 as "the pool's", so the longest timer Node keeps (about 24.8 days) stands for none.
 */
const NO_ANSWER_LIMIT_MS = 2_147_483_647;

const IGNORE: AvailabilityEvents = { connectionFailed: () => undefined, connectionMade: () => undefined };

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    // Loaded only with DATABASE_URL: the embedded installation does not keep the driver in memory.
    const { Pool, types } = createRequire(import.meta.url)('pg') as typeof pg;
    const statementTimeout = options.statementTimeoutMs ?? 0;
    const idleInTransactionTimeout = options.idleInTransactionTimeoutMs ?? 0;
    const pool = new Pool({
      connectionString: options.databaseUrl,
      options: SESSION_OPTIONS,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      // Startup parameters of their own, so an `options` parameter in DATABASE_URL does not drop them.
      statement_timeout: statementTimeout || undefined,
      idle_in_transaction_session_timeout: idleInTransactionTimeout || undefined,
      query_timeout: statementTimeout > 0 ? statementTimeout + ANSWER_GRACE_MS : undefined,
      types: {
        getTypeParser: ((oid: number, format?: string) => {
          if (oid === INT8 || oid === NUMERIC) return toNumber;
          if (oid === DATE) return asText;
          return types.getTypeParser(oid, format as 'text');
        }) as typeof pg.types.getTypeParser,
      },
    });
    let events = IGNORE;
    // A connection the server drops (a restart, an administrator) must not take the process down.
    // The pool listens only while a connection is idle; one that is checked out, mid-query, emits
    // its 'error' with nobody listening, which Node turns into an exit. So every connection gets a
    // listener of its own for its whole life: the query fails (the route answers 503), the pool
    // discards the connection on release, and the next query opens a new one.
    pool.on('connect', (client) => client.on('error', (error) => events.connectionFailed(error)));
    pool.on('error', () => undefined);
    const available = reportingPool(pool, {
      connectionFailed: (error) => events.connectionFailed(error),
      connectionMade: () => events.connectionMade(),
    });
    const writes = new WriteTracker();
    const db = new Kysely<DatabaseSchema>({
      dialect: new PostgresDialect({ pool: writes.wrapPool(arrayTextPool(preparingPool(available))) }),
    });
    return {
      db,
      kind: 'postgres',
      reportAvailability: (reported) => {
        events = reported;
      },
      writeGeneration: (table) => writes.generation(table),
      poolStats: () => ({ inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      async withSession(work) {
        const client = await pool.connect();
        // Migrations may wait for another instance's migration lock and rewrite large tables: no
        // statement or idle-in-transaction timeout, and no wait limit on this side, while they
        // run; RESET gives the connection its startup values back.
        let broken: Error | undefined;
        const unbounded = (text: string, values?: unknown[]) =>
          client.query({ text, values, query_timeout: NO_ANSWER_LIMIT_MS } as pg.QueryConfig);
        try {
          await unbounded('SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0');
          return await work(async (sqlText, parameters) => {
            const result: unknown = await unbounded(sqlText, parameters);
            const last = (Array.isArray(result) ? result[result.length - 1] : result) as pg.QueryResult | undefined;
            return last?.rows ?? [];
          });
        } finally {
          await unbounded('RESET statement_timeout; RESET idle_in_transaction_session_timeout').catch((error: Error) => {
            broken = error;
          });
          client.release(broken);
          writes.bumpAll();
        }
      },
      close: () => db.destroy(),
    };
  }
  let dataDir: string | undefined;
  if (!options.inMemory) {
    dataDir = `${options.dataDir}/pglite`;
    mkdirSync(dataDir, { recursive: true });
  }
  const pglite = await PGlite.create({
    dataDir,
    loadDataDir: options.pgliteSnapshot,
    startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS],
    parsers: { [INT8]: toNumber, [NUMERIC]: toNumber, [DATE]: asText },
  });
  const queue = createPgliteQueue(pglite);
  const writes = new WriteTracker();
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool: writes.wrapPool(queue) }) });
  return {
    db,
    kind: 'pglite',
    writeGeneration: (table) => writes.generation(table),
    snapshot: () => pglite.dumpDataDir('none'),
    async backup() {
      const turn = await queue.connect();
      try {
        return await pglite.dumpDataDir('gzip');
      } finally {
        turn.release();
      }
    },
    poolStats: () => ({ inUse: queue.held() ? 1 : 0, idle: queue.held() ? 0 : 1, waiting: queue.waiting() }),
    async withSession(work) {
      const turn = await queue.connect();
      try {
        return await work(async (sqlText, parameters) => {
          if (parameters && parameters.length > 0) {
            return (await pglite.query<Record<string, unknown>>(sqlText, parameters)).rows;
          }
          const results = await pglite.exec(sqlText);
          return (results[results.length - 1]?.rows ?? []) as Record<string, unknown>[];
        });
      } finally {
        turn.release();
        writes.bumpAll();
      }
    },
    close: async () => {
      await db.destroy();
      await pglite.close();
    },
  };
}
