import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
import { browserForThisFile, lookAt, SHOTS, settledTexts, skipWithoutChromium } from '../helpers/browser.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../helpers/fixtures.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer } from '../helpers/server.ts';

const skip = skipWithoutChromium;
const browser = browserForThisFile();

/**
 * The operator's network overview, an account's suspension and edit, and a resubmitted item's
 * earlier rejection in the moderation queue.
 */
describe('an operator oversees the network (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let page: Page;
  let advertiserId = 0;
  let publisherId = 0;
  let advertiserLogin = '';
  let campaignId = 0;

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer({ env: { CURRENCY: 'USD' } });
    const db = server.server.context.db;
    const operator = await server.createAccount('operator', { name: 'Olga' });
    await setPassword(db, operator.id);
    const advertiser = await server.createAccount('advertiser', { name: 'Acme Shoes' });
    advertiserId = advertiser.id;
    advertiserLogin = (await advertiser.client.get('/api/me')).json<{ username: string }>().username;
    await setPassword(db, advertiser.id);
    const publisher = await server.createAccount('publisher');
    publisherId = publisher.id;
    const site = await insertSite(db, { publisherId: publisher.id, url: 'https://dailynews.example' });
    const block = await insertBlock(db, { siteId: site.id });
    const campaign = await insertCampaign(db, { advertiserId: advertiser.id, title: 'Winter boots', approved: false });
    campaignId = campaign.id;
    const offer = await insertOffer(db, { campaignId: campaign.id });
    await recordTraffic(db, [
      {
        at: TEST_EPOCH_MS - 86_400_000,
        campaignId: campaign.id,
        offerId: offer.id,
        siteId: site.id,
        blockId: block.id,
        device: 1,
        served: 1200,
        views: 900,
        clicks: 40,
        invalidClicks: 4,
        spendMicros: 20_000_000,
        publisherIncomeMicros: 14_000_000,
      },
    ]);
    // Rejected once, changed and sent back: the queue shows why it was turned down before.
    const rejected = await server.operator.put(`/api/admin/campaigns/${campaign.id}`, { status: 2, reason: 'Misleading title' });
    assert.equal(rejected.status, 200, rejected.text);
    const back = await advertiser.client.post(`/api/advertiser/campaigns/resubmit/${campaign.id}`);
    assert.equal(back.status, 200, back.text);

    const context = await browser().newContext({
      ignoreHTTPSErrors: true,
      viewport: { width: 1280, height: 900 },
      locale: 'en-GB',
    });
    page = await context.newPage();
    await page.goto(`${server.url}/sign-in`);
    const login = (await operator.client.get('/api/me')).json<{ username: string }>().username;
    await page.getByLabel('Username or e-mail').fill(login);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Moderation', level: 1 }).waitFor();
  });
  after(async () => {
    await server?.close();
  });

  it('shows spend, earnings, margin, traffic, invalid clicks and the top sites and advertisers of a period', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: 'Network overview', level: 1 }).waitFor();
    await page.goto(`${server.url}/operator/overview?from=2026-03-01&to=2026-03-10`);
    const tiles = page.locator('.tiles .tile');
    const texts = await settledTexts(tiles, (all) => all.some((text) => text.includes('$20.00')));
    const tile = (label: string) => texts.find((text) => text.startsWith(label)) ?? '';
    assert.match(tile('Advertisers’ spend'), /\$20\.00/);
    assert.match(tile('Publishers’ earnings'), /\$14\.00/);
    assert.match(tile('Margin'), /\$6\.00/);
    assert.match(tile('Teasers served'), /1,200/);
    assert.match(tile('Clicks'), /40/);
    assert.match(tile('Invalid clicks'), /^Invalid clicks410\s?% of clicks$/);
    await page.getByRole('row', { name: /dailynews\.example/ }).waitFor();
    await page.getByRole('row', { name: /Acme Shoes/ }).waitFor();
    await lookAt(page, 'operator-overview');

    // Another period from the picker: nothing happened today on the test's pinned data.
    await page.locator('main fieldset.period select').selectOption('today');
    await page.getByText('Nothing in this period.').first().waitFor();
  });

  it('suspends an advertiser with a reason, which signs it out and refuses its sign-in, and reinstates it', async () => {
    await page.goto(`${server.url}/operator/accounts/${advertiserId}`);
    await page.getByRole('button', { name: 'Suspend…' }).click();
    await page.getByLabel('Reason').fill('Unpaid invoices');
    await page.getByRole('button', { name: /^Suspend / }).click();
    await page.getByText('Unpaid invoices').waitFor();
    await page.locator('h1 .tag.warning', { hasText: 'suspended' }).waitFor();
    await lookAt(page, 'operator-account-suspended');
    const refused = await server.anonymous.post(
      '/api/session',
      { login: advertiserLogin, password: TEST_PASSWORD },
      { headers: { Origin: server.url } },
    );
    assert.equal(refused.status, 403, refused.text);
    await page.getByRole('button', { name: 'Reinstate' }).click();
    await page.getByRole('button', { name: 'Suspend…' }).waitFor();
    const admitted = await server.anonymous.post(
      '/api/session',
      { login: advertiserLogin, password: TEST_PASSWORD },
      { headers: { Origin: server.url } },
    );
    assert.equal(admitted.status, 200, admitted.text);
  });

  it("edits an account's details", async () => {
    await page.goto(`${server.url}/operator/accounts/${publisherId}`);
    await page.getByRole('button', { name: 'Edit details' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Daily News Ltd');
    await page.getByLabel('Phone').fill('+44 20 0000 0000');
    await page.getByRole('button', { name: 'Save details' }).click();
    await page.getByText('Daily News Ltd').first().waitFor();
    const saved = (await server.operator.get(`/api/admin/users/${publisherId}`)).json<{ name: string; phone: string }>();
    assert.deepEqual([saved.name, saved.phone], ['Daily News Ltd', '+44 20 0000 0000']);
  });

  it('shows a resubmitted campaign’s earlier rejection: when, and why', async () => {
    await page.goto(`${server.url}/operator?queue=campaigns`);
    const item = page.getByRole('article', { name: 'campaign Winter boots' });
    await item.waitFor();
    const text = (await item.locator('.moderation-reason').textContent()) ?? '';
    assert.match(text, /Rejected before, on .*2026.*Misleading title/);
    assert.ok(campaignId > 0);
  });
});
