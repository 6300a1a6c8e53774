import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../../src/db/database.ts';
import { findOrCreatePlatformAccount } from '../../../src/modules/ledger/ledger.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite } from '../../helpers/fixtures.ts';
import type { TestClient, TestResponse } from '../../helpers/http-client.ts';
import { seededRandom } from '../../helpers/random.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import {
  assertClicksMatchTheirLedgerRows,
  assertEveryBalanceIsItsLedger,
  DESKTOP_UA,
  engineOf,
  pathOf,
} from '../../helpers/serving.ts';

/**
 * Money conservation under retries (docs/adr/0012, docs/adr/0017): a seeded random mix of billed
 * clicks, operator credits, client balance moves, payouts and refunds (by click ids and by site/block
 * and time range, with dry runs now and then), each keyed call sent once or retried — one after the
 * other or all at once. Afterwards every balance equals its ledger, each keyed call took effect exactly
 * once when its first answer was a success (a retried refund is one refunds row and one set of ledger rows),
 * the money in the accounts is what operators credited minus what they paid out, the click
 * settlements' audit entries sum to their ledger, and the statistics' refunded counters are the refunds.
 */

const REASONS = ['bot', 'duplicate', 'datacenter', 'click_flood', 'publisher_fraud', 'manual'];

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

async function ledgerTotal(db: Db, kind?: string): Promise<number> {
  let query = db
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_micros'), eb.lit(0)).as('sum'));
  if (kind !== undefined) query = query.where('kind', '=', kind);
  return Number((await query.executeTakeFirstOrThrow()).sum);
}

async function ledgerRows(db: Db, kind: string): Promise<number> {
  const rows = await db.selectFrom('ledger_entries').select('id').where('kind', '=', kind).execute();
  return rows.length;
}

describe('money is conserved with retried idempotent calls', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('every balance is its ledger and every keyed effect happened once', async () => {
    const db = server.server.context.db;
    const random = seededRandom(16_000_016);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    let keyCounter = 0;

    /** Sends a keyed call once, or several times (in turn or at once); returns its answers. */
    const sendKeyed = async (send: (headers: Record<string, string>) => Promise<TestResponse>): Promise<TestResponse[]> => {
      keyCounter += 1;
      const headers = { 'Idempotency-Key': `conservation-${keyCounter}` };
      const copies = 1 + Math.floor(random() * 4);
      if (random() < 0.5) return Promise.all(Array.from({ length: copies }, () => send(headers)));
      const answers: TestResponse[] = [];
      for (let copy = 0; copy < copies; copy += 1) answers.push(await send(headers));
      return answers;
    };
    /** A keyed call's effect: whether one of its answers was a success, the others replays of it or 409s. */
    const tookEffect = (answers: TestResponse[]): boolean => {
      const successes = answers.filter((answer) => answer.status === 200 || answer.status === 201);
      for (const answer of answers) assert.ok([200, 201, 409, 422].includes(answer.status), `${answer.status} ${answer.text}`);
      if (successes.length === 0) return false;
      const originals = successes.filter((answer) => answer.header('Idempotent-Replayed') !== 'true');
      assert.equal(originals.length, 1, 'one answer ran the call; the others are replays');
      for (const replay of successes) assert.equal(replay.text, originals[0]?.text);
      return true;
    };

    const credited: number[] = [];
    const paidOut: number[] = [];
    let moves = 0;
    const advertisers: { id: number; client: TestClient; clientId: number }[] = [];
    for (let index = 0; index < 3; index += 1) {
      const advertiser = await server.createAccount('advertiser');
      const amount = 5 + index * 20;
      const answers = await sendKeyed((headers) =>
        server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount, comment: 'seed' }, { headers }),
      );
      if (tookEffect(answers)) credited.push(amount * 1_000_000);
      const created = await sendKeyed((headers) =>
        advertiser.client.post(
          '/api/advertiser/users',
          { user: `cons${index}_${process.pid}`, email: `cons${index}_${process.pid}@example.test` },
          { headers },
        ),
      );
      assert.ok(tookEffect(created));
      advertisers.push({ ...advertiser, clientId: created.find((answer) => answer.status === 201)?.json().id });
      const campaign = await insertCampaign(db, { advertiserId: advertiser.id });
      for (let offer = 0; offer < 2; offer += 1) {
        await insertOffer(db, { campaignId: campaign.id, bidMicros: 20_000 + Math.floor(random() * 200_000) });
      }
    }
    // The platform's reserve for refunds (as refunds.test.ts funds it): a refund reverses the
    // platform's margin; the deposit is a keyed credit like the others.
    const platformId = await findOrCreatePlatformAccount(db);
    const reserve = await sendKeyed((headers) =>
      server.operator.post(`/api/admin/users/${platformId}/balance`, { amount: 2, comment: 'refund reserve' }, { headers }),
    );
    if (tookEffect(reserve)) credited.push(2_000_000);
    const publishers: number[] = [];
    const blocks: { id: number; siteId: number }[] = [];
    for (let index = 0; index < 2; index += 1) {
      const publisher = await server.createAccount('publisher');
      publishers.push(publisher.id);
      const site = await insertSite(db, { publisherId: publisher.id });
      blocks.push({ id: (await insertBlock(db, { siteId: site.id, teaserCount: 3 })).id, siteId: site.id });
    }
    await engineOf(server).refresh();

    /** The refunds that took effect, by id, with their answers' figures; and the dry runs answered. */
    const refunds = new Map<number, { by: 'ids' | 'range'; clicks: number; amount: number }>();
    let dryRuns = 0;
    /** Sends a keyed refund (once or retried); a dry run moves nothing, a run records one refund. */
    const refund = async (body: Record<string, unknown>) => {
      await engineOf(server).settled();
      const earlier = await db.selectFrom('refunds').select('id').execute();
      const answers = await sendKeyed((headers) => server.operator.post('/api/admin/refunds', body, { headers }));
      if (!tookEffect(answers)) return;
      const answer = answers.find((each) => each.status === 200 || each.status === 201) as TestResponse;
      const figures = answer.json<{ id: number | null; dryRun: boolean; clicks: number; amount: number }>();
      if (body.dryRun === true) {
        assert.equal(answer.status, 200, answer.text);
        assert.equal(figures.id, null);
        assert.equal((await db.selectFrom('refunds').select('id').execute()).length, earlier.length, 'a dry run records nothing');
        dryRuns += 1;
        return;
      }
      assert.equal(answer.status, 201, answer.text);
      assert.ok(figures.id !== null && !refunds.has(figures.id), 'a new refund');
      refunds.set(figures.id, { by: 'clickIds' in body ? 'ids' : 'range', clicks: figures.clicks, amount: figures.amount });
      assert.equal((await db.selectFrom('refunds').select('id').execute()).length, earlier.length + 1, 'one refund per key');
    };

    for (let step = 0; step < 100; step += 1) {
      const roll = random();
      if (roll < 0.4) {
        const teasers = await server.anonymous.get(`/api/serve/blocks/${pick(blocks).id}/teasers`, {
          headers: { 'User-Agent': DESKTOP_UA },
        });
        for (const teaser of teasers.json<{ teasers: { url: string }[] }>().teasers) {
          if (random() < 0.5) {
            const click = await server.anonymous.get(pathOf(teaser.url), { headers: { 'User-Agent': DESKTOP_UA } });
            assert.equal(click.status, 302);
          }
        }
      } else if (roll < 0.52) {
        await engineOf(server).settled();
        const billed = await db.selectFrom('clicks').select('click_id').where('status', '=', 'billed').execute();
        const chosen = billed.filter(() => random() < 0.2).map((row) => row.click_id);
        if (random() < 0.3 && billed.length > 0) chosen.push(pick(billed).click_id);
        if (chosen.length === 0) continue;
        await refund({ clickIds: [...new Set(chosen)], reason: pick(REASONS), dryRun: random() < 0.2 });
      } else if (roll < 0.58) {
        const block = pick(blocks);
        const now = server.clock.now();
        const where = random() < 0.5 ? { blockId: block.id } : { siteId: block.siteId };
        await refund({
          ...where,
          from: new Date(now - Math.floor(random() * 600_000)).toISOString(),
          to: new Date(now + 1).toISOString(),
          reason: pick(REASONS),
          dryRun: random() < 0.25,
        });
      } else if (roll < 0.7) {
        const advertiser = pick(advertisers);
        const amount = Math.round((random() * 4 - 1) * 10_000) / 10_000 || 0.5;
        const answers = await sendKeyed((headers) =>
          advertiser.client.put(`/api/advertiser/users/${advertiser.clientId}`, { balance: amount }, { headers }),
        );
        if (tookEffect(answers)) moves += 1;
      } else if (roll < 0.83) {
        const publisher = pick(publishers);
        const balance = (
          await db.selectFrom('accounts').select('balance_micros').where('id', '=', publisher).executeTakeFirstOrThrow()
        ).balance_micros;
        if (balance < 10_000) continue;
        // Whole 0.0001s (100 micros) up to the balance.
        const amountMicros = Math.max(100, Math.floor((balance * random()) / 100) * 100);
        const answers = await sendKeyed((headers) =>
          server.operator.post(
            '/api/admin/payouts',
            { userId: publisher, amount: amountMicros / 1_000_000, wallet: 'iban:x' },
            { headers },
          ),
        );
        if (tookEffect(answers)) paidOut.push(amountMicros);
      } else {
        const advertiser = pick(advertisers);
        const amount = Math.round(random() * 30_000) / 10_000 + 0.0001;
        const answers = await sendKeyed((headers) =>
          server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount, comment: 'top-up' }, { headers }),
        );
        if (tookEffect(answers)) credited.push(Math.round(amount * 1_000_000));
      }
      if (random() < 0.1) server.clock.advance(60_000);
    }
    await engineOf(server).settled();

    await assertEveryBalanceIsItsLedger(db);
    await assertClicksMatchTheirLedgerRows(db);
    assert.equal(await ledgerRows(db, 'client_transfer'), 2 * moves, 'each move once: two ledger rows');
    assert.equal(await ledgerRows(db, 'payout'), paidOut.length, 'each payout once');
    assert.equal(await ledgerTotal(db, 'payout'), -sum(paidOut));
    assert.equal(await ledgerTotal(db, 'deposit'), sum(credited), 'each credit once');
    const balances = await db.selectFrom('accounts').select('balance_micros').execute();
    assert.equal(
      sum(balances.map((row) => row.balance_micros)),
      sum(credited) - sum(paidOut),
      'the money in all accounts is what was credited minus what was paid out',
    );
    assert.equal(await ledgerTotal(db), sum(credited) - sum(paidOut));
    assert.ok(moves > 0 && paidOut.length > 0, 'the run moved money between clients and paid publishers out');

    const charged = -(await ledgerTotal(db, 'click_charge'));
    assert.ok(charged > 0, 'the run billed clicks');
    const settlements = await db.selectFrom('audit_entries').select('after').where('action', '=', 'clicks.settle').execute();
    assert.equal(
      sum(settlements.map((entry) => (entry.after as { chargedMicros: number }).chargedMicros)),
      charged,
      'the settlements’ audit entries sum to the click charges',
    );
    const keyedEntries = await db
      .selectFrom('audit_entries')
      .select('id')
      .where('action', 'in', ['client.balance_move', 'payout.create', 'clicks.refund'])
      .execute();
    assert.equal(keyedEntries.length, moves + paidOut.length + refunds.size, 'one audit entry per effect, none per replay');

    // Each refund that took effect is one refunds row whose ledger rows (by its reference) move its
    // money once; refunds move money between parties and sum to zero.
    const by = (kind: 'ids' | 'range') => [...refunds.values()].filter((each) => each.by === kind).length;
    assert.ok(
      by('ids') > 1 && by('range') > 1 && dryRuns > 0,
      `refunds by ids ${by('ids')}, by range ${by('range')}, dry runs ${dryRuns}`,
    );
    const stored = await db.selectFrom('refunds').selectAll().execute();
    assert.deepEqual(
      stored.map((row) => row.id).sort((a, b) => a - b),
      [...refunds.keys()].sort((a, b) => a - b),
      'one refunds row per refund that took effect',
    );
    for (const row of stored) {
      const answered = refunds.get(row.id);
      assert.equal(row.clicks, answered?.clicks);
      assert.equal(Math.round(row.refunded_micros / 100) / 10_000, answered?.amount);
      const clicks = await db.selectFrom('refunded_clicks').selectAll().where('refund_id', '=', row.id).execute();
      assert.equal(clicks.length, row.clicks);
      assert.equal(sum(clicks.map((click) => click.charge_micros)), row.refunded_micros);
      const ledger = await db
        .selectFrom('ledger_entries')
        .select(['account_id', 'kind', 'amount_micros'])
        .where('reference', '=', String(row.id))
        .where('kind', 'like', 'refund_%')
        .execute();
      const byKind = (kind: string) => ledger.filter((entry) => entry.kind === kind);
      const charges = byKind('refund_charge');
      assert.equal(
        new Set(charges.map((entry) => entry.account_id)).size,
        charges.length,
        'one refund_charge row per advertiser, none per replay',
      );
      assert.equal(sum(charges.map((entry) => entry.amount_micros)), row.refunded_micros);
      assert.equal(sum(byKind('refund_revenue').map((entry) => entry.amount_micros)) + row.publisher_reversed_micros, 0);
      assert.equal(sum(byKind('refund_margin').map((entry) => entry.amount_micros)) + row.margin_reversed_micros, 0);
      assert.equal(sum(byKind('refund_unrecovered').map((entry) => entry.amount_micros)) + row.publisher_unrecovered_micros, 0);
      assert.equal(sum(ledger.map((entry) => entry.amount_micros)), 0, 'a refund moves money, it makes none');
    }
    const refundedClicks = await db.selectFrom('refunded_clicks').select('click_id').execute();
    assert.equal(new Set(refundedClicks.map((row) => row.click_id)).size, refundedClicks.length, 'a click is refunded once');
    const refundedMicros = sum(stored.map((row) => row.refunded_micros));
    assert.equal(await ledgerTotal(db, 'refund_charge'), refundedMicros);
    // The statistics' refunded counters are the refunds' totals.
    const rollup = await db
      .selectFrom('stats_daily')
      .select((eb) => [
        eb.fn.sum<number>('refunded_clicks').as('clicks'),
        eb.fn.sum<number>('refunded_spend_micros').as('spend'),
        eb.fn.sum<number>('refunded_publisher_income_micros').as('income'),
      ])
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [Number(rollup.clicks), Number(rollup.spend), Number(rollup.income)],
      [sum(stored.map((row) => row.clicks)), refundedMicros, sum(stored.map((row) => row.publisher_reversed_micros))],
      'the refunded counters are the refunds',
    );
  });
});
