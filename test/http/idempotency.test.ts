import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../src/db/database.ts';
import { idempotencyStore } from '../../src/modules/idempotency/index.ts';
import { offerFields } from '../helpers/advertiser.ts';
import { TestClient, type TestResponse } from '../helpers/http-client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { assertEveryBalanceIsItsLedger } from '../helpers/serving.ts';

/**
 * Idempotency-Key (docs/adr/0012): a retry with the same key and request answers
 * the stored response and changes nothing; another request with the key is a 422; a retry while
 * the first runs is a 409; keys are per account and live 24 hours.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
let keyCounter = 0;
const newKey = (label: string) => `${label}-${process.pid}-${++keyCounter}`;
const keyed = (key: string, headers: Record<string, string> = {}) => ({ headers: { 'Idempotency-Key': key, ...headers } });

async function ledgerRows(db: Db, accountId: number, kind: string): Promise<number> {
  const rows = await db
    .selectFrom('ledger_entries')
    .select('id')
    .where('account_id', '=', accountId)
    .where('kind', '=', kind)
    .execute();
  return rows.length;
}

async function balanceMicros(db: Db, accountId: number): Promise<number> {
  const row = await db.selectFrom('accounts').select('balance_micros').where('id', '=', accountId).executeTakeFirstOrThrow();
  return row.balance_micros;
}

describe('Idempotency-Key', () => {
  let server: TestServer;
  let db: Db;
  let advertiser: { id: number; client: TestClient };
  let clientId: number;

  before(async () => {
    server = await startTestServer();
    db = server.server.context.db;
    advertiser = await server.createAccount('advertiser');
    const funded = await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount: 1000, comment: 'test' });
    assert.equal(funded.status, 200);
    const created = await advertiser.client.post('/api/advertiser/users', {
      user: `client_${process.pid}`,
      email: `client_${process.pid}@example.test`,
    });
    assert.equal(created.status, 201, created.text);
    clientId = created.json().id;
  });
  after(() => server.close());

  it('replays a balance move: same status and body, Idempotent-Replayed, money moved once', async () => {
    const key = newKey('move');
    const before = await balanceMicros(db, clientId);
    const rowsBefore = await ledgerRows(db, clientId, 'client_transfer');
    const first = await advertiser.client.put(`/api/advertiser/users/${clientId}`, { balance: 2.5 }, keyed(key));
    assert.equal(first.status, 200, first.text);
    assert.equal(first.header('Idempotent-Replayed'), undefined);
    const retry = await advertiser.client.put(`/api/advertiser/users/${clientId}`, { balance: 2.5 }, keyed(key));
    assert.equal(retry.status, 200);
    assert.equal(retry.header('Idempotent-Replayed'), 'true');
    assert.deepEqual(retry.json(), first.json());
    assert.equal(await balanceMicros(db, clientId), before + 2_500_000);
    assert.equal(await ledgerRows(db, clientId, 'client_transfer'), rowsBefore + 1);
  });

  it('replays in the format the retry asks for (XML), with the stored status and Location', async () => {
    const key = newKey('campaign');
    const body = { title: 'Idempotent campaign', category_id: 1 };
    const first = await advertiser.client.post('/api/advertiser/campaigns', body, keyed(key));
    assert.equal(first.status, 201, first.text);
    const location = first.header('Location');
    assert.ok(location?.endsWith(`/api/advertiser/campaigns/${first.json().id}`));
    const retry = await advertiser.client.post('/api/advertiser/campaigns', body, keyed(key, { Accept: 'application/xml' }));
    assert.equal(retry.status, 201);
    assert.equal(retry.header('Location'), location);
    assert.equal(retry.header('Idempotent-Replayed'), 'true');
    assert.match(retry.header('Content-Type') ?? '', /application\/xml/);
    assert.equal(Number(retry.xml().id), first.json().id);
    const campaigns = await db.selectFrom('campaigns').select('id').where('title', '=', body.title).execute();
    assert.equal(campaigns.length, 1);
  });

  it('answers 422 on the same key with another request, and changes nothing', async () => {
    const key = newKey('other-body');
    const first = await advertiser.client.put(`/api/advertiser/users/${clientId}`, { balance: 1 }, keyed(key));
    assert.equal(first.status, 200);
    const before = await balanceMicros(db, clientId);
    const other = await advertiser.client.put(`/api/advertiser/users/${clientId}`, { balance: 2 }, keyed(key));
    assert.equal(other.status, 422);
    assert.deepEqual(
      other.json().errors.map((error: { field: string }) => error.field),
      ['Idempotency-Key'],
    );
    // Another path is another request too.
    const otherPath = await server.operator.post(`/api/admin/users/${clientId}/balance`, { amount: 1, comment: 'x' }, keyed(key));
    assert.equal(otherPath.status, 200, 'keys are per account: the operator’s key is its own');
    const samePathOtherAccount = await advertiser.client.post(
      '/api/advertiser/campaigns',
      { title: 'x', category_id: 1 },
      keyed(key),
    );
    assert.equal(samePathOtherAccount.status, 422);
    assert.equal(await balanceMicros(db, clientId), before + 1_000_000);
  });

  it('refuses a key that is empty or longer than 255 characters', async () => {
    for (const key of ['', 'k'.repeat(256)]) {
      const response = await advertiser.client.put(`/api/advertiser/users/${clientId}`, { balance: 1 }, keyed(key));
      assert.equal(response.status, 422, `key of ${key.length} characters`);
      assert.deepEqual(
        response.json().errors.map((error: { field: string }) => error.field.toLowerCase()),
        ['idempotency-key'],
      );
    }
    const longest = await advertiser.client.put(`/api/advertiser/users/${clientId}`, { balance: 0.0001 }, keyed('k'.repeat(255)));
    assert.equal(longest.status, 200);
  });

  it('keeps a failed request out of the store: the retry runs again', async () => {
    const key = newKey('fails');
    const tooMuch = await advertiser.client.put(`/api/advertiser/users/${clientId}`, { balance: 1_000_000 }, keyed(key));
    assert.equal(tooMuch.status, 422);
    const stored = await db.selectFrom('idempotency_keys').select('key').where('key', '=', key).execute();
    assert.equal(stored.length, 0);
  });

  it('keys are per account: another account with the same key gets its own effect', async () => {
    const other = await server.createAccount('advertiser');
    const key = newKey('shared');
    const body = { title: 'Per-account campaign', category_id: 1 };
    const mine = await advertiser.client.post('/api/advertiser/campaigns', body, keyed(key));
    const theirs = await other.client.post('/api/advertiser/campaigns', body, keyed(key));
    assert.equal(mine.status, 201);
    assert.equal(theirs.status, 201);
    assert.equal(theirs.header('Idempotent-Replayed'), undefined);
    assert.notEqual(theirs.json().id, mine.json().id);
  });

  it('a key lives 24 hours; the sweep deletes expired keys', async () => {
    const key = newKey('expiry');
    const first = await advertiser.client.put(`/api/advertiser/users/${clientId}`, { balance: 1 }, keyed(key));
    assert.equal(first.status, 200);
    server.clock.advance(DAY_MS - 1000);
    const stillReplayed = await advertiser.client.put(`/api/advertiser/users/${clientId}`, { balance: 1 }, keyed(key));
    assert.equal(stillReplayed.header('Idempotent-Replayed'), 'true');
    server.clock.advance(2000);
    const before = await balanceMicros(db, clientId);
    const anew = await advertiser.client.put(`/api/advertiser/users/${clientId}`, { balance: 3 }, keyed(key));
    assert.equal(anew.status, 200, 'an expired key is a new request, even with another body');
    assert.equal(anew.header('Idempotent-Replayed'), undefined);
    assert.equal(await balanceMicros(db, clientId), before + 3_000_000);

    const swept = await idempotencyStore.sweep(db, new Date(server.clock.now() - DAY_MS));
    assert.ok(swept >= 1, 'keys stored a day ago are swept');
    const left = await db.selectFrom('idempotency_keys').select('key').where('key', '=', key).execute();
    assert.equal(left.length, 1, 'the key stored again just now stays');
  });

  it('answers 409 to a retry while the first request still runs; then the stored answer', async () => {
    const key = newKey('in-flight');
    const before = await balanceMicros(db, clientId);
    // Holding the client's account row keeps the first request inside its transaction (on the
    // embedded database, holding its one connection does the same).
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = (): void => undefined;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const holder = db.transaction().execute(async (trx) => {
      await trx.selectFrom('accounts').select('id').where('id', '=', clientId).forUpdate().execute();
      holding();
      await released;
    });
    await held;
    const move = () => advertiser.client.put(`/api/advertiser/users/${clientId}`, { balance: 4 }, keyed(key));
    const attempts = [move(), move()];
    const firstAnswer = await Promise.race(attempts);
    assert.equal(firstAnswer.status, 409, firstAnswer.text);
    release();
    await holder;
    const answers = await Promise.all(attempts);
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 409]);
    const retry = await move();
    assert.equal(retry.status, 200);
    assert.equal(retry.header('Idempotent-Replayed'), 'true');
    assert.equal(await balanceMicros(db, clientId), before + 4_000_000);
  });

  it('a balance move retried concurrently on two instances moves the money once', async () => {
    const second = await startTestServer({ database: server.server.context.database });
    try {
      const onSecond = new TestClient(second.url, second.tls.cert, advertiser.client.defaultToken);
      for (let round = 0; round < 5; round += 1) {
        const key = newKey('race');
        const before = await balanceMicros(db, clientId);
        const rowsBefore = await ledgerRows(db, clientId, 'client_transfer');
        const tries: Promise<TestResponse>[] = [];
        for (let index = 0; index < 8; index += 1) {
          const target = index % 2 === 0 ? advertiser.client : onSecond;
          tries.push(target.put(`/api/advertiser/users/${clientId}`, { balance: 0.5 }, keyed(key)));
        }
        const answers = await Promise.all(tries);
        for (const answer of answers) assert.ok([200, 409].includes(answer.status), `${answer.status} ${answer.text}`);
        assert.ok(answers.some((answer) => answer.status === 200));
        assert.equal(await balanceMicros(db, clientId), before + 500_000, `round ${round}: moved once`);
        assert.equal(await ledgerRows(db, clientId, 'client_transfer'), rowsBefore + 1);
      }
      onSecond.close();
    } finally {
      await second.close();
    }
    await assertEveryBalanceIsItsLedger(db);
  });

  it('every guarded route stores and replays its answer, and runs its effect once', async () => {
    const publisher = await server.createAccount('publisher');
    await server.operator.post(`/api/admin/users/${publisher.id}/balance`, { amount: 50, comment: 'earned' });
    const campaignId = (await advertiser.client.post('/api/advertiser/campaigns', { title: 'Replays', category_id: 2 })).json()
      .id;
    const siteId = (
      await publisher.client.post('/api/webmaster/sites', { url: `https://replays-${process.pid}.example`, category_id: 1 })
    ).json().id;
    const payoutId = (
      await server.operator.post('/api/admin/payouts', { userId: publisher.id, amount: 1, wallet: 'iban:1' })
    ).json().id;
    const calls: [string, TestClient, string, string, unknown][] = [
      [
        'advertiser client',
        advertiser.client,
        'POST',
        '/api/advertiser/users',
        { user: `replay_${process.pid}`, email: `replay_${process.pid}@example.test` },
      ],
      ['campaign', advertiser.client, 'POST', '/api/advertiser/campaigns', { title: 'Replayed', category_id: 2 }],
      ['ad', advertiser.client, 'POST', '/api/advertiser/offers', await offerFields(campaignId)],
      [
        'site',
        publisher.client,
        'POST',
        '/api/webmaster/sites',
        { url: `https://replayed-${process.pid}.example`, category_id: 1 },
      ],
      ['block', publisher.client, 'POST', `/api/webmaster/sites/${siteId}/blocks`, { title: 'Replayed', count: 3 }],
      [
        'account',
        server.operator,
        'POST',
        '/api/admin/users',
        { type: 'advertiser', username: `replayed_${process.pid}`, email: `replayed_${process.pid}@example.test` },
      ],
      ['credit', server.operator, 'POST', `/api/admin/users/${publisher.id}/balance`, { amount: 2, comment: 'bonus' }],
      ['payout', server.operator, 'POST', '/api/admin/payouts', { userId: publisher.id, amount: 3, wallet: 'iban:2' }],
      ['payout status', server.operator, 'PUT', `/api/admin/payouts/${payoutId}`, { status: 'cancelled' }],
    ];
    for (const [what, client, method, path, body] of calls) {
      const key = newKey(what);
      const ledgerBefore = await db.selectFrom('ledger_entries').select('id').execute();
      const first = await client.request(method, path, { body, ...keyed(key) });
      assert.ok(first.status === 200 || first.status === 201, `${what}: ${first.status} ${first.text}`);
      const ledgerAfter = await db.selectFrom('ledger_entries').select('id').execute();
      const retry = await client.request(method, path, { body, ...keyed(key) });
      assert.equal(retry.status, first.status, what);
      assert.equal(retry.header('Idempotent-Replayed'), 'true', what);
      assert.equal(retry.header('Location'), first.header('Location'), what);
      assert.equal(retry.text, first.text, what);
      const ledgerReplayed = await db.selectFrom('ledger_entries').select('id').execute();
      assert.equal(ledgerReplayed.length, ledgerAfter.length, `${what}: the replay moved no money`);
      if (['credit', 'payout', 'payout status'].includes(what)) assert.equal(ledgerAfter.length, ledgerBefore.length + 1, what);
    }
    const replayedCampaigns = await db.selectFrom('campaigns').select('id').where('title', '=', 'Replayed').execute();
    assert.equal(replayedCampaigns.length, 1);
    const blocks = await db.selectFrom('blocks').select('id').where('site_id', '=', siteId).execute();
    assert.equal(blocks.length, 1);
  });

  it('documents the header on exactly the guarded routes', async () => {
    const document = (await server.anonymous.get('/api/openapi.json')).json();
    const guarded: string[] = [];
    for (const [path, methods] of Object.entries<Record<string, { parameters?: { in: string; name: string }[] }>>(
      document.paths,
    )) {
      for (const [method, operation] of Object.entries(methods)) {
        const names = (operation.parameters ?? [])
          .filter((parameter) => parameter.in === 'header')
          .map((p) => p.name.toLowerCase());
        if (names.includes('idempotency-key')) guarded.push(`${method.toUpperCase()} ${path}`);
      }
    }
    assert.deepEqual(guarded.sort(), [
      'PATCH /api/admin/users/{id}',
      'POST /api/admin/invalid-traffic/reviews/{id}/actions',
      'POST /api/admin/payouts',
      'POST /api/admin/refunds',
      'POST /api/admin/users',
      'POST /api/admin/users/{id}/balance',
      'POST /api/advertiser/campaigns',
      'POST /api/advertiser/campaigns/duplicate',
      'POST /api/advertiser/offers',
      'POST /api/advertiser/offers/duplicate',
      'POST /api/advertiser/users',
      'POST /api/webmaster/sites',
      'POST /api/webmaster/sites/{id}/blocks',
      'PUT /api/admin/payouts/{id}',
      'PUT /api/advertiser/users/{id}',
    ]);
  });
});
