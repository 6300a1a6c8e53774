import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
import { launchChromium, lookAt, SHOTS, skipWithoutChromium } from '../helpers/browser.ts';
import { insertCampaign, insertOffer, insertSite } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const skip = skipWithoutChromium;

/** Long names, as people give them: nothing may spill out of its box at 1280 or 390 px. */
const LONG_OWNER = `Northern Footwear Distribution ${'and Sons '.repeat(12)}Ltd`.slice(0, 120);
const LONG_CAMPAIGN = `Winter boots ${'for every weather '.repeat(20)}`.slice(0, 255);
const LONG_AD = 'Boots at half price, this week only, in every size';
const REASON = 'Price differs from the shop';

/** Whether any element of the page is wider than the viewport (something spills out sideways). */
function overflows(page: Page): Promise<boolean> {
  return page.locator('html').evaluate((root) => root.scrollWidth > root.clientWidth + 1);
}

describe('moderation with reasons, notifications and money pages in the web app (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let advertiser: { id: number; username: string };
  let publisher: { id: number; username: string };
  let campaignId = 0;
  let offerId = 0;
  let siteId = 0;

  const signIn = async (login: string) => {
    await context.clearCookies();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Username or e-mail').fill(login);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('link', { name: /^Notifications/ }).waitFor();
  };

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer({ env: { CURRENCY: 'EUR' } });
    browser = await launchChromium();
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    page = await context.newPage();

    const db = server.server.context.db;
    const usernameOf = async (client: TestServer['operator']) =>
      (await client.get('/api/me')).json<{ username: string }>().username;
    const operatorId = (await server.operator.get('/api/me')).json<{ id: number }>().id;
    await setPassword(db, operatorId);
    const shop = await server.createAccount('advertiser', { name: LONG_OWNER });
    advertiser = { id: shop.id, username: await usernameOf(shop.client) };
    await setPassword(db, shop.id);
    campaignId = (await insertCampaign(db, { advertiserId: shop.id, title: LONG_CAMPAIGN })).id;
    offerId = (await insertOffer(db, { campaignId, title: LONG_AD, approved: false })).id;
    await insertCampaign(db, { advertiserId: shop.id, title: 'Autumn coats' });
    await insertCampaign(db, { advertiserId: shop.id, title: 'autumn hats' });
    const news = await server.createAccount('publisher', { name: 'Daily News Media' });
    publisher = { id: news.id, username: await usernameOf(news.client) };
    await setPassword(db, news.id);
    siteId = (await insertSite(db, { publisherId: news.id, url: 'https://dailynews.example', status: 0 })).id;
    const move = (accountId: number, amount: string, comment: string) =>
      server.operator.post(`/api/admin/users/${accountId}/balance`, { amount, comment });
    await move(shop.id, '120', `Bank transfer ${'for the spring season, invoice 2026-0417 '.repeat(6)}`.slice(0, 250));
    await move(shop.id, '-20.5', 'Correction of a double top-up');
    await move(news.id, '80', 'Earnings');
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('lets the operator keep reasons and reject with one, the owner named', async () => {
    await signIn('operator');
    await page.goto(`${server.url}/operator?queue=reasons`);
    await page.getByLabel('New reason').fill(REASON);
    await page.getByRole('button', { name: 'Add reason' }).click();
    await page.getByLabel(`Reason ${REASON}`).waitFor();
    await lookAt(page, 'operator-moderation-reasons');

    await page.getByRole('navigation', { name: 'Queues' }).getByRole('link', { name: /Ads/ }).click();
    const ad = page.getByRole('article', { name: `ad ${LONG_AD}` });
    await ad.getByRole('link', { name: LONG_OWNER }).waitFor();
    assert.equal(await ad.getByText(/account #\d+/).count(), 0, 'owners are named, not numbered');

    await ad.getByRole('button', { name: `Reject ${LONG_AD}` }).click();
    const form = page.getByRole('form', { name: `Reject ${LONG_AD}` });
    await form.getByRole('button', { name: 'Reject' }).click();
    await form.getByText('Say why').waitFor();
    await form.getByLabel('Reason', { exact: true }).selectOption(REASON);
    await form.getByLabel(/In your words/).fill('the shop says 1990');
    await lookAt(page, 'operator-reject-form');
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      assert.equal(await overflows(page), false, `the queue fits at ${width} px`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    const decided = page.waitForResponse((response) => response.url().endsWith(`/api/admin/offers/${offerId}`));
    await form.getByRole('button', { name: 'Reject' }).click();
    assert.equal((await decided).status(), 200);
    await page.getByText(/Rejected: .*The owner is notified/).waitFor();
    const rejected = (await server.operator.get('/api/admin/offers?status=2')).json<{ id: number; reason: string }[]>();
    assert.equal(rejected.find((row) => row.id === offerId)?.reason, `${REASON} — the shop says 1990`);

    await page.getByRole('navigation', { name: 'Queues' }).getByRole('link', { name: /Sites/ }).click();
    const site = page.getByRole('article', { name: /site https:\/\/dailynews\.example/ });
    await site.getByRole('link', { name: 'Daily News Media' }).waitFor();
    await site.getByRole('button', { name: /^Ban / }).click();
    await page
      .getByRole('form', { name: /^Ban / })
      .getByLabel(/In your words/)
      .fill('Copied articles');
    await page.getByRole('form', { name: /^Ban / }).getByRole('button', { name: 'Ban' }).click();
    await page.getByText('No site is waiting').waitFor();

    // Accounts are searched and sorted by the server, and the address keeps both.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accounts' }).click();
    const searched = page.waitForResponse((response) => response.url().includes('q=footwear'));
    await page.getByLabel('Search accounts').fill('footwear');
    await searched;
    await page.getByRole('row', { name: /Northern Footwear/ }).waitFor();
    await page.getByRole('row', { name: /Daily News Media/ }).waitFor({ state: 'detached' });
    await page.getByLabel('Sort accounts').selectOption('-balance');
    await page.waitForURL(/q=footwear.*sort=-balance|sort=-balance.*q=footwear/);
    await lookAt(page, 'operator-accounts-search');
    assert.equal(await overflows(page), false);
  });

  it('shows the advertiser the decision by the bell, the reason on the ad, and sends it back', async () => {
    await signIn(advertiser.username);
    const bell = page.getByRole('link', { name: 'Notifications, 1 unread' });
    await bell.waitFor();
    await bell.click();
    const notice = page.getByText(/ad “Boots at half price.*” was rejected: Price differs from the shop — the shop says 1990/);
    await notice.waitFor();
    await lookAt(page, 'notifications');
    await page.getByRole('button', { name: 'Mark read' }).click();
    await page.getByRole('link', { name: 'Notifications, none unread' }).waitFor();
    await page.goto(`${server.url}/notifications?unread=1`);
    await page.getByText('Nothing unread.').waitFor();

    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}`);
    const reason = page.getByText(`${REASON} — the shop says 1990`);
    await reason.waitFor();
    await lookAt(page, 'campaign-rejected-ad');
    assert.equal(await overflows(page), false);
    const sent = page.waitForResponse((response) => response.url().endsWith(`/api/advertiser/offers/resubmit/${offerId}`));
    await page.getByRole('button', { name: 'Send back to moderation (ad)' }).click();
    assert.equal((await sent).status(), 200);
    await page.getByText('Back in moderation; last time the operator said').waitFor();
    const waiting = (await server.operator.get('/api/admin/offers?status=0')).json<{ id: number }[]>();
    assert.ok(
      waiting.some((row) => row.id === offerId),
      'the ad waits for a decision again',
    );
  });

  it('shows the publisher why its site was banned and lets it send the site back', async () => {
    await signIn(publisher.username);
    await page.getByRole('link', { name: 'Notifications, 1 unread' }).waitFor();
    await page.goto(`${server.url}/publisher/sites/${siteId}`);
    await page.getByText('Copied articles').waitFor();
    await lookAt(page, 'site-banned-reason');
    await page.getByRole('button', { name: 'Send back to moderation (site)' }).click();
    await page.getByText('Back in moderation; last time the operator said').waitFor();
    const site = (await server.operator.get(`/api/admin/sites?userId=${publisher.id}`)).json<{ status: string }[]>();
    assert.equal(site[0]?.status, 'moderation');
  });

  it('shows the advertiser every balance move with the balance after it, by period, and as CSV', async () => {
    await signIn(advertiser.username);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Billing' }).click();
    const table = page.getByRole('region', { name: 'Balance moves' });
    await table.getByRole('row', { name: /Correction of a double top-up/ }).waitFor();
    const cells = await table
      .getByRole('row', { name: /Correction/ })
      .getByRole('cell')
      .allTextContents();
    assert.equal(cells[0], 'Withdrawal');
    assert.match(cells[1] ?? '', /^[-−]€20\.50$/);
    assert.equal(cells[2], '€99.50', 'the balance after the move');
    await lookAt(page, 'advertiser-billing');
    assert.equal(await overflows(page), false);

    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('From').fill(tomorrow);
    await page.getByText('No balance moves in this period.').waitFor();
    assert.equal(new URL(page.url()).searchParams.get('from'), tomorrow, 'the period is kept in the address');
    await page.getByRole('button', { name: 'Whole history' }).click();
    await table.getByRole('row', { name: /Correction/ }).waitFor();

    const href = (await page.getByRole('link', { name: /Download CSV/ }).getAttribute('href')) ?? '';
    const csv = await page.request.get(`${server.url}${href}`);
    assert.equal(csv.status(), 200);
    const lines = (await csv.text()).trim().split('\r\n');
    assert.equal(lines[0], 'date,kind,amount,balance,reference,comment');
    assert.match(lines[2] ?? '', /,withdrawal,-20.5,99.5,,Correction of a double top-up$/);
  });

  it('lets the publisher give payout details and shows the minimum and what will be paid', async () => {
    await signIn(publisher.username);
    await page.goto(`${server.url}/publisher/payouts`);
    const willBePaid = page.locator('.tile', { hasText: 'Will be paid' });
    await willBePaid.getByText('Give your payout details').waitFor();
    await page.getByLabel('Method').selectOption('paypal');
    await page.getByText('The e-mail address of your PayPal account.').waitFor();
    await page.getByRole('button', { name: 'Save payout details' }).click();
    await page.getByText('Write whose account it is.').waitFor();
    await page.getByLabel('Account holder').fill('Daily News Media Ltd');
    await page.getByLabel('Account', { exact: true }).fill('payments@dailynews.example');
    await page.getByRole('button', { name: 'Save payout details' }).click();
    await page.getByText('Saved. The operators pay to these details').waitFor();
    await willBePaid.getByText('Paid at the next payout run.').waitFor();
    await willBePaid.getByText('€80.00').waitFor();
    await lookAt(page, 'publisher-payout-details');
    const owed = (await server.operator.get('/api/admin/publishers/balances')).json<{ userId: number; payTo?: object }[]>();
    assert.deepEqual(owed.find((row) => row.userId === publisher.id)?.payTo, {
      method: 'paypal',
      holder: 'Daily News Media Ltd',
      account: 'payments@dailynews.example',
    });
  });

  it('sorts and searches the advertiser’s campaigns on the server, kept in the address', async () => {
    await signIn(advertiser.username);
    await page.goto(`${server.url}/advertiser/campaigns`);
    const table = page.getByRole('region', { name: 'Campaigns' });
    const titles = () => table.locator('tbody tr th[scope="row"] a').allTextContents();
    await table.getByRole('link', { name: 'autumn hats' }).waitFor();
    const sorted = page.waitForResponse((response) => response.url().includes('sort=-title'));
    await page.getByLabel('Sort campaigns').selectOption('-title');
    await sorted;
    await page.waitForURL(/[?&]sort=-title/);
    assert.deepEqual(
      (await titles()).map((title) => title.slice(0, 12)),
      ['Winter boots', 'autumn hats', 'Autumn coats'],
    );
    const searched = page.waitForResponse((response) => response.url().includes('q=autumn'));
    await page.getByLabel('Search campaigns').fill('autumn');
    await searched;
    await table.getByRole('link', { name: /Winter boots/ }).waitFor({ state: 'detached' });
    assert.deepEqual(await titles(), ['autumn hats', 'Autumn coats']);
    assert.equal(new URL(page.url()).searchParams.get('q'), 'autumn');
    await lookAt(page, 'advertiser-campaigns-sorted');
    await page.reload();
    await table.getByRole('link', { name: 'autumn hats' }).waitFor();
    assert.deepEqual(await titles(), ['autumn hats', 'Autumn coats'], 'the address keeps the search and the order');
  });

  it('sorts and searches the publisher’s sites and a campaign’s ads on the server, kept in the address', async () => {
    const db = server.server.context.db;
    await insertSite(db, { publisherId: publisher.id, url: 'https://Weather.example' });
    await insertSite(db, { publisherId: publisher.id, url: 'https://apples.example' });
    await signIn(publisher.username);
    await page.goto(`${server.url}/publisher/sites`);
    const sites = page.getByRole('region', { name: 'Sites' });
    const addresses = () => sites.locator('tbody tr th[scope="row"] a').allTextContents();
    await sites.getByRole('link', { name: 'apples.example' }).waitFor();
    const sorted = page.waitForResponse((response) => response.url().includes('sort=-url'));
    await page.getByLabel('Sort sites').selectOption('-url');
    await sorted;
    await page.waitForURL(/[?&]sort=-url/);
    assert.deepEqual(await addresses(), ['Weather.example', 'dailynews.example', 'apples.example']);
    const searched = page.waitForResponse((response) => response.url().includes('q=WEATHER'));
    await page.getByLabel('Search sites').fill('WEATHER');
    await searched;
    await sites.getByRole('link', { name: 'apples.example' }).waitFor({ state: 'detached' });
    // The list may be empty for a moment while the searched page loads: wait for what it finds.
    await sites.getByRole('link', { name: 'Weather.example' }).waitFor();
    assert.deepEqual(await addresses(), ['Weather.example']);

    await insertOffer(db, { campaignId, title: 'Warm gloves', bidMicros: 900_000 });
    await signIn(advertiser.username);
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}?sort=-stavka`);
    const ads = page.locator('ul.ads > li');
    await ads.first().waitFor();
    await page.getByLabel('Sort ads').waitFor();
    assert.equal(await page.getByLabel('Sort ads').inputValue(), '-stavka', 'the order comes from the address');
    assert.match((await ads.first().textContent()) ?? '', /Warm gloves/);
    const adSearch = page.waitForResponse((response) => response.url().includes('q=half'));
    await page.getByLabel('Search ads').fill('half');
    await adSearch;
    await page.getByText('Warm gloves').first().waitFor({ state: 'detached' });
    // The list may be empty for a moment while the searched page loads: wait for what it finds.
    await ads
      .filter({ hasText: /half price/ })
      .first()
      .waitFor();
    assert.equal(await ads.count(), 1);
    assert.match((await ads.first().textContent()) ?? '', /half price/);
  });
});
