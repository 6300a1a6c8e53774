// Batch statements pass whole columns as one array parameter each; on PostgreSQL the pool sends
// them in the array's text form (src/db/array-parameter.ts). Every value must come back from the
// database as it went in: strings with the characters the text form gives a meaning (quotes,
// backslashes, commas, braces, spaces), the empty string and the word NULL as strings, NULL as
// NULL, and numbers of every column type the batch statements use. On PGlite, or the PostgreSQL
// of TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { arrayParameter } from '../../src/db/array-parameter.ts';
import type { Database } from '../../src/db/database.ts';
import { openTestDatabase } from '../helpers/database.ts';

describe('array parameters in text form', () => {
  let database: Database;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.close());

  const roundTrip = async <T>(values: readonly (string | number | null)[], type: string): Promise<T[]> => {
    const { rows } = await sql<{ value: T[] }>`SELECT ${arrayParameter(values)}::${sql.raw(type)} AS value`.execute(database.db);
    return rows[0]?.value ?? [];
  };

  it('gives strings back unchanged, whatever they hold', async () => {
    const strings = [
      'plain',
      '',
      'NULL',
      'null',
      'with "quotes"',
      'back\\slash',
      'ends with a backslash\\',
      '\\"',
      'a,b',
      '{braces}',
      ' spaces around ',
      "it's",
      'ünïcödé ✓',
      'line\nbreak\ttab',
    ];
    assert.deepEqual(await roundTrip<string>(strings, 'text[]'), strings);
  });

  it('writes null and undefined as NULL, in any column', async () => {
    assert.deepEqual(await roundTrip<string | null>(['a', null, 'b'], 'text[]'), ['a', null, 'b']);
    const { rows } = await sql<{
      value: (number | null)[];
    }>`SELECT ${arrayParameter([1, undefined, 3])}::integer[] AS value`.execute(database.db);
    assert.deepEqual(rows[0]?.value, [1, null, 3]);
  });

  it('gives numbers back as the columns of the batch statements read them', async () => {
    assert.deepEqual(await roundTrip<number>([0, -7, 2_147_483_647], 'integer[]'), [0, -7, 2_147_483_647]);
    assert.deepEqual(await roundTrip<number>([1, -32_768], 'smallint[]'), [1, -32_768]);
    const micros = await roundTrip<number | string>([9_007_199_254_740_991, -250_000, 0], 'bigint[]');
    assert.deepEqual(micros.map(Number), [9_007_199_254_740_991, -250_000, 0]);
  });

  it('carries timestamps, dates and addresses as their text', async () => {
    const { rows } = await sql<{ at: string; day: string; address: string }>`
      SELECT (${arrayParameter(['2026-11-29T15:16:38.731Z'])}::timestamptz[])[1] = '2026-11-29T15:16:38.731Z'::timestamptz AS at,
        (${arrayParameter(['2026-11-29'])}::date[])[1]::text AS day,
        host((${arrayParameter(['203.0.113.9', '2001:db8::1'])}::inet[])[2]) AS address`.execute(database.db);
    assert.deepEqual(rows[0], { at: true, day: '2026-11-29', address: '2001:db8::1' });
  });

  it('gives a JavaScript array parameter back unchanged (the pool writes it as text on PostgreSQL)', async () => {
    const strings = ['a', '', 'NULL', 'with "quotes"', 'back\\slash', 'a,b', '{braces}', null];
    const { rows } = await sql<{ strings: (string | null)[]; numbers: (number | null)[] }>`
      SELECT ${strings}::text[] AS strings, ${[3, -1, null, 2_147_483_647]}::integer[] AS numbers`.execute(database.db);
    assert.deepEqual(rows[0], { strings, numbers: [3, -1, null, 2_147_483_647] });
  });

  it('passes an empty column', async () => {
    assert.deepEqual(await roundTrip<string>([], 'text[]'), []);
  });
});
