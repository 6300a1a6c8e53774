// Clicks and views through the event log (NATS_URL, docs/adr/0029) on the real server: answered
// while the database is away (the 302 and the 204 wait only for JetStream's PubAck), settled once
// after it returns; and the bound on what a campaign can overspend meanwhile. A private nats-server
// (one node); PGlite, or PostgreSQL with TEST_DATABASE_URL. Skips without nats-server (not in CI).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestDatabase } from '../../helpers/database.ts';
import { type DatabaseOutage, withOutage } from '../../helpers/database-outage.ts';
import { type NatsCluster, natsSkipReason, startNatsCluster } from '../../helpers/private-nats.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import {
  assertCampaignRollupMatchesAdRollup,
  assertClicksMatchTheirLedgerRows,
  assertEveryBalanceIsItsLedger,
  createWorld,
  DESKTOP_UA,
  engineOf,
  pathOf,
  servedAndViews,
  type World,
} from '../../helpers/serving.ts';
import { waitFor } from '../../helpers/wait.ts';

type Teaser = { id: number; url: string; view: string };

describe('clicks and views through JetStream', { skip: natsSkipReason() }, () => {
  let nats: NatsCluster;
  let outage: DatabaseOutage;
  let server: TestServer;

  before(async () => {
    nats = await startNatsCluster(1);
    outage = withOutage(await openTestDatabase());
    server = await startTestServer({
      database: outage.database,
      env: instanceEnv(),
    });
  });

  /** What every instance of the test shares: the log, and the secret that signs click links. */
  function instanceEnv(): Record<string, string> {
    return {
      NATS_URL: nats.urls,
      NATS_STREAM: 'SERVING_TEST',
      NATS_REPLICAS: '1',
      NATS_ACK_WAIT_MS: '2000',
      SIGNING_SECRET: 'event-log-serving-test-secret-0123456789abcdef',
    };
  }

  after(async () => {
    outage.away = false;
    await server?.close();
    await outage?.database.close();
    await nats?.stop();
  });

  async function teasersOf(world: World, from: TestServer = server): Promise<Teaser[]> {
    const response = await from.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
      headers: { 'User-Agent': DESKTOP_UA },
    });
    assert.equal(response.status, 200, response.text);
    return response.json<{ teasers: Teaser[] }>().teasers;
  }

  /** Follows a click link; the click id the advertiser got, or '' when the click was not accepted. */
  async function follow(teaser: Teaser, on: TestServer = server): Promise<string> {
    const response = await on.anonymous.get(pathOf(teaser.url), { headers: { 'User-Agent': DESKTOP_UA } });
    assert.equal(response.status, 302, response.text);
    return new URL(response.header('location') ?? '').searchParams.get('id') ?? '';
  }

  async function beacon(tokens: string[]): Promise<number> {
    const response = await server.anonymous.request('POST', '/api/serve/views', {
      raw: tokens.join('\n'),
      contentType: 'text/plain;charset=UTF-8',
      headers: { 'User-Agent': DESKTOP_UA },
    });
    return response.status;
  }

  it('answers clicks and beacons while the database is away, and settles each once after it returns', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 300_000 }, { bidMicros: 200_000 }] });
    const engine = engineOf(server);
    const teasers = [...(await teasersOf(world)), ...(await teasersOf(world)), ...(await teasersOf(world))];
    assert.equal(teasers.length, 6);
    const balanceBefore = await db
      .selectFrom('accounts')
      .select('balance_micros')
      .where('id', '=', world.advertiserId)
      .executeTakeFirstOrThrow();

    const duplicatesBefore = engine.tally.refusals.duplicate;
    outage.away = true;
    const clickIds: string[] = [];
    for (const teaser of teasers) clickIds.push(await follow(teaser));
    assert.ok(
      clickIds.every((id) => id !== ''),
      'every click was accepted (through the log) while the database was away',
    );
    assert.equal(await beacon(teasers.map((teaser) => teaser.view)), 204);
    assert.equal(await beacon([teasers[0]?.view ?? '']), 204, 'a replayed beacon is answered too');
    assert.equal(await follow(teasers[0] as Teaser), clickIds[0], 'a link followed again keeps its click id (a duplicate)');
    assert.equal(engine.tally.logFallbacks, 0, 'nothing went around the log');
    await assert.rejects(db.selectFrom('clicks').select('click_id').execute(), 'the database is really away');

    outage.away = false;
    await waitFor(
      'the logged clicks to be settled',
      async () =>
        (await db.selectFrom('clicks').select('click_id').where('click_id', 'in', clickIds).execute()).length === clickIds.length,
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    await waitFor('the logged views to be counted', async () => (await servedAndViews(db, world.campaignIds)).views === 6, {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    await engine.impressions.flush();
    await waitFor('the link followed again to be settled', () => engine.tally.refusals.duplicate > duplicatesBefore, {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    assert.equal(
      engine.tally.refusals.duplicate - duplicatesBefore,
      1,
      'the link followed again was settled as a duplicate, once',
    );
    const rows = await db.selectFrom('clicks').select(['status', 'charge_micros']).where('click_id', 'in', clickIds).execute();
    assert.equal(rows.length, 6, 'one click row per click');
    assert.ok(rows.every((row) => row.status === 'billed'));
    const balanceAfter = await db
      .selectFrom('accounts')
      .select('balance_micros')
      .where('id', '=', world.advertiserId)
      .executeTakeFirstOrThrow();
    assert.equal(
      balanceBefore.balance_micros - balanceAfter.balance_micros,
      rows.reduce((sum, row) => sum + row.charge_micros, 0),
      'each click paid once',
    );
    assert.deepEqual(await servedAndViews(db, world.campaignIds), { served: 6, views: 6 }, 'each view counted once');
    await assertClicksMatchTheirLedgerRows(db);
    await assertEveryBalanceIsItsLedger(db);
    await assertCampaignRollupMatchesAdRollup(db);
  });

  it('bounds what a campaign spends while the database is away: its budget at the last refresh plus one click', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 100_000 }], teaserCount: 1 });
    const engine = engineOf(server);
    const [campaignId] = world.campaignIds;
    const teasers: Teaser[] = [];
    for (let index = 0; index < 12; index += 1) teasers.push(...(await teasersOf(world)));
    const [unused] = await teasersOf(world);
    const charges = teasers.map((teaser) => {
      const verdict = engine.signer.verifyClick(pathOf(teaser.url).split('/').pop() ?? '', server.clock.now());
      assert.equal(verdict.kind, 'valid');
      return verdict.claims?.chargeMicros ?? 0;
    });
    const maxCharge = Math.max(...charges);
    // Room for four and a half clicks, then the last refresh before the outage.
    const budget = Math.round(maxCharge * 4.5);
    await db
      .updateTable('campaigns')
      .set({ daily_budget_micros: budget })
      .where('id', '=', campaignId as number)
      .execute();
    await engine.refresh();

    outage.away = true;
    // Followed all at once: clicks in flight together still cannot all pass the budget.
    const clickIds = await Promise.all(teasers.map((teaser) => follow(teaser)));
    const acceptedSpend = charges.reduce((sum, charge, index) => sum + (clickIds[index] === '' ? 0 : charge), 0);
    assert.ok(acceptedSpend >= budget, `clicks were accepted up to the budget (${acceptedSpend})`);
    assert.ok(acceptedSpend < budget + maxCharge, `accepted ${acceptedSpend}, over the budget ${budget} by a click or more`);
    assert.ok(
      clickIds.some((id) => id === ''),
      'the clicks past the budget redirected without a click id (not billed)',
    );
    // A refresh after the database returns, before the backlog is settled, still counts the unsettled clicks.
    outage.away = false;
    await engine.refresh();
    assert.equal(await follow(unused as Teaser), '', 'after the refresh the campaign is still at its budget');
    const accepted = clickIds.filter((id) => id !== '');
    await waitFor(
      'the accepted clicks to be settled',
      async () =>
        (await db.selectFrom('clicks').select('click_id').where('click_id', 'in', accepted).execute()).length === accepted.length,
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    const spent = await db
      .selectFrom('clicks')
      .select((eb) => eb.fn.sum<number>('charge_micros').as('spent'))
      .where('campaign_id', '=', campaignId as number)
      .where('status', '=', 'billed')
      .executeTakeFirstOrThrow();
    assert.equal(Number(spent.spent), acceptedSpend, 'what was accepted is what was billed');
  });

  it('bounds it with two instances: each at most its own bound, together N times what was left plus a click each', async () => {
    const db = server.server.context.db;
    // A second instance on the same database and log, as behind a balancer.
    const second = await startTestServer({ database: outage.database, env: instanceEnv() });
    try {
      const world = await createWorld(server, { ads: [{ bidMicros: 100_000 }], teaserCount: 1 });
      const [campaignId] = world.campaignIds;
      const instances = [server, second];
      await engineOf(second).refresh();
      const teasers: Teaser[][] = [[], []];
      for (let index = 0; index < 12; index += 1) {
        for (const [which, instance] of instances.entries()) teasers[which]?.push(...(await teasersOf(world, instance)));
      }
      const chargeOf = (teaser: Teaser) => {
        const verdict = engineOf(server).signer.verifyClick(pathOf(teaser.url).split('/').pop() ?? '', server.clock.now());
        assert.equal(verdict.kind, 'valid');
        return verdict.claims?.chargeMicros ?? 0;
      };
      const maxCharge = Math.max(...teasers.flat().map(chargeOf));
      const budget = Math.round(maxCharge * 4.5);
      await db
        .updateTable('campaigns')
        .set({ daily_budget_micros: budget })
        .where('id', '=', campaignId as number)
        .execute();
      for (const instance of instances) await engineOf(instance).refresh();

      outage.away = true;
      // Both instances at once, each with the clicks of the teasers it served.
      const clickIds = await Promise.all(
        instances.map((instance, which) => Promise.all((teasers[which] ?? []).map((teaser) => follow(teaser, instance)))),
      );
      const spends = clickIds.map((ids, which) =>
        ids.reduce((sum, id, index) => sum + (id === '' ? 0 : chargeOf(teasers[which]?.[index] as Teaser)), 0),
      );
      for (const [which, spend] of spends.entries()) {
        assert.ok(
          spend >= budget && spend < budget + maxCharge,
          `instance ${which + 1} accepted ${spend}: its own budget plus less than a click`,
        );
      }
      const total = spends.reduce((sum, spend) => sum + spend, 0);
      const bound = (instances.length - 1) * budget + instances.length * maxCharge;
      assert.ok(total - budget < bound, `over the budget by ${total - budget}, under (N − 1) × left + N clicks = ${bound}`);
      assert.ok(
        total - budget >= maxCharge,
        'two instances together went past the one-instance bound: the overlay is per instance',
      );

      // Back: once the backlog is settled, a refresh on either instance sees the whole spend.
      outage.away = false;
      const accepted = clickIds.flat().filter((id) => id !== '');
      await waitFor(
        'the accepted clicks of both instances to be settled',
        async () =>
          (await db.selectFrom('clicks').select('click_id').where('click_id', 'in', accepted).execute()).length ===
          accepted.length,
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      const spent = await db
        .selectFrom('clicks')
        .select((eb) => eb.fn.sum<number>('charge_micros').as('spent'))
        .where('campaign_id', '=', campaignId as number)
        .where('status', '=', 'billed')
        .executeTakeFirstOrThrow();
      assert.equal(Number(spent.spent), total, 'what both accepted is what was billed');
      for (const instance of instances) {
        await engineOf(instance).refresh();
        assert.deepEqual(await teasersOf(world, instance), [], 'after a refresh no instance serves the campaign');
      }
      process.stdout.write(
        `# two instances, database away: budget ${budget}, a click at most ${maxCharge}; accepted ${spends.join(' + ')} = ${total} (over by ${total - budget}, bound ${bound})\n`,
      );
    } finally {
      await second.close();
    }
  });
});
