import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { truncatedAddress } from '../../../src/shared/stored-address.ts';
import { setPassword, TEST_PASSWORD } from '../../helpers/accounts.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf, pathOf } from '../../helpers/serving.ts';

/**
 * Every column that holds a visitor's or a user's address, each truncated before it is written
 * (src/http/stored-address.ts). A new column that looks like an address fails the first test until
 * it is truncated and listed here (docs/privacy.md).
 */
const ADDRESS_COLUMNS = ['accepted_clicks.address', 'audit_entries.remote_address', 'clicks.address', 'sessions.remote_address'];

describe('stored addresses are truncated: IPv4 /24, IPv6 /48', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('knows every column that looks like an address', async () => {
    const db = server.server.context.db;
    const columns = await sql<{ name: string }>`
      SELECT table_name || '.' || column_name AS name FROM information_schema.columns
      WHERE table_schema = current_schema()
        AND (data_type IN ('inet', 'cidr') OR column_name ~ '(^|_)(ip|address|addr)(_|$)')
      ORDER BY 1`.execute(db);
    assert.deepEqual(
      columns.rows.map((row) => row.name),
      ADDRESS_COLUMNS,
      'a new address column: truncate it where it is written, then list it here',
    );
  });

  it('a click, a sign-in and an audited change store only the network', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 100_000 }] });
    const answer = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
      headers: { 'User-Agent': DESKTOP_UA },
    });
    const url = answer.json<{ teasers: { url: string }[] }>().teasers[0]?.url ?? '';
    assert.equal((await server.anonymous.get(pathOf(url), { headers: { 'User-Agent': DESKTOP_UA } })).status, 302);
    await engineOf(server).settled();
    const account = await server.createAccount('advertiser');
    await setPassword(db, account.id);
    const username = (await db.selectFrom('accounts').select('username').where('id', '=', account.id).executeTakeFirstOrThrow())
      .username;
    const signIn = await server.anonymous.post(
      '/api/session',
      { login: username, password: TEST_PASSWORD },
      { headers: { Origin: server.url } },
    );
    assert.equal(signIn.status, 200, signIn.text);

    for (const column of ADDRESS_COLUMNS) {
      const [table = '', name = ''] = column.split('.');
      const rows = await sql<{ value: string | null }>`SELECT ${sql.ref(name)}::text AS value FROM ${sql.table(table)}`.execute(
        db,
      );
      for (const { value } of rows.rows) {
        if (value === null || value === '') continue;
        const bare = value.replace(/\/\d+$/, '');
        assert.equal(bare, truncatedAddress(bare), `${column} holds ${value}`);
      }
    }
    const click = await db.selectFrom('clicks').select(sql<string>`address::text`.as('address')).executeTakeFirstOrThrow();
    assert.equal(click.address, '127.0.0.0/32');
    const session = await db
      .selectFrom('sessions')
      .select('remote_address')
      .where('account_id', '=', account.id)
      .executeTakeFirstOrThrow();
    assert.equal(session.remote_address, '127.0.0.0');
    const audit = await db.selectFrom('audit_entries').select('remote_address').where('remote_address', '<>', '').execute();
    assert.ok(audit.length > 0 && audit.every((row) => row.remote_address === '127.0.0.0'));
  });

  it('the server and migration 0640 truncate alike', async () => {
    const db = server.server.context.db;
    const samples = [
      '203.0.113.77',
      '::ffff:198.51.100.9',
      '10.1.2.3',
      '2001:db8:1234:5678::1',
      '2001:db8::1',
      '2001:0:0:1::',
      '::1',
      'fe80::1%eth0',
      '2a00:1450:4001:82b::200e',
      '64:ff9b::192.0.2.33',
    ];
    for (const sample of samples) {
      const inJs = truncatedAddress(sample);
      const bare = sample.split('%')[0] ?? '';
      const inSql = await sql<{ value: string }>`SELECT nativa_truncated_address_text(${bare}) AS value`.execute(db);
      assert.equal(inJs, inSql.rows[0]?.value, sample);
    }
    assert.equal(truncatedAddress('not an address'), null);
    assert.equal(truncatedAddress('203.0.113.77'), '203.0.113.0');
    assert.equal(truncatedAddress('2001:db8:1234:5678::1'), '2001:db8:1234::');
  });
});
