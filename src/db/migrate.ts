import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectFile } from '../project-files.ts';
import type { Database } from './database.ts';

const MIGRATIONS_DIR = projectFile('src', 'db', 'migrations');

/** Serializes migrations of several instances starting at once against one PostgreSQL. */
const MIGRATION_LOCK_KEY = 73_210_551;

export interface Migration {
  version: string;
  sql: string;
  /** SHA-256 of the file's SQL, hex: what `schema_migrations` remembers of an applied migration. */
  checksum: string;
}

/**
 * A migration applied to this database no longer has its file as it was applied: edited, or gone
 * (docs/adr/0008). The database may not be what the files describe, so nothing starts until a
 * person decides.
 */
export class ChangedMigrationError extends Error {
  /** Files whose SQL differs from what was applied. */
  readonly changed: string[];
  /** Applied migrations without a file. */
  readonly missing: string[];

  constructor(changed: string[], missing: string[]) {
    const found = [
      changed.length > 0 ? `changed: ${changed.join(', ')}` : '',
      missing.length > 0 ? `missing: ${missing.join(', ')}` : '',
    ]
      .filter((part) => part !== '')
      .join('; ');
    super(
      `refusing to migrate: migrations applied to this database differ from their files (${found}). ` +
        'An applied migration is history: restore each file as it was applied (git log -p -- src/db/migrations/FILE) ' +
        'and make the change in a new migration file (docs/adr/0008-migrations-are-history.md).',
    );
    this.name = 'ChangedMigrationError';
    this.changed = changed;
    this.missing = missing;
  }
}

/** Migrations are plain SQL files named `NNNN-title.sql`, applied in name order, each once. */
export function listMigrations(directory = MIGRATIONS_DIR): Migration[] {
  return readdirSync(directory)
    .filter((name) => /^\d{4}-[a-z0-9-]+\.sql$/.test(name))
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(directory, name), 'utf8');
      return { version: name.replace(/\.sql$/, ''), sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies every pending migration, each in its own transaction; returns the versions applied.
 * Before applying anything it compares each applied migration's file with the checksum recorded
 * when it was applied, and throws ChangedMigrationError, applying nothing, when one changed.
 * `directory` is for tests; the application always migrates from src/db/migrations.
 */
export async function migrate(
  database: Database,
  { directory = MIGRATIONS_DIR }: { directory?: string } = {},
): Promise<string[]> {
  const migrations = listMigrations(directory);
  return database.withSession(async (run) => {
    await run('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await run(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      // The bookkeeping table belongs to this file, not to a numbered migration: checksums are
      // checked before any migration runs, so the column must exist first.
      await run('ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text');
      const rows = await run('SELECT version, checksum FROM schema_migrations');
      const applied = new Map(rows.map((row) => [String(row.version), row.checksum === null ? null : String(row.checksum)]));
      const changed: string[] = [];
      for (const migration of migrations) {
        if (!applied.has(migration.version)) continue;
        const recorded = applied.get(migration.version);
        if (recorded === null) {
          // Applied before migrate recorded checksums: nothing says what was applied, so the
          // file as it is now is taken as what was (once; from then on it is checked).
          await run('UPDATE schema_migrations SET checksum = $1 WHERE version = $2 AND checksum IS NULL', [
            migration.checksum,
            migration.version,
          ]);
        } else if (recorded !== migration.checksum) {
          changed.push(`${migration.version}.sql`);
        }
      }
      // A file renamed or replaced under another name leaves its applied version without a file
      // (0330 was replaced so): as much a change of history as an edit.
      const present = new Set(migrations.map((migration) => migration.version));
      const missing = [...applied.keys()].filter((version) => !present.has(version)).map((version) => `${version}.sql`);
      if (changed.length > 0 || missing.length > 0) throw new ChangedMigrationError(changed, missing.sort());
      const done: string[] = [];
      for (const migration of migrations) {
        if (applied.has(migration.version)) continue;
        try {
          await run(
            `BEGIN;\n${migration.sql}\n;INSERT INTO schema_migrations (version, checksum) VALUES ('${migration.version}', '${migration.checksum}');\nCOMMIT;`,
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
