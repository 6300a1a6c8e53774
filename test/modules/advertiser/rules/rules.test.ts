import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../../../src/db/database.ts';
import { DEVICES, type DeviceId, type TrafficEvent } from '../../../../src/modules/statistics/vocabulary.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../../../helpers/fixtures.ts';
import { seededRandom } from '../../../helpers/random.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer } from '../../../helpers/server.ts';

const DAY = 24 * 3600 * 1000;

interface ChangeOut {
  object: string;
  siteId: number;
  informerId: number;
  deviceId: number;
  adId: number;
  field: string;
  before: number;
  after: number;
  views: number;
  clicks: number;
  money: number;
  orders: number;
  dateFrom: string;
  dateTo: string;
}

/** Every coefficient and ad switch of a campaign, keyed like a rule's change: what a run may touch. */
async function snapshot(db: Db, campaignId: number): Promise<Map<string, number>> {
  const state = new Map<string, number>();
  for (const row of await db.selectFrom('site_coefficients').selectAll().where('campaign_id', '=', campaignId).execute()) {
    state.set(`${row.block_id === 0 ? 'site' : 'block'}:${row.site_id}:${row.block_id}:0:0`, Number(row.coef));
  }
  for (const row of await db.selectFrom('device_coefficients').selectAll().where('campaign_id', '=', campaignId).execute()) {
    state.set(`device:0:0:${row.device}:0`, Number(row.coef));
  }
  for (const row of await db.selectFrom('offers').select(['id', 'active']).where('campaign_id', '=', campaignId).execute()) {
    state.set(`ad:0:0:0:${row.id}`, row.active ? 1 : 0);
  }
  return state;
}

const keyOf = (change: ChangeOut) => `${change.object}:${change.siteId}:${change.informerId}:${change.deviceId}:${change.adId}`;

/** What changed between two snapshots, as key → [before (1 when unset), after]. */
function difference(before: Map<string, number>, after: Map<string, number>): Map<string, [number, number]> {
  const changed = new Map<string, [number, number]>();
  for (const [key, value] of after) {
    const old = before.get(key) ?? 1;
    if (old !== value) changed.set(key, [old, value]);
  }
  return changed;
}

describe('optimisation rules', () => {
  let server: TestServer;
  let db: Db;
  let owner: Awaited<ReturnType<TestServer['createAccount']>>;
  let stranger: Awaited<ReturnType<TestServer['createAccount']>>;
  let publisher: Awaited<ReturnType<TestServer['createAccount']>>;
  let campaignId: number;
  let base: string;

  before(async () => {
    server = await startTestServer();
    // The test drives the scheduler itself, at moments of its choosing.
    await server.server.context.rules?.close();
    db = server.server.context.db;
    owner = await server.createAccount('advertiser');
    stranger = await server.createAccount('advertiser');
    publisher = await server.createAccount('publisher');
    campaignId = (await insertCampaign(db, { advertiserId: owner.id })).id;
    base = `/api/advertiser/campaigns/rules/${campaignId}`;
    const offers = [];
    for (let i = 0; i < 4; i += 1) offers.push((await insertOffer(db, { campaignId })).id);
    const places: { siteId: number; blockId: number }[] = [];
    for (let s = 0; s < 6; s += 1) {
      const siteId = (await insertSite(db, { publisherId: publisher.id })).id;
      for (let b = 0; b < 2; b += 1) places.push({ siteId, blockId: (await insertBlock(db, { siteId })).id });
    }
    const random = seededRandom(17);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
    const events: TrafficEvent[] = [];
    for (let day = 0; day < 12; day += 1) {
      for (let i = 0; i < 40; i += 1) {
        const place = pick(places);
        const views = 50 + Math.floor(random() * 1000);
        const clicks = Math.floor(random() * views * 0.05);
        const conversions = random() < 0.5 ? 0 : Math.floor(random() * 4);
        events.push({
          at: TEST_EPOCH_MS - day * DAY,
          campaignId,
          offerId: pick(offers),
          siteId: place.siteId,
          blockId: place.blockId,
          device: pick(Object.values(DEVICES)) as DeviceId,
          views,
          clicks,
          spendMicros: clicks * (50_000 + Math.floor(random() * 200) * 1000),
          conversions: conversions > 0 ? { 1: conversions } : {},
        });
      }
    }
    await recordTraffic(db, events);
  });
  after(() => server.close());

  it('creates, reads, lists, replaces and deletes a rule', async () => {
    const created = await owner.client.post(base, {
      title: 'Expensive sites',
      scope: 'site',
      metric: 'cpa',
      comparison: 'gt',
      threshold: '1.5',
      windowDays: 7,
      minClicks: 10,
      action: 'set_coefficient',
      coef: 0.5,
      enabled: false,
    });
    assert.equal(created.status, 201, created.text);
    const rule = created.json<{ id: number }>();
    assert.deepEqual(rule, {
      id: rule.id,
      campaignId,
      title: 'Expensive sites',
      scope: 'site',
      metric: 'cpa',
      comparison: 'gt',
      threshold: 1.5,
      windowDays: 7,
      minClicks: 10,
      authenticatedOnly: false,
      action: 'set_coefficient',
      coef: 0.5,
      enabled: false,
      nextRunAt: new Date(TEST_EPOCH_MS).toISOString(),
      lastRunAt: null,
    });
    assert.deepEqual((await owner.client.get(`${base}/${rule.id}`)).json(), rule);
    assert.deepEqual((await owner.client.get(base)).json(), [rule]);
    const replaced = await owner.client.put(`${base}/${rule.id}`, {
      scope: 'block',
      metric: 'ctr',
      comparison: 'lt',
      threshold: 0.2,
      windowDays: 3,
      authenticatedOnly: true,
      action: 'block',
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.json<{ authenticatedOnly: boolean }>().authenticatedOnly, true);
    assert.equal(replaced.json<{ action: string }>().action, 'block');
    assert.equal(replaced.json<{ coef: number | null }>().coef, null);
    assert.equal(replaced.json<{ enabled: boolean }>().enabled, true);
    assert.equal((await owner.client.delete(`${base}/${rule.id}`)).status, 204);
    assert.equal((await owner.client.get(`${base}/${rule.id}`)).status, 404);
  });

  it('refuses rules whose parts do not fit together, naming the fields, and writes nothing', async () => {
    const wrong = [
      [{ scope: 'ad', action: 'block' }, 'action'],
      [{ scope: 'site', action: 'pause' }, 'action'],
      [{ scope: 'site', action: 'set_coefficient' }, 'coef'],
      [{ scope: 'device', action: 'block', coef: 2 }, 'coef'],
      [{ scope: 'site', action: 'block', threshold: '1.23456' }, 'threshold'],
    ] as const;
    for (const [fields, field] of wrong) {
      const response = await owner.client.post(base, { metric: 'ctr', comparison: 'lt', threshold: 1, windowDays: 7, ...fields });
      assert.equal(response.status, 422, response.text);
      assert.ok(
        response.json<{ errors: { field: string }[] }>().errors.some((error) => error.field === field),
        response.text,
      );
    }
    const unknown = await owner.client.post(base, {
      scope: 'site',
      metric: 'roi',
      comparison: 'lt',
      threshold: 1,
      windowDays: 7,
      action: 'block',
    });
    assert.equal(unknown.status, 422);
    assert.deepEqual((await owner.client.get(base)).json(), []);
  });

  it("keeps other accounts out: another advertiser's campaign is 404, a publisher is 403", async () => {
    const body = { scope: 'site', metric: 'ctr', comparison: 'lt', threshold: 1, windowDays: 7, action: 'block' };
    assert.equal((await stranger.client.post(base, body)).status, 404);
    assert.equal((await stranger.client.get(base)).status, 404);
    assert.equal((await publisher.client.get(base)).status, 403);
    const created = await owner.client.post(base, { ...body, enabled: false });
    const id = created.json<{ id: number }>().id;
    assert.equal((await stranger.client.post(`${base}/${id}/run?dryRun=true`)).status, 404);
    assert.equal((await stranger.client.get(`${base}/changes`)).status, 404);
    const otherCampaign = await insertCampaign(db, { advertiserId: stranger.id });
    assert.equal((await stranger.client.get(`/api/advertiser/campaigns/rules/${otherCampaign.id}/${id}`)).status, 404);
    await owner.client.delete(`${base}/${id}`);
  });

  it('dry run answers exactly the rows the run then changes, and the history records them', async () => {
    const random = seededRandom(4242);
    const rules = [
      {
        scope: 'site',
        metric: 'cpa',
        comparison: 'gt',
        threshold: 2 + Math.floor(random() * 40) / 10,
        windowDays: 7,
        minClicks: 5,
        action: 'set_coefficient',
        coef: 0.7,
      },
      {
        scope: 'block',
        metric: 'ctr',
        comparison: 'lt',
        threshold: 1 + Math.floor(random() * 30) / 10,
        windowDays: 5,
        action: 'block',
      },
      {
        scope: 'device',
        metric: 'conversions',
        comparison: 'gte',
        threshold: 10 + Math.floor(random() * 40),
        windowDays: 10,
        action: 'set_coefficient',
        coef: 1.3,
      },
      { scope: 'site', metric: 'spend_without_conversion', comparison: 'gt', threshold: 0.5, windowDays: 2, action: 'block' },
      { scope: 'ad', metric: 'ctr', comparison: 'lt', threshold: 2.5, windowDays: 12, minClicks: 1, action: 'pause' },
    ];
    let applied = 0;
    for (const body of rules) {
      const created = await owner.client.post(base, { ...body, enabled: false });
      assert.equal(created.status, 201, created.text);
      const id = created.json<{ id: number }>().id;
      const before = await snapshot(db, campaignId);
      const dry = await owner.client.post(`${base}/${id}/run?dryRun=true`);
      assert.equal(dry.status, 200, dry.text);
      const planned = dry.json<{ dryRun: boolean; changes: ChangeOut[] }>();
      assert.equal(planned.dryRun, true);
      assert.deepEqual(await snapshot(db, campaignId), before, 'a dry run changes nothing');

      const run = await owner.client.post(`${base}/${id}/run`);
      assert.equal(run.status, 200, run.text);
      const done = run.json<{ dryRun: boolean; changes: ChangeOut[] }>();
      assert.equal(done.dryRun, false);
      assert.deepEqual(done.changes, planned.changes);
      const changed = difference(before, await snapshot(db, campaignId));
      assert.deepEqual(
        changed,
        new Map(planned.changes.map((change) => [keyOf(change), [change.before, change.after]])),
        `rule ${body.scope}/${body.metric}: the rows changed are the dry run's`,
      );
      const history = await owner.client.get(`${base}/changes?ruleId=${id}&per-page=100`);
      const recorded = history.json<(ChangeOut & { id: number; ruleId: number; trigger: string; createdAt: string })[]>();
      assert.deepEqual(
        recorded.map(({ id: _id, ruleId: _rule, trigger: _trigger, createdAt: _at, ...change }) => change).reverse(),
        planned.changes,
      );
      assert.ok(recorded.every((row) => row.trigger === 'manual'));
      applied += planned.changes.length;

      // What a run changed is where the action puts it: running again changes nothing.
      const again = await owner.client.post(`${base}/${id}/run?dryRun=true`);
      assert.deepEqual(again.json<{ changes: ChangeOut[] }>().changes, []);
    }
    assert.ok(applied >= 5, `the randomized figures trigger changes (${applied})`);
  });

  it('checks thresholds exactly and only after the minimum clicks', async () => {
    // Site-level CPA of the whole 12 days, computed here from the rollup, decides which sites cross 1 unit.
    const rows = await db
      .selectFrom('stats_daily')
      .select(['site_id'])
      .select((eb) => [
        eb.fn.sum<number>('clicks').as('clicks'),
        eb.fn.sum<number>('spend_micros').as('spend'),
        eb.fn.sum<number>('conversions_purchase').as('orders'),
      ])
      .where('campaign_id', '=', campaignId)
      .groupBy('site_id')
      .execute();
    const site = rows.find((row) => Number(row.orders) > 0);
    assert.ok(site);
    const cpaMicros = Number(site.spend) / Number(site.orders);
    const threshold = Math.floor(cpaMicros / 100) / 10_000;
    const created = await owner.client.post(base, {
      scope: 'site',
      metric: 'cpa',
      comparison: 'gt',
      threshold,
      windowDays: 12,
      minClicks: Number(site.clicks),
      action: 'set_coefficient',
      coef: 9.5,
      enabled: false,
    });
    const id = created.json<{ id: number }>().id;
    const dry = (await owner.client.post(`${base}/${id}/run?dryRun=true`)).json<{ changes: ChangeOut[] }>();
    const expected = rows
      .filter((row) => Number(row.orders) > 0 && Number(row.clicks) >= Number(site.clicks))
      .filter((row) => Number(row.spend) > threshold * 1_000_000 * Number(row.orders))
      .map((row) => row.site_id)
      .sort((a, b) => a - b);
    assert.deepEqual(
      dry.changes.map((change) => change.siteId),
      expected,
    );
    assert.ok(expected.includes(site.site_id));
  });

  it('runs enabled rules on schedule, once per interval, and records them as scheduled', async () => {
    const scheduler = server.server.context.rules;
    assert.ok(scheduler);
    // Earlier tests' rules are disabled; this one is due at once.
    const created = await owner.client.post(base, {
      scope: 'device',
      metric: 'ctr',
      comparison: 'gte',
      threshold: 0,
      windowDays: 12,
      action: 'set_coefficient',
      coef: 4,
    });
    const id = created.json<{ id: number }>().id;
    const expected = (await owner.client.post(`${base}/${id}/run?dryRun=true`)).json<{ changes: ChangeOut[] }>().changes;
    assert.equal(expected.length, 3);
    assert.equal(await scheduler.runDue(), 1);
    assert.equal(await scheduler.runDue(), 0, 'not due again before the interval');
    const history = (await owner.client.get(`${base}/changes?ruleId=${id}`)).json<{ trigger: string }[]>();
    assert.equal(history.length, 3);
    assert.ok(history.every((row) => row.trigger === 'schedule'));
    const rule = (await owner.client.get(`${base}/${id}`)).json<{ lastRunAt: string; nextRunAt: string }>();
    assert.equal(rule.lastRunAt, new Date(TEST_EPOCH_MS).toISOString());
    assert.equal(rule.nextRunAt, new Date(TEST_EPOCH_MS + 3600_000).toISOString());
    server.clock.advance(3600_000);
    assert.equal(await scheduler.runDue(), 1);
    assert.equal((await owner.client.get(`${base}/changes?ruleId=${id}`)).json<unknown[]>().length, 3, 'nothing left to change');
  });

  it('lists the rules of the history, a deleted one with its title, and still filters by it', async () => {
    type HistoryRule = { ruleId: number; title: string; deleted: boolean };
    const created = await owner.client.post(base, {
      title: 'Every device to 2',
      scope: 'device',
      metric: 'ctr',
      comparison: 'gte',
      threshold: 0,
      windowDays: 12,
      action: 'set_coefficient',
      coef: 2,
      enabled: false,
    });
    const id = created.json<{ id: number }>().id;
    const unused = (
      await owner.client.post(base, {
        scope: 'site',
        metric: 'ctr',
        comparison: 'lt',
        threshold: 0,
        windowDays: 1,
        action: 'block',
        enabled: false,
      })
    ).json<{ id: number }>().id;
    assert.equal((await owner.client.post(`${base}/${id}/run`)).json<{ changes: unknown[] }>().changes.length, 3);
    // A rule deleted before deleted rules' titles were kept: its changes, and no row of it anywhere.
    const [sample] = await db.selectFrom('rule_changes').selectAll().where('rule_id', '=', id).limit(1).execute();
    assert.ok(sample);
    const { id: _id, ...copy } = sample;
    await db
      .insertInto('rule_changes')
      .values({ ...copy, rule_id: 999_999 })
      .execute();

    const everyChange = (await owner.client.get(`${base}/changes?per-page=100`)).json<{ ruleId: number }[]>();
    const withChanges = [...new Set(everyChange.map((change) => change.ruleId))].sort((a, b) => a - b);
    const listed = async () => {
      const response = await owner.client.get(`${base}/changes/rules`);
      assert.equal(response.status, 200, response.text);
      return response.json<HistoryRule[]>();
    };
    const before = await listed();
    assert.deepEqual(
      before.map((rule) => rule.ruleId),
      withChanges,
      'every rule with changes, by id; none without (the rule that changed nothing is not listed)',
    );
    assert.ok(!before.some((rule) => rule.ruleId === unused));
    assert.deepEqual(
      before.find((rule) => rule.ruleId === id),
      { ruleId: id, title: 'Every device to 2', deleted: false },
    );
    assert.deepEqual(
      before.find((rule) => rule.ruleId === 999_999),
      { ruleId: 999_999, title: '', deleted: true },
    );

    assert.equal((await owner.client.delete(`${base}/${id}`)).status, 204);
    assert.equal((await owner.client.delete(`${base}/${id}`)).status, 404, 'deleted once');
    const after = await listed();
    assert.deepEqual(
      after,
      before.map((rule) => (rule.ruleId === id ? { ...rule, deleted: true } : rule)),
      'the deleted rule keeps its title; the others are as they were',
    );
    const filtered = (await owner.client.get(`${base}/changes?ruleId=${id}`)).json<{ ruleId: number }[]>();
    assert.equal(filtered.length, 3, "the deleted rule's changes are still found by it");
    assert.ok(filtered.every((change) => change.ruleId === id));

    assert.equal((await stranger.client.get(`${base}/changes/rules`)).status, 404);
    assert.equal((await publisher.client.get(`${base}/changes/rules`)).status, 403);
    assert.equal((await server.anonymous.get(`${base}/changes/rules`)).status, 401);
    await owner.client.delete(`${base}/${unused}`);
  });

  it('leaves the rules of an archived campaign alone until it is restored', async () => {
    const scheduler = server.server.context.rules;
    assert.ok(scheduler);
    server.clock.advance(3600_000);
    const campaign = `/api/advertiser/campaigns/${campaignId}`;
    assert.equal((await owner.client.put(campaign, { archived: true })).status, 200);
    assert.equal(await scheduler.runDue(), 0, 'an archived campaign has nothing to optimise');
    assert.equal((await owner.client.put(campaign, { archived: false })).status, 200);
    assert.equal(await scheduler.runDue(), 1, 'due since the archive, it runs at the first round after the restore');
  });
});
