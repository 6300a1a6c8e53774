import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, FORMATS, failingFields } from '../../helpers/assertions.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

describe('operator API', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function ledgerSum(accountId: number): Promise<number> {
    const row = await server.server.context.db
      .selectFrom('ledger_entries')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_micros'), eb.lit(0)).as('total'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  async function balanceMicros(accountId: number): Promise<number> {
    const row = await server.server.context.db
      .selectFrom('accounts')
      .select('balance_micros')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    return row.balance_micros;
  }

  describe('accounts', () => {
    for (const { name, accept } of FORMATS) {
      it(`${name}: creates an advertiser with every field and reads it back`, async () => {
        const response = await server.operator.post(
          '/api/admin/users',
          {
            type: 'advertiser',
            username: `acme_${name}`,
            email: `ads_${name}@acme.test`,
            name: 'Acme Ltd',
            url: 'https://acme.test',
            whatsapp: '+10000000001',
            telegram: '@acme',
            skype: 'acme.ads',
            phone: '+1 555 0100',
            maxmoney: 250.5,
          },
          { accept },
        );
        assert.equal(response.status, 201);
        const created = name === 'xml' ? response.xml() : response.json();
        assert.equal(String(created.maxmoney), '250.5');
        assert.equal(created.type, 'advertiser');
        const read = await server.operator.get(`/api/admin/users/${created.id}`, { accept });
        const user = name === 'xml' ? read.xml() : read.json();
        assert.equal(user.username, `acme_${name}`);
        assert.equal(user.telegram, '@acme');
        assert.equal(String(user.balance), '0');
        assert.equal(user.date, new Date(server.clock.now()).toISOString());
      });
    }

    it('accepts webmaster as an alias of publisher', async () => {
      const response = await server.operator.post('/api/admin/users', {
        type: 'webmaster',
        username: 'site_owner',
        email: 'w@example.test',
      });
      assert.equal(response.status, 201);
      assert.equal(response.json().type, 'publisher');
    });

    for (const { name, accept } of FORMATS) {
      it(`${name}: duplicate username or e-mail (any case) → 422 naming the field`, async () => {
        const first = await server.operator.post('/api/admin/users', {
          type: 'advertiser',
          username: `dup_${name}`,
          email: `dup_${name}@example.test`,
        });
        assert.equal(first.status, 201);
        const sameName = await server.operator.post(
          '/api/admin/users',
          { type: 'publisher', username: `DUP_${name}`, email: `other_${name}@example.test` },
          { accept },
        );
        assert.deepEqual(failingFields(assertError(sameName, 422, name)), ['username']);
        const sameMail = await server.operator.post(
          '/api/admin/users',
          { type: 'publisher', username: `other_${name}`, email: `Dup_${name}@Example.test` },
          { accept },
        );
        assert.deepEqual(failingFields(assertError(sameMail, 422, name)), ['email']);
        const both = await server.operator.post(
          '/api/admin/users',
          { type: 'publisher', username: `dup_${name}`, email: `dup_${name}@example.test` },
          { accept },
        );
        assert.deepEqual(failingFields(assertError(both, 422, name)).sort(), ['email', 'username']);
      });
    }

    it('rejects bad values with 422 naming each field', async () => {
      const response = await server.operator.post('/api/admin/users', {
        type: 'robot',
        username: 'a b',
        email: 'not-an-email',
        maxmoney: 'much',
      });
      assert.deepEqual(failingFields(assertError(response, 422, 'json')).sort(), ['email', 'maxmoney', 'type', 'username']);
      const precise = await server.operator.post('/api/admin/users', {
        type: 'advertiser',
        username: 'precise',
        email: 'p@example.test',
        maxmoney: '1.23456',
      });
      assert.deepEqual(failingFields(assertError(precise, 422, 'json')), ['maxmoney']);
      const negative = await server.operator.post('/api/admin/users', {
        type: 'advertiser',
        username: 'neg',
        email: 'neg@example.test',
        maxmoney: -1,
      });
      assert.deepEqual(failingFields(assertError(negative, 422, 'json')), ['maxmoney']);
    });

    it('links a referral to its parent; an unknown parent is a 422', async () => {
      const parent = await server.createAccount('advertiser');
      const child = await server.operator.post('/api/admin/users', {
        type: 'advertiser',
        username: 'child',
        email: 'child@example.test',
        parentId: parent.id,
      });
      assert.equal(child.json().parentId, parent.id);
    });

    it('lists accounts filtered by type', async () => {
      await server.createAccount('publisher');
      const publishers = (await server.operator.get('/api/admin/users?type=publisher&per-page=100')).json();
      assert.ok(publishers.length > 0);
      for (const user of publishers) assert.equal(user.type, 'publisher');
      const webmasters = await server.operator.get('/api/admin/users?type=robot');
      assert.deepEqual(failingFields(assertError(webmasters, 422, 'json')), ['type']);
    });

    it('token routes answer 404 for an unknown account', async () => {
      assertError(await server.operator.post('/api/admin/users/999999/tokens', {}), 404, 'json');
      assertError(await server.operator.get('/api/admin/users/999999/tokens'), 404, 'json');
      assertError(await server.operator.post('/api/admin/users/999999/balance', { amount: 1, comment: 'x' }), 404, 'json');
      const name = await server.operator.post('/api/admin/users/1/tokens', { name: 'n'.repeat(101) });
      assert.deepEqual(failingFields(assertError(name, 422, 'json')), ['name']);
    });
  });

  describe('balances', () => {
    it('credits and debits through the ledger; the balance equals the ledger sum', async () => {
      const account = await server.createAccount('advertiser');
      const credit = await server.operator.post(`/api/admin/users/${account.id}/balance`, {
        amount: '100.1234',
        comment: 'wire 1',
      });
      assert.equal(credit.status, 200);
      assert.equal(credit.json().balance, 100.1234);
      const debit = await server.operator.post(`/api/admin/users/${account.id}/balance`, { amount: -0.1234, comment: 'refund' });
      assert.equal(debit.json().balance, 100);
      assert.equal((await account.client.get('/api/me')).json().balance, 100);
      assert.equal(await balanceMicros(account.id), 100_000_000);
      assert.equal(await ledgerSum(account.id), 100_000_000);
      const ledger = await server.operator.get(`/api/admin/users/${account.id}/ledger`);
      assert.equal(ledger.header('x-pagination-total-count'), '2');
      const [latest, earliest] = ledger.json();
      assert.deepEqual(
        { amount: latest.amount, balance: latest.balance, kind: latest.kind, comment: latest.comment },
        { amount: -0.1234, balance: 100, kind: 'withdrawal', comment: 'refund' },
      );
      assert.equal(earliest.kind, 'deposit');
    });

    for (const { name, accept } of FORMATS) {
      it(`${name}: a debit below zero → 422 on amount and nothing changes`, async () => {
        const account = await server.createAccount('advertiser');
        await server.operator.post(`/api/admin/users/${account.id}/balance`, { amount: 10, comment: 'start' });
        const response = await server.operator.post(
          `/api/admin/users/${account.id}/balance`,
          { amount: -10.0001, comment: 'too much' },
          { accept },
        );
        assert.deepEqual(failingFields(assertError(response, 422, name)), ['amount']);
        assert.equal(await balanceMicros(account.id), 10_000_000);
        assert.equal(await ledgerSum(account.id), 10_000_000);
        const entries = (await server.operator.get(`/api/admin/users/${account.id}/ledger`)).json();
        assert.equal(entries.length, 1);
      });
    }

    it('rejects amounts that are zero, too precise, not numbers, or missing a comment', async () => {
      const account = await server.createAccount('advertiser');
      for (const [body, fields] of [
        [{ amount: 0, comment: 'zero' }, ['amount']],
        [{ amount: '1.00001', comment: 'precise' }, ['amount']],
        [{ amount: 'ten', comment: 'words' }, ['amount']],
        [{ amount: 1e300, comment: 'huge' }, ['amount']],
        [{ amount: 5 }, ['comment']],
        [{ amount: 5, comment: 'x', extra: true }, ['extra']],
      ] as const) {
        const response = await server.operator.post(`/api/admin/users/${account.id}/balance`, body);
        assert.deepEqual(failingFields(assertError(response, 422, 'json')), fields, JSON.stringify(body));
      }
      assert.equal(await ledgerSum(account.id), 0);
    });

    it('50 concurrent credits and debits leave the exact balance', async () => {
      const account = await server.createAccount('advertiser');
      await server.operator.post(`/api/admin/users/${account.id}/balance`, { amount: 1000, comment: 'start' });
      const amounts = Array.from({ length: 50 }, (_, index) => (index % 2 === 0 ? '3.3333' : '-1.1111'));
      const responses = await Promise.all(
        amounts.map((amount) =>
          server.operator.post(`/api/admin/users/${account.id}/balance`, { amount, comment: 'concurrent' }),
        ),
      );
      for (const response of responses) assert.equal(response.status, 200, response.text);
      const expected = 1000_000_000 + 25 * 3_333_300 - 25 * 1_111_100;
      assert.equal(await balanceMicros(account.id), expected);
      assert.equal(await ledgerSum(account.id), expected);
      assert.equal((await server.operator.get(`/api/admin/users/${account.id}`)).json().balance, expected / 1_000_000);
    });

    it('concurrent debits never take a balance below zero', async () => {
      const account = await server.createAccount('advertiser');
      await server.operator.post(`/api/admin/users/${account.id}/balance`, { amount: 10, comment: 'start' });
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          server.operator.post(`/api/admin/users/${account.id}/balance`, { amount: -1, comment: 'drain' }),
        ),
      );
      assert.equal(responses.filter((response) => response.status === 200).length, 10);
      assert.equal(responses.filter((response) => response.status === 422).length, 10);
      assert.equal(await balanceMicros(account.id), 0);
      assert.equal(await ledgerSum(account.id), 0);
    });

    it('the ledger refuses updates and deletes', async () => {
      const account = await server.createAccount('advertiser');
      await server.operator.post(`/api/admin/users/${account.id}/balance`, { amount: 1, comment: 'once' });
      const db = server.server.context.db;
      await assert.rejects(
        db.updateTable('ledger_entries').set({ amount_micros: 5 }).where('account_id', '=', account.id).execute(),
      );
      await assert.rejects(db.deleteFrom('ledger_entries').where('account_id', '=', account.id).execute());
      assert.equal(await ledgerSum(account.id), 1_000_000);
    });
  });
});
