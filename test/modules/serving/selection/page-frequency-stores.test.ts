import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { manualClock } from '../../../../src/clock.ts';
import { adExclusion, campaignExclusion, type ImpressionFilters } from '../../../../src/modules/serving/selection/eligibility.ts';
import {
  type FrequencyStore,
  memoryFrequencyStore,
  redisFrequencyStore,
} from '../../../../src/modules/serving/selection/frequency.ts';
import {
  memoryPageViewStore,
  PAGE_TTL_MS,
  type PageViewStore,
  redisPageViewStore,
} from '../../../../src/modules/serving/selection/page-views.ts';
import { frequencyVisitor } from '../../../../src/modules/serving/tracking/visitor-id.ts';
import { redisUnreachable, TEST_REDIS_URL } from '../../../helpers/redis.ts';

/** The same contract for the in-process store and the Redis one. */
function frequencyContract(name: string, make: () => FrequencyStore | undefined) {
  describe(`frequency store: ${name}`, () => {
    it('counts views per visitor, campaign and day', async (t) => {
      const store = make();
      if (store === undefined) return t.skip('Redis is unreachable; set TEST_REDIS_URL');
      const visitor = `v${randomBytes(6).toString('hex')}`;
      assert.deepEqual(await store.viewsToday(visitor, '2026-03-10'), new Map());
      await store.recordView(visitor, 7, '2026-03-10');
      await store.recordView(visitor, 7, '2026-03-10');
      await store.recordView(visitor, 8, '2026-03-10');
      await store.recordView(visitor, 7, '2026-03-11');
      await store.recordView(`${visitor}x`, 7, '2026-03-10');
      assert.deepEqual(
        await store.viewsToday(visitor, '2026-03-10'),
        new Map([
          [7, 2],
          [8, 1],
        ]),
      );
      assert.deepEqual(await store.viewsToday(visitor, '2026-03-11'), new Map([[7, 1]]));
      assert.deepEqual(await store.viewsToday(`${visitor}x`, '2026-03-10'), new Map([[7, 1]]));
    });
  });
}

/**
 * `expire` moves the in-process store's clock past the time to live; Redis expires keys itself, so
 * there `ttlMs` reads the time to live Redis holds for a page.
 */
type MadePageStore = { store: PageViewStore; expire?: () => void; ttlMs?: (pageId: string) => Promise<number> };

function pageContract(name: string, make: () => MadePageStore | undefined) {
  describe(`page-view store: ${name}`, () => {
    it('claims ads and campaigns; a repeated ad is refused and nothing of that claim is recorded', async (t) => {
      const made = make();
      if (made === undefined) return t.skip('Redis is unreachable; set TEST_REDIS_URL');
      const { store } = made;
      const page = randomBytes(12).toString('hex');
      assert.equal(await store.claim(page, { ads: [1, 2], campaigns: [10, 20], campaignsUnique: false }), undefined);
      assert.deepEqual(await store.claim(page, { ads: [3, 2], campaigns: [30, 20], campaignsUnique: false }), {
        ads: [2],
        campaigns: [],
      });
      const shown = await store.shown(page);
      assert.deepEqual([...shown.ads].sort(), [1, 2]);
      assert.deepEqual([...shown.campaigns].sort(), [10, 20]);
      // A campaign repeat is allowed unless the claiming block asks for unique campaigns.
      assert.equal(await store.claim(page, { ads: [4], campaigns: [10], campaignsUnique: false }), undefined);
      assert.deepEqual(await store.claim(page, { ads: [5], campaigns: [20], campaignsUnique: true }), {
        ads: [],
        campaigns: [20],
      });
      assert.equal(await store.claim(page, { ads: [5], campaigns: [50], campaignsUnique: true }), undefined);
      assert.deepEqual([...(await store.shown(page)).ads].sort(), [1, 2, 4, 5]);
      // Another page is another page.
      assert.equal(await store.claim(`${page}b`, { ads: [1], campaigns: [10], campaignsUnique: true }), undefined);
    });

    it('forgets a page after its time to live', async (t) => {
      const made = make();
      if (made === undefined) return t.skip('Redis is unreachable; set TEST_REDIS_URL');
      const page = randomBytes(12).toString('hex');
      await made.store.claim(page, { ads: [1], campaigns: [10], campaignsUnique: false });
      if (made.ttlMs !== undefined) {
        // Redis forgets the page itself: every claim sets the key's time to live to PAGE_TTL_MS.
        const ttl = await made.ttlMs(page);
        assert.ok(ttl > PAGE_TTL_MS - 60_000 && ttl <= PAGE_TTL_MS, `time to live ${ttl} ms`);
        return;
      }
      assert.ok(made.expire, 'the in-process store is given a clock to move');
      made.expire();
      assert.equal((await made.store.shown(page)).ads.size, 0);
      assert.equal(await made.store.claim(page, { ads: [1], campaigns: [10], campaignsUnique: false }), undefined);
    });
  });
}

let redis: Redis | undefined;
const prefix = `nativa-test-${randomBytes(4).toString('hex')}:`;
describe('page and frequency stores', () => {
  before(async () => {
    if ((await redisUnreachable(TEST_REDIS_URL)) === undefined) redis = new Redis(TEST_REDIS_URL);
  });
  after(async () => {
    if (redis === undefined) return;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  frequencyContract('in-process', () => memoryFrequencyStore());
  frequencyContract('Redis', () => (redis === undefined ? undefined : redisFrequencyStore(redis, prefix)));
  pageContract('in-process', () => {
    const clock = manualClock(0);
    return { store: memoryPageViewStore(clock.now), expire: () => clock.advance(PAGE_TTL_MS) };
  });
  pageContract('Redis', () => {
    const client = redis;
    if (client === undefined) return undefined;
    return { store: redisPageViewStore(client, prefix), ttlMs: (pageId) => client.pttl(`${prefix}page:${pageId}`) };
  });

  describe('bounded in-process stores', () => {
    it('the page store forgets the least recently used page when full', async () => {
      const store = memoryPageViewStore(() => 0, 2);
      await store.claim('a', { ads: [1], campaigns: [1], campaignsUnique: false });
      await store.claim('b', { ads: [1], campaigns: [1], campaignsUnique: false });
      await store.claim('a', { ads: [2], campaigns: [1], campaignsUnique: false });
      await store.claim('c', { ads: [1], campaigns: [1], campaignsUnique: false });
      assert.equal((await store.shown('b')).ads.size, 0);
      assert.deepEqual([...(await store.shown('a')).ads], [1, 2]);
    });

    it('the frequency store forgets the oldest visitor when full', async () => {
      const store = memoryFrequencyStore(2);
      await store.recordView('a', 1, 'd');
      await store.recordView('b', 1, 'd');
      await store.recordView('c', 1, 'd');
      assert.equal((await store.viewsToday('a', 'd')).size, 0);
      assert.equal((await store.viewsToday('c', 'd')).get(1), 1);
    });
  });

  describe('eligibility filters', () => {
    const base: ImpressionFilters = { nowMs: 0, page: undefined, campaignsUnique: false, viewsToday: undefined };
    const page = { ads: new Set([5]), campaigns: new Set([9]) };
    const cases: [
      string,
      ImpressionFilters,
      { id: number; frequencyCap?: number },
      number,
      string | undefined,
      string | undefined,
    ][] = [
      ['nothing known', base, { id: 9, frequencyCap: 2 }, 5, undefined, undefined],
      ['ad shown on the page', { ...base, page }, { id: 9 }, 5, undefined, 'page_repeat'],
      ['campaign shown, block allows repeats', { ...base, page }, { id: 9 }, 6, undefined, undefined],
      ['campaign shown, block refuses repeats', { ...base, page, campaignsUnique: true }, { id: 9 }, 6, 'page_repeat', undefined],
      ['under the cap', { ...base, viewsToday: new Map([[9, 1]]) }, { id: 9, frequencyCap: 2 }, 6, undefined, undefined],
      ['at the cap', { ...base, viewsToday: new Map([[9, 2]]) }, { id: 9, frequencyCap: 2 }, 6, 'frequency', undefined],
      ['no cap', { ...base, viewsToday: new Map([[9, 99]]) }, { id: 9, frequencyCap: 0 }, 6, undefined, undefined],
    ];
    for (const [name, filters, campaign, offerId, campaignReason, adReason] of cases) {
      it(name, () => {
        assert.equal(campaignExclusion(campaign, filters), campaignReason);
        assert.equal(adExclusion(offerId, filters), adReason);
      });
    }
  });

  describe('frequency visitor', () => {
    const signals = { cookieId: undefined, loaderId: undefined, address: '203.0.113.9', userAgent: 'UA' };
    it('prefers the cookie, then the loader id, then a daily keyed hash; always 16 keyed bytes', () => {
      const cookieId = 'c'.repeat(22);
      const loaderId = 'l'.repeat(32);
      const byCookie = frequencyVisitor({ ...signals, cookieId, loaderId }, 's', 'd');
      assert.match(byCookie, /^[A-Za-z0-9_-]{22}$/);
      assert.equal(Buffer.from(byCookie, 'base64url').length, 16);
      assert.equal(frequencyVisitor({ ...signals, cookieId }, 's', 'd2'), byCookie, 'the cookie wins, on any day');
      const byLoader = frequencyVisitor({ ...signals, loaderId }, 's', 'd');
      assert.equal(frequencyVisitor({ ...signals, loaderId, userAgent: 'UA2' }, 's', 'd2'), byLoader, 'then the loader id');
      assert.notEqual(byLoader, byCookie);
      assert.notEqual(frequencyVisitor({ ...signals, loaderId }, 'other', 'd'), byLoader, 'keyed by the secret');
      assert.notEqual(frequencyVisitor({ ...signals, cookieId: loaderId }, 's', 'd'), byLoader, 'a cookie is not a loader id');
      const hashed = frequencyVisitor(signals, 'secret', '2026-03-10');
      assert.match(hashed, /^[A-Za-z0-9_-]{22}$/);
      assert.equal(frequencyVisitor(signals, 'secret', '2026-03-10'), hashed);
      assert.notEqual(frequencyVisitor(signals, 'secret', '2026-03-11'), hashed, 'not linkable across days');
      assert.notEqual(frequencyVisitor(signals, 'other', '2026-03-10'), hashed, 'keyed by the secret');
      assert.notEqual(frequencyVisitor({ ...signals, userAgent: 'UA2' }, 'secret', '2026-03-10'), hashed);
    });
  });
});
