// The teasers endpoint as the loader calls it: with a page id and a visitor id, 50 of the 500
// campaigns capped and 50 scheduled, against the same endpoint without them in the same run. Each
// page id is used twice in a row (two blocks of a page view). With REDIS_URL set, pages and
// counters are in Redis, as instances that share one keep them; else in process.
import { randomBytes } from 'node:crypto';
import { load } from '../lib/load.ts';
import type { BenchRow } from '../lib/report.ts';
import { type SeededServingServer, withSeededServingServer } from '../lib/serving-server.ts';
import type { BenchContext, Scenario } from '../run.ts';

const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const PAGES = 20_000;

const scenario: Scenario = {
  name: `serving with page ids, frequency caps and schedules (${process.env.REDIS_URL ? 'Redis' : 'in process'})`,
  async run(context: BenchContext): Promise<BenchRow[]> {
    return withSeededServingServer(
      {
        name: 'pages',
        ads: 10_000,
        advertisers: 50,
        environment: { REDIS_KEY_PREFIX: `nativa-bench-${randomBytes(4).toString('hex')}:` },
      },
      (seeded) => measure(context, seeded),
    );
  },
};

async function measure(context: BenchContext, { server, blockId }: SeededServingServer): Promise<BenchRow[]> {
  const campaigns = await server.context.db.selectFrom('campaigns').select('id').orderBy('id').execute();
  const ids = campaigns.map((campaign) => campaign.id);
  await server.context.db.updateTable('campaigns').set({ frequency_cap: 3 }).where('id', 'in', ids.slice(0, 50)).execute();
  const workdays = [0, 1, 2, 3, 4].flatMap((day) => Array.from({ length: 10 }, (_, hour) => day * 24 + 8 + hour));
  await server.context.db
    .updateTable('campaigns')
    .set({ schedule_hours: workdays, time_zone: 'Europe/Berlin' })
    .where('id', 'in', ids.slice(50, 100))
    .execute();
  await server.context.serving?.refresh();
  const teasers = `/api/serve/blocks/${blockId}/teasers`;
  const plain = await load({
    url: `${server.url}${teasers}`,
    connections: context.connections,
    durationSeconds: context.durationSeconds,
    headers: { 'User-Agent': USER_AGENT },
  });
  const paths: string[] = [];
  for (let page = 0; page < PAGES; page += 1) {
    const query = `?page=${randomBytes(12).toString('hex')}&visitor=${randomBytes(12).toString('hex')}`;
    paths.push(`${teasers}${query}`, `${teasers}${query}`);
  }
  const filtered = await load({
    url: `${server.url}${teasers}`,
    connections: context.connections,
    durationSeconds: context.durationSeconds,
    headers: { 'User-Agent': USER_AGENT },
    paths,
  });
  const ratio = (result: typeof plain) => result.requestsPerSecond / context.bare.result.requestsPerSecond;
  return [
    { scenario: 'teasers, no page or visitor id', result: plain, ratio: ratio(plain) },
    {
      scenario: 'teasers, page + visitor id (caps, schedules)',
      result: filtered,
      ratio: ratio(filtered),
      goal: '≥ 0.7 × the plain teasers',
      met: ratio(filtered) >= 0.7 * ratio(plain) && filtered.statuses['2xx'] === filtered.total,
    },
  ];
}

export default scenario;
