import type { Db } from '../../src/db/database.ts';
import { applyLedgerChange } from '../../src/modules/ledger/ledger.ts';
import { recordEvents } from '../../src/modules/statistics/record-events.ts';
import type { TrafficEvent } from '../../src/modules/statistics/vocabulary.ts';

/**
 * Direct inserts of domain objects, for tests that need an object another module owns (a serving
 * test needs a campaign; a publisher test needs an advertiser's ad to attribute traffic to).
 * Tests of a module's own API create objects through that API instead.
 */

export async function insertCampaign(
  db: Db,
  values: {
    advertiserId: number;
    title?: string;
    categoryId?: number;
    geo?: string[];
    isRetarget?: boolean;
    approved?: boolean;
    active?: boolean;
  },
) {
  return db
    .insertInto('campaigns')
    .values({
      advertiser_id: values.advertiserId,
      title: values.title ?? 'Test campaign',
      category_id: values.categoryId ?? 2,
      geo: values.geo ?? [],
      is_retarget: values.isRetarget ?? false,
      active: values.active ?? true,
      moderation_status: values.approved === false ? 0 : 1,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertOffer(
  db: Db,
  values: { campaignId: number; title?: string; bidMicros?: number; url?: string; urlMobile?: string; approved?: boolean },
) {
  return db
    .insertInto('offers')
    .values({
      campaign_id: values.campaignId,
      title: values.title ?? 'Test ad',
      description: values.title ?? 'Test ad',
      url: values.url ?? 'https://shop.example.test/product?id={click_id}',
      url_mobile: values.urlMobile ?? '',
      bid_micros: values.bidMicros ?? 100_000,
      price: null,
      old_price: null,
      discount: null,
      discount_type: null,
      sub_category_id: null,
      image_square: null,
      image_wide: null,
      deleted_at: null,
      moderation_status: values.approved === false ? 0 : 1,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

let sitesInserted = 0;

/** A publisher registers each address once (unique index of migration 0350): the default differs per call. */
export async function insertSite(db: Db, values: { publisherId: number; url?: string; status?: number; categoryId?: number }) {
  sitesInserted += 1;
  return db
    .insertInto('sites')
    .values({
      publisher_id: values.publisherId,
      url: values.url ?? `https://news.example.test/${sitesInserted}`,
      category_id: values.categoryId ?? 1,
      status: values.status ?? 1,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertBlock(db: Db, values: { siteId: number; title?: string; teaserCount?: number }) {
  return db
    .insertInto('blocks')
    .values({ site_id: values.siteId, title: values.title ?? 'Test block', teaser_count: values.teaserCount ?? 4 })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Feeds traffic through the same function the serving engine uses. */
export async function recordTraffic(db: Db, events: TrafficEvent[], timeZone = 'UTC'): Promise<void> {
  await db.transaction().execute((trx) => recordEvents(trx, events, timeZone));
}

/**
 * An account written directly (for tests that cannot use the operator API, e.g. behind a trusted
 * proxy or before the server starts), optionally funded through the ledger.
 */
export async function insertAccount(
  db: Db,
  values: { kind: 'advertiser' | 'publisher'; username: string; depositMicros?: number },
) {
  const account = await db
    .insertInto('accounts')
    .values({
      kind: values.kind,
      username: values.username,
      email: `${values.username}@example.test`,
      parent_id: null,
      password_hash: null,
      email_confirmed_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const deposit = values.depositMicros ?? 0;
  if (deposit > 0) {
    await db
      .transaction()
      .execute((trx) => applyLedgerChange(trx, { accountId: account.id, amountMicros: deposit, kind: 'deposit' }));
  }
  return account;
}
