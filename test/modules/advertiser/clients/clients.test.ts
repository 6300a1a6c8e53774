import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

let counter = 0;
const unique = (prefix: string) => `${prefix}${++counter}x${process.pid}`;

describe('advertiser clients', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const fund = async (id: number, amount: number) => {
    const response = await server.operator.post(`/api/admin/users/${id}/balance`, { amount, comment: 'test deposit' });
    assert.equal(response.status, 200, response.text);
  };

  const registerClient = async (
    parent: Awaited<ReturnType<TestServer['createAccount']>>,
    fields: Record<string, unknown> = {},
  ) => {
    const user = unique('client');
    const response = await parent.client.post('/api/advertiser/users', { user, email: `${user}@example.test`, ...fields });
    assert.equal(response.status, 201, response.text);
    return response.json<{ id: number; username: string; email: string }>();
  };

  it('registers a referral: 201, Location, parentId, unconfirmed, no password, nothing secret in the outbox', async () => {
    const parent = await server.createAccount('advertiser');
    const response = await parent.client.post('/api/advertiser/users', {
      user: 'acme_client',
      email: 'Client@Acme.test',
      url: 'https://acme.test',
      name: 'Ann Client',
      telegram: '@ann',
      skype: 'ann.skype',
      phone: '+1 555 0100',
    });
    assert.equal(response.status, 201, response.text);
    const user = response.json();
    assert.equal(response.header('location'), `${server.url}/api/advertiser/users/${user.id}`);
    assert.equal(user.username, 'acme_client');
    assert.equal(user.email, 'Client@Acme.test');
    assert.equal(user.type, 'advertiser');
    assert.equal(user.parentId, parent.id);
    assert.equal(user.emailConfirmed, false);
    assert.equal(user.balance, 0);
    assert.equal(user.telegram, '@ann');
    assert.equal(user.name, 'Ann Client');
    const row = await server.server.context.db
      .selectFrom('accounts')
      .select(['password_hash', 'email_confirmed_at'])
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.password_hash, null, 'no password until its owner chooses one');
    assert.equal(row.email_confirmed_at, null);
    // No SMTP here, so the message stays queued in the outbox, which shows nothing secret.
    const outbox = await server.operator.get(`/api/admin/outbox?userId=${user.id}`);
    assert.equal(outbox.status, 200);
    const [message] = outbox.json();
    assert.equal(message.status, 'queued');
    assert.equal(message.to, 'Client@Acme.test');
    assert.doesNotMatch(message.text, /password:/i);
    assert.match(message.text, /\/password\?token=…$/m, 'the link to choose a password, its token hidden');
    assert.match(message.text, /\/api\/confirm\/…$/m, 'the confirmation link, its token hidden');
    const stored = await server.server.context.db
      .selectFrom('mail_outbox')
      .select('body_text')
      .where('id', '=', message.id)
      .executeTakeFirstOrThrow();
    assert.match(stored.body_text, /\/password\?token=[A-Za-z0-9_-]{20,}$/m, 'the e-mail itself carries the whole link');
  });

  it('refuses a taken login or e-mail (422 naming user and email), whatever the case', async () => {
    const parent = await server.createAccount('advertiser');
    const first = await registerClient(parent);
    const response = await parent.client.post('/api/advertiser/users', {
      user: first.username.toUpperCase(),
      email: first.email.toUpperCase(),
    });
    assert.equal(response.status, 422);
    assert.deepEqual(
      response
        .json()
        .errors.map((error: { field: string }) => error.field)
        .sort(),
      ['email', 'user'],
    );
  });

  it('validates the input (422 naming each field) and rejects unknown fields', async () => {
    const parent = await server.createAccount('advertiser');
    const missing = await parent.client.post('/api/advertiser/users', { name: 'x' });
    assert.equal(missing.status, 422);
    const fields = missing.json().errors.map((error: { field: string }) => error.field);
    assert.ok(fields.includes('user') && fields.includes('email'), missing.text);
    const bad = await parent.client.post('/api/advertiser/users', { user: 'ok_name', email: 'not-an-address', balance: 5 });
    assert.equal(bad.status, 422);
    const badFields = bad.json().errors.map((error: { field: string }) => error.field);
    assert.ok(badFields.includes('email') && badFields.includes('balance'), bad.text);
  });

  it('lists only the caller’s referrals, paginated, and reads one in JSON and XML', async () => {
    const parent = await server.createAccount('advertiser');
    const other = await server.createAccount('advertiser');
    const a = await registerClient(parent);
    const b = await registerClient(parent);
    await registerClient(other);
    const list = await parent.client.get('/api/advertiser/users?per-page=1&page=2');
    assert.equal(list.status, 200);
    assert.equal(list.header('x-pagination-total-count'), '2');
    assert.deepEqual(
      list.json().map((user: { id: number }) => user.id),
      [b.id],
    );
    const xml = await parent.client.get(`/api/advertiser/users/${a.id}`, { accept: 'application/xml' });
    assert.equal(xml.status, 200);
    assert.equal(xml.xml().id, String(a.id));
    assert.equal(xml.xml().parentId, String(parent.id));
    const xmlList = await parent.client.get('/api/advertiser/users', { accept: 'application/xml' });
    assert.equal(xmlList.xml().item.length, 2);
  });

  it('hides other accounts (404) and refuses publishers (403)', async () => {
    const parent = await server.createAccount('advertiser');
    const stranger = await server.createAccount('advertiser');
    const publisher = await server.createAccount('publisher');
    const client = await registerClient(parent);
    assert.equal((await stranger.client.get(`/api/advertiser/users/${client.id}`)).status, 404);
    assert.equal((await stranger.client.put(`/api/advertiser/users/${client.id}`, { balance: 1 })).status, 404);
    // Not a referral of the caller, though it exists: the caller itself.
    assert.equal((await parent.client.get(`/api/advertiser/users/${parent.id}`)).status, 404);
    assert.equal((await publisher.client.get('/api/advertiser/users')).status, 403);
    assert.equal(
      (await publisher.client.post('/api/advertiser/users', { user: 'pub_client', email: 'p@example.test' })).status,
      403,
    );
  });

  it('moves money both ways through the ledger and refuses overdrafts with 422', async () => {
    const parent = await server.createAccount('advertiser');
    await fund(parent.id, 100);
    const client = await registerClient(parent);
    const out = await parent.client.put(`/api/advertiser/users/${client.id}`, { balance: 30.25 });
    assert.equal(out.status, 200, out.text);
    assert.equal(out.json().balance, 30.25);
    const back = await parent.client.put(
      `/api/advertiser/users/${client.id}`,
      { balance: '-10.0001' },
      { accept: 'application/xml' },
    );
    assert.equal(back.status, 200, back.text);
    assert.equal(back.xml().balance, '20.2499');
    const me = await parent.client.get('/api/me');
    assert.equal(me.json().balance, 79.7501);

    const tooMuch = await parent.client.put(`/api/advertiser/users/${client.id}`, { balance: 79.7502 });
    assert.equal(tooMuch.status, 422);
    assert.equal(tooMuch.json().errors[0].field, 'balance');
    const tooMuchBack = await parent.client.put(`/api/advertiser/users/${client.id}`, { balance: -20.25 });
    assert.equal(tooMuchBack.status, 422);
    for (const balance of [0, 'abc', 1.00001]) {
      const invalid = await parent.client.put(`/api/advertiser/users/${client.id}`, { balance });
      assert.equal(invalid.status, 422, `balance ${balance}`);
      assert.equal(invalid.json().errors[0].field, 'balance');
    }
    assert.equal((await parent.client.put(`/api/advertiser/users/${client.id}`, {})).status, 422);
    // Nothing changed by the refused moves.
    assert.equal((await parent.client.get('/api/me')).json().balance, 79.7501);
    assert.equal((await parent.client.get(`/api/advertiser/users/${client.id}`)).json().balance, 20.2499);
    const entries = await server.server.context.db
      .selectFrom('ledger_entries')
      .select(['account_id', 'amount_micros', 'kind', 'counterparty_id'])
      .where('account_id', '=', client.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(entries, [
      { account_id: client.id, amount_micros: 30_250_000, kind: 'client_transfer', counterparty_id: parent.id },
      { account_id: client.id, amount_micros: -10_000_100, kind: 'client_transfer', counterparty_id: parent.id },
    ]);
  });

  it('keeps balances exact under 50 parallel moves, and never overdraws', async () => {
    const parent = await server.createAccount('advertiser');
    await fund(parent.id, 1000);
    const client = await registerClient(parent);
    const seed = await parent.client.put(`/api/advertiser/users/${client.id}`, { balance: 500 });
    assert.equal(seed.status, 200);
    // 25 moves out of 10 and 25 back of 7: every order of them is affordable, so all succeed.
    const amounts = Array.from({ length: 50 }, (_, index) => (index % 2 === 0 ? 10 : -7));
    const results = await Promise.all(
      amounts.map((balance) => parent.client.put(`/api/advertiser/users/${client.id}`, { balance })),
    );
    assert.deepEqual(
      results.map((result) => result.status),
      amounts.map(() => 200),
    );
    assert.equal((await parent.client.get('/api/me')).json().balance, 500 - 250 + 175);
    assert.equal((await parent.client.get(`/api/advertiser/users/${client.id}`)).json().balance, 500 + 250 - 175);

    // 50 moves of 3 from a balance of 100: exactly as many succeed as the money allows (33).
    const poor = await server.createAccount('advertiser');
    await fund(poor.id, 100);
    const poorClient = await registerClient(poor);
    const racing = await Promise.all(
      Array.from({ length: 50 }, () => poor.client.put(`/api/advertiser/users/${poorClient.id}`, { balance: 3 })),
    );
    assert.equal(racing.filter((result) => result.status === 200).length, 33);
    assert.equal(racing.filter((result) => result.status === 422).length, 17);
    assert.equal((await poor.client.get('/api/me')).json().balance, 1);
    assert.equal((await poor.client.get(`/api/advertiser/users/${poorClient.id}`)).json().balance, 99);

    const db = server.server.context.db;
    for (const id of [parent.id, client.id, poor.id, poorClient.id]) {
      const account = await db.selectFrom('accounts').select('balance_micros').where('id', '=', id).executeTakeFirstOrThrow();
      const ledger = await db
        .selectFrom('ledger_entries')
        .select((eb) => eb.fn.sum<number>('amount_micros').as('total'))
        .where('account_id', '=', id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(ledger.total), account.balance_micros, `ledger of account ${id}`);
    }
  });
});
