import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import type { IncomingClick } from './acceptance.ts';
import { type ClickOutcome, type SettlementSettings, settleTakenClicks, type TakenClick } from './settlement.ts';

/**
 * Settles clicks read from the event log with the settlement of accepted clicks (docs/adr/0007),
 * in one transaction, taking them from the events rather than from `accepted_clicks`. The click
 * id is the primary key of `clicks`, so a batch delivered again after its commit finds its clicks
 * recorded and settles them as duplicates: no row, no money. A click the database also accepted
 * (its PubAck came too late, and the request fell back to the database) loses its accepted row
 * here, so it is settled once whichever gets it first.
 */
export async function settleLoggedClicks(
  db: Db,
  clicks: readonly IncomingClick[],
  settings: SettlementSettings,
): Promise<Map<string, ClickOutcome>> {
  const unique = [...new Map(clicks.map((click) => [click.claims.clickId, click])).values()];
  if (unique.length === 0) return new Map();
  // Oldest first, as the settlement of accepted clicks takes them: funds go to the first clicks.
  unique.sort((a, b) => a.nowMs - b.nowMs || (a.claims.clickId < b.claims.clickId ? -1 : 1));
  const ids = unique.map((click) => click.claims.clickId);
  return inTransaction(db, async (trx) => {
    await sql`DELETE FROM accepted_clicks WHERE click_id = ANY(${ids}::text[])`.execute(trx);
    // A statement of its own, after the DELETE: it sees a settlement that held one of those rows.
    const recorded = await sql<{ click_id: string }>`
      SELECT click_id FROM clicks WHERE click_id = ANY(${ids}::text[])`.execute(trx);
    const seen = new Set(recorded.rows.map((row) => row.click_id));
    return settleTakenClicks(
      trx,
      unique.map((click) => takenClick(click, seen.has(click.claims.clickId))),
      settings,
    );
  });
}

/** A logged click as the settlement takes it (the columns of its accepted row). */
function takenClick(click: IncomingClick, recorded: boolean): TakenClick {
  const { claims } = click;
  return {
    click_id: claims.clickId,
    created_at: new Date(click.nowMs),
    campaign_id: claims.campaignId,
    offer_id: claims.offerId,
    site_id: claims.siteId,
    block_id: claims.blockId,
    device: claims.device,
    country: claims.country,
    advertiser_id: click.advertiserId,
    publisher_id: click.publisherId,
    charge_micros: claims.chargeMicros,
    refusal: click.refusal,
    address: click.address,
    invalid_reason: click.invalidReason ?? null,
    served_at: new Date(claims.issuedAt),
    served_asn: claims.servedAsn || null,
    asn: click.evidence?.asn || null,
    click_country: click.evidence?.country || null,
    visitor_hash: click.evidence?.visitorHash ?? null,
    recorded,
  };
}
