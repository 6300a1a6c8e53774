import type { Redis } from 'ioredis';

/**
 * What one page view has shown so far: the blocks of a page share a page id from the loader, and
 * each block's teasers are claimed under it, so two blocks of a page never show the same ad (nor
 * the same campaign, for a block that asks for that). Shared through Redis when instances share
 * one, since the blocks of a page may be answered by different instances; else in this process.
 * A page's record expires 30 minutes after its last block.
 */
export interface PageShown {
  ads: ReadonlySet<number>;
  campaigns: ReadonlySet<number>;
}

export interface PageClaim {
  ads: readonly number[];
  campaigns: readonly number[];
  /** Whether a campaign already on the page conflicts too (the block's "no campaign repeats"). */
  campaignsUnique: boolean;
}

/** What a refused claim collided with: the ads and campaigns some other block showed first. */
export interface ClaimConflict {
  ads: number[];
  campaigns: number[];
}

export interface PageViewStore {
  shown(pageId: string): Promise<PageShown>;
  /**
   * Records a block's teasers on the page, atomically: when any of its ads (or campaigns, when
   * unique) is on the page already, nothing is recorded and the conflict is answered.
   */
  claim(pageId: string, claim: PageClaim): Promise<ClaimConflict | undefined>;
}

export const PAGE_TTL_MS = 30 * 60_000;
const EMPTY: PageShown = { ads: new Set(), campaigns: new Set() };

/** In-process page records, at most `limit` pages, expiring with the injected clock. */
export function memoryPageViewStore(now: () => number, limit = 50_000): PageViewStore {
  const pages = new Map<string, { ads: Set<number>; campaigns: Set<number>; expiresAt: number }>();
  const live = (pageId: string) => {
    const page = pages.get(pageId);
    if (page === undefined) return undefined;
    if (page.expiresAt > now()) return page;
    pages.delete(pageId);
    return undefined;
  };
  return {
    async shown(pageId) {
      const page = live(pageId);
      return page === undefined ? EMPTY : { ads: new Set(page.ads), campaigns: new Set(page.campaigns) };
    },
    async claim(pageId, claim) {
      let page = live(pageId);
      if (page !== undefined) {
        const seen = page;
        const ads = claim.ads.filter((ad) => seen.ads.has(ad));
        const campaigns = claim.campaignsUnique ? claim.campaigns.filter((campaign) => seen.campaigns.has(campaign)) : [];
        if (ads.length > 0 || campaigns.length > 0) return { ads, campaigns };
        pages.delete(pageId);
      } else {
        if (pages.size >= limit) {
          const oldest = pages.keys().next();
          if (oldest.done !== true) pages.delete(oldest.value);
        }
        page = { ads: new Set(), campaigns: new Set(), expiresAt: 0 };
      }
      for (const ad of claim.ads) page.ads.add(ad);
      for (const campaign of claim.campaigns) page.campaigns.add(campaign);
      page.expiresAt = now() + PAGE_TTL_MS;
      // Re-inserted last, so the map stays in order of last use and the first entry is the stalest.
      pages.set(pageId, page);
      return undefined;
    },
  };
}

/**
 * One set per page, members `a<ad id>` and `c<campaign id>`. The claim is a script, so checking
 * and recording are one step even when two instances claim for the same page at once.
 */
const CLAIM_SCRIPT = `
local conflicts = {}
local checks = tonumber(ARGV[2])
for i = 3, 2 + checks do
  if redis.call('SISMEMBER', KEYS[1], ARGV[i]) == 1 then conflicts[#conflicts + 1] = ARGV[i] end
end
if #conflicts > 0 then return conflicts end
for i = 3 + checks, #ARGV do redis.call('SADD', KEYS[1], ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return conflicts
`;

export function redisPageViewStore(redis: Redis, prefix: string): PageViewStore {
  const keyOf = (pageId: string) => `${prefix}page:${pageId}`;
  return {
    async shown(pageId) {
      const members = await redis.smembers(keyOf(pageId));
      if (members.length === 0) return EMPTY;
      const ads = new Set<number>();
      const campaigns = new Set<number>();
      for (const member of members) (member.startsWith('a') ? ads : campaigns).add(Number(member.slice(1)));
      return { ads, campaigns };
    },
    async claim(pageId, claim) {
      const ads = claim.ads.map((ad) => `a${ad}`);
      const campaigns = claim.campaigns.map((campaign) => `c${campaign}`);
      const checks = claim.campaignsUnique ? [...ads, ...campaigns] : ads;
      const reply = (await redis.eval(
        CLAIM_SCRIPT,
        1,
        keyOf(pageId),
        String(PAGE_TTL_MS),
        String(checks.length),
        ...checks,
        ...ads,
        ...campaigns,
      )) as string[];
      if (reply.length === 0) return undefined;
      return {
        ads: reply.filter((member) => member.startsWith('a')).map((member) => Number(member.slice(1))),
        campaigns: reply.filter((member) => member.startsWith('c')).map((member) => Number(member.slice(1))),
      };
    },
  };
}
