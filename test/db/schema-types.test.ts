import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { SCHEMA_PATH, schemaTypes } from '../../scripts/db-types.ts';
import { openTestDatabase } from '../helpers/database.ts';

describe('the generated table types (src/db/schema.ts)', () => {
  it('are what the migrations make (run `npm run db:generate-types`)', async () => {
    const database = await openTestDatabase();
    try {
      const expected = await schemaTypes(database);
      const committed = readFileSync(SCHEMA_PATH, 'utf8');
      assert.ok(committed === expected, 'src/db/schema.ts is stale: run `npm run db:generate-types` and commit it');
    } finally {
      await database.close();
    }
  });

  it('follow a change of the schema: a column, and a CHECK constraint as its union of values', async () => {
    const database = await openTestDatabase();
    try {
      await sql`ALTER TABLE accounts ADD COLUMN tier text NOT NULL DEFAULT 'basic' CHECK (tier IN ('basic', 'o''brien'))`.execute(
        database.db,
      );
      const types = await schemaTypes(database);
      assert.match(types, /^ {2}tier: Generated<"basic" \| "o'brien">;$/m);
      assert.notEqual(types, readFileSync(SCHEMA_PATH, 'utf8'));
    } finally {
      await database.close();
    }
  });
});
