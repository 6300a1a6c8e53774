import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setPassword, TEST_PASSWORD } from '../../helpers/accounts.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import {
  assertEveryBalanceIsItsLedger,
  balanceOf,
  createWorld,
  DESKTOP_UA,
  engineOf,
  ledgerSum,
  pathOf,
} from '../../helpers/serving.ts';

// An account's data on request (docs/privacy.md): the operator's export and erasure.
describe('account data: export and erasure', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function advertiserWithHistory() {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 150_000 }] });
    const answer = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
      headers: { 'User-Agent': DESKTOP_UA },
    });
    const url = answer.json<{ teasers: { url: string }[] }>().teasers[0]?.url ?? '';
    assert.equal((await server.anonymous.get(pathOf(url), { headers: { 'User-Agent': DESKTOP_UA } })).status, 302);
    await engineOf(server).settled();
    await db
      .updateTable('accounts')
      .set({ name: 'Jane Roe', phone: '+1 555 0100', telegram: '@jane' })
      .where('id', '=', world.advertiserId)
      .execute();
    await setPassword(db, world.advertiserId);
    await db
      .insertInto('passkeys')
      .values({
        account_id: world.advertiserId,
        credential_id: `cred-${world.advertiserId}`,
        public_key: Buffer.from('key'),
        name: 'Laptop',
        backed_up: false,
        created_at: new Date(server.clock.now()),
      })
      .execute();
    const account = await db
      .selectFrom('accounts')
      .select(['username', 'email'])
      .where('id', '=', world.advertiserId)
      .executeTakeFirstOrThrow();
    const signIn = await server.anonymous.post(
      '/api/session',
      { login: account.username, password: TEST_PASSWORD },
      { headers: { Origin: server.url } },
    );
    assert.equal(signIn.status, 200, signIn.text);
    return { world, account };
  }

  it('exports every row that refers to the account, without secrets, and audits it', async () => {
    const { world, account } = await advertiserWithHistory();
    const answer = await server.operator.get(`/api/admin/users/${world.advertiserId}/data`);
    assert.equal(answer.status, 200, answer.text);
    const data = answer.json<{ account_id: number; tables: Record<string, Record<string, unknown>[]> }>();
    assert.equal(data.account_id, world.advertiserId);
    const [row] = data.tables['accounts.id'] ?? [];
    assert.equal(row?.email, account.email);
    assert.equal(row?.name, 'Jane Roe');
    assert.equal('password_hash' in (row ?? {}), false, 'no password hash');
    assert.ok((data.tables['ledger_entries.account_id'] ?? []).length >= 2, 'the top-up and the click charge');
    assert.ok((data.tables['campaigns.advertiser_id'] ?? []).length >= 1);
    assert.equal((data.tables['sessions.account_id'] ?? []).length, 1);
    const [passkey] = data.tables['passkeys.account_id'] ?? [];
    assert.equal(passkey?.name, 'Laptop');
    assert.equal('public_key' in (passkey ?? {}), false);
    assert.ok((data.tables['api_tokens.account_id'] ?? []).every((token) => !('token_hash' in token)));
    const text = answer.text;
    assert.equal(text.includes('$argon2') || text.includes('$scrypt'), false);
    const db = server.server.context.db;
    const audit = await db
      .selectFrom('audit_entries')
      .select('action')
      .where('action', '=', 'account.export')
      .where('object_id', '=', String(world.advertiserId))
      .execute();
    assert.equal(audit.length, 1);
    assert.equal((await server.operator.get('/api/admin/users/999999/data')).status, 404);
    assert.equal((await world.advertiser.get(`/api/admin/users/${world.advertiserId}/data`)).status, 403);
  });

  it('carries no working link: the invitation in the outbox is exported without its token', async () => {
    const db = server.server.context.db;
    const account = await server.createAccount('publisher');
    const mail = await db
      .selectFrom('mail_outbox')
      .select(['body_text', 'body_html'])
      .where('account_id', '=', account.id)
      .executeTakeFirstOrThrow();
    const token = /\?token=([A-Za-z0-9_-]+)/.exec(mail.body_text)?.[1] ?? '';
    assert.ok(token.length >= 20, 'the invitation carries a link that sets the password');
    assert.ok(mail.body_html.includes(token));
    const answer = await server.operator.get(`/api/admin/users/${account.id}/data`);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.text.includes(token), false, 'the link token is not in the export');
    const data = answer.json<{ tables: Record<string, Record<string, unknown>[]> }>();
    const [exported] = data.tables['mail_outbox.account_id'] ?? [];
    assert.match(String(exported?.body_text), /\?token=…/);
    assert.match(String(exported?.body_html), /\?token=…/);
    assert.ok((data.tables['idempotency_keys.account_id'] ?? []).every((row) => !('body' in row)));
  });

  it('erases personal fields, sessions, tokens and passkeys; money stays with the account id', async () => {
    const db = server.server.context.db;
    const { world } = await advertiserWithHistory();
    const balance = await balanceOf(db, world.advertiserId);
    const ledger = await ledgerSum(db, world.advertiserId);
    const ledgerRows = await db.selectFrom('ledger_entries').select('id').where('account_id', '=', world.advertiserId).execute();
    assert.equal((await world.advertiser.get('/api/me')).status, 200);

    const erased = await server.operator.post(`/api/admin/users/${world.advertiserId}/erase`);
    assert.equal(erased.status, 200, erased.text);
    assert.ok(erased.json<{ tokens_deleted: number }>().tokens_deleted >= 1);

    const account = await db.selectFrom('accounts').selectAll().where('id', '=', world.advertiserId).executeTakeFirstOrThrow();
    assert.deepEqual(
      [account.username, account.email, account.name, account.phone, account.telegram, account.password_hash],
      [`erased-${world.advertiserId}`, `erased-${world.advertiserId}@erased.invalid`, '', '', '', null],
    );
    assert.ok(account.erased_at !== null);
    for (const table of ['sessions', 'api_tokens', 'passkeys'] as const) {
      const left = await db.selectFrom(table).select('account_id').where('account_id', '=', world.advertiserId).execute();
      assert.equal(left.length, 0, `${table} deleted`);
    }
    assert.equal((await world.advertiser.get('/api/me')).status, 401, 'its token no longer works');
    assert.equal(await balanceOf(db, world.advertiserId), balance);
    assert.equal(await ledgerSum(db, world.advertiserId), ledger);
    const after = await db.selectFrom('ledger_entries').select('id').where('account_id', '=', world.advertiserId).execute();
    assert.deepEqual(after, ledgerRows, 'ledger rows kept, referring to the account by id');
    assert.ok(
      (await db.selectFrom('clicks').select('click_id').where('advertiser_id', '=', world.advertiserId).execute()).length > 0,
    );
    await assertEveryBalanceIsItsLedger(db);
    const audit = await db
      .selectFrom('audit_entries')
      .select('after')
      .where('action', '=', 'account.erase')
      .where('object_id', '=', String(world.advertiserId))
      .execute();
    assert.equal(audit.length, 1);

    const again = await server.operator.post(`/api/admin/users/${world.advertiserId}/erase`);
    assert.equal(again.status, 409);
    assert.equal(again.json<{ code: number }>().code, 4040);
    const operator = await server.createAccount('operator');
    assert.equal((await server.operator.post(`/api/admin/users/${operator.id}/erase`)).status, 409);
    assert.equal((await server.operator.post('/api/admin/users/999999/erase')).status, 404);
  });
});
