import type { Db } from '../../src/db/database.ts';
import { applyLedgerChange } from '../../src/modules/ledger/ledger.ts';
import { countryOf } from '../../src/modules/serving/tracking/visitor.ts';

export interface ServingSeed {
  /** Active, approved ads. */
  ads: number;
  advertisers: number;
  /** Campaigns per advertiser. */
  campaignsPerAdvertiser: number;
  /** Each campaign targets this many of `countries` (0: no geo targeting). */
  countriesPerCampaign: number;
  countries: readonly string[];
}

/** Advertisers with money, their campaigns and ads, and one publisher's site with a 4-teaser block. */
export async function seedServing(db: Db, seed: ServingSeed): Promise<{ siteId: number; blockId: number }> {
  const insertAccount = (kind: 'advertiser' | 'publisher', username: string) =>
    db
      .insertInto('accounts')
      .values({ kind, username, email: `${username}@bench.test`, parent_id: null, password_hash: null, email_confirmed_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
  const advertisers: number[] = [];
  for (let index = 0; index < seed.advertisers; index += 1) {
    const advertiser = await insertAccount('advertiser', `bench-advertiser-${index}`);
    await db
      .transaction()
      .execute((trx) =>
        applyLedgerChange(trx, { accountId: advertiser.id, amountMicros: 1_000_000_000_000, kind: 'deposit', comment: 'bench' }),
      );
    advertisers.push(advertiser.id);
  }
  const campaigns: number[] = [];
  const campaignCount = seed.advertisers * seed.campaignsPerAdvertiser;
  for (let start = 0; start < campaignCount; start += 1000) {
    const rows = await db
      .insertInto('campaigns')
      .values(
        Array.from({ length: Math.min(1000, campaignCount - start) }, (_, offset) => {
          const index = start + offset;
          const geo = Array.from(
            { length: seed.countriesPerCampaign },
            (_, n) => seed.countries[(index * 7 + n * 3) % seed.countries.length] ?? '',
          );
          return {
            advertiser_id: advertisers[index % advertisers.length] ?? 0,
            title: `Bench campaign ${index}`,
            category_id: 2,
            moderation_status: 1,
            geo: [...new Set(geo)],
          };
        }),
      )
      .returning('id')
      .execute();
    campaigns.push(...rows.map((row) => row.id));
  }
  for (let start = 0; start < seed.ads; start += 1000) {
    await db
      .insertInto('offers')
      .values(
        Array.from({ length: Math.min(1000, seed.ads - start) }, (_, offset) => {
          const index = start + offset;
          return {
            campaign_id: campaigns[index % campaigns.length] ?? 0,
            title: `Bench product ${index}`,
            description: `A fine product number ${index}`,
            price_text: `${(index % 90) + 9}.99`,
            url: `https://shop.example.test/p/${index}?c={click_id}`,
            bid_micros: 10_000 + ((index * 7919) % 990_000),
            image_square: `${index.toString(16).padStart(64, '0')}`,
            price: null,
            old_price: null,
            discount: null,
            discount_type: null,
            sub_category_id: null,
            image_wide: null,
            deleted_at: null,
            moderation_status: 1,
          };
        }),
      )
      .execute();
  }
  const publisher = await insertAccount('publisher', 'bench-publisher');
  const site = await db
    .insertInto('sites')
    .values({ publisher_id: publisher.id, url: 'https://news.bench.test', status: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const block = await db
    .insertInto('blocks')
    .values({ site_id: site.id, title: 'Bench block', teaser_count: 4 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { siteId: site.id, blockId: block.id };
}

/**
 * One public IPv4 address in each of `count` countries, found in the bundled country database
 * (the first address of a fixed walk over the address space for each new country), so that the
 * load can come from visitors of many countries through X-Forwarded-For.
 */
export function visitorsOfCountries(count: number): { country: string; ip: string }[] {
  const found = new Map<string, string>();
  for (let a = 2; a < 224 && found.size < count; a += 1) {
    for (let b = 0; b < 256 && found.size < count; b += 17) {
      const ip = `${a}.${b}.40.9`;
      const country = countryOf(ip);
      if (country !== '' && !found.has(country)) found.set(country, ip);
    }
  }
  if (found.size < count) throw new Error(`only ${found.size} countries found in the country database`);
  return [...found].map(([country, ip]) => ({ country, ip }));
}
