import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

const XML = 'application/xml';

type Account = Awaited<ReturnType<TestServer['createAccount']>>;

describe('payouts', () => {
  let server: TestServer;
  let advertiser: Account;

  before(async () => {
    server = await startTestServer();
    advertiser = await server.createAccount('advertiser');
  });
  after(() => server.close());

  /** A publisher whose balance the operator credited, as the serving engine does with revenue. */
  const fundedPublisher = async (amount: string) => {
    const publisher = await server.createAccount('publisher');
    const credited = await server.operator.post(`/api/admin/users/${publisher.id}/balance`, { amount, comment: 'revenue share' });
    assert.equal(credited.status, 200, credited.text);
    return publisher;
  };
  const balanceOf = async (id: number) => (await server.operator.get(`/api/admin/users/${id}`)).json().balance as number;
  const ledgerOf = async (id: number) => (await server.operator.get(`/api/admin/users/${id}/ledger?per-page=100`)).json();
  const payoutCount = async (id: number) =>
    Number((await server.operator.get(`/api/admin/payouts?userId=${id}`)).header('x-pagination-total-count'));

  describe('POST /admin/payouts', () => {
    it('records a payout and debits the balance exactly through the ledger', async () => {
      const publisher = await fundedPublisher('100');
      const response = await server.operator.post('/api/admin/payouts', {
        userId: publisher.id,
        amount: '30.1234',
        wallet: 'paypal:pub@example.test',
      });
      assert.equal(response.status, 201, response.text);
      const payout = response.json();
      assert.equal(response.header('location'), `${server.url}/api/admin/payouts/${payout.id}`);
      assert.deepEqual(payout, {
        id: payout.id,
        date: '2026-03-10T12:00:00.000Z',
        wallet: 'paypal:pub@example.test',
        amount: 30.1234,
        status: 'pending',
        userId: publisher.id,
        username: (await server.operator.get(`/api/admin/users/${publisher.id}`)).json().username,
      });
      assert.equal(await balanceOf(publisher.id), 69.8766);
      const [entry] = await ledgerOf(publisher.id);
      assert.equal(entry.kind, 'payout');
      assert.equal(entry.amount, -30.1234);
      assert.equal(entry.balance, 69.8766);
      assert.equal(entry.reference, String(payout.id));

      const paid = await server.operator.post('/api/admin/payouts', {
        userId: publisher.id,
        amount: 69.8766,
        wallet: 'iban:DE00',
        status: 'paid',
      });
      assert.equal(paid.status, 201, paid.text);
      assert.equal(paid.json().status, 'paid');
      assert.equal(await balanceOf(publisher.id), 0);
    });

    it('refuses more than the balance with 422 and writes nothing', async () => {
      const publisher = await fundedPublisher('10.5');
      const ledgerBefore = await ledgerOf(publisher.id);
      const response = await server.operator.post('/api/admin/payouts', { userId: publisher.id, amount: '10.5001', wallet: 'w' });
      assert.equal(response.status, 422);
      assert.deepEqual(
        response.json().errors.map((error: { field: string }) => error.field),
        ['amount'],
      );
      assert.equal(await balanceOf(publisher.id), 10.5);
      assert.deepEqual(await ledgerOf(publisher.id), ledgerBefore);
      assert.equal(await payoutCount(publisher.id), 0);
      assert.deepEqual((await publisher.client.get('/api/webmaster/payment')).json(), []);
    });

    it('names the failing field in 422s', async () => {
      const publisher = await fundedPublisher('5');
      const cases: [Record<string, unknown>, string][] = [
        [{ userId: publisher.id, amount: 0, wallet: 'w' }, 'amount'],
        [{ userId: publisher.id, amount: -1, wallet: 'w' }, 'amount'],
        [{ userId: publisher.id, amount: '1.00001', wallet: 'w' }, 'amount'],
        [{ userId: publisher.id, amount: 'ten', wallet: 'w' }, 'amount'],
        [{ userId: publisher.id, amount: 1 }, 'wallet'],
        [{ userId: publisher.id, amount: 1, wallet: '' }, 'wallet'],
        [{ userId: publisher.id, amount: 1, wallet: 'w', status: 'cancelled' }, 'status'],
        [{ userId: publisher.id, amount: 1, wallet: 'w', status: 'sent' }, 'status'],
        [{ userId: advertiser.id, amount: 1, wallet: 'w' }, 'userId'],
        [{ userId: 999999, amount: 1, wallet: 'w' }, 'userId'],
        [{ amount: 1, wallet: 'w' }, 'userId'],
        [{ userId: publisher.id, amount: 1, wallet: 'w', note: 'x' }, 'note'],
      ];
      for (const [body, field] of cases) {
        const response = await server.operator.post('/api/admin/payouts', body);
        assert.equal(response.status, 422, `${JSON.stringify(body)}: ${response.text}`);
        assert.ok(
          response.json().errors.some((error: { field: string }) => error.field === field),
          `${JSON.stringify(body)} should name ${field}: ${response.text}`,
        );
      }
      assert.equal(await balanceOf(publisher.id), 5);
      assert.equal(await payoutCount(publisher.id), 0);
    });

    it('is for operators only', async () => {
      const publisher = await fundedPublisher('5');
      assert.equal(
        (await publisher.client.post('/api/admin/payouts', { userId: publisher.id, amount: 1, wallet: 'w' })).status,
        403,
      );
      assert.equal((await advertiser.client.get('/api/admin/payouts')).status, 403);
      assert.equal(await balanceOf(publisher.id), 5);
    });
  });

  describe('PUT /admin/payouts/{id}', () => {
    it('cancels a pending payout and credits the money back; cancelled is final', async () => {
      const publisher = await fundedPublisher('50');
      const payout = (await server.operator.post('/api/admin/payouts', { userId: publisher.id, amount: 20, wallet: 'w' })).json();
      assert.equal(await balanceOf(publisher.id), 30);
      const cancelled = await server.operator.put(`/api/admin/payouts/${payout.id}`, { status: 'cancelled' });
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.equal(cancelled.json().status, 'cancelled');
      assert.equal(await balanceOf(publisher.id), 50);
      const [entry] = await ledgerOf(publisher.id);
      assert.deepEqual([entry.kind, entry.amount, entry.reference], ['payout_cancel', 20, String(payout.id)]);

      const again = await server.operator.put(`/api/admin/payouts/${payout.id}`, { status: 'cancelled' });
      assert.equal(again.status, 200);
      assert.equal(await balanceOf(publisher.id), 50);
      const revived = await server.operator.put(`/api/admin/payouts/${payout.id}`, { status: 'paid' });
      assert.equal(revived.status, 422);
      assert.equal(revived.json().errors[0].field, 'status');
      assert.equal(await balanceOf(publisher.id), 50);
    });

    it('marks a pending payout paid; paid is final', async () => {
      const publisher = await fundedPublisher('50');
      const payout = (
        await server.operator.post('/api/admin/payouts', { userId: publisher.id, amount: 12.5, wallet: 'w' })
      ).json();
      const paid = await server.operator.put(`/api/admin/payouts/${payout.id}`, { status: 'paid' }, { accept: XML });
      assert.equal(paid.status, 200);
      assert.equal(paid.xml().status, 'paid');
      assert.equal(paid.xml().amount, '12.5');
      assert.equal(await balanceOf(publisher.id), 37.5);
      for (const status of ['cancelled', 'pending']) {
        const response = await server.operator.put(`/api/admin/payouts/${payout.id}`, { status });
        assert.equal(response.status, 422, status);
        assert.equal(response.json().errors[0].field, 'status');
      }
      assert.equal(await balanceOf(publisher.id), 37.5);
      assert.equal((await server.operator.put('/api/admin/payouts/999999', { status: 'paid' })).status, 404);
      assert.equal((await publisher.client.put(`/api/admin/payouts/${payout.id}`, { status: 'cancelled' })).status, 403);
    });
  });

  describe('GET /webmaster/payment', () => {
    it("lists the publisher's own payouts, newest first, in JSON and XML", async () => {
      const publisher = await fundedPublisher('100');
      const other = await fundedPublisher('100');
      const first = (
        await server.operator.post('/api/admin/payouts', { userId: publisher.id, amount: 10, wallet: 'card:1234' })
      ).json();
      server.clock.advance(3_600_000);
      const second = (
        await server.operator.post('/api/admin/payouts', { userId: publisher.id, amount: '0.0001', wallet: 'card:1234' })
      ).json();
      const theirs = (await server.operator.post('/api/admin/payouts', { userId: other.id, amount: 1, wallet: 'x' })).json();
      await server.operator.put(`/api/admin/payouts/${first.id}`, { status: 'paid' });

      const response = await publisher.client.get('/api/webmaster/payment');
      assert.equal(response.status, 200);
      assert.equal(response.header('x-pagination-total-count'), '2');
      assert.deepEqual(response.json(), [
        { id: second.id, date: '2026-03-10T13:00:00.000Z', wallet: 'card:1234', amount: 0.0001, status: 'pending' },
        { id: first.id, date: '2026-03-10T12:00:00.000Z', wallet: 'card:1234', amount: 10, status: 'paid' },
      ]);

      const xml = await publisher.client.get('/api/webmaster/payment', { accept: XML });
      assert.deepEqual(xml.xml().item, [
        { id: String(second.id), date: '2026-03-10T13:00:00.000Z', wallet: 'card:1234', amount: '0.0001', status: 'pending' },
        { id: String(first.id), date: '2026-03-10T12:00:00.000Z', wallet: 'card:1234', amount: '10', status: 'paid' },
      ]);

      const one = await publisher.client.get(`/api/webmaster/payment/${first.id}`);
      assert.equal(one.status, 200);
      assert.equal(one.json().status, 'paid');
      assert.equal((await publisher.client.get(`/api/webmaster/payment/${theirs.id}`)).status, 404);
      assert.equal((await other.client.get(`/api/webmaster/payment/${first.id}`)).status, 404);
      assert.equal((await publisher.client.get('/api/webmaster/payment/999999')).status, 404);
      assert.equal((await advertiser.client.get('/api/webmaster/payment')).status, 403);
      assert.equal((await advertiser.client.get(`/api/webmaster/payment/${first.id}`)).status, 403);
    });
  });

  describe('GET /admin/publishers/balances', () => {
    it('lists publishers the platform owes money, with pending payouts', async () => {
      const rich = await fundedPublisher('1000');
      const pendingOnly = await fundedPublisher('40');
      const settled = await fundedPublisher('5');
      await server.operator.post('/api/admin/payouts', { userId: pendingOnly.id, amount: 40, wallet: 'w' });
      await server.operator.post('/api/admin/payouts', { userId: settled.id, amount: 5, wallet: 'w', status: 'paid' });
      await server.operator.post('/api/admin/payouts', { userId: rich.id, amount: '0.25', wallet: 'w' });

      const response = await server.operator.get('/api/admin/publishers/balances?per-page=100');
      assert.equal(response.status, 200);
      const rows = response.json() as { userId: number; balance: number; pending: number }[];
      const byId = new Map(rows.map((row) => [row.userId, row]));
      assert.deepEqual(
        { balance: byId.get(rich.id)?.balance, pending: byId.get(rich.id)?.pending },
        { balance: 999.75, pending: 0.25 },
      );
      assert.deepEqual(
        { balance: byId.get(pendingOnly.id)?.balance, pending: byId.get(pendingOnly.id)?.pending },
        { balance: 0, pending: 40 },
      );
      assert.equal(byId.has(settled.id), false);
      assert.equal(byId.has(advertiser.id), false);
      assert.equal(rows[0]?.userId, rich.id);
      const balances = rows.map((row) => row.balance);
      assert.deepEqual(
        balances,
        [...balances].sort((a, b) => b - a),
      );
      assert.equal(Number(response.header('x-pagination-total-count')), rows.length);

      const page = await server.operator.get('/api/admin/publishers/balances?per-page=1');
      assert.equal(page.json().length, 1);
      assert.equal(page.header('x-pagination-total-count'), String(rows.length));
      assert.equal((await rich.client.get('/api/admin/publishers/balances')).status, 403);
    });
  });
});
