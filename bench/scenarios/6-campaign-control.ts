// The teasers endpoint of 5-serving.ts (10,000 active ads) with every campaign using the controls
// of docs/adr/0042: an open flight window, a lifetime budget, even pacing of a large
// daily budget, OS and browser targets and a site allow list and block list, and the block a
// minimum CPC and its site refused categories, all of which the load's visitor passes. Beside
// 5-serving.ts's row it shows what judging the new rules costs a request.
import type { BenchRow } from '../lib/report.ts';
import type { BenchContext, Scenario } from '../run.ts';
import { measureServing } from './5-serving.ts';

const scenario: Scenario = {
  name: 'serving with campaign control (PostgreSQL, one block, 10,000 active ads)',
  run(context: BenchContext): Promise<BenchRow[]> {
    return measureServing(context, {
      seed: { ads: 10_000, advertisers: 50, campaignsPerAdvertiser: 10, countriesPerCampaign: 0, countries: [] },
      label: 'GET /api/serve/blocks/{id}/teasers, 10,000 ads, every control rule set',
      teaserGoal: { serverCpuRatio: 0.7 },
      clicks: false,
      async afterSeed(db, { siteId, blockId }) {
        await db
          .updateTable('campaigns')
          .set({
            starts_at: new Date(Date.now() - 86_400_000),
            ends_at: new Date(Date.now() + 30 * 86_400_000),
            total_budget_micros: 1_000_000_000_000,
            daily_budget_micros: 100_000_000_000,
            pacing: 'even',
            os_targets: ['linux', 'windows', 'android:14'],
            browser_targets: ['chrome', 'firefox'],
            site_allow: [String(siteId), 'example.org'],
            site_block: ['blocked.example'],
          })
          .execute();
        await db.updateTable('blocks').set({ min_cpc_micros: 1 }).where('id', '=', blockId).execute();
        await db
          .updateTable('sites')
          .set({ refused_categories: [999] })
          .where('id', '=', siteId)
          .execute();
      },
    });
  },
};

export default scenario;
