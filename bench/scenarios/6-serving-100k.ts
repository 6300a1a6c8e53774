// The serving path at a real network's size: 100,000 active ads of 1,000 advertisers (10 campaigns
// each), every campaign geo-targeted to 2 of 20 countries, and visitors from those 20 countries
// (through X-Forwarded-For behind a trusted proxy). Only the teasers endpoint: clicks cost the
// same whatever the number of ads (5-serving.ts measures them).
import type { BenchRow } from '../lib/report.ts';
import { visitorsOfCountries } from '../lib/serving-seed.ts';
import type { BenchContext, Scenario } from '../run.ts';
import { measureServing } from './5-serving.ts';

const scenario: Scenario = {
  name: 'serving (PostgreSQL, 100,000 ads of 1,000 advertisers, 20 countries)',
  run(context: BenchContext): Promise<BenchRow[]> {
    const countries = visitorsOfCountries(20).map((visitor) => visitor.country);
    return measureServing(context, {
      seed: { ads: 100_000, advertisers: 1000, campaignsPerAdvertiser: 10, countriesPerCampaign: 2, countries },
      label: 'GET /api/serve/blocks/{id}/teasers, 100,000 ads, 20 countries',
      teaserGoal: { serverCpuRatio: 0.6 },
      clicks: false,
    });
  },
};

export default scenario;
