import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { LOADER_SCRIPT } from '../../src/modules/serving/loader-script.ts';
import { launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf } from '../helpers/serving.ts';
import { assertTrafficEverywhere } from '../helpers/statistics-assertions.ts';

const skip = skipWithoutChromium;
if (skip) process.stdout.write(`# skipping the browser tests: ${skip}\n`);

/** A publisher's page and an advertiser's landing page, on a plain local HTTP server. */
function startPublisherSite(pages: Record<string, string>): Promise<{ url: string; landings: string[]; close(): Promise<void> }> {
  const landings: string[] = [];
  const site = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/landing') landings.push(url.search);
    const page =
      pages[url.pathname] ?? (url.pathname === '/landing' ? '<!doctype html><title>Shop</title><h1>Shop</h1>' : undefined);
    const type = url.pathname.endsWith('.js') ? 'application/javascript' : 'text/html; charset=utf-8';
    // Anything else under /api answers 500: an ad server that is up but failing.
    const status = page !== undefined ? 200 : url.pathname.startsWith('/api/') ? 500 : 404;
    response.writeHead(status, { 'Content-Type': type });
    response.end(page ?? 'not found');
  });
  return new Promise((resolve) => {
    site.listen(0, '127.0.0.1', () => {
      const { port } = site.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        landings,
        close: () => new Promise((done) => site.close(() => done())),
      });
    });
  });
}

const pageWithBlock = (blockId: number, scriptOrigin: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>News</title>
<script>window.__before = Object.keys(window);</script></head>
<body><main><h1>Today's news</h1><p id="article">Article text.</p>
<div data-nativa-block="${blockId}"></div><script async src="${scriptOrigin}/api/serve/loader.js"></script>
</main></body></html>`;

describe('serving in a real browser (headless Chromium)', { skip }, () => {
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

  it('writes the "Ad" mark, the list’s name and the price in the page’s language', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 400_000 }], teaserCount: 1 });
    const db = server.server.context.db;
    await db
      .updateTable('offers')
      .set({ price_text: 'from 50 (was 100) + free shipping' })
      .where('id', 'in', world.offerIds)
      .execute();
    await engineOf(server).refresh();
    const russian = pageWithBlock(world.blockId, server.url).replace('<html lang="en">', '<html lang="ru">');
    // A block may name its language whatever the page's is.
    const named = pageWithBlock(world.blockId, server.url).replace(
      'data-nativa-block=',
      'data-nativa-lang="ru" data-nativa-block=',
    );
    const publisher = await startPublisherSite({ '/': russian, '/named': named });
    const context = await browser.newContext({ ignoreHTTPSErrors: true, userAgent: DESKTOP_UA, locale: 'en-US' });
    try {
      for (const path of ['/', '/named']) {
        const page = await context.newPage();
        await page.goto(`${publisher.url}${path}`);
        await page.waitForSelector('[data-nativa-block] li a');
        const [low, high] = await page.evaluate(() => {
          const format = new Intl.NumberFormat('ru', { style: 'currency', currency: 'USD' });
          return [format.format(50), format.format(100)];
        });
        assert.equal(await page.locator('[data-nativa-block] ul').getAttribute('aria-label'), 'Реклама', path);
        assert.equal(await page.locator('[data-nativa-block] .nativa-ad-mark').textContent(), 'Реклама', path);
        assert.equal(
          await page.locator('[data-nativa-block] .nativa-price').textContent(),
          `от ${low} (было ${high}) + бесплатная доставка`,
          path,
        );
        await page.close();
      }
    } finally {
      await context.close();
      await publisher.close();
    }
  });

  it('renders teasers from the embed code; a click navigates through the redirect and is billed once', async () => {
    const db = server.server.context.db;
    const site = await startPublisherSite({});
    try {
      const landing = `${site.url}/landing?click={click_id}`;
      const world = await createWorld(server, {
        ads: [
          { bidMicros: 400_000, url: landing },
          { bidMicros: 250_000, url: landing },
          { bidMicros: 150_000, url: landing },
        ],
        teaserCount: 3,
      });
      await db.updateTable('offers').set({ price_text: 'from 19.90 (was 25) -20%' }).where('id', 'in', world.offerIds).execute();
      await engineOf(server).refresh();
      const publisher = await startPublisherSite({ '/': pageWithBlock(world.blockId, server.url) });
      const context = await browser.newContext({ ignoreHTTPSErrors: true, userAgent: DESKTOP_UA });
      try {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        // The block is in view from the start: the loader's beacon reports its teasers viewed after a second.
        const beacon = page.waitForRequest((request) => request.url().endsWith('/api/serve/views'));
        await page.goto(publisher.url);
        await page.waitForSelector('[data-nativa-block] li a');
        const teasers = page.locator('[data-nativa-block] li');
        assert.equal((await (await beacon).response())?.status(), 204);
        assert.equal(await teasers.count(), 3);
        assert.equal(await page.locator('[data-nativa-block] ul').getAttribute('aria-label'), 'Sponsored');
        assert.equal(await teasers.first().locator('.nativa-title').textContent(), `Ad ${world.campaignIds[0]}`);
        // The price in the platform currency (USD by default), formatted in the browser's locale.
        const [low, high] = await page.evaluate(() => {
          const format = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' });
          return [format.format(19.9), format.format(25)];
        });
        assert.equal(await teasers.first().locator('.nativa-price').textContent(), `from ${low} (was ${high}) -20%`);
        // Disclosure on every teaser: the "Ad" mark and the advertiser's domain.
        assert.equal(await page.locator('[data-nativa-block] .nativa-ad-mark').count(), 3);
        assert.equal(await teasers.first().locator('.nativa-ad-mark').textContent(), 'Ad');
        assert.ok(await teasers.first().locator('.nativa-ad-mark').isVisible());
        assert.equal(await teasers.first().locator('.nativa-domain').textContent(), '127.0.0.1');
        assert.equal(await teasers.first().locator('a').getAttribute('rel'), 'sponsored noopener');
        const leaked = await page.evaluate(() => {
          const scope = globalThis as unknown as { __before: string[] };
          const before = new Set(scope.__before);
          return Object.keys(scope).filter((key) => !before.has(key) && key !== '__before');
        });
        assert.deepEqual(leaked, [], 'the loader defines no globals');
        assert.equal(await page.locator('#article').textContent(), 'Article text.');

        const popupOpened = context.waitForEvent('page');
        await teasers.first().locator('a').click();
        const shop = await popupOpened;
        await shop.waitForLoadState('load');
        assert.match(shop.url(), /\/landing\?click=[A-Za-z0-9_-]{22}$/);
        assert.equal(publisher.landings.length + site.landings.length, 1);
        assert.deepEqual(errors, []);

        await engineOf(server).impressions.flush();
        await engineOf(server).settled();
        // Second price: the runner-up's 0.25 plus 0.01; the publisher gets 70% of it.
        const oneBilledClick = {
          advertiserId: world.advertiserId,
          publisherId: world.publisherId,
          campaignIds: world.campaignIds,
          siteId: world.siteId,
          blockId: world.blockId,
          views: 3,
          clicks: 1,
          spendMicros: 260_000,
          incomeMicros: 182_000,
          advertiserStartMicros: 100_000_000,
          advertiser: world.advertiser,
          publisher: world.publisher,
        };
        await assertTrafficEverywhere(db, oneBilledClick);
        // Reloading the landing page (the same click link) bills nothing more.
        await shop.goBack().catch(() => undefined);
        const link = await teasers.first().locator('a').getAttribute('href');
        const again = await context.newPage();
        await again.goto(link ?? '');
        assert.match(again.url(), /\/landing\?click=/);
        await engineOf(server).settled();
        await assertTrafficEverywhere(db, oneBilledClick);
      } finally {
        await context.close();
        await publisher.close();
      }
    } finally {
      await site.close();
    }
  });

  it('leaves the page untouched when the ad server is down', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const publisher = await startPublisherSite({ '/': pageWithBlock(1, `https://127.0.0.1:${port}`) });
    const context = await browser.newContext({ ignoreHTTPSErrors: true, userAgent: DESKTOP_UA });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(publisher.url, { waitUntil: 'load' });
      assert.equal(await page.locator('#article').textContent(), 'Article text.');
      assert.equal(await page.locator('[data-nativa-block]').innerHTML(), '');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await publisher.close();
    }
  });

  it('leaves the page untouched when the ad server answers with errors', async () => {
    const failing = await startPublisherSite({ '/api/serve/loader.js': LOADER_SCRIPT });
    const publisher = await startPublisherSite({ '/': pageWithBlock(1, failing.url) });
    const context = await browser.newContext({ userAgent: DESKTOP_UA });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const teasersRequested = page.waitForRequest((request) => request.url().includes('/teasers'));
      await page.goto(publisher.url, { waitUntil: 'load' });
      await teasersRequested;
      await page.waitForSelector('[data-nativa-state="done"], [data-nativa-state="failed"]', { state: 'attached' });
      assert.equal(await page.locator('[data-nativa-block] *').count(), 0);
      assert.equal(await page.locator('#article').textContent(), 'Article text.');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await publisher.close();
      await failing.close();
    }
  });
});
