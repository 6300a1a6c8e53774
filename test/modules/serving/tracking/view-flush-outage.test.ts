// The buffer of served teasers and views while the database is away: every failed flush is
// counted, but one warning tells the outage's start and one notice its end (with how many flushes
// failed, for how long, and what was then written), rather than a warning per flush. What was held
// in memory meanwhile is written once by the first flush that succeeds. PGlite, or PostgreSQL with
// TEST_DATABASE_URL; the database is taken away in the process (helpers/database-outage.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { manualClock } from '../../../../src/clock.ts';
import type { Database } from '../../../../src/db/database.ts';
import { newClickId } from '../../../../src/modules/serving/tracking/click-token.ts';
import { type FlushRecovery, ImpressionBuffer } from '../../../../src/modules/serving/tracking/impressions.ts';
import { openTestDatabase } from '../../../helpers/database.ts';
import { type DatabaseOutage, withOutage } from '../../../helpers/database-outage.ts';
import { insertAccount, insertBlock, insertCampaign, insertOffer, insertSite } from '../../../helpers/fixtures.ts';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('view flushes while the database is away', () => {
  let database: Database;
  let outage: DatabaseOutage;
  let place: { campaignId: number; offerId: number; siteId: number; blockId: number };

  before(async () => {
    database = await openTestDatabase();
    outage = withOutage(database);
    const advertiser = await insertAccount(database.db, { kind: 'advertiser', username: 'flush-advertiser' });
    const campaign = await insertCampaign(database.db, { advertiserId: advertiser.id });
    const offer = await insertOffer(database.db, { campaignId: campaign.id });
    const publisher = await insertAccount(database.db, { kind: 'publisher', username: 'flush-publisher' });
    const site = await insertSite(database.db, { publisherId: publisher.id });
    const block = await insertBlock(database.db, { siteId: site.id });
    place = { campaignId: campaign.id, offerId: offer.id, siteId: site.id, blockId: block.id };
  });

  after(async () => {
    await database?.close();
  });

  async function rollup(): Promise<{ served: number; views: number }> {
    const row = await database.db
      .selectFrom('stats_campaign_daily')
      .select((eb) => [eb.fn.sum<number>('served').as('served'), eb.fn.sum<number>('views').as('views')])
      .where('campaign_id', '=', place.campaignId)
      .executeTakeFirst();
    return { served: Number(row?.served ?? 0), views: Number(row?.views ?? 0) };
  }

  it('warns once when flushes start failing, tells once when they work again, and counts every failure', async () => {
    const clock = manualClock(NOW);
    const warnings: unknown[] = [];
    const recoveries: FlushRecovery[] = [];
    let failures = 0;
    const buffer = new ImpressionBuffer({
      db: outage.database.db,
      timeZone: 'UTC',
      tokenTtlMs: 3_600_000,
      now: () => clock.now(),
      onFlushed: async () => undefined,
      onError: (error) => warnings.push(error),
      onFailedFlush: () => {
        failures += 1;
      },
      onRecovered: (recovery) => recoveries.push(recovery),
    });
    const day = '2026-11-23';
    const served = { at: NOW, ...place, device: 1 as const, country: 'DE' };
    const view = { impressionId: newClickId(), ...place, device: 1 as const, country: 'DE', issuedAt: NOW };

    outage.away = true;
    buffer.add(served, day);
    buffer.addView(view);
    for (let flush = 0; flush < 3; flush += 1) {
      await assert.rejects(buffer.flush());
      clock.advance(500);
      buffer.add(served, day);
    }
    assert.equal(failures, 3, 'each failed flush is counted');
    assert.equal(warnings.length, 1, 'one warning for the whole outage');
    assert.equal(recoveries.length, 0);

    outage.away = false;
    await buffer.flush();
    assert.deepEqual(recoveries, [{ failedFlushes: 3, failingForMs: 1500, written: 2 }], 'one notice with the counts');
    assert.deepEqual(await rollup(), { served: 4, views: 1 }, 'what was held is written once');
    buffer.add(served, day);
    await buffer.flush();
    assert.equal(recoveries.length, 1, 'a flush after the recovery tells nothing');

    // A second outage is a second warning.
    outage.away = true;
    buffer.add(served, day);
    await assert.rejects(buffer.flush());
    assert.equal(warnings.length, 2);
    assert.equal(failures, 4);
    outage.away = false;
    await buffer.close();
    assert.equal(recoveries.length, 2);
    assert.deepEqual(await rollup(), { served: 6, views: 1 });
  });
});
