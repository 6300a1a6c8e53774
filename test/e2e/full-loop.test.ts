import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { imageBytes } from '../helpers/advertiser.ts';
import { launchChromium, lookAt, SHOTS, settledTexts, skipWithoutChromium } from '../helpers/browser.ts';
import { Mailbox } from '../helpers/mailbox.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer } from '../helpers/server.ts';
import { DESKTOP_UA, engineOf } from '../helpers/serving.ts';

const skip = skipWithoutChromium;
const PASSWORD = 'a long enough password';
/** The server's clock day (its TZ is UTC), which the browsers' clocks are pinned to. */
const TODAY = new Date(TEST_EPOCH_MS).toISOString().slice(0, 10);

/** The publisher's own page (plain HTTP on loopback) into which the copied embed code goes, and the shop's landing page. */
function startPublisherPage(): Promise<{ url: string; setBody(html: string): void; landings: string[]; close(): Promise<void> }> {
  let body = '';
  const landings: string[] = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/landing') {
      landings.push(url.search);
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><title>Shop</title><h1>Shoes</h1>');
      return;
    }
    response.writeHead(url.pathname === '/' ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(
      url.pathname === '/'
        ? `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Daily news</title></head>
<body><main><h1>Today's news</h1><p>Article text.</p>${body}</main></body></html>`
        : 'not found',
    );
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        setBody: (html) => {
          body = html;
        },
        landings,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

describe('the whole loop in browsers: advertiser, operator, publisher, visitor (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let publisherPage: Awaited<ReturnType<typeof startPublisherPage>>;
  const mailbox = new Mailbox();
  const cspErrors: string[] = [];
  const contexts: BrowserContext[] = [];
  let advertiser: { id: number; token: string; username: string };
  let publisher: { id: number; token: string; username: string };
  let advertiserTab: Page;
  let publisherTab: Page;
  let campaignId = 0;
  let siteId = 0;
  let embedCode = '';

  /** Sets the invited password through the API (the advertiser web test walks that page) and signs in by the form. */
  async function account(type: 'advertiser' | 'publisher') {
    const created = await server.createAccount(type, { name: type === 'advertiser' ? 'Acme Shoes' : 'Daily News' });
    const me = (await created.client.get('/api/me')).json<{ email: string; username: string }>();
    const invitation = await mailbox.next(me.email);
    const token = /\/password\?token=([A-Za-z0-9_-]+)/.exec(invitation.text)?.[1] ?? '';
    const confirmed = await server.anonymous.post('/api/password-reset/confirm', { token, password: PASSWORD });
    assert.ok(confirmed.status < 300, confirmed.text);
    return { id: created.id, token: created.token, username: me.username };
  }

  async function signedIn(username: string): Promise<Page> {
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: { width: 1280, height: 900 },
      locale: 'en-GB',
    });
    contexts.push(context);
    // The app computes "today" and the default period in the browser: the server's clock is pinned, so is the browser's.
    await context.clock.setFixedTime(new Date(TEST_EPOCH_MS));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
    });
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Username or e-mail').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('heading', { name: 'Overview' })
      .waitFor()
      .catch(async (error) => {
        await page.screenshot({ path: path.join(SHOTS, `failed-sign-in-${username}.png`), fullPage: true });
        throw error;
      });
    return page;
  }

  /** Money as the app writes it (the platform currency, the browser's language). */
  function written(page: Page, amount: number, fractionDigits: { min: number; max: number }): Promise<string> {
    return page.evaluate(
      ({ amount, fractionDigits }) =>
        new Intl.NumberFormat(navigator.language, {
          style: 'currency',
          currency: 'EUR',
          minimumFractionDigits: fractionDigits.min,
          maximumFractionDigits: fractionDigits.max,
        }).format(amount),
      { amount, fractionDigits },
    );
  }

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    await mailbox.start();
    publisherPage = await startPublisherPage();
    server = await startTestServer({ env: { SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`, CURRENCY: 'EUR' } });
    browser = await launchChromium();
    advertiser = await account('advertiser');
    publisher = await account('publisher');
    await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount: 100, comment: 'bank transfer' });
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.close();
    await publisherPage?.close();
    await mailbox.stop();
  });

  it('an advertiser creates a campaign and an ad with a picture; the operator approves both', async () => {
    advertiserTab = await signedIn(advertiser.username);
    const page = advertiserTab;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('button', { name: 'New campaign' }).click();
    await page.getByLabel('Title').fill('Spring shoes');
    await page.getByLabel('Category').selectOption({ index: 1 });
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { name: 'Spring shoes' }).waitFor();
    campaignId = Number(/\/advertiser\/campaigns\/(\d+)$/.exec(new URL(page.url()).pathname)?.[1]);
    assert.ok(campaignId > 0);

    await page.getByRole('button', { name: 'New ad' }).click();
    await page.getByLabel('Headline').fill('Running shoes at half price');
    await page.getByLabel('Landing page').fill(`${publisherPage.url}/landing?click={click_id}`);
    await page.getByLabel('Bid per click').fill('0.40');
    const wide = { name: 'wide.png', mimeType: 'image/png', buffer: await imageBytes('png', 600, 400) };
    await page.getByLabel('Wide picture (3:2)').setInputFiles(wide);
    const square = { name: 'square.jpg', mimeType: 'image/jpeg', buffer: await imageBytes('jpeg', 400, 400) };
    await page.getByLabel('Square picture').setInputFiles(square);
    await page.getByRole('button', { name: 'Send for moderation' }).click();
    await page.locator('.ads .ad').getByText('In moderation').waitFor();

    // The operator pages are built in another branch; the operator approves through the operator API here.
    const campaign = (
      await server.anonymous.get(`/api/advertiser/campaigns/${campaignId}?expand=offers`, { token: advertiser.token })
    ).json<{ offers: { id: number }[] }>();
    const adId = campaign.offers[0]?.id ?? 0;
    assert.equal((await server.operator.put(`/api/admin/campaigns/${campaignId}`, { status: 1 })).status, 200);
    assert.equal((await server.operator.put(`/api/admin/offers/${adId}`, { status: 1 })).status, 200);
    await page.reload();
    await page.locator('.ads .ad').getByText('Approved', { exact: true }).waitFor();
  });

  it('a publisher adds a site (field errors beside the fields), the operator approves it, and the publisher creates a block', async () => {
    publisherTab = await signedIn(publisher.username);
    const page = publisherTab;
    assert.equal(new URL(page.url()).pathname, '/publisher');
    await page.getByRole('heading', { name: 'Start earning' }).waitFor();
    await lookAt(page, 'publisher-overview-empty');

    await page.getByRole('link', { name: 'Add a site' }).click();
    await page.getByRole('heading', { name: 'Add a site' }).waitFor();
    await page.getByRole('button', { name: 'Add site' }).click();
    await page.locator('#url-error').waitFor();
    await page.locator('#category_id-error').waitFor();
    assert.equal(await page.getByLabel('Address').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Address').fill(publisherPage.url);
    await page.locator('#url-error').waitFor({ state: 'detached' });
    await page.getByLabel('Category').selectOption({ label: 'General news' });
    await lookAt(page, 'publisher-add-site');
    await page.getByRole('button', { name: 'Add site' }).click();
    await page.getByRole('heading', { name: publisherPage.url.replace('http://', '') }).waitFor();
    siteId = Number(/\/publisher\/sites\/(\d+)$/.exec(new URL(page.url()).pathname)?.[1]);
    await page.locator('.status-box').getByText('In moderation').waitFor();
    await page.getByText('An operator checks every new site').waitFor();

    // Blocks can be made while the site waits; the preview follows the teaser count as it is typed.
    await page.getByRole('button', { name: 'New block' }).click();
    await page.getByLabel('Name').fill('Under the article');
    await page.getByLabel('Teasers shown at once').fill('3');
    assert.equal(await page.locator('.create-block .nativa-teaser').count(), 3);
    await page.getByLabel('Teasers shown at once').fill('25');
    await page.getByRole('button', { name: 'Create block' }).click();
    await page.locator('#count-error').waitFor();
    await page.getByLabel('Teasers shown at once').fill('3');
    await page.getByRole('button', { name: 'Create block' }).click();
    await page.getByText('Block created.').waitFor();

    assert.equal((await server.operator.put(`/api/admin/sites/${siteId}`, { status: 1 })).status, 200);
    await page.reload();
    await page.locator('.status-box').getByText('Active').waitFor();
    await page.getByRole('button', { name: 'Show preview of Under the article' }).click();
    assert.equal(await page.locator('.block .nativa-teaser').count(), 3);
    await lookAt(page, 'publisher-site');

    // Copy the embed code by keyboard: Tab reaches the Copy button, Enter copies (past the
    // period, ads.txt and a brand-safety checkbox per product category).
    const reached = new Set<string>();
    for (let presses = 0; presses < 150 && !reached.has('BUTTON:Copy the code of Under the article'); presses++) {
      await page.keyboard.press('Tab');
      reached.add(
        await page.locator('body').evaluate((body) => {
          const element = body.ownerDocument.activeElement;
          return `${element?.tagName}:${element?.textContent?.trim() ?? ''}`;
        }),
      );
    }
    for (const wanted of ['BUTTON:New block', 'A:Statistics of Under the article', 'BUTTON:Copy the code of Under the article'])
      assert.ok(reached.has(wanted), `${wanted} in ${[...reached].join(' | ')}`);
    await page.keyboard.press('Enter');
    await page.getByText('Copied.').waitFor();
    embedCode = await page.getByLabel('Code to paste into your page').inputValue();
    assert.equal(
      await page.evaluate(() =>
        (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
      ),
      embedCode,
    );
    assert.match(
      embedCode,
      /^<div data-nativa-block="\d+"><\/div><script async src="https:\/\/127\.0\.0\.1:\d+\/api\/serve\/loader\.js"><\/script>$/,
    );
  });

  it('a visitor sees the teaser on the publisher’s page and clicks it', async () => {
    publisherPage.setBody(embedCode);
    await engineOf(server).refresh();
    // Before any visitor, the publisher asks what would fill the block: the approved ad, first.
    await publisherTab.getByRole('button', { name: 'What would show here now in Under the article' }).click();
    const wouldShow = publisherTab.getByRole('region', { name: 'What would show in Under the article now' });
    await wouldShow.getByRole('listitem').filter({ hasText: 'Running shoes at half price' }).waitFor();
    await wouldShow.getByText('1 ad competes').waitFor();
    await lookAt(publisherTab, 'publisher-block-explain');
    // A headless browser's own user agent is treated as a bot; a visitor's is a desktop browser's.
    const visitor = await browser.newContext({ ignoreHTTPSErrors: true, userAgent: DESKTOP_UA });
    contexts.push(visitor);
    const page = await visitor.newPage();
    // The visitor looks at the teaser for a second before clicking: the loader's beacon counts it viewed.
    const beacon = page.waitForRequest((request) => request.url().endsWith('/api/serve/views'));
    await page.goto(publisherPage.url);
    const teaser = page.locator('[data-nativa-block] li a');
    await teaser.first().waitFor();
    assert.equal((await (await beacon).response())?.status(), 204);
    assert.equal(await page.locator('[data-nativa-block] .nativa-title').first().textContent(), 'Running shoes at half price');
    const shopOpened = visitor.waitForEvent('page');
    await teaser.first().click();
    const shop = await shopOpened;
    await shop.waitForLoadState('load');
    assert.equal(publisherPage.landings.length, 1);
    await engineOf(server).impressions.flush();
    await engineOf(server).settled();
  });

  it('the advertiser’s chart and table and the publisher’s income show that click and its money', async () => {
    const [spent] = (
      await server.anonymous.get(`/api/advertiser/statistics?filter[dateFrom]=${TODAY}&filter[dateTo]=${TODAY}`, {
        token: advertiser.token,
      })
    ).json<{ clicks: number; money: number }[]>();
    const [earned] = (
      await server.anonymous.get(`/api/webmaster/statistic?dateFrom=${TODAY}&dateTo=${TODAY}`, { token: publisher.token })
    ).json<{ clicks: number; served: number; views: number; income: number }[]>();
    assert.equal(spent?.clicks, 1);
    assert.equal(earned?.clicks, 1);
    assert.ok(earned && spent && earned.income > 0 && earned.income < spent.money, JSON.stringify({ spent, earned }));

    const advertiserPage = advertiserTab;
    await advertiserPage.goto(`${server.url}/advertiser/campaigns/${campaignId}`);
    const dayRow = advertiserPage.getByRole('row', { name: /10 Mar 2026/ });
    await dayRow.waitFor();
    const spendText = await written(advertiserPage, spent?.money ?? 0, { min: 2, max: 2 });
    const wanted = ['1', spendText];
    assert.deepEqual(
      (await settledTexts(dayRow.locator('td'), (texts) => isDeepStrictEqual(texts.slice(1, 3), wanted))).slice(1, 3),
      wanted,
      'the day’s row: views, clicks, spend',
    );
    await advertiserPage.locator('.chart canvas').waitFor();
    await advertiserPage.locator('.chart .u-legend').getByText(spendText).or(advertiserPage.locator('.chart')).first().waitFor();

    const page = publisherTab;
    await page.goto(`${server.url}/publisher`);
    const earnedToday = page.locator('.tile', { hasText: 'Earned today' });
    await earnedToday.getByText(await written(page, earned?.income ?? 0, { min: 2, max: 4 })).waitFor();
    await page.locator('.chart canvas').waitFor();
    await lookAt(page, 'publisher-overview');

    await page.getByRole('link', { name: 'Details by site and block' }).click();
    await page.getByRole('heading', { name: 'Statistics' }).waitFor();
    await page.getByLabel('Site', { exact: true }).selectOption({ label: publisherPage.url.replace('http://', '') });
    await page.getByLabel('Block', { exact: true }).selectOption({ label: 'Under the article' });
    const row = page.getByRole('row', { name: /10 Mar 2026/ });
    await row.waitFor();
    const income = await written(page, earned?.income ?? 0, { min: 2, max: 4 });
    // Served, viewable views, clicks, CTR, income.
    const wantedRow = [String(earned?.served), String(earned?.views), '1'];
    assert.deepEqual(
      (await settledTexts(row.locator('td'), (texts) => isDeepStrictEqual(texts.slice(0, 3), wantedRow))).slice(0, 3),
      wantedRow,
    );
    assert.equal(await row.locator('td').nth(4).textContent(), income);
    await lookAt(page, 'publisher-statistics');

    // A payout of the whole income, recorded by the operator, shows on the payouts page.
    const payout = await server.operator.post('/api/admin/payouts', {
      userId: publisher.id,
      amount: String(earned?.income),
      wallet: 'iban:DE02120300000000202051',
    });
    assert.equal(payout.status, 201, payout.text);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payouts' }).click();
    await page
      .getByRole('row', { name: /iban:DE02/ })
      .getByText('On its way')
      .waitFor();
    await lookAt(page, 'publisher-payouts');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sites' }).click();
    await page
      .getByRole('row', { name: /127\.0\.0\.1/ })
      .getByText('Active')
      .waitFor();
    await lookAt(page, 'publisher-sites');
  });

  it('shows another tenant’s site and block as not found, never their data', async () => {
    const other = await server.createAccount('publisher');
    const site = (
      await other.client.post('/api/webmaster/sites', { url: 'https://secret-news.example', category_id: 101 })
    ).json<{ id: number }>();
    const block = (await other.client.post(`/api/webmaster/sites/${site.id}/blocks`, { title: 'Secret block' })).json<{
      id: number;
    }>();
    const page = publisherTab;
    await page.goto(`${server.url}/publisher/sites/${site.id}`);
    await page.getByRole('heading', { name: 'Site not found' }).waitFor();
    assert.equal(await page.getByText('secret-news').count(), 0);
    await page.goto(`${server.url}/publisher/statistics?site=${site.id}&block=${block.id}`);
    await page.getByText(/Not found: site \d+ or block \d+ is not in your account/).waitFor();
    assert.equal(await page.getByText('secret-news').count(), 0);
    assert.equal(await page.locator('tbody tr').count(), 0);
    // An advertiser is not a publisher: the publisher pages are not there for them.
    await advertiserTab.goto(`${server.url}/publisher/sites/${siteId}`);
    await advertiserTab.getByRole('heading', { name: 'Page not found' }).waitFor();
    assert.deepEqual(cspErrors, [], 'the app runs under its Content-Security-Policy');
  });
});
