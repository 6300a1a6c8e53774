import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { DEVICES, type TrafficEvent } from '../../src/modules/statistics/vocabulary.ts';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { launchChromium, lookAt, SHOTS, skipWithoutChromium } from '../helpers/browser.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../helpers/fixtures.ts';
import { Mailbox } from '../helpers/mailbox.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { engineOf } from '../helpers/serving.ts';

const skip = skipWithoutChromium;
const PASSWORD = 'a long enough password';
const NEW_PASSWORD = 'another password, longer';

/** What has the keyboard focus, as `TAG:accessible name`. */
function focused(page: Page): Promise<string> {
  return page.locator('body').evaluate((body) => {
    const element = body.ownerDocument.activeElement;
    return `${element?.tagName}:${element?.getAttribute('aria-label') ?? element?.textContent?.trim() ?? ''}`;
  });
}

describe('an advertiser’s statistics, coefficients, clients, conversions and password (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const mailbox = new Mailbox();
  const cspErrors: string[] = [];
  let advertiser: { id: number; token: string; username: string };
  let campaignId: number;
  let siteId: number;
  let blockIds: number[];

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    await mailbox.start();
    server = await startTestServer({ env: { SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`, CURRENCY: 'EUR' } });
    browser = await launchChromium();
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
    });

    const account = await server.createAccount('advertiser', { name: 'Acme Shoes' });
    const me = (await account.client.get('/api/me')).json<{ email: string; username: string }>();
    advertiser = { id: account.id, token: account.token, username: me.username };
    await server.operator.post(`/api/admin/users/${account.id}/balance`, { amount: 250, comment: 'bank transfer' });
    const invitation = await mailbox.next(me.email);
    const token = /password\?token=([A-Za-z0-9_-]+)/.exec(invitation.text)?.[1] ?? '';
    const set = await server.anonymous.post('/api/password-reset/confirm', { token, password: PASSWORD });
    assert.equal(set.status, 204, set.text);

    // Traffic of today (the browser's default period is the last 30 days of the real calendar):
    // one site with two blocks, on desktop and phones, with purchases and a registration.
    const db = server.server.context.db;
    const publisher = await server.createAccount('publisher');
    const campaign = await insertCampaign(db, { advertiserId: advertiser.id, title: 'Autumn boots' });
    campaignId = campaign.id;
    const offer = await insertOffer(db, { campaignId, title: 'Boots at half price' });
    const site = await insertSite(db, { publisherId: publisher.id });
    siteId = site.id;
    blockIds = [(await insertBlock(db, { siteId })).id, (await insertBlock(db, { siteId })).id];
    const at = Date.now();
    const events: TrafficEvent[] = blockIds.flatMap((blockId, index) => [
      {
        at,
        campaignId,
        offerId: offer.id,
        siteId,
        blockId,
        device: DEVICES.desktop,
        views: 1000,
        clicks: 20,
        spendMicros: 4_000_000,
        conversions: index === 0 ? { 1: 2, 2: 1 } : {},
      },
      {
        at,
        campaignId,
        offerId: offer.id,
        siteId,
        blockId,
        device: DEVICES.mobile,
        views: 500,
        clicks: 5,
        spendMicros: 1_000_000,
      },
    ]);
    await recordTraffic(db, events);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await mailbox.stop();
  });

  /** Tabs through the page from its start and asserts that each wanted control gets the focus. */
  async function assertReachableByTab(wanted: Locator[]): Promise<void> {
    await page.locator('body').focus();
    const missing = new Set(wanted);
    for (let presses = 0; presses < 60 && missing.size > 0; presses++) {
      await page.keyboard.press('Tab');
      for (const control of missing) {
        if (await control.evaluate((element) => element === element.ownerDocument.activeElement)) missing.delete(control);
      }
    }
    assert.deepEqual([...missing].map(String), [], 'not reached by Tab');
  }

  async function signIn(password: string): Promise<void> {
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Username or e-mail').fill(advertiser.username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }

  it('counts the chosen goal in the campaigns table and on the campaign page', async () => {
    await signIn(PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Campaigns' }).click();
    const row = page.getByRole('row', { name: /Autumn boots/ });
    await row.waitFor();
    const header = page.getByRole('columnheader', { name: 'Conversions' });
    await header.waitFor();
    // 3 conversions of any goal over 50 clicks: CR 6 %, CPO €10 / 3.
    await row.getByRole('cell', { name: '6 %' }).waitFor();
    await page.getByLabel('Goal').selectOption({ label: 'Purchases' });
    await page.getByRole('columnheader', { name: 'Purchases' }).waitFor();
    assert.match(page.url(), /goal=1/);
    await row.getByRole('cell', { name: '4 %' }).waitFor();
    await row.getByRole('cell', { name: '€5.00' }).waitFor();

    await row.getByRole('link', { name: 'Autumn boots' }).click();
    await page.getByRole('heading', { name: 'Autumn boots' }).waitFor();
    const tiles = page.getByRole('region', { name: 'Figures for the period' });
    await tiles.getByText('Purchases').waitFor();
    await page.getByLabel('Goal').selectOption({ label: 'Registrations' });
    await tiles.getByText('Registrations').waitFor();
    await tiles.getByText('2 %').waitFor();
  });

  it('edits site, block and device coefficients in place, with the API’s refusal beside the value', async () => {
    await page.getByRole('link', { name: 'Sites and devices' }).click();
    await page.getByRole('heading', { name: 'Devices' }).waitFor();
    assert.match(page.url(), /goal=2/, 'the goal follows to the traffic page');
    const siteRow = page.getByRole('row', { name: new RegExp(`^Site ${siteId}\\b`) });
    await siteRow.waitFor();
    await siteRow.getByRole('cell', { name: '3,000' }).waitFor();
    const base = `/api/advertiser/campaigns/multipliers/${campaignId}`;
    const coefficient = async (id: string) =>
      (await server.anonymous.get(`${base}/site/${id}`, { token: advertiser.token })).json<{ coef: number }[]>()[0]?.coef;

    // A valid value, saved with Enter.
    const siteCoef = page.getByLabel(`Coefficient for site ${siteId}`, { exact: true });
    await siteCoef.fill('1.5');
    await siteCoef.press('Enter');
    await siteRow.getByText('Saved').waitFor();
    assert.equal(await coefficient(String(siteId)), 1.5);

    // Out of range: the API's 422 on coef stands beside the value, which stays as typed; nothing changed.
    await siteCoef.fill('12');
    await siteCoef.press('Enter');
    const refusal = siteRow.locator('.coef .error');
    await refusal.waitFor();
    assert.match((await refusal.textContent()) ?? '', /10/);
    assert.equal(await siteCoef.getAttribute('aria-invalid'), 'true');
    assert.equal(await siteCoef.inputValue(), '12');
    assert.equal(await coefficient(String(siteId)), 1.5);
    await lookAt(page, 'advertiser-coefficients-refused');
    // Escape puts the saved value back.
    await siteCoef.press('Escape');
    assert.equal(await siteCoef.inputValue(), '1.5');
    await refusal.waitFor({ state: 'detached' });

    // A block's own coefficient (`123s45`), then edited in its new row.
    const [firstBlock = 0] = blockIds;
    await page.getByLabel('Site or block', { exact: true }).fill(`${siteId}s999999`);
    await page.getByLabel('Coefficient', { exact: true }).fill('2');
    await page.getByRole('button', { name: 'Set coefficient' }).click();
    await page.locator('#target-error').waitFor();
    await page.getByLabel('Site or block', { exact: true }).fill(`${siteId}s${firstBlock}`);
    await page.getByRole('button', { name: 'Set coefficient' }).click();
    const blockCoef = page.getByLabel(`Coefficient for block ${firstBlock} of site ${siteId}`);
    await blockCoef.waitFor();
    assert.equal(await blockCoef.inputValue(), '2');
    assert.equal(await coefficient(`${siteId}s${firstBlock}`), 2);

    // Device coefficient by keyboard only: Tab to the phone's field, type, Enter.
    await page.getByRole('link', { name: 'Sites and devices' }).focus();
    let reached = '';
    for (let presses = 0; presses < 30 && reached !== 'INPUT:Coefficient for phone'; presses++) {
      await page.keyboard.press('Tab');
      reached = await focused(page);
    }
    assert.equal(reached, 'INPUT:Coefficient for phone');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('0.5');
    await page.keyboard.press('Enter');
    await page
      .getByRole('row', { name: /^Phone/ })
      .getByText('Saved')
      .waitFor();
    const devices = (await server.anonymous.get(`${base}/device`, { token: advertiser.token })).json<
      { device: string; coef: number }[]
    >();
    assert.deepEqual(
      devices.map((row) => [row.device, row.coef]),
      [
        ['desktop', 1],
        ['mobile', 0.5],
        ['tablet', 1],
      ],
    );
    await page.getByRole('row', { name: new RegExp(`^Site ${siteId}\\b`) }).waitFor();
    await lookAt(page, 'advertiser-coefficients');
  });

  it('pages through the sites of a campaign with more than a page of them', async () => {
    // 101 sites with a view each today: the page shows 100 sites at a time.
    const db = server.server.context.db;
    const publisher = await server.createAccount('publisher');
    const campaign = await insertCampaign(db, { advertiserId: advertiser.id, title: 'Many sites' });
    const offer = await insertOffer(db, { campaignId: campaign.id });
    const sites = [];
    for (let index = 0; index < 101; index++) sites.push(await insertSite(db, { publisherId: publisher.id }));
    await recordTraffic(
      db,
      sites.map((site) => ({
        at: Date.now(),
        campaignId: campaign.id,
        offerId: offer.id,
        siteId: site.id,
        blockId: 0,
        device: DEVICES.desktop,
        views: 1,
      })),
    );
    await page.goto(`${server.url}/advertiser/campaigns/${campaign.id}/traffic`);
    const pager = page.getByRole('navigation', { name: 'sites pages' });
    await pager.getByText('Page 1 of 2').waitFor();
    const siteRows = page.getByRole('row', { name: /^Site \d+/ });
    assert.equal(await siteRows.count(), 100);
    assert.equal(await pager.getByRole('button', { name: 'Previous page of sites' }).isDisabled(), true);
    await pager.getByRole('button', { name: 'Next page of sites' }).click();
    await pager.getByText('Page 2 of 2').waitFor();
    await siteRows.nth(1).waitFor({ state: 'detached' });
    assert.equal(await siteRows.count(), 1);
    assert.equal(await pager.getByRole('button', { name: 'Next page of sites' }).isDisabled(), true);
    // Back to the first campaign's traffic page, where the next test starts.
    await page.goBack();
    await page.getByRole('row', { name: new RegExp(`^Site ${siteId}\\b`) }).waitFor();
  });

  it('explains, from a block of the traffic table, why each ad shows or not, with its coefficients', async () => {
    await engineOf(server).refresh();
    const [firstBlock = 0] = blockIds;
    await page.getByRole('link', { name: `Why ads show or not in block ${firstBlock}` }).click();
    await page.getByRole('heading', { name: new RegExp(`^Block ${firstBlock}, desktop, unknown country`) }).waitFor();
    assert.match(page.url(), new RegExp(`/advertiser/campaigns/${campaignId}/explain\\?block=${firstBlock}$`));
    const adRow = page.getByRole('row', { name: /Boots at half price/ });
    // The block's own coefficient (2, set above) and the desktop one (1).
    await adRow.getByText('Shows, place 1').waitFor();
    await adRow.getByRole('cell', { name: '× 2 × 1' }).waitFor();

    // On phones the device coefficient set above (0.5) multiplies the block's.
    await page.getByLabel('Device').selectOption({ label: 'Phone' });
    await page.getByRole('button', { name: 'Explain' }).click();
    await page.getByRole('heading', { name: new RegExp(`^Block ${firstBlock}, phone`) }).waitFor();
    await adRow.getByRole('cell', { name: '× 2 × 0.5' }).waitFor();
    assert.match(page.url(), /device=mobile/);
    await lookAt(page, 'advertiser-explain');

    // A switched-off ad is filtered, with the reason in words; a block that serves nothing is refused.
    const offerId = (
      await server.server.context.db
        .selectFrom('offers')
        .select('id')
        .where('campaign_id', '=', campaignId)
        .executeTakeFirstOrThrow()
    ).id;
    const off = await server.anonymous.put(`/api/advertiser/offers/${offerId}`, { active: false }, { token: advertiser.token });
    assert.equal(off.status, 204, off.text);
    await page.getByRole('button', { name: 'Explain' }).click();
    await adRow.getByText('The ad is switched off').waitFor();
    await page.getByLabel('Block', { exact: true }).fill('99999999');
    await page.getByRole('button', { name: 'Explain' }).click();
    // The API's refusal stands beside the field it names.
    await page.locator('#block-error').getByText('Not a block of an active site').waitFor();
    assert.equal(await page.getByLabel('Block', { exact: true }).getAttribute('aria-invalid'), 'true');
    await server.anonymous.put(`/api/advertiser/offers/${offerId}`, { active: true }, { token: advertiser.token });
  });

  it('sets a frequency cap and the hours of the week a campaign serves, refusals beside their fields', async () => {
    await page.getByRole('link', { name: 'Ads and days' }).click();
    const form = page.getByRole('form', { name: 'Campaign settings' });
    await form.waitFor();
    await form.getByLabel('Views per visitor per day').fill('3');
    await form.getByLabel('Time zone of the hours').fill('Mars/Olympus');
    await form.getByRole('checkbox', { name: 'Saturday' }).uncheck();
    await form.getByRole('checkbox', { name: 'Sunday' }).uncheck();
    await form.getByRole('combobox', { name: 'Monday from' }).selectOption({ label: '08:00' });
    await form.getByRole('combobox', { name: 'Monday until' }).selectOption({ label: '18:00' });
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('#timeZone-error').waitFor();
    const campaign = async () =>
      (await server.anonymous.get(`/api/advertiser/campaigns/${campaignId}`, { token: advertiser.token })).json<{
        frequencyCap?: number;
        schedule?: number[];
        timeZone?: string;
      }>();
    assert.equal((await campaign()).frequencyCap, undefined, 'a refused change changes nothing');

    await form.getByLabel('Time zone of the hours').fill('Europe/Berlin');
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await form.getByText('Saved.').waitFor();
    const saved = await campaign();
    assert.equal(saved.frequencyCap, 3);
    assert.equal(saved.timeZone, 'Europe/Berlin');
    const monday = Array.from({ length: 10 }, (_, hour) => 8 + hour);
    const tuesdayToFriday = Array.from({ length: 4 * 24 }, (_, hour) => 24 + hour);
    assert.deepEqual(saved.schedule, [...monday, ...tuesdayToFriday]);
    await lookAt(page, 'advertiser-delivery');

    // No day at all cannot be sent (the API would read it as every hour): the page says why.
    for (const day of ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'])
      await form.getByRole('checkbox', { name: day }).uncheck();
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('#schedule-error').getByText('switch it off instead').waitFor();
    assert.deepEqual((await campaign()).schedule, saved.schedule);
  });

  it('creates a client, who is mailed a link to set its password, and moves money both ways', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByText('No clients yet.').waitFor();
    await page.getByRole('button', { name: 'New client' }).click();
    await page.getByLabel('Login').fill('x');
    await page.getByLabel('E-mail').fill('not an address');
    await page.getByRole('button', { name: 'Create client' }).click();
    await page.locator('#user-error').waitFor();
    await page.locator('#email-error').waitFor();
    const login = `boots_${process.pid}`;
    await page.getByLabel('Login').fill(login);
    await page.getByLabel('E-mail').fill(`${login}@shop.example`);
    await page.getByLabel('Name (optional)').fill('Boots Outlet');
    await page.getByRole('button', { name: 'Create client' }).click();
    await page.getByText(`${login} is created.`).waitFor();
    const mail = await mailbox.next(`${login}@shop.example`);
    assert.match(mail.text, /\/password\?token=[A-Za-z0-9_-]+/);
    await lookAt(page, 'advertiser-clients');

    await page.getByRole('link', { name: 'Boots Outlet' }).click();
    await page.getByRole('heading', { name: 'Boots Outlet' }).waitFor();
    const balance = page.getByTestId('client-balance');
    await balance.getByText('€0.00').waitFor();
    await page.getByLabel('Amount').fill('40.25');
    await page.getByRole('button', { name: 'Give to client…' }).click();
    await page.getByRole('button', { name: 'Give €40.25' }).click();
    await balance.getByText('€40.25').waitFor();
    await page.locator('.balance', { hasText: '€209.75' }).waitFor();
    await page.getByLabel('Amount').fill('15');
    await page.getByRole('button', { name: 'Take back…' }).click();
    await page.getByRole('button', { name: 'Take back €15.00' }).click();
    await balance.getByText('€25.25').waitFor();
    await page.getByText('moved back from Boots Outlet').waitFor();
    // More than the client has: the API's 422 beside the amount, and nothing moves.
    await page.getByLabel('Amount').fill('100');
    await page.getByRole('button', { name: 'Take back…' }).click();
    await page.getByRole('button', { name: 'Take back €100.00' }).click();
    await page.locator('#balance-error').waitFor();
    await lookAt(page, 'advertiser-client');
    await assertReachableByTab([
      page.getByLabel('Goal'),
      page.getByLabel('Amount'),
      page.getByRole('button', { name: 'Give to client…' }),
      page.getByRole('button', { name: 'Take back…' }),
    ]);
    const clients = (await server.anonymous.get('/api/advertiser/users', { token: advertiser.token })).json<
      { username: string; balance: number }[]
    >();
    assert.deepEqual(
      clients.map((client) => [client.username, client.balance]),
      [[login, 25.25]],
    );
    const me = (await server.anonymous.get('/api/me', { token: advertiser.token })).json<{ balance: number }>();
    assert.equal(me.balance, 224.75);
  });

  it('shows the postback URL with a new postback key, shown once, and the pixel ready to copy', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Conversions' }).click();
    const postback = page.getByLabel('Postback URL');
    await page.getByText('You have no postback key yet').waitFor();
    assert.equal(
      await postback.inputValue(),
      `${server.url}/api/serve/conversion?click_id={click_id}&goal=purchase&key=YOUR_POSTBACK_KEY`,
    );
    await page.getByRole('button', { name: 'Make a postback key' }).click();
    const key = (await page.locator('code.secret').textContent()) ?? '';
    assert.match(key, /^nvpb_/);
    assert.equal(await postback.inputValue(), `${server.url}/api/serve/conversion?click_id={click_id}&goal=purchase&key=${key}`);
    await page.getByRole('button', { name: 'Replace the key' }).waitFor();
    await page.getByRole('button', { name: 'Copy Postback URL' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await readClipboard(page), await postback.inputValue());
    await page.getByLabel('Goal of this conversion').selectOption('registration');
    const pixel = page.getByLabel('Conversion pixel');
    assert.equal(
      await pixel.inputValue(),
      `<img src="${server.url}/api/serve/pixel.gif?click_id={click_id}&goal=registration" width="1" height="1" alt="">`,
    );
    await page.getByRole('button', { name: 'Copy Conversion pixel' }).click();
    assert.equal(await readClipboard(page), await pixel.inputValue());
    await lookAt(page, 'advertiser-conversions');
    // Shown once: after a reload, only its first characters.
    await page.reload();
    await page.getByText(`Your key starts with ${key.slice(0, 11)}`).waitFor();
    assert.equal(await page.locator('code.secret').count(), 0);
    await assertReachableByTab([
      page.getByLabel('Goal of this conversion'),
      page.getByLabel('Postback URL'),
      page.getByRole('button', { name: 'Copy Postback URL' }),
      page.getByRole('button', { name: 'Copy Conversion pixel' }),
    ]);
  });

  it('changes the password, and the new one signs in', async () => {
    await page.getByRole('link', { name: 'Acme Shoes' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByLabel('Current password').fill('not the password');
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.locator('#current-error').waitFor();
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password is changed.').waitFor();
    await lookAt(page, 'account');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Nativa' }).waitFor();
    await signIn(NEW_PASSWORD);
    assert.deepEqual(cspErrors, [], 'the app runs under its Content-Security-Policy');
  });
});

/** The clipboard as the page sees it (the test's tsconfig has no DOM types). */
function readClipboard(page: Page): Promise<string> {
  return page.evaluate(() =>
    (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
  );
}
