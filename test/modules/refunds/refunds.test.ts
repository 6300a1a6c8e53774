// Refunds of invalid clicks over HTTPS: by click ids and by range, dry run against run, a click
// refunded once, a publisher whose balance was paid out, the rollup's refunded counters, the
// advertiser's and the publisher's lists, and who may call what.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../../src/db/database.ts';
import { findOrCreatePlatformAccount } from '../../../src/modules/ledger/ledger.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer } from '../../helpers/server.ts';
import {
  assertCampaignRollupMatchesAdRollup,
  assertClicksMatchTheirLedgerRows,
  assertEveryBalanceIsItsLedger,
  balanceOf,
  createWorld,
  DESKTOP_UA,
  engineOf,
  pathOf,
  type World,
} from '../../helpers/serving.ts';

/** Serves the world's block `count` times and follows every teaser's link once; returns the billed click ids. */
async function clickThrough(server: TestServer, world: World, count: number): Promise<string[]> {
  const db = server.server.context.db;
  for (let index = 0; index < count; index += 1) {
    const response = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
      headers: { 'User-Agent': DESKTOP_UA },
    });
    for (const teaser of response.json<{ teasers: { url: string }[] }>().teasers) {
      const click = await server.anonymous.get(pathOf(teaser.url), { headers: { 'User-Agent': DESKTOP_UA } });
      assert.equal(click.status, 302);
    }
  }
  await engineOf(server).settled();
  const rows = await db
    .selectFrom('clicks')
    .select('click_id')
    .where('site_id', '=', world.siteId)
    .where('status', '=', 'billed')
    .orderBy('created_at')
    .orderBy('click_id')
    .execute();
  return rows.map((row) => row.click_id);
}

async function clickMoney(db: Db, clickIds: readonly string[]) {
  const rows = await db
    .selectFrom('clicks')
    .selectAll()
    .where('click_id', 'in', [...clickIds])
    .execute();
  const sum = (key: 'charge_micros' | 'publisher_micros' | 'margin_micros') => rows.reduce((total, row) => total + row[key], 0);
  return { charge: sum('charge_micros'), share: sum('publisher_micros'), margin: sum('margin_micros') };
}

const amountOf = (micros: number) => Math.round(micros / 100) / 10_000;

describe('refunds of invalid clicks', () => {
  let server: TestServer;
  let db: Db;
  let platformId: number;
  before(async () => {
    server = await startTestServer();
    db = server.server.context.db;
    platformId = await findOrCreatePlatformAccount(db);
  });
  after(() => server.close());

  it('refunds clicks by id: a dry run says exactly what the run then moves, and a click is refunded once', async () => {
    const world = await createWorld(server);
    const clickIds = await clickThrough(server, world, 3);
    assert.equal(clickIds.length, 6);
    const chosen = clickIds.slice(0, 4);
    const money = await clickMoney(db, chosen);
    const before = {
      advertiser: await balanceOf(db, world.advertiserId),
      publisher: await balanceOf(db, world.publisherId),
      platform: await balanceOf(db, platformId),
    };
    const body = { clickIds: [...chosen, 'no-such-click'], reason: 'bot', comment: 'crawler' };

    const dry = await server.operator.post('/api/admin/refunds', { ...body, dryRun: true });
    assert.equal(dry.status, 200, dry.text);
    const preview = dry.json();
    assert.equal(preview.id, null);
    assert.equal(preview.dryRun, true);
    assert.equal(await balanceOf(db, world.advertiserId), before.advertiser, 'a dry run moves no money');
    assert.equal((await db.selectFrom('refunds').selectAll().execute()).length, 0, 'a dry run records no refund');

    const run = await server.operator.post('/api/admin/refunds', body);
    assert.equal(run.status, 201, run.text);
    const refund = run.json();
    assert.match(run.header('location') ?? '', new RegExp(`/api/admin/refunds/${refund.id}$`));
    const { id, dryRun, date, ...figures } = refund;
    const { id: _id, dryRun: _dry, date: _date, ...previewFigures } = preview;
    assert.deepEqual(figures, previewFigures, 'the dry run and the run move the same money');
    assert.equal(dryRun, false);
    assert.equal(date, new Date(server.clock.now()).toISOString());
    assert.equal(refund.clicks, 4);
    assert.equal(refund.amount, amountOf(money.charge));
    assert.equal(refund.publisherReversed, amountOf(money.share));
    assert.equal(refund.publisherUnrecovered, 0);
    assert.equal(refund.marginReversed, amountOf(money.margin));
    assert.deepEqual(refund.advertisers, [{ userId: world.advertiserId, clicks: 4, amount: amountOf(money.charge) }]);
    assert.deepEqual(refund.publishers, [
      { userId: world.publisherId, clicks: 4, reversed: amountOf(money.share), unrecovered: 0 },
    ]);
    assert.deepEqual(refund.skipped, [{ clickId: 'no-such-click', why: 'unknown' }]);

    assert.equal(await balanceOf(db, world.advertiserId), before.advertiser + money.charge);
    assert.equal(await balanceOf(db, world.publisherId), before.publisher - money.share);
    assert.equal(await balanceOf(db, platformId), before.platform - money.margin);
    const ledger = await db
      .selectFrom('ledger_entries')
      .select(['account_id', 'kind', 'amount_micros', 'comment'])
      .where('reference', '=', String(id))
      .where('kind', 'like', 'refund_%')
      .orderBy('id')
      .execute();
    assert.deepEqual(ledger, [
      { account_id: world.advertiserId, kind: 'refund_charge', amount_micros: money.charge, comment: 'bot: 4 clicks' },
      { account_id: world.publisherId, kind: 'refund_revenue', amount_micros: -money.share, comment: 'bot: 4 clicks' },
      { account_id: platformId, kind: 'refund_margin', amount_micros: -money.margin, comment: 'bot: 4 clicks' },
    ]);
    await assertEveryBalanceIsItsLedger(db);
    await assertClicksMatchTheirLedgerRows(db);

    const again = await server.operator.post('/api/admin/refunds', { clickIds: chosen, reason: 'manual' });
    assert.equal(again.status, 422, 'nothing left to refund');
    assert.equal(again.json().errors[0].field, 'clickIds');
    const againDry = await server.operator.post('/api/admin/refunds', { clickIds: chosen, reason: 'manual', dryRun: true });
    assert.equal(againDry.json().clicks, 0);
    assert.deepEqual(
      againDry.json().skipped.map((skip: { why: string }) => skip.why),
      ['refunded', 'refunded', 'refunded', 'refunded'],
    );
    assert.equal(await balanceOf(db, world.advertiserId), before.advertiser + money.charge, 'a second refund moves nothing');

    const stored = await server.operator.get(`/api/admin/refunds/${id}`);
    assert.equal(stored.status, 200);
    // A stored refund no longer knows the request's click ids, so it lists none as skipped.
    const storedRefund = { ...refund, skipped: [] };
    assert.deepEqual(stored.json(), storedRefund);
    const list = await server.operator.get('/api/admin/refunds?reason=bot');
    assert.deepEqual(list.json(), [storedRefund]);
    assert.equal(list.header('x-pagination-total-count'), '1');
  });

  it('refunds a click once when two refunds of it run at the same time', async () => {
    const world = await createWorld(server);
    const clickIds = await clickThrough(server, world, 2);
    const money = await clickMoney(db, clickIds);
    const before = await balanceOf(db, world.advertiserId);
    const responses = await Promise.all(
      ['bot', 'manual', 'duplicate'].map((reason) => server.operator.post('/api/admin/refunds', { clickIds, reason })),
    );
    const statuses = responses.map((response) => response.status).sort();
    // The first to lock the balances refunds; the others find nothing left (422) or, having read the
    // clicks before it committed, lose the race for the click rows (409) and change nothing.
    assert.equal(statuses.filter((status) => status === 201).length, 1, statuses.join(', '));
    assert.ok(
      statuses.every((status) => [201, 409, 422].includes(status)),
      statuses.join(', '),
    );
    assert.equal(await balanceOf(db, world.advertiserId), before + money.charge, 'the money moved once');
    const rows = await db.selectFrom('refunded_clicks').select('click_id').where('click_id', 'in', clickIds).execute();
    assert.equal(rows.length, clickIds.length);
    await assertEveryBalanceIsItsLedger(db);
  });

  it('refunds the billed clicks of a site, an address range and a time range', async () => {
    const world = await createWorld(server);
    const early = await clickThrough(server, world, 2);
    server.clock.advance(3_600_000);
    const from = new Date(server.clock.now()).toISOString();
    const all = await clickThrough(server, world, 2);
    const late = all.filter((clickId) => !early.includes(clickId));
    const to = new Date(server.clock.now() + 1).toISOString();
    const elsewhere = await server.operator.post('/api/admin/refunds', {
      siteId: world.siteId,
      network: '10.0.0.0/8',
      from,
      to,
      reason: 'datacenter',
      dryRun: true,
    });
    assert.equal(elsewhere.status, 200, elsewhere.text);
    assert.equal(elsewhere.json().clicks, 0, 'no click came from 10.0.0.0/8');

    const response = await server.operator.post('/api/admin/refunds', {
      siteId: world.siteId,
      network: '127.0.0.0/8',
      from,
      to,
      reason: 'datacenter',
    });
    assert.equal(response.status, 201, response.text);
    const refunded = await db
      .selectFrom('refunded_clicks')
      .select('click_id')
      .where('refund_id', '=', response.json().id)
      .execute();
    assert.deepEqual(refunded.map((row) => row.click_id).sort(), [...late].sort(), 'the clicks of the range, and only those');

    const byBlock = await server.operator.post('/api/admin/refunds', {
      blockId: world.blockId,
      from: new Date(TEST_EPOCH_MS - 86_400_000).toISOString(),
      to,
      reason: 'click_flood',
      dryRun: true,
    });
    assert.equal(byBlock.json().clicks, early.length, 'the block range leaves out the clicks already refunded');
  });

  it('adds refunded clicks and money to the rollups on the click’s own day', async () => {
    const world = await createWorld(server);
    const clickIds = await clickThrough(server, world, 2);
    const clickDay = new Date(server.clock.now()).toISOString().slice(0, 10);
    server.clock.advance(2 * 86_400_000);
    const money = await clickMoney(db, clickIds.slice(0, 3));
    const response = await server.operator.post('/api/admin/refunds', { clickIds: clickIds.slice(0, 3), reason: 'duplicate' });
    assert.equal(response.status, 201, response.text);
    const rows = await db
      .selectFrom('stats_daily')
      .select((eb) => [
        'day',
        eb.fn.sum<number>('clicks').as('clicks'),
        eb.fn.sum<number>('refunded_clicks').as('refunded_clicks'),
        eb.fn.sum<number>('refunded_spend_micros').as('refunded_spend'),
        eb.fn.sum<number>('refunded_publisher_income_micros').as('refunded_income'),
      ])
      .where('site_id', '=', world.siteId)
      .groupBy('day')
      .execute();
    assert.deepEqual(
      rows.map((row) => ({
        day: String(row.day).slice(0, 10),
        clicks: Number(row.clicks),
        refunded: Number(row.refunded_clicks),
        spend: Number(row.refunded_spend),
        income: Number(row.refunded_income),
      })),
      [{ day: clickDay, clicks: clickIds.length, refunded: 3, spend: money.charge, income: money.share }],
    );
    await assertCampaignRollupMatchesAdRollup(db);
  });

  it('reports what a publisher already paid out cannot give back, and the platform bears it', async () => {
    const world = await createWorld(server);
    const clickIds = await clickThrough(server, world, 2);
    const money = await clickMoney(db, clickIds);
    const earned = await balanceOf(db, world.publisherId);
    assert.equal(earned, money.share);
    // Everything but one micro-unit above the first click's share is paid out.
    const [first] = await db
      .selectFrom('clicks')
      .selectAll()
      .where('click_id', '=', clickIds[0] as string)
      .execute();
    const keep = (first?.publisher_micros ?? 0) + 100;
    const payout = await server.operator.post('/api/admin/payouts', {
      userId: world.publisherId,
      amount: (earned - keep) / 1_000_000,
      wallet: 'bank',
      status: 'paid',
    });
    assert.equal(payout.status, 201, payout.text);
    const unrecovered = money.share - keep;
    // The platform's balance taken down to under 100 micro-units (amounts have 4 fraction digits): it
    // cannot bear the shares already paid out, so the refund is refused and changes nothing.
    const reserve = Math.floor((await balanceOf(db, platformId)) / 100) * 100;
    if (reserve > 0) {
      const withdrawn = await server.operator.post(`/api/admin/users/${platformId}/balance`, {
        amount: -reserve / 1_000_000,
        comment: 'test: an empty platform',
      });
      assert.equal(withdrawn.status, 200, withdrawn.text);
    }
    const short = money.margin + unrecovered - (await balanceOf(db, platformId));
    assert.ok(short > 0);
    const preview = await server.operator.post('/api/admin/refunds', { clickIds, reason: 'publisher_fraud', dryRun: true });
    assert.equal(preview.json().platformShortfall, amountOf(short));
    const refused = await server.operator.post('/api/admin/refunds', { clickIds, reason: 'publisher_fraud' });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(await balanceOf(db, world.publisherId), keep, 'a refused refund moves nothing');
    const funded = await server.operator.post(`/api/admin/users/${platformId}/balance`, {
      amount: 10,
      comment: 'reserve for refunds',
    });
    assert.equal(funded.status, 200, funded.text);

    const platformBefore = await balanceOf(db, platformId);
    const advertiserBefore = await balanceOf(db, world.advertiserId);
    const response = await server.operator.post('/api/admin/refunds', { clickIds, reason: 'publisher_fraud' });
    assert.equal(response.status, 201, response.text);
    const refund = response.json();
    assert.equal(refund.publisherReversed, amountOf(keep));
    assert.equal(refund.publisherUnrecovered, amountOf(unrecovered));
    assert.equal(await balanceOf(db, world.publisherId), 0, 'the publisher balance stops at zero');
    assert.equal(await balanceOf(db, world.advertiserId), advertiserBefore + money.charge, 'the advertiser gets it all back');
    assert.equal(await balanceOf(db, platformId), platformBefore - money.margin - unrecovered, 'the platform bears the rest');
    const borne = await db
      .selectFrom('ledger_entries')
      .select(['account_id', 'amount_micros', 'counterparty_id'])
      .where('reference', '=', String(refund.id))
      .where('kind', '=', 'refund_unrecovered')
      .execute();
    assert.deepEqual(borne, [{ account_id: platformId, amount_micros: -unrecovered, counterparty_id: world.publisherId }]);
    const perClick = await db
      .selectFrom('refunded_clicks')
      .select((eb) => [
        eb.fn.sum<number>('publisher_reversed_micros').as('reversed'),
        eb.fn.sum<number>('publisher_unrecovered_micros').as('unrecovered'),
      ])
      .where('refund_id', '=', refund.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual([Number(perClick.reversed), Number(perClick.unrecovered)], [keep, unrecovered]);
    await assertEveryBalanceIsItsLedger(db);
  });

  it('lists refunded clicks with their reasons to their advertiser and publisher only', async () => {
    const world = await createWorld(server);
    const clickIds = await clickThrough(server, world, 1);
    const refund = await server.operator.post('/api/admin/refunds', { clickIds, reason: 'click_flood' });
    assert.equal(refund.status, 201, refund.text);
    const clicks = await db.selectFrom('clicks').selectAll().where('click_id', 'in', clickIds).execute();

    const advertiserList = await world.advertiser.get('/api/advertiser/refunds');
    assert.equal(advertiserList.status, 200, advertiserList.text);
    const listed =
      advertiserList.json<{ clickId: string; reason: string; amount: number; offerId: number; refundId: number }[]>();
    assert.deepEqual(listed.map((row) => row.clickId).sort(), [...clickIds].sort());
    for (const row of listed) {
      const click = clicks.find((candidate) => candidate.click_id === row.clickId);
      assert.equal(row.reason, 'click_flood');
      assert.equal(row.refundId, refund.json().id);
      assert.equal(row.amount, amountOf(click?.charge_micros ?? -1));
      assert.equal(row.offerId, click?.offer_id);
    }
    const filtered = await world.advertiser.get('/api/advertiser/refunds?reason=bot');
    assert.deepEqual(filtered.json(), []);

    const publisherList = await world.publisher.get('/api/webmaster/refunds');
    assert.equal(publisherList.status, 200, publisherList.text);
    const reversed = publisherList.json<{ clickId: string; income: number; unrecovered: number }[]>();
    assert.deepEqual(reversed.map((row) => row.clickId).sort(), [...clickIds].sort());
    for (const row of reversed) {
      const click = clicks.find((candidate) => candidate.click_id === row.clickId);
      assert.equal(row.income, amountOf(click?.publisher_micros ?? -1));
      assert.equal(row.unrecovered, 0);
    }

    const stranger = await server.createAccount('advertiser');
    assert.deepEqual((await stranger.client.get('/api/advertiser/refunds')).json(), [], 'another advertiser sees none of them');
    assert.equal((await world.publisher.get('/api/advertiser/refunds')).status, 403);
    assert.equal((await world.advertiser.get('/api/webmaster/refunds')).status, 403);
    assert.equal((await world.advertiser.post('/api/admin/refunds', { clickIds, reason: 'bot' })).status, 403);
    assert.equal((await world.publisher.get('/api/admin/refunds')).status, 403);
    assert.equal((await server.anonymous.get('/api/advertiser/refunds')).status, 401);
    assert.equal((await server.operator.get('/api/admin/refunds/999999')).status, 404);
  });

  it('refuses a selection that is not one kind or is incomplete, naming the fields, and changes nothing', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ reason: 'bot' }, ['from', 'to', 'siteId']],
      [{ clickIds: ['a'], siteId: 1, reason: 'bot' }, ['clickIds']],
      [{ siteId: 1, from: '2026-03-10T00:00:00Z', to: '2026-03-09T00:00:00Z', reason: 'bot' }, ['to']],
      [{ network: '300.1.2.3/8', from: '2026-03-10T00:00:00Z', to: '2026-03-11T00:00:00Z', reason: 'bot' }, ['network']],
      [{ network: '10.0.0.0/33', from: '2026-03-10T00:00:00Z', to: '2026-03-11T00:00:00Z', reason: 'bot' }, ['network']],
      [{ clickIds: ['a'], reason: 'weather' }, ['reason']],
      [{ clickIds: ['a'], reason: 'bot', extra: 1 }, ['extra']],
    ];
    const refundsBefore = (await db.selectFrom('refunds').select('id').execute()).length;
    for (const [body, fields] of cases) {
      const response = await server.operator.post('/api/admin/refunds', body);
      assert.equal(response.status, 422, `${JSON.stringify(body)}: ${response.text}`);
      const named = response.json<{ errors: { field: string }[] }>().errors.map((error) => error.field);
      for (const field of fields) assert.ok(named.includes(field), `${JSON.stringify(body)} names ${field}: ${named.join(', ')}`);
    }
    assert.equal((await db.selectFrom('refunds').select('id').execute()).length, refundsBefore);
  });
});

describe('automatic refund of click floods', () => {
  let server: TestServer;
  before(async () => {
    // The sweep's timer is an hour apart: the test sweeps itself, on the injected clock.
    server = await startTestServer({ config: { clickFlood: { maxClicks: 3, windowMs: 60_000, sweepMs: 3_600_000 } } });
  });
  after(() => server.close());

  it('refunds the clicks beyond the allowance from one address on one block, once, as click_flood', async () => {
    const db = server.server.context.db;
    const detector = server.server.context.clickFloods;
    assert.ok(detector, 'the rule is on');
    const world = await createWorld(server);
    const burst = await clickThrough(server, world, 3);
    assert.equal(burst.length, 6);
    server.clock.advance(120_000);
    const calm = (await clickThrough(server, world, 1)).filter((clickId) => !burst.includes(clickId));
    assert.equal(calm.length, 2);
    const advertiserBefore = await balanceOf(db, world.advertiserId);

    const result = await detector.sweep();
    assert.ok(result);
    assert.equal(result.reason, 'click_flood');
    assert.equal(result.createdBy, null);
    const ordered = [...burst].sort();
    const refunded = await db.selectFrom('refunded_clicks').select('click_id').where('refund_id', '=', result.id).execute();
    assert.deepEqual(
      refunded.map((row) => row.click_id).sort(),
      ordered.slice(3),
      'the burst came in one instant: the three after the allowance, by click id, are refunded',
    );
    const money = await clickMoney(db, ordered.slice(3));
    assert.equal(await balanceOf(db, world.advertiserId), advertiserBefore + money.charge);
    assert.deepEqual(
      result.events.map((event) => [event.type, event.accountId, event.data.role, event.data.clicks]),
      [
        ['clicks.refunded', world.advertiserId, 'advertiser', 3],
        ['clicks.refunded', world.publisherId, 'publisher', 3],
      ],
    );
    assert.equal(await detector.sweep(), undefined, 'a flood is refunded once');
    const listed = await world.advertiser.get('/api/advertiser/refunds?reason=click_flood');
    assert.equal(listed.json().length, 3);
    await assertEveryBalanceIsItsLedger(db);
  });
});
