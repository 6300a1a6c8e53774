import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { cpmOf } from '../../src/modules/serving/openrtb/openrtb-auction.ts';
import { smoothedCtr } from '../../src/modules/serving/selection/auction.ts';
import { launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { buildPrebidWithNativa } from '../helpers/prebid-build.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { balanceOf, createWorld, DESKTOP_UA, engineOf, servedAndViews } from '../helpers/serving.ts';

const skip = skipWithoutChromium;
if (skip) process.stdout.write(`# skipping the Prebid.js browser test: ${skip}\n`);

const SCHAIN = { ver: '1.0', complete: 1, nodes: [{ asi: 'publisher.example', sid: '42', hp: 1 }] };

/**
 * A publisher's page running Prebid.js with Nativa's adapter: one native ad unit, an auction, and
 * the winning bid's native assets rendered as a teaser whose impression trackers fire.
 */
const auctionPage = (blockId: number, endpoint: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>News</title>
<script src="/prebid.js"></script></head>
<body><h1>Today's news</h1><div id="nativa-slot"></div>
<script>
pbjs.que.push(function () {
  pbjs.setConfig({ userSync: { syncEnabled: false }, ortb2: { source: { ext: { schain: ${JSON.stringify(SCHAIN)} } } } });
  pbjs.addAdUnits([{
    code: 'nativa-slot',
    mediaTypes: { native: { ortb: { ver: '1.2', assets: [
      { id: 1, required: 1, title: { len: 80 } },
      { id: 2, required: 1, data: { type: 1 } },
      { id: 3, required: 0, data: { type: 2 } }
    ] } } },
    bids: [{ bidder: 'nativa', params: { blockId: ${blockId}, endpoint: ${JSON.stringify(endpoint)} } }]
  }]);
  pbjs.requestBids({ timeout: 5000, bidsBackHandler: function () {
    var winner = pbjs.getHighestCpmBids('nativa-slot')[0];
    if (!winner) { document.body.dataset.result = 'no bid'; return; }
    var link = document.createElement('a');
    link.id = 'teaser';
    link.href = winner.native.clickUrl;
    link.textContent = winner.native.title + ' (' + winner.native.sponsoredBy + ')';
    document.getElementById('nativa-slot').append(link);
    (winner.native.impressionTrackers || []).forEach(function (url) { new Image().src = url; });
    pbjs.markWinningBidAsUsed({ adId: winner.adId });
    document.body.dataset.cpm = String(winner.cpm);
    document.body.dataset.currency = winner.currency;
    document.body.dataset.result = 'rendered';
  } });
});
</script></body></html>`;

function startPublisherSite(
  files: Record<string, { type: string; body: string }>,
): Promise<{ url: string; close(): Promise<void> }> {
  const site = http.createServer((request, response) => {
    const file = files[new URL(request.url ?? '/', 'http://localhost').pathname];
    response.writeHead(file ? 200 : 404, { 'Content-Type': file?.type ?? 'text/plain' });
    response.end(file?.body ?? 'not found');
  });
  return new Promise((resolve) => {
    site.listen(0, '127.0.0.1', () => {
      const { port } = site.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((done) => site.close(() => done())) });
    });
  });
}

describe('Prebid.js with the Nativa adapter in a real browser (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let prebid: string;
  before(async () => {
    server = await startTestServer();
    // Built from the npm package with the adapter, as a publisher would: well under a second here.
    prebid = await buildPrebidWithNativa();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('runs an auction, renders the winning teaser, fires its notices and view pixel, and its click is billed', async () => {
    const db = server.server.context.db;
    const files: Record<string, { type: string; body: string }> = {
      '/prebid.js': { type: 'application/javascript', body: prebid },
      // The advertiser's landing page (on the same test host): the click's redirect ends there.
      '/landing': { type: 'text/html; charset=utf-8', body: '<!doctype html><title>Shop</title><h1>Shop</h1>' },
    };
    const site = await startPublisherSite(files);
    const landing = `${site.url}/landing?id={click_id}`;
    const world = await createWorld(server, {
      ads: [
        { bidMicros: 500_000, url: landing },
        { bidMicros: 300_000, url: landing },
      ],
    });
    files['/'] = { type: 'text/html; charset=utf-8', body: auctionPage(world.blockId, server.url) };
    const balanceBefore = await balanceOf(db, world.advertiserId);
    const context = await browser.newContext({ ignoreHTTPSErrors: true, userAgent: DESKTOP_UA });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const bidRequest = page.waitForRequest((request) => request.url().endsWith('/api/openrtb2/auction'));
      const viewPixel = page.waitForResponse((response) => response.url().includes('/api/serve/view.gif'));
      // Prebid calls the adapter's onBidWon and onBidBillable once the page marks the bid won.
      const notices = ['win', 'billing'].map((event) =>
        page.waitForResponse(
          (response) => response.url().includes(`/api/openrtb2/notice?`) && response.url().includes(`event=${event}`),
        ),
      );
      await page.goto(site.url);
      const sent = JSON.parse((await bidRequest).postData() ?? '{}');
      assert.equal(sent.imp[0].tagid, String(world.blockId));
      assert.deepEqual(sent.source.ext.schain, SCHAIN, 'the supply chain travels with the request');
      await page.waitForSelector('#teaser');
      assert.equal(await page.locator('body').getAttribute('data-result'), 'rendered');
      assert.equal(Number(await page.locator('body').getAttribute('data-cpm')), cpmOf(500_000, smoothedCtr(0, 0)));
      assert.equal(await page.locator('body').getAttribute('data-currency'), server.server.context.config.currency);
      assert.equal(await page.locator('#teaser').textContent(), `Ad ${world.campaignIds[0]} (127.0.0.1)`);
      assert.equal((await viewPixel).status(), 200);
      const cpm = cpmOf(500_000, smoothedCtr(0, 0));
      for (const notice of await Promise.all(notices)) {
        assert.equal(notice.status(), 204, notice.url());
        assert.equal(new URL(notice.url()).searchParams.get('price'), String(cpm), 'the price Prebid cleared');
      }

      await Promise.all([page.waitForURL(new RegExp(`^${site.url}/landing\\?id=[A-Za-z0-9_-]{22}$`)), page.click('#teaser')]);
      await engineOf(server).impressions.flush();
      await engineOf(server).settled();
      const clicks = await db
        .selectFrom('clicks')
        .select(['status', 'charge_micros'])
        .where('offer_id', '=', world.offerIds[0] as number)
        .execute();
      assert.equal(clicks.length, 1);
      assert.equal(clicks[0]?.status, 'billed');
      assert.equal(await balanceOf(db, world.advertiserId), balanceBefore - (clicks[0]?.charge_micros ?? 0));
      assert.ok((clicks[0]?.charge_micros ?? 0) > 0);
      // Served once, on its notices; the clearing price recorded exactly, the click billed as usual.
      assert.deepEqual(await servedAndViews(db, world.campaignIds), { served: 1, views: 1 });
      const win = await db
        .selectFrom('openrtb_wins')
        .selectAll()
        .where('offer_id', '=', world.offerIds[0] as number)
        .execute();
      assert.equal(win.length, 1);
      assert.equal(win[0]?.clearing_price_micros, Math.round(cpm * 1_000_000));
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await site.close();
    }
  });
});
