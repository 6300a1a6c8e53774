import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Request } from 'playwright-core';
import type { Db } from '../../src/db/database.ts';
import { launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { insertBlock } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf } from '../helpers/serving.ts';

/** Where the page's clock starts (its own, not the server's). */
const TEST_START = Date.UTC(2026, 2, 10, 12, 0, 0);
const skip = skipWithoutChromium;
if (skip) process.stdout.write(`# skipping the viewability browser test: ${skip}\n`);

/** A publisher's article: one block at the top, one far below the fold. */
const articlePage = (topBlock: number, lowBlock: number, scriptOrigin: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>News</title></head>
<body style="margin:0"><h1>Today's news</h1>
<div id="top" data-nativa-block="${topBlock}"></div>
<p style="height:4000px">A long article.</p>
<div id="low" data-nativa-block="${lowBlock}"></div>
<p style="height:2000px">Comments.</p>
<script async src="${scriptOrigin}/api/serve/loader.js"></script>
</body></html>`;

function startPublisherSite(page: string): Promise<{ url: string; close(): Promise<void> }> {
  const site = http.createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(page);
  });
  return new Promise((resolve) => {
    site.listen(0, '127.0.0.1', () => {
      const { port } = site.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((done) => site.close(() => done())) });
    });
  });
}

async function countsOfBlock(db: Db, blockId: number): Promise<{ served: number; views: number }> {
  const row = await db
    .selectFrom('stats_daily')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>('served'), eb.lit(0)).as('served'),
      eb.fn.coalesce(eb.fn.sum<number>('views'), eb.lit(0)).as('views'),
    ])
    .where('block_id', '=', blockId)
    .executeTakeFirstOrThrow();
  return { served: Number(row.served), views: Number(row.views) };
}

describe('viewable impressions in a real browser (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  before(async () => {
    server = await startTestServer();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('counts a block scrolled into view for a second once, one never scrolled to as served only, and a replay as nothing', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, {
      // Six ads for two blocks of three: one page view shows no ad twice.
      ads: [400_000, 350_000, 300_000, 250_000, 200_000, 150_000].map((bidMicros) => ({ bidMicros })),
      teaserCount: 3,
    });
    const lowBlock = (await insertBlock(db, { siteId: world.siteId, teaserCount: 3 })).id;
    await engineOf(server).refresh();
    const publisher = await startPublisherSite(articlePage(world.blockId, lowBlock, server.url));
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      userAgent: DESKTOP_UA,
      viewport: { width: 1280, height: 720 },
    });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      // Each block's impression tokens, as the teasers responses handed them out.
      const tokensOf = new Map<number, string[]>();
      page.on('response', async (response) => {
        const match = /\/api\/serve\/blocks\/(\d+)\/teasers(?:\?|$)/.exec(response.url());
        if (match === null) return;
        const body = (await response.json()) as { teasers: { view: string }[] };
        tokensOf.set(
          Number(match[1]),
          body.teasers.map((teaser) => teaser.view),
        );
      });
      const beacons: Request[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/api/serve/views')) beacons.push(request);
      });

      const firstBeacon = page.waitForRequest((request) => request.url().endsWith('/api/serve/views'));
      await page.goto(publisher.url);
      await page.waitForSelector('#top li a');
      await page.waitForSelector('#low li a', { state: 'attached' });
      assert.equal(await page.locator('#low li').first().isVisible(), true, 'rendered (below the fold)');
      // The top block is in view from the start: its beacon comes after a second, with its three tokens.
      const top = await firstBeacon;
      assert.equal(top.method(), 'POST');
      assert.match((await top.allHeaders())['content-type'] ?? '', /^text\/plain/);
      assert.deepEqual((top.postData() ?? '').split('\n').sort(), [...(tokensOf.get(world.blockId) ?? [])].sort());
      assert.equal(tokensOf.get(lowBlock)?.length, 3);
      assert.equal((await top.response())?.status(), 204);
      await engineOf(server).impressions.flush();
      assert.deepEqual(await countsOfBlock(db, world.blockId), { served: 3, views: 3 });
      assert.deepEqual(await countsOfBlock(db, lowBlock), { served: 3, views: 0 }, 'never scrolled to: served only');
      assert.equal(beacons.length, 1);

      // Scrolled into view (and kept there): one beacon with the low block's three tokens.
      const lowBeacon = page.waitForRequest((request) => request.url().endsWith('/api/serve/views'));
      await page.locator('#low').scrollIntoViewIfNeeded();
      const low = await lowBeacon;
      assert.deepEqual((low.postData() ?? '').split('\n').sort(), [...(tokensOf.get(lowBlock) ?? [])].sort());
      assert.equal((await low.response())?.status(), 204);
      await engineOf(server).impressions.flush();
      assert.deepEqual(await countsOfBlock(db, lowBlock), { served: 3, views: 3 });

      // The captured beacon replayed from the page, as a script on it could.
      const replayed = await page.evaluate(
        async ({ url, body }) => (await fetch(url, { method: 'POST', body, headers: { 'Content-Type': 'text/plain' } })).status,
        { url: `${server.url}/api/serve/views`, body: low.postData() ?? '' },
      );
      assert.equal(replayed, 204);
      await engineOf(server).impressions.flush();
      assert.deepEqual(await countsOfBlock(db, lowBlock), { served: 3, views: 3 }, 'a replayed beacon counts nothing');
      assert.deepEqual(await countsOfBlock(db, world.blockId), { served: 3, views: 3 });
      assert.equal(beacons.filter((request) => request.postData() === low.postData()).length, 2, 'the original and the replay');
      assert.equal(beacons.length, 3, 'two beacons of the loader, one per block, and the replay');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await publisher.close();
    }
  });

  it('counts nothing for a teaser in view for less than a second, and its view once it stays a second', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 400_000 }, { bidMicros: 300_000 }], teaserCount: 1 });
    const lowBlock = (await insertBlock(db, { siteId: world.siteId, teaserCount: 1 })).id;
    await engineOf(server).refresh();
    const publisher = await startPublisherSite(articlePage(world.blockId, lowBlock, server.url));
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      userAgent: DESKTOP_UA,
      viewport: { width: 1280, height: 720 },
    });
    try {
      const page = await context.newPage();
      // The page's timers run on a paused clock the test moves: "a second in view" is exact, not raced
      // against a loaded machine's real time.
      await page.clock.install({ time: TEST_START });
      await page.clock.pauseAt(TEST_START + 1000);
      const beacons: Request[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/api/serve/views')) beacons.push(request);
      });
      await page.goto(publisher.url);
      await page.waitForSelector('#low li a', { state: 'attached' });
      // Resolves once the low teaser is (or is not) half visible: an observer made after the
      // loader's gets its notice in the same update, after the loader's.
      const lowInView = (wanted: boolean) =>
        page.evaluate(`new Promise((resolve) => {
          const observer = new IntersectionObserver((records) => {
            if (records.some((record) => (record.intersectionRatio >= 0.5) === ${wanted})) {
              observer.disconnect();
              resolve();
            }
          }, { threshold: 0.5 });
          observer.observe(document.querySelector('#low li'));
        })`);
      await page.clock.runFor(5000);
      const topBeacons = beacons.length;
      assert.equal(topBeacons, 1, 'the top block, in view from the start, was reported');

      await page.locator('#low').scrollIntoViewIfNeeded();
      await lowInView(true);
      await page.clock.runFor(900);
      await page.evaluate('window.scrollTo(0, 0)');
      await lowInView(false);
      await page.clock.runFor(5000);
      await page.locator('#low').scrollIntoViewIfNeeded();
      await lowInView(true);
      await page.clock.runFor(900);
      assert.equal(beacons.length, topBeacons, 'in view 0.9 s, out, and 0.9 s again: no view');

      const lowBeacon = page.waitForRequest((request) => request.url().endsWith('/api/serve/views'));
      await page.clock.runFor(400);
      const low = await lowBeacon;
      assert.equal((await low.response())?.status(), 204);
      await engineOf(server).impressions.flush();
      assert.deepEqual(await countsOfBlock(db, lowBlock), { served: 1, views: 1 });
      assert.equal(beacons.length, topBeacons + 1);
    } finally {
      await context.close();
      await publisher.close();
    }
  });

  it('a frequency cap counts the views the beacon reports, not the teasers served', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 900_000 }, { bidMicros: 100_000 }], teaserCount: 1 });
    const [capped = 0] = world.campaignIds;
    const [cappedAd = 0, otherAd = 0] = world.offerIds;
    const put = await world.advertiser.put(`/api/advertiser/campaigns/${capped}`, { frequencyCap: 1 });
    assert.equal(put.status, 200, put.text);
    await engineOf(server).refresh();
    // One block, far below the fold: served on every load, viewable only once scrolled to.
    const publisher = await startPublisherSite(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>News</title></head>
<body style="margin:0"><p style="height:4000px">A long article.</p>
<div id="low" data-nativa-block="${world.blockId}"></div><p style="height:2000px">Comments.</p>
<script async src="${server.url}/api/serve/loader.js"></script></body></html>`);
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      userAgent: DESKTOP_UA,
      viewport: { width: 1280, height: 720 },
    });
    try {
      const page = await context.newPage();
      const beacons: Request[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/api/serve/views')) beacons.push(request);
      });
      /** Loads the article (a new page view, the same visitor: the loader's localStorage id) and returns the teaser served. */
      const load = async () => {
        const served = page.waitForResponse((response) => /\/api\/serve\/blocks\/\d+\/teasers/.test(response.url()));
        await page.goto(publisher.url);
        const response = await served;
        assert.match(response.url(), /[?&]visitor=[A-Za-z0-9_-]{16,64}/, 'the loader names its visitor');
        const [teaser] = ((await response.json()) as { teasers: { id: number; view: string }[] }).teasers;
        assert.ok(teaser);
        await page.waitForSelector('#low li a', { state: 'attached' });
        return teaser;
      };
      assert.equal((await load()).id, cappedAd);
      await engineOf(server).impressions.flush();
      const again = await load();
      assert.equal(again.id, cappedAd, 'served but never viewable: not counted toward the cap');
      assert.equal(beacons.length, 0);

      const beacon = page.waitForRequest((request) => request.url().endsWith('/api/serve/views'));
      await page.locator('#low').scrollIntoViewIfNeeded();
      const sent = await beacon;
      assert.equal(sent.postData(), again.view);
      assert.equal((await sent.response())?.status(), 204);
      await engineOf(server).impressions.flush();
      await page.evaluate('window.scrollTo(0, 0)');
      assert.equal((await load()).id, otherAd, 'viewed once: the cap of one is reached');
    } finally {
      await context.close();
      await publisher.close();
    }
  });
});
