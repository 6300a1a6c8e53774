import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createPgliteQueue } from './pglite-pool.ts';
import type { DatabaseSchema } from './schema.ts';

export type Db = Kysely<DatabaseSchema>;

/** Runs SQL text (several statements allowed when there are no parameters) on one connection. */
export type SessionRunner = (sqlText: string, parameters?: unknown[]) => Promise<Record<string, unknown>[]>;

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Holds one connection for `work`, for scripts such as migrations. */
  withSession<T>(work: (run: SessionRunner) => Promise<T>): Promise<T>;
  /** PGlite only: the whole data directory as a tarball, to start other instances from. */
  snapshot?(): Promise<Blob>;
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

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /** A migrated PGlite data directory dump to start from (tests use it to skip migrations). */
  pgliteSnapshot?: Blob;
  /** Keep the PGlite database in memory only (tests). */
  inMemory?: boolean;
  poolSize?: number;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      types: {
        getTypeParser: ((oid: number, format?: string) => {
          if (oid === INT8 || oid === NUMERIC) return toNumber;
          if (oid === DATE) return asText;
          return pg.types.getTypeParser(oid, format as 'text');
        }) as typeof pg.types.getTypeParser,
      },
    });
    const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      kind: 'postgres',
      async withSession(work) {
        const client = await pool.connect();
        try {
          return await work(async (sqlText, parameters) => {
            const result = await client.query(sqlText, parameters);
            const last = Array.isArray(result) ? result[result.length - 1] : result;
            return last?.rows ?? [];
          });
        } finally {
          client.release();
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
    parsers: { [INT8]: toNumber, [NUMERIC]: toNumber, [DATE]: asText },
  });
  const queue = createPgliteQueue(pglite);
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool: queue }) });
  return {
    db,
    kind: 'pglite',
    snapshot: () => pglite.dumpDataDir('none'),
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
      }
    },
    close: async () => {
      await db.destroy();
      await pglite.close();
    },
  };
}
