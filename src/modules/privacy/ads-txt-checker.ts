import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import { type AdsTxtFetchOptions, checkAdsTxt } from './ads-txt.ts';
import { recordAdsTxtCheck, sitesDueForAdsTxt } from './site-privacy-repository.ts';

/** Sites one pass checks at most; the rest wait for the next pass. */
const SITES_PER_PASS = 20;
/** How often the checker looks for sites due (at most). */
const PASS_MS = 10 * 60_000;

export interface AdsTxtCheckerOptions extends AdsTxtFetchOptions {
  db: Db;
  clock: Clock;
  /** The network's domain in the line; without it nothing is checked. */
  networkDomain: string | undefined;
  /** How long a check holds (ADS_TXT_CHECK_HOURS); 0: the checker does not run. */
  intervalMs: number;
  onError(error: unknown): void;
}

/**
 * Checks every active site's /ads.txt for the network's line once per interval, a few sites at a
 * time, one after the other (a slow site costs its timeout, not a burst of sockets), and records
 * what it found on the site for the operator's moderation card.
 */
export class AdsTxtChecker {
  private readonly options: AdsTxtCheckerOptions;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(options: AdsTxtCheckerOptions) {
    this.options = options;
  }

  start(): void {
    if (this.options.intervalMs === 0 || this.options.networkDomain === undefined) return;
    this.timer = setInterval(
      () => {
        this.running = this.pass().catch(this.options.onError);
      },
      Math.min(PASS_MS, this.options.intervalMs),
    );
    this.timer.unref();
  }

  /** Checks the sites that are due now; returns how many it checked. */
  async pass(): Promise<number> {
    const { db, clock, networkDomain, intervalMs } = this.options;
    if (networkDomain === undefined) return 0;
    const now = clock.now();
    const due = await sitesDueForAdsTxt(db, new Date(now - intervalMs), SITES_PER_PASS);
    for (const site of due) await this.checkSite(site.id, site.url, site.publisher_id, networkDomain);
    return due.length;
  }

  /** Checks one site now and records the result. */
  async checkSite(siteId: number, siteUrl: string, publisherId: number, networkDomain: string) {
    const check = await checkAdsTxt(siteUrl, networkDomain, publisherId, this.options);
    await recordAdsTxtCheck(this.options.db, siteId, check, new Date(this.options.clock.now()));
    return check;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
