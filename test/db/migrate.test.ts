import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { ChangedMigrationError, listMigrations, migrate } from '../../src/db/migrate.ts';
import { openTestDatabase } from '../helpers/database.ts';

const MIGRATIONS = path.join(import.meta.dirname, '..', '..', 'src', 'db', 'migrations');

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('migrate: applied migrations are history', () => {
  let database: Database;
  let directory: string;

  async function recorded(): Promise<Map<string, string | null>> {
    const { rows } = await sql<{
      version: string;
      checksum: string | null;
    }>`SELECT version, checksum FROM schema_migrations`.execute(database.db);
    return new Map(rows.map((row) => [row.version, row.checksum]));
  }

  async function tableExists(name: string): Promise<boolean> {
    const { rows } = await sql<{ found: string | null }>`SELECT to_regclass(${name})::text AS found`.execute(database.db);
    return rows[0]?.found != null;
  }

  before(async () => {
    // A copy of the real migrations that the tests may add to and edit.
    directory = mkdtempSync(path.join(os.tmpdir(), 'nativa-migrations-'));
    cpSync(MIGRATIONS, directory, { recursive: true });
    database = await openTestDatabase();
  });
  after(async () => {
    await database.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('records the SHA-256 of every migration it applies, and of those applied before checksums existed', async () => {
    const real = listMigrations();
    const checksums = await recorded();
    for (const migration of real) assert.equal(checksums.get(migration.version), sha256(migration.sql), migration.version);

    // A database migrated before checksums were recorded has none: the first run records the files' own.
    await sql`UPDATE schema_migrations SET checksum = NULL`.execute(database.db);
    assert.deepEqual(await migrate(database, { directory }), []);
    const backfilled = await recorded();
    for (const migration of real) assert.equal(backfilled.get(migration.version), sha256(migration.sql), migration.version);

    const added = 'CREATE TABLE migrate_test_a (id int PRIMARY KEY);\n';
    writeFileSync(path.join(directory, '9001-migrate-test-a.sql'), added);
    assert.deepEqual(await migrate(database, { directory }), ['9001-migrate-test-a']);
    assert.equal((await recorded()).get('9001-migrate-test-a'), sha256(added));
    assert.deepEqual(await migrate(database, { directory }), [], 'each migration is applied once');
  });

  it('refuses, applying nothing, when an applied migration changed or is gone, naming each file and what to do', async () => {
    // 0330 was edited on main after it had been applied: the case this check exists for.
    appendFileSync(path.join(directory, '0330-change-counters.sql'), '\n-- edited after it landed\n');
    appendFileSync(path.join(directory, '9001-migrate-test-a.sql'), 'CREATE INDEX ON migrate_test_a (id);\n');
    writeFileSync(path.join(directory, '9002-migrate-test-b.sql'), 'CREATE TABLE migrate_test_b (id int);\n');

    const refusal = await migrate(database, { directory }).then(
      () => assert.fail('migrate applied migrations over changed ones'),
      (error: unknown) => error,
    );
    assert.ok(refusal instanceof ChangedMigrationError, String(refusal));
    assert.deepEqual(refusal.changed, ['0330-change-counters.sql', '9001-migrate-test-a.sql']);
    assert.deepEqual(refusal.missing, []);
    assert.match(
      refusal.message,
      /^refusing to migrate: migrations applied to this database differ from their files \(changed: 0330-change-counters\.sql, 9001-migrate-test-a\.sql\)\. /,
    );
    assert.match(refusal.message, /restore each file as it was applied .* and make the change in a new migration file/);
    assert.match(refusal.message, /docs\/adr\/0008-migrations-are-history\.md/);
    assert.equal(await tableExists('migrate_test_b'), false, 'the pending migration was not applied');
    assert.equal((await recorded()).has('9002-migrate-test-b'), false);

    // Replaced under another name, as 0330 was: the applied version has no file.
    cpSync(path.join(MIGRATIONS, '0330-change-counters.sql'), path.join(directory, '0330-change-counters.sql'));
    renameSync(path.join(directory, '9001-migrate-test-a.sql'), path.join(directory, '9001-migrate-test-a-renamed.sql'));
    const replaced = await migrate(database, { directory }).then(
      () => assert.fail('migrate applied migrations over a missing one'),
      (error: unknown) => error,
    );
    assert.ok(replaced instanceof ChangedMigrationError, String(replaced));
    assert.deepEqual(replaced.changed, []);
    assert.deepEqual(replaced.missing, ['9001-migrate-test-a.sql']);
    assert.match(replaced.message, /\(missing: 9001-migrate-test-a\.sql\)/);
    assert.equal(await tableExists('migrate_test_b'), false, 'the pending migration was not applied');
    rmSync(path.join(directory, '9001-migrate-test-a-renamed.sql'));

    // Restored as they were applied, the pending one applies.
    cpSync(path.join(MIGRATIONS, '0330-change-counters.sql'), path.join(directory, '0330-change-counters.sql'));
    writeFileSync(path.join(directory, '9001-migrate-test-a.sql'), 'CREATE TABLE migrate_test_a (id int PRIMARY KEY);\n');
    assert.deepEqual(await migrate(database, { directory }), ['9002-migrate-test-b']);
    assert.equal(await tableExists('migrate_test_b'), true);
  });
});
