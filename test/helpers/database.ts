import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Database, openDatabase } from '../../src/db/database.ts';
import { listMigrations, migrate } from '../../src/db/migrate.ts';
import { waitFor } from './wait.ts';

/**
 * A fresh, migrated database for one test file. With TEST_DATABASE_URL it is a new database on
 * that PostgreSQL server (dropped on close); otherwise an in-memory PGlite started from a migrated
 * snapshot that is built once per set of migrations and reused (a fresh PGlite costs seconds).
 */
export async function openTestDatabase(
  options: { statementTimeoutMs?: number; idleInTransactionTimeoutMs?: number } = {},
): Promise<Database> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) return openPostgresTestDatabase(serverUrl, options);
  const database = await openDatabase({
    databaseUrl: undefined,
    dataDir: '',
    inMemory: true,
    pgliteSnapshot: await pgliteSnapshot(),
  });
  await migrate(database);
  return database;
}

async function openPostgresTestDatabase(
  serverUrl: string,
  bounds: { statementTimeoutMs?: number; idleInTransactionTimeoutMs?: number },
): Promise<Database> {
  const name = `nativa_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), dataDir: '', ...bounds });
  await migrate(database);
  return {
    ...database,
    async close() {
      await database.close();
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      // pg's Pool.end() resolves before its connections have closed; dropping WITH (FORCE) while
      // one is still closing makes the server terminate it, and that error surfaces as an
      // uncaught exception in the test file. Let the pool's connections go first (bounded).
      await waitFor(
        "the pool's connections to close",
        async () => {
          const { rows } = await cleanup.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
          return rows[0]?.n === 0;
        },
        { timeoutMs: 2000, intervalMs: 20 },
      ).catch(() => undefined);
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

/**
 * Makes `dataDir` hold the migrated snapshot as its PGlite database, as `nativa serve` keeps it
 * (DATA_DIR/pglite): a server started there skips initdb and the migrations, seconds of CPU, for
 * tests of something other than a first start.
 */
export async function migratedDataDir(dataDir: string): Promise<void> {
  const database = await openDatabase({ databaseUrl: undefined, dataDir, pgliteSnapshot: await pgliteSnapshot() });
  await database.close();
}

export async function pgliteSnapshot(): Promise<Blob> {
  const fingerprint = createHash('sha256');
  for (const migration of listMigrations()) fingerprint.update(migration.version).update(migration.sql);
  const file = path.join(os.tmpdir(), `nativa-pglite-${fingerprint.digest('hex').slice(0, 16)}.tar`);
  if (!existsSync(file)) {
    const database = await openDatabase({ databaseUrl: undefined, dataDir: '', inMemory: true });
    await migrate(database);
    const dump = await database.snapshot?.();
    await database.close();
    if (dump === undefined) throw new Error('PGlite database without snapshot support');
    // Written under a temporary name first: test files running in parallel may race to build it.
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, file);
  }
  return new Blob([readFileSync(file)]);
}
