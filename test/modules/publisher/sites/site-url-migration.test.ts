import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../../../src/db/database.ts';
import { openTestDatabase } from '../../../helpers/database.ts';
import { insertAccount } from '../../../helpers/fixtures.ts';

const MIGRATION = readFileSync(path.join(import.meta.dirname, '../../../../src/db/migrations/0350-site-url-unique.sql'), 'utf8');

/**
 * Migration 0350 on a database that already holds duplicate addresses (registered by two racing
 * requests before the index existed): it applies, keeps every row, and the index holds from then on.
 */
describe('migration 0350: unique site addresses per publisher', () => {
  let database: Database;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.close());

  it('keeps existing duplicates, marks all but the oldest, and refuses new ones', async () => {
    const { db } = database;
    // Back to the state before 0350, with duplicates in it.
    await database.withSession((run) => run('DROP INDEX sites_publisher_url_key; ALTER TABLE sites DROP COLUMN duplicate_of;'));
    const publisher = await insertAccount(db, { kind: 'publisher', username: 'dup-publisher' });
    const other = await insertAccount(db, { kind: 'publisher', username: 'dup-other' });
    const insert = async (publisherId: number, url: string) =>
      (
        await database.withSession((run) =>
          run('INSERT INTO sites (publisher_id, url, category_id) VALUES ($1, $2, 1) RETURNING id', [publisherId, url]),
        )
      )[0]?.id as number;
    const first = await insert(publisher.id, 'https://twice.example.com');
    const second = await insert(publisher.id, 'https://twice.example.com');
    const third = await insert(publisher.id, 'https://twice.example.com');
    const single = await insert(publisher.id, 'https://once.example.com');
    const otherSame = await insert(other.id, 'https://twice.example.com');

    await database.withSession((run) => run(`BEGIN;\n${MIGRATION}\n;COMMIT;`));

    const rows = await db
      .selectFrom('sites')
      .select(['id', 'duplicate_of'])
      .where('id', 'in', [first, second, third, single, otherSame])
      .orderBy('id')
      .execute();
    assert.deepEqual(rows, [
      { id: first, duplicate_of: null },
      { id: second, duplicate_of: first },
      { id: third, duplicate_of: first },
      { id: single, duplicate_of: null },
      { id: otherSame, duplicate_of: null },
    ]);
    for (const url of ['https://twice.example.com', 'https://once.example.com']) {
      await assert.rejects(
        db.insertInto('sites').values({ publisher_id: publisher.id, url, category_id: 1 }).execute(),
        (error: { code?: string }) => error.code === '23505',
        url,
      );
    }
  });
});
