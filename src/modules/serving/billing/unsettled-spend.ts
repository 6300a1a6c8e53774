import type { Db } from '../../../db/database.ts';
import { dayOf } from '../../statistics/index.ts';
import type { IncomingClick } from '../billing/acceptance.ts';
import type { Snapshot } from '../snapshot/snapshot.ts';

interface Unsettled {
  campaignId: number;
  day: string;
  chargeMicros: number;
}

/** Ids looked up per statement when asking which unsettled clicks have been settled. */
const LOOKUP_CHUNK = 5000;

/**
 * The billable clicks this instance accepted whose settlement it has not seen yet. A refresh of the
 * serving index reads balances and spend from the database's settled clicks, which lack these: on
 * the database path, the clicks between their acceptance and their settlement a moment later; through
 * the event log, the clicks still in the log (all of them while the database is away, a backlog after
 * it returns). The index counts them on top, as it counted them when they were accepted, so that a
 * campaign's limits hold against its unsettled clicks too (docs/adr/0029, the bound on overspend).
 */
export class UnsettledSpend {
  private readonly clicks = new Map<string, Unsettled>();
  private readonly timeZone: string;

  constructor(timeZone: string) {
    this.timeZone = timeZone;
  }

  get size(): number {
    return this.clicks.size;
  }

  add(click: IncomingClick): void {
    this.clicks.set(click.claims.clickId, {
      campaignId: click.claims.campaignId,
      day: dayOf(click.nowMs, this.timeZone),
      chargeMicros: click.claims.chargeMicros,
    });
  }

  /**
   * Forgets the clicks that are settled (in `clicks`, whatever their outcome) or of another day than
   * `day`. Called before the refresh reads spend, so a click settled in between is counted twice
   * (by the rollup and here) until the next refresh, never not at all.
   */
  async forgetSettled(db: Db, day: string): Promise<void> {
    for (const [id, click] of this.clicks) if (click.day !== day) this.clicks.delete(id);
    const ids = [...this.clicks.keys()];
    for (let start = 0; start < ids.length; start += LOOKUP_CHUNK) {
      const settled = await db
        .selectFrom('clicks')
        .select('click_id')
        .where('click_id', 'in', ids.slice(start, start + LOOKUP_CHUNK))
        .execute();
      for (const row of settled) this.clicks.delete(row.click_id);
    }
  }

  /** Counts the unsettled clicks of the snapshot's day against their campaigns and advertisers. */
  applyTo(snapshot: Snapshot): void {
    for (const click of this.clicks.values()) {
      const campaign = snapshot.campaigns.get(click.campaignId);
      if (campaign === undefined || click.day !== snapshot.day) continue;
      campaign.spentTodayMicros += click.chargeMicros;
      campaign.clicksToday += 1;
      campaign.advertiser.spentTodayMicros += click.chargeMicros;
      campaign.advertiser.balanceMicros -= click.chargeMicros;
    }
  }
}
