import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { prepared } from '../../../db/prepared.ts';
import type { ClickClaims } from '../tracking/click-token.ts';
import type { GivtReason } from '../tracking/invalid-traffic.ts';

/**
 * Acceptance, on the click's request (docs/adr/0007): the click is written to accepted_clicks and
 * committed before its redirect, so a redirected click is never lost. Many clicks share one
 * statement (the click batcher's group commit); the statement touches no row that another click
 * also needs, so it waits for nothing but its commit. Settlement (settlement.ts) follows.
 */

/** What acceptance says about a click on its request: `accepted` will be settled (billed or, without money, not). */
export type AcceptanceVerdict = 'accepted' | 'duplicate' | 'bot' | 'limit';

/** A verified click, as the engine hands it to acceptance. */
export interface IncomingClick {
  claims: ClickClaims;
  advertiserId: number;
  publisherId: number;
  nowMs: number;
  /** The visitor's IP address, kept so that refunds can select the clicks of an address range. */
  address: string | null;
  /** Decided on the request: null = bill it (if the money is there); otherwise why it is not billed. */
  refusal: 'bot' | 'limit' | null;
  /** With refusal `bot`: which rule of general invalid traffic refused it (tracking/invalid-traffic.ts). */
  invalidReason?: GivtReason | null;
  /** What the after-the-fact rules read (migration 0720): the network and country the click came from, the day's visitor hash. */
  evidence?: ClickEvidence;
}

/** The click's own network, country and visitor, beside what its link says of where it was served. */
export interface ClickEvidence {
  asn: number;
  country: string;
  visitorHash: string;
}

/**
 * Accepts a batch of clicks in one statement. A click id already accepted or settled, or seen
 * earlier in the batch, is a duplicate and is not written again: each click link is used once.
 */
export async function acceptClicks(db: Db, clicks: readonly IncomingClick[]): Promise<AcceptanceVerdict[]> {
  const verdicts = new Array<AcceptanceVerdict>(clicks.length).fill('duplicate');
  const seen = new Set<string>();
  const fresh: IncomingClick[] = [];
  for (const click of clicks) {
    if (seen.has(click.claims.clickId)) continue;
    seen.add(click.claims.clickId);
    fresh.push(click);
  }
  // Whole columns as array parameters: the statement text (and its plan) does not grow with the batch.
  const column = <T>(value: (click: IncomingClick) => T) => fresh.map(value);
  const inserted = await prepared(sql<{ click_id: string }>`
    INSERT INTO accepted_clicks (click_id, created_at, campaign_id, offer_id, site_id, block_id, device, country,
      advertiser_id, publisher_id, charge_micros, refusal, address, invalid_reason, served_at, served_asn, asn,
      click_country, visitor_hash)
    SELECT * FROM unnest(
      ${column((click) => click.claims.clickId)}::text[],
      ${column((click) => new Date(click.nowMs).toISOString())}::timestamptz[],
      ${column((click) => click.claims.campaignId)}::integer[],
      ${column((click) => click.claims.offerId)}::integer[],
      ${column((click) => click.claims.siteId)}::integer[],
      ${column((click) => click.claims.blockId)}::integer[],
      ${column((click) => click.claims.device)}::smallint[],
      ${column((click) => click.claims.country)}::text[],
      ${column((click) => click.advertiserId)}::integer[],
      ${column((click) => click.publisherId)}::integer[],
      ${column((click) => click.claims.chargeMicros)}::bigint[],
      ${column((click) => click.refusal)}::text[],
      ${column((click) => click.address)}::inet[],
      ${column((click) => click.invalidReason ?? null)}::text[],
      ${column((click) => new Date(click.claims.issuedAt).toISOString())}::timestamptz[],
      ${column((click) => click.claims.servedAsn || null)}::integer[],
      ${column((click) => click.evidence?.asn || null)}::integer[],
      ${column((click) => click.evidence?.country || null)}::text[],
      ${column((click) => click.evidence?.visitorHash ?? null)}::text[]
    ) AS c (click_id, created_at, campaign_id, offer_id, site_id, block_id, device, country,
      advertiser_id, publisher_id, charge_micros, refusal, address, invalid_reason, served_at, served_asn, asn,
      click_country, visitor_hash)
    ON CONFLICT (click_id) DO NOTHING
    RETURNING click_id`).execute(db);
  const accepted = new Set(inserted.rows.map((row) => row.click_id));
  clicks.forEach((click, index) => {
    const id = click.claims.clickId;
    // The first occurrence in the batch is the one that was written.
    if (accepted.delete(id)) verdicts[index] = click.refusal ?? 'accepted';
  });
  return verdicts;
}

/**
 * Withdraws accepted clicks whose redirects went out without them (docs/operating.md, "A database
 * that stops answering"): their accepted rows are deleted, unsettled. The DELETE is a claim like
 * settlement's: a row a settlement is taking makes it wait and skip the row. Returns how many it
 * deleted, and the click ids a settlement recorded first with their status (`billed` moved money),
 * so that they are traced.
 */
export async function withdrawAcceptedClicks(db: Db, clickIds: readonly string[]): Promise<Withdrawal> {
  const deleted = await sql`DELETE FROM accepted_clicks WHERE click_id = ANY(${clickIds}::text[]) RETURNING 1`.execute(db);
  // A statement of its own, after the DELETE: its snapshot sees what a settlement it waited for committed.
  const settled = await sql<{ click_id: string; status: string }>`
    SELECT click_id, status FROM clicks WHERE click_id = ANY(${clickIds}::text[])`.execute(db);
  return { withdrawn: deleted.rows.length, settled: settled.rows };
}

/** What a withdrawal found: accepted rows it deleted, and clicks a settlement had recorded first. */
export interface Withdrawal {
  withdrawn: number;
  settled: { click_id: string; status: string }[];
}
