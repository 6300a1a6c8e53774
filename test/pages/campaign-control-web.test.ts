import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEVICES } from '../../src/modules/statistics/vocabulary.ts';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { launchChromium, lookAt, SHOTS, skipWithoutChromium } from '../helpers/browser.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../helpers/fixtures.ts';
import { Mailbox } from '../helpers/mailbox.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const skip = skipWithoutChromium;
const PASSWORD = 'a long enough password';

/** Campaign control (docs/adr/0042) in the web app: a campaign's flight, budget and targets; the payout minimum by a publisher's balance. */
describe('campaign control and the payout minimum in the web app (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const mailbox = new Mailbox();

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    await mailbox.start();
    server = await startTestServer({ env: { SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`, MIN_PAYOUT: '50' } });
    browser = await launchChromium();
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await mailbox.stop();
  });

  /** A new account of `kind` with its password set through its invitation, signed in in the browser. */
  async function signedIn(kind: 'advertiser' | 'publisher') {
    const account = await server.createAccount(kind);
    const me = (await account.client.get('/api/me')).json<{ email: string; username: string }>();
    const invitation = await mailbox.next(me.email);
    const token = /password\?token=([A-Za-z0-9_-]+)/.exec(invitation.text)?.[1] ?? '';
    const set = await server.anonymous.post('/api/password-reset/confirm', { token, password: PASSWORD });
    assert.equal(set.status, 204, set.text);
    await context.clearCookies();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Username or e-mail').fill(me.username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    return account;
  }

  it('sets a campaign’s flight, lifetime budget, pacing, targets and site lists; refusals beside their fields', async () => {
    const account = await signedIn('advertiser');
    const campaign = await insertCampaign(server.server.context.db, { advertiserId: account.id, title: 'Winter coats' });
    await page.goto(`${server.url}/advertiser/campaigns/${campaign.id}`);
    const form = page.getByRole('form', { name: 'Campaign settings' });
    await form.waitFor();
    await form.getByLabel('Starts').fill('2026-04-01T09:00');
    await form.getByLabel('Ends').fill('2026-03-01T09:00');
    await form.getByLabel('Lifetime budget').fill('120.5');
    await form.getByLabel('Pacing').selectOption({ label: 'Evenly across the day' });
    await form.getByRole('group', { name: 'Operating systems' }).getByRole('checkbox', { name: 'Android' }).check();
    await form.getByRole('group', { name: 'Browsers' }).getByRole('checkbox', { name: 'Chrome' }).check();
    await form.getByLabel('Never on these sites').fill('spam.example, 42');
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('#endsAt-error').waitFor();
    const read = async () =>
      (await account.client.get(`/api/advertiser/campaigns/${campaign.id}`)).json<Record<string, unknown>>();
    assert.equal((await read()).pacing, undefined, 'a refused change changes nothing');

    await form.getByLabel('Ends').fill('2026-05-01T09:00');
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await form.getByText('Saved.').waitFor();
    const saved = await read();
    assert.deepEqual(
      [saved.startsAt, saved.endsAt, saved.totalBudget, saved.pacing, saved.os, saved.browsers, saved.siteBlock],
      ['2026-04-01T09:00:00.000Z', '2026-05-01T09:00:00.000Z', 120.5, 'even', ['android'], ['chrome'], ['spam.example', 42]],
    );
    await lookAt(page, 'advertiser-campaign-control');

    // The overview compares the period with the one before it: spend 4 now, 2 forty days ago.
    const offer = await insertOffer(server.server.context.db, { campaignId: campaign.id });
    const site = await insertSite(server.server.context.db, { publisherId: (await server.createAccount('publisher')).id });
    const block = await insertBlock(server.server.context.db, { siteId: site.id });
    const place = { campaignId: campaign.id, offerId: offer.id, siteId: site.id, blockId: block.id, device: DEVICES.desktop };
    await recordTraffic(server.server.context.db, [
      { ...place, at: Date.now(), views: 100, clicks: 4, spendMicros: 4_000_000 },
      { ...place, at: Date.now() - 40 * 86_400_000, views: 100, clicks: 4, spendMicros: 2_000_000 },
    ]);
    await page.goto(`${server.url}/advertiser`);
    await page.getByRole('checkbox', { name: 'Compare with the previous period' }).check();
    await page.getByText('+100 % on the previous period').waitFor();
    await page.getByText('unchanged on the previous period').waitFor();
    assert.match(page.url(), /compare=1/);
    await lookAt(page, 'advertiser-overview-compare');

    // The campaign page and its traffic page compare the same way (the switch kept in the address).
    await page.goto(`${server.url}/advertiser/campaigns/${campaign.id}?compare=1`);
    await page.getByRole('region', { name: 'Figures for the period' }).getByText('+100 % on the previous period').waitFor();
    assert.ok(await page.getByRole('checkbox', { name: 'Compare with the previous period' }).isChecked());
    await lookAt(page, 'advertiser-campaign-compare');
    await page.goto(`${server.url}/advertiser/campaigns/${campaign.id}/traffic?compare=1`);
    const traffic = page.getByRole('region', { name: 'Figures for the period' });
    await traffic.getByText('+100 % on the previous period').waitFor();
    await page.getByRole('checkbox', { name: 'Compare with the previous period' }).uncheck();
    await traffic.getByText('+100 % on the previous period').waitFor({ state: 'detached' });
    assert.doesNotMatch(page.url(), /compare=1/);

    // Duplicate: the copy opens, awaiting moderation, with the original's settings.
    await page.goto(`${server.url}/advertiser/campaigns/${campaign.id}`);
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.getByRole('heading', { name: 'Winter coats (copy)' }).waitFor();
    const copyId = Number(/campaigns\/(\d+)/.exec(page.url())?.[1]);
    assert.notEqual(copyId, campaign.id);
    const copy = (await account.client.get(`/api/advertiser/campaigns/${copyId}`)).json<Record<string, unknown>>();
    assert.deepEqual([copy.status, copy.pacing, copy.items], [0, 'even', 1]);

    // Bulk: both campaigns off in one request.
    await page.goto(`${server.url}/advertiser/campaigns`);
    await page.getByRole('checkbox', { name: 'Choose every campaign shown' }).check();
    const bar = page.getByRole('group', { name: 'Change the chosen campaigns' });
    await bar.getByText('2 chosen').waitFor();
    // One coefficient on both: the phones' refused (out of range, nothing changes), then set.
    const coefficient = page.getByRole('form', { name: 'Coefficient for the chosen campaigns' });
    await coefficient.getByLabel('Coefficient for').selectOption({ label: 'Phones' });
    await coefficient.getByLabel('Coefficient', { exact: true }).fill('20');
    await coefficient.getByRole('button', { name: 'Set coefficient' }).click();
    await coefficient.locator('#bulk-coef-error').waitFor();
    const phoneCoefficients = async () =>
      Promise.all(
        [campaign.id, copyId].map(async (id) => {
          const rows = (await account.client.get(`/api/advertiser/campaigns/multipliers/${id}/device`)).json<
            { device: string; coef: number }[]
          >();
          return rows.find((row) => row.device === 'mobile')?.coef;
        }),
      );
    assert.deepEqual(await phoneCoefficients(), [1, 1], 'a refused bulk change changes nothing');
    await coefficient.getByLabel('Coefficient', { exact: true }).fill('1.5');
    await coefficient.getByRole('button', { name: 'Set coefficient' }).click();
    await coefficient.getByText('Set on 2 campaigns.').waitFor();
    assert.deepEqual(await phoneCoefficients(), [1.5, 1.5]);
    await lookAt(page, 'advertiser-campaigns-bulk');
    await bar.getByRole('button', { name: 'Switch off' }).click();
    await bar.waitFor({ state: 'detached' });
    const listed = (await account.client.get('/api/advertiser/campaigns')).json<{ active: boolean }[]>();
    assert.deepEqual(
      listed.map((row) => row.active),
      [false, false],
    );
  });

  it('shows a publisher the network’s minimum payout beside the balance; designs a block with a live preview', async () => {
    const account = await signedIn('publisher');
    await page.getByText('payout from').waitFor();
    assert.match((await page.locator('.payout-threshold').textContent()) ?? '', /50/);

    const db = server.server.context.db;
    const site = await insertSite(db, { publisherId: account.id });
    const block = await insertBlock(db, { siteId: site.id, title: 'Under the article' });
    await page.goto(`${server.url}/publisher/sites/${site.id}`);
    await page.getByRole('button', { name: 'Design of Under the article' }).click();
    const form = page.getByRole('form', { name: 'Design of Under the article' });
    const preview = form.getByRole('img', { name: 'Live preview of the block' });
    await form.getByLabel('Columns').fill('3');
    await form.getByLabel('Rows').fill('2');
    await form.getByLabel('Heading').fill('You may like');
    await form.getByLabel('Picture').selectOption({ label: 'Wide (16:9)' });
    // The preview follows every change before anything is saved.
    await preview.getByText('You may like').waitFor();
    assert.equal(await preview.getByText('Ad', { exact: true }).count(), 6);
    await lookAt(page, 'publisher-block-design');
    await form.getByRole('button', { name: 'Save design' }).click();
    await form.getByText('Saved.').waitFor();
    const saved = (await account.client.get(`/api/webmaster/blocks/${block.id}`)).json<{
      count: number;
      design?: { columns: number; rows: number; heading: string; imageShape: string };
    }>();
    assert.equal(saved.count, 6);
    assert.deepEqual(
      [saved.design?.columns, saved.design?.rows, saved.design?.heading, saved.design?.imageShape],
      [3, 2, 'You may like', 'wide'],
    );

    // Brand safety: the site refuses two product categories; the block gets a minimum CPC typed by locale.
    const safety = page.getByRole('form', { name: 'Brand safety' });
    await safety.getByRole('checkbox', { name: 'Smartphones' }).check();
    await safety.getByRole('checkbox', { name: 'Finance & Insurance' }).check();
    await safety.getByRole('button', { name: 'Save refused categories' }).click();
    await safety.getByText('Saved.').waitFor();
    const refused = (await account.client.get(`/api/webmaster/sites/${site.id}`)).json<{ refusedCategories?: number[] }>();
    assert.deepEqual(refused.refusedCategories, [9, 201]);
    // A parent covers its children: ticked, they show ticked and fixed, and only the parent is stored.
    await safety.getByRole('checkbox', { name: 'Electronics' }).check();
    const laptops = safety.getByRole('checkbox', { name: /Laptops & Computers/ });
    assert.ok((await laptops.isChecked()) && (await laptops.isDisabled()), 'a child of a ticked parent is covered');
    await safety.getByText('(with Electronics)').first().waitFor();
    await safety.getByRole('button', { name: 'Save refused categories' }).click();
    await safety.getByText('Saved.').waitFor();
    const covered = (await account.client.get(`/api/webmaster/sites/${site.id}`)).json<{ refusedCategories?: number[] }>();
    assert.deepEqual(covered.refusedCategories, [2, 9]);
    const floor = page.getByRole('form', { name: 'Minimum CPC of Under the article' });
    const readFloor = async () =>
      (await account.client.get(`/api/webmaster/blocks/${block.id}`)).json<{ minCpc?: number }>().minCpc;
    await floor.getByLabel('Minimum price of a click').fill('0,25');
    await floor.getByRole('button', { name: 'Save minimum of Under the article' }).click();
    await floor.getByText('Write the amount as you would').waitFor();
    assert.equal(await readFloor(), undefined, 'an amount read two ways is refused in the page, not guessed');
    await floor.getByLabel('Minimum price of a click').fill('0.25');
    await floor.getByRole('button', { name: 'Save minimum of Under the article' }).click();
    await floor.getByText('Saved.').waitFor();
    assert.equal(await readFloor(), 0.25);
    await lookAt(page, 'publisher-site-brand-safety');
    // Saved choices are what the page shows after a reload.
    await page.reload();
    assert.ok(await safety.getByRole('checkbox', { name: 'Smartphones' }).isChecked());
    assert.equal(await floor.getByLabel('Minimum price of a click').inputValue(), '0.25');

    // The site page and the overview compare with the previous period: nothing earned in either.
    await page.goto(`${server.url}/publisher/sites/${site.id}?compare=1`);
    await page.getByText('unchanged on the previous period').first().waitFor();
    // One per tile of the period, served and income per thousand served among them.
    assert.equal(await page.getByText('unchanged on the previous period').count(), 7);
    await page.getByRole('img', { name: 'Daily income and clicks of this site' }).waitFor();
    await lookAt(page, 'publisher-site-compare');
    await page.goto(`${server.url}/publisher?compare=1`);
    await page.getByText('unchanged on the previous period').first().waitFor();
    assert.equal(await page.getByText('unchanged on the previous period').count(), 6);

    // Statistics compared with the previous period: nothing earned in either.
    await page.goto(`${server.url}/publisher/statistics?compare=1`);
    await page.getByText('unchanged on the previous period').first().waitFor();
    // One per tile of the period, served and income per thousand served among them.
    assert.equal(await page.getByText('unchanged on the previous period').count(), 7);
    assert.ok(await page.getByRole('checkbox', { name: 'Compare with the previous period' }).isChecked());
    await lookAt(page, 'publisher-statistics-compare');
  });
});
