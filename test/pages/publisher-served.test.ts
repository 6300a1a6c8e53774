import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
import { launchChromium, settledTexts, skipWithoutChromium } from '../helpers/browser.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer } from '../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf, pathOf } from '../helpers/serving.ts';

const skip = skipWithoutChromium;
/** The server's clock day, which the browser's clock is pinned to. */
const TODAY = new Date(TEST_EPOCH_MS).toISOString().slice(0, 10);

/**
 * The publisher's overview and statistics pages show served teasers beside the viewable views
 * among them, each with its income per thousand (docs/web-account.md, The publisher pages).
 */
describe('the publisher’s pages show served and viewable views (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    buildWebIfStale();
    server = await startTestServer();
    browser = await launchChromium();
    // Two answers of two teasers: 4 served; one of them seen (1 viewable view) and clicked.
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }, { bidMicros: 300_000 }], teaserCount: 2 });
    const desktop = { headers: { 'User-Agent': DESKTOP_UA } };
    const views: string[] = [];
    const urls: string[] = [];
    for (const pageId of ['a'.repeat(32), 'b'.repeat(32)]) {
      const answer = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers?page=${pageId}`, desktop);
      assert.equal(answer.status, 200, answer.text);
      for (const teaser of answer.json<{ teasers: { url: string; view: string }[] }>().teasers) {
        views.push(teaser.view);
        urls.push(teaser.url);
      }
    }
    assert.equal(views.length, 4);
    const beacon = await server.anonymous.request('POST', '/api/serve/views', {
      raw: views[0] ?? '',
      contentType: 'text/plain',
      ...desktop,
    });
    assert.equal(beacon.status, 204);
    assert.equal((await server.anonymous.get(pathOf(urls[0] ?? ''), desktop)).status, 302);
    await engineOf(server).impressions.flush();
    await engineOf(server).settled();
    const [day] = (await world.publisher.get(`/api/webmaster/statistic?dateFrom=${TODAY}&dateTo=${TODAY}`)).json<
      { served: number; views: number; clicks: number; income: number }[]
    >();
    assert.deepEqual([day?.served, day?.views, day?.clicks], [4, 1, 1], JSON.stringify(day));
    assert.ok((day?.income ?? 0) > 0);

    const db = server.server.context.db;
    await setPassword(db, world.publisherId);
    const username = (await world.publisher.get('/api/me')).json<{ username: string }>().username;
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    await context.clock.setFixedTime(new Date(TEST_EPOCH_MS));
    page = await context.newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Username or e-mail').fill(username);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  /** The value of the tile labelled `label`, once it is loaded. */
  const tile = async (label: string) => {
    const box = page.locator('.tile').filter({ has: page.locator('.tile-label', { hasText: new RegExp(`^${label}$`) }) });
    const [value] = await settledTexts(box.locator('strong'), (texts) => texts.length === 1 && texts[0] !== '…');
    return value;
  };

  it('the overview shows served and viewable views, and the income per 1000 of each', async () => {
    await page.goto(`${server.url}/publisher`);
    assert.equal(await tile('Served in the period'), '4');
    assert.equal(await tile('Viewable views in the period'), '1');
    // One click's income over 4 served and over 1 viewable view: the first RPM is a quarter of the second.
    const money = (text: string | undefined) => Number((text ?? '').replace(/[^\d.]/g, ''));
    const perServed = money(await tile('Income per 1000 served'));
    const perView = money(await tile('Income per 1000 viewable views'));
    assert.ok(perServed > 0, 'income per 1000 served');
    assert.ok(Math.abs(perServed * 4 - perView) < 0.001, `${perServed} × 4 = ${perView}`);
  });

  it('the statistics page has the figures as tiles and in the day’s row', async () => {
    await page.goto(`${server.url}/publisher/statistics`);
    assert.equal(await tile('Served'), '4');
    assert.equal(await tile('Viewable views'), '1');
    const daily = page.locator('section[aria-labelledby="daily-title"]');
    const heads = await daily.locator('thead th').allTextContents();
    assert.deepEqual(heads.slice(0, 3), ['Day', 'Served', 'Viewable views']);
    assert.deepEqual(heads.slice(-2), ['RPM served', 'RPM viewable']);
    const row = daily.getByRole('row', { name: /10 Mar 2026/ });
    const cells = await settledTexts(row.locator('td'), (texts) => texts.length === 7);
    assert.deepEqual(cells.slice(0, 3), ['4', '1', '1']);
    await page.getByText('Served: teasers placed in your blocks.').waitFor();
  });
});
