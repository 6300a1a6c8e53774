import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { assertError, FORMATS } from '../helpers/assertions.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('authentication', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('an account holds several tokens; each works; revoking one leaves the others', async () => {
    const account = await server.createAccount('publisher');
    const issued = [];
    for (const name of ['a', 'b']) {
      const response = await server.operator.post(`/api/admin/users/${account.id}/tokens`, { name });
      assert.equal(response.status, 201);
      assert.match(response.json().token, /^nv_[A-Za-z0-9_-]{43}$/);
      assert.ok(response.header('location')?.endsWith(`/api/admin/tokens/${response.json().id}`));
      issued.push(response.json() as { id: number; token: string });
    }
    assert.equal(new Set([account.token, ...issued.map((token) => token.token)]).size, 3);
    for (const token of [account.token, ...issued.map((entry) => entry.token)]) {
      const me = await server.anonymous.get('/api/me', { token });
      assert.equal(me.status, 200);
      assert.equal(me.json().id, account.id);
      assert.equal(me.json().type, 'publisher');
    }
    const [first, second] = issued;
    assert.ok(first && second);
    assert.equal((await server.operator.delete(`/api/admin/tokens/${first.id}`)).status, 204);
    assertError(await server.anonymous.get('/api/me', { token: first.token }), 401, 'json');
    assert.equal((await server.anonymous.get('/api/me', { token: second.token })).status, 200);
    assert.equal((await server.anonymous.get('/api/me', { token: account.token })).status, 200);
    // Revoking twice, or a token that never was: 404.
    assertError(await server.operator.delete(`/api/admin/tokens/${first.id}`), 404, 'json');
    const listed = (await server.operator.get(`/api/admin/users/${account.id}/tokens`)).json();
    assert.equal(listed.length, 3);
    assert.equal(
      listed.find((token: { id: number }) => token.id === first.id).revoked,
      new Date(server.clock.now()).toISOString(),
    );
    assert.equal(listed.find((token: { id: number }) => token.id === second.id).revoked, null);
    assert.equal(JSON.stringify(listed).includes(second.token), false);
  });

  it('a revoked token answers 401 at once even while its lookup is cached', async () => {
    const account = await server.createAccount('advertiser');
    const issued = (await server.operator.post(`/api/admin/users/${account.id}/tokens`, {})).json();
    assert.equal((await server.anonymous.get('/api/me', { token: issued.token })).status, 200);
    assert.equal((await server.operator.delete(`/api/admin/tokens/${issued.id}`)).status, 204);
    for (const { name, accept } of FORMATS) {
      assertError(await server.anonymous.get('/api/me', { token: issued.token, accept }), 401, name);
    }
  });

  it('stores tokens only as their SHA-256', async () => {
    const account = await server.createAccount('advertiser');
    const rows = await server.server.context.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('account_id', '=', account.id)
      .execute();
    assert.equal(rows.length, 1);
    const [row] = rows;
    assert.ok(row);
    // PGlite gives a Uint8Array, pg a Buffer: compare the bytes.
    assert.equal(Buffer.from(row.token_hash).toString('hex'), createHash('sha256').update(account.token).digest('hex'));
    // The token's text is nowhere in the table.
    const dump = await sql<{ text: string }>`SELECT api_tokens::text AS text FROM api_tokens`.execute(server.server.context.db);
    for (const line of dump.rows) assert.equal(line.text.includes(account.token.slice(3)), false);
  });

  it('refuses an over-long or malformed token with 401, not 500', async () => {
    for (const token of ['x'.repeat(5000), "nv_' OR '1'='1", 'nv_\u00e9\u00e9']) {
      assertError(await server.anonymous.get('/api/me', { headers: { 'Auth-Token': encodeURI(token) } }), 401, 'json');
    }
  });

  it('GET /api/me answers for every account kind, in JSON and XML', async () => {
    const advertiser = await server.createAccount('advertiser', { maxmoney: '12.3456', url: 'https://shop.example' });
    const publisher = await server.createAccount('webmaster' as 'publisher');
    const operator = await server.createAccount('operator');
    for (const [account, type] of [
      [advertiser, 'advertiser'],
      [publisher, 'publisher'],
      [operator, 'operator'],
    ] as const) {
      const json = (await account.client.get('/api/me')).json();
      assert.equal(json.id, account.id);
      assert.equal(json.type, type);
      assert.equal(json.date, new Date(server.clock.now()).toISOString());
      assert.equal(json.balance, 0);
      const xml = (await account.client.get('/api/me', { accept: 'application/xml' })).xml();
      assert.equal(xml.type, type);
      assert.equal(xml.id, String(account.id));
    }
    const me = (await advertiser.client.get('/api/me')).json();
    assert.equal(me.maxmoney, 12.3456);
    assert.equal(me.url, 'https://shop.example');
    assert.deepEqual(Object.keys(me).sort(), [
      'balance',
      'date',
      'email',
      'emailConfirmed',
      'id',
      'language',
      'maxmoney',
      'name',
      'parentId',
      'phone',
      'skype',
      'telegram',
      'type',
      'url',
      'username',
      'whatsapp',
    ]);
  });

  it('GET /api/me shows a balance change at once, whoever wrote it', async () => {
    const account = await server.createAccount('advertiser');
    assert.equal((await account.client.get('/api/me')).json().balance, 0);
    await server.operator.post(`/api/admin/users/${account.id}/balance`, { amount: 7, comment: 'api' });
    assert.equal((await account.client.get('/api/me')).json().balance, 7);
    // Another module's write, in a transaction, straight to the database of this instance.
    const db = server.server.context.db;
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('accounts').set({ phone: '+1 555 0199' }).where('id', '=', account.id).execute();
      await trx
        .updateTable('accounts')
        .set((eb) => ({ balance_micros: eb('balance_micros', '+', 500_000) }))
        .where('id', '=', account.id)
        .execute();
    });
    const me = (await account.client.get('/api/me')).json();
    assert.equal(me.balance, 7.5);
    assert.equal(me.phone, '+1 555 0199');
    // A rolled-back change never shows.
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await trx.updateTable('accounts').set({ phone: 'rolled back' }).where('id', '=', account.id).execute();
        throw new Error('abort');
      }),
    );
    assert.equal((await account.client.get('/api/me')).json().phone, '+1 555 0199');
  });

  it('a token deleted straight from the database stops working at once', async () => {
    const account = await server.createAccount('publisher');
    assert.equal((await account.client.get('/api/me')).status, 200);
    await server.server.context.db
      .updateTable('api_tokens')
      .set({ revoked_at: new Date() })
      .where('account_id', '=', account.id)
      .execute();
    assertError(await account.client.get('/api/me'), 401, 'json');
  });

  it('a token revoked through another instance stops working here once the token change counter is read', async () => {
    // Two instances on one database and no Redis; the second does not see the first one's write
    // counter, as if it ran in another process. Its only news of the revocation is the tokens
    // change counter, which it reads every second (readChanges() here, so the test needs no timer).
    const database = await openTestDatabase();
    const first = await startTestServer({ database });
    const second = await startTestServer({ database: { ...database, writeGeneration: undefined } });
    // Its once-a-second poll could read the counter between the revocation and the cached lookup
    // below; the test reads it itself.
    second.server.context.tokens.stopWatching();
    try {
      const account = await first.createAccount('advertiser');
      const other = await first.createAccount('advertiser');
      const onSecond = second.anonymous.as(account.token);
      const otherOnSecond = second.anonymous.as(other.token);
      assert.equal((await onSecond.get('/api/me')).status, 200);
      assert.equal((await otherOnSecond.get('/api/me')).status, 200);
      const tokens = (await first.operator.get(`/api/admin/users/${account.id}/tokens`)).json();
      assert.equal((await first.operator.delete(`/api/admin/tokens/${tokens[0].id}`)).status, 204);
      assert.equal((await onSecond.get('/api/me')).status, 200, 'still the cached lookup');
      await second.server.context.tokens.readChanges();
      assertError(await onSecond.get('/api/me'), 401, 'json');
      assert.equal((await otherOnSecond.get('/api/me')).status, 200, 'other tokens are looked up again and still work');
      // Reading the counter again without a change keeps what is cached.
      await second.server.context.tokens.readChanges();
      assert.equal((await otherOnSecond.get('/api/me')).status, 200);
    } finally {
      await first.close();
      await second.close();
      await database.close();
    }
  });

  it('/api/health needs no token', async () => {
    const response = await server.anonymous.get('/api/health');
    assert.equal(response.status, 200);
    assert.deepEqual(response.json(), { status: 'ok' });
  });
});
