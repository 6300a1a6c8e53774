import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, describe, it } from 'node:test';
import { MAX_BALANCE_MICROS, parseMoney } from '../../../src/money.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

interface ErrorAnswer {
  code: number;
  errors?: { field: string; message: string }[];
}

/** How a streamed answer ended: with its end, or cut (the socket closed without it). */
function readToTheEnd(
  server: TestServer,
  token: string,
  path: string,
): Promise<{ status: number; ended: boolean; text: string }> {
  return new Promise((resolve, reject) => {
    const request = https.get(
      new URL(path, server.url),
      { headers: { 'Auth-Token': token }, ca: server.tls.cert },
      (response) => {
        let text = '';
        const status = response.statusCode ?? 0;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status, ended: true, text }));
        response.on('aborted', () => resolve({ status, ended: false, text }));
        response.on('error', () => resolve({ status, ended: false, text }));
      },
    );
    request.on('error', reject);
  });
}

// Balances stay within exact range (docs/security.md): a cap per balance, strict amounts, whole files.
describe('the largest balance and exact statements', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const balanceOf = async (id: number) =>
    Number(
      (
        await server.server.context.db
          .selectFrom('accounts')
          .select('balance_micros')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).balance_micros,
    );

  it('reads an amount against the cap itself: 1000000000.0001 is past it', async () => {
    assert.equal(parseMoney('1000000000'), 1_000_000_000_000_000);
    assert.equal(parseMoney('1000000000.0001'), undefined);
    assert.equal(parseMoney('-1000000000.0001'), undefined);
    assert.equal(parseMoney('00000000001'), undefined);
    const account = await server.createAccount('advertiser');
    const answer = await server.operator.post(`/api/admin/users/${account.id}/balance`, {
      amount: '1000000000.0001',
      comment: 'c',
    });
    assert.equal(answer.status, 422, answer.text);
    assert.equal(answer.json<ErrorAnswer>().errors?.[0]?.field, 'amount');
    assert.equal(await balanceOf(account.id), 0);
  });

  it('refuses an operator credit that would take a balance past the largest one (422), and changes nothing', async () => {
    const account = await server.createAccount('advertiser');
    const credit = (amount: string) => server.operator.post(`/api/admin/users/${account.id}/balance`, { amount, comment: 'c' });
    assert.equal((await credit('999999999')).status, 200);
    const refused = await credit('1.0001');
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.json<ErrorAnswer>().errors?.[0]?.field, 'amount');
    assert.match(refused.json<ErrorAnswer>().errors?.[0]?.message ?? '', /largest balance/);
    const russian = await server.operator.post(
      `/api/admin/users/${account.id}/balance`,
      { amount: '2', comment: 'c' },
      { headers: { 'Accept-Language': 'ru' } },
    );
    assert.match(russian.json<ErrorAnswer>().errors?.[0]?.message ?? '', /наибольший баланс/);
    assert.equal((await credit('1')).status, 200, 'up to the cap itself');
    assert.equal(await balanceOf(account.id), MAX_BALANCE_MICROS);
    for (let index = 0; index < 3; index++) assert.equal((await credit('1000000000')).status, 422);
    assert.equal((await credit('-0.5')).status, 200, 'a debit is always allowed');
    const ledger = await account.client.get('/api/me/ledger/export');
    assert.equal(ledger.status, 200);
    assert.equal(ledger.text.trim().split('\r\n').length, 4, 'the header and three moves');
  });

  it("refuses an advertiser's move that would take its client's balance past the cap", async () => {
    const parent = await server.createAccount('advertiser');
    const user = `capped${process.pid}`;
    const registered = await parent.client.post('/api/advertiser/users', { user, email: `${user}@example.test` });
    assert.equal(registered.status, 201, registered.text);
    const clientId = registered.json<{ id: number }>().id;
    assert.equal(
      (await server.operator.post(`/api/admin/users/${clientId}/balance`, { amount: '1000000000', comment: 'c' })).status,
      200,
    );
    assert.equal(
      (await server.operator.post(`/api/admin/users/${parent.id}/balance`, { amount: '5', comment: 'c' })).status,
      200,
    );
    const moved = await parent.client.put(`/api/advertiser/users/${clientId}`, { balance: 1 });
    assert.equal(moved.status, 422, moved.text);
    assert.equal(moved.json<ErrorAnswer>().errors?.[0]?.field, 'balance');
    assert.equal(await balanceOf(parent.id), 5_000_000, 'nothing moved');
    assert.equal(await balanceOf(clientId), MAX_BALANCE_MICROS);
  });

  it('never answers 200 with a truncated statement: an error first, or a cut connection later', async () => {
    const db = server.server.context.db;
    const early = await server.createAccount('publisher');
    // A figure past exact range (only a direct write can make one now): the file cannot be written.
    const beyond = { amount_micros: 2 ** 60, balance_after_micros: 2 ** 60, kind: 'deposit' };
    await db
      .insertInto('ledger_entries')
      .values({ account_id: early.id, ...beyond })
      .execute();
    const failed = await readToTheEnd(server, early.token, '/api/me/ledger/export');
    assert.equal(failed.status, 500, 'the first page fails before the answer starts');
    assert.equal(failed.ended, true);
    assert.equal(JSON.parse(failed.text).code, 9000);

    const late = await server.createAccount('publisher');
    const good = Array.from({ length: 1000 }, () => ({
      account_id: late.id,
      amount_micros: 1,
      balance_after_micros: 1,
      kind: 'deposit',
    }));
    await db.insertInto('ledger_entries').values(good).execute();
    await db
      .insertInto('ledger_entries')
      .values({ account_id: late.id, ...beyond })
      .execute();
    const cut = await readToTheEnd(server, late.token, '/api/me/ledger/export');
    assert.equal(cut.status, 200);
    assert.equal(cut.ended, false, 'the connection is cut, not ended as if the file were whole');
    assert.equal((await server.anonymous.get('/api/health')).status, 200);
  });
});
