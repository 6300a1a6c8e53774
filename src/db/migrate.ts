import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Database } from './database.ts';

const MIGRATIONS_DIR = path.join(import.meta.dirname, 'migrations');

/** Serializes migrations of several instances starting at once against one PostgreSQL. */
const MIGRATION_LOCK_KEY = 73_210_551;

export interface Migration {
  version: string;
  sql: string;
}

/** Migrations are plain SQL files named `NNNN-title.sql`, applied in name order, each once. */
export function listMigrations(): Migration[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((name) => /^\d{4}-[a-z0-9-]+\.sql$/.test(name))
    .sort()
    .map((name) => ({ version: name.replace(/\.sql$/, ''), sql: readFileSync(path.join(MIGRATIONS_DIR, name), 'utf8') }));
}

/** Applies every pending migration, each in its own transaction; returns the versions applied. */
export async function migrate(database: Database): Promise<string[]> {
  const migrations = listMigrations();
  return database.withSession(async (run) => {
    await run('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await run(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const applied = new Set((await run('SELECT version FROM schema_migrations')).map((row) => String(row.version)));
      const done: string[] = [];
      for (const migration of migrations) {
        if (applied.has(migration.version)) continue;
        try {
          await run(
            `BEGIN;\n${migration.sql}\n;INSERT INTO schema_migrations (version) VALUES ('${migration.version}');\nCOMMIT;`,
          );
        } catch (error) {
          await run('ROLLBACK').catch(() => undefined);
          throw new Error(`migration ${migration.version} failed: ${(error as Error).message}`);
        }
        done.push(migration.version);
      }
      return done;
    } finally {
      await run('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  });
}
