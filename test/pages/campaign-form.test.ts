import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { sessionOf, setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
import { launchChromium, lookAt, SHOTS, seriousViolations, skipWithoutChromium } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf, MOBILE_UA, type World } from '../helpers/serving.ts';

const skip = skipWithoutChromium;

interface StoredCampaign {
  title: string;
  maxmoney: number;
  maxclicks: number;
  totalBudget?: number;
  startsAt?: string;
  endsAt?: string;
  devices?: string[];
  os?: string[];
}

/**
 * The advertiser's campaign form and what hangs on it (docs/web-account.md, "The campaign form"):
 * one form with one Save to create and to change a campaign, device targeting that serving
 * honours, numbers read one way in every field, one headline from the form to the served teaser,
 * and "Why ads show" asked about the visitor's system and browser. One server, one Chromium.
 */
describe('the campaign form, its numbers, the headline and explain (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let world: World;
  let campaignId = 0;
  let adId = 0;

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    world = await createWorld(server, { ads: [{ bidMicros: 500_000 }], teaserCount: 2 });
    [campaignId = 0] = world.campaignIds;
    [adId = 0] = world.offerIds;
    const db = server.server.context.db;
    await setPassword(db, world.advertiserId);
    const { username } = await db
      .selectFrom('accounts')
      .select('username')
      .where('id', '=', world.advertiserId)
      .executeTakeFirstOrThrow();
    const session = await server.anonymous.post(
      '/api/session',
      { login: username, password: TEST_PASSWORD },
      { headers: { Origin: server.url } },
    );
    assert.equal(session.status, 200, session.text);
    browser = await launchChromium();
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    await context.addCookies([{ name: 'nativa_session', value: sessionOf(session), url: server.url }]);
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const campaignOf = async (id: number) => (await world.advertiser.get(`/api/advertiser/campaigns/${id}`)).json<StoredCampaign>();
  const served = async (userAgent: string) => {
    const response = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
      headers: { 'User-Agent': userAgent },
    });
    assert.equal(response.status, 200, response.text);
    return response.json<{ teasers: { id: number; title: string }[] }>().teasers;
  };

  it('creates a campaign in one form with flight, budgets, devices and systems; numbers read one way, refusals in the form’s words', async () => {
    await page.goto(`${server.url}/advertiser/campaigns`);
    await page.getByRole('button', { name: 'New campaign' }).click();
    const form = page.getByRole('form', { name: 'New campaign' });
    for (const section of ['Basics', 'Schedule and budget', 'Targeting'])
      await form.getByRole('heading', { name: section }).waitFor();
    assert.equal(await form.getByRole('button', { name: 'Create campaign' }).count(), 1, 'one Save');
    await form.getByLabel('Title', { exact: true }).fill('Phones only');
    await form.getByLabel('Category').selectOption({ index: 1 });
    await form.getByLabel('Starts').fill('2026-12-10T09:00');
    await form.getByLabel('Ends').fill('2026-12-01T09:00');
    await form.getByLabel('Lifetime budget').fill('-5');
    await form.getByLabel('Daily spend limit').fill('1,000');
    await form.getByLabel('Daily click limit').fill('1,000');
    await form.getByRole('group', { name: 'Devices' }).getByRole('checkbox', { name: 'Phone' }).check();
    await form.getByRole('group', { name: 'Operating systems' }).getByRole('checkbox', { name: 'Android' }).check();
    await form.getByRole('button', { name: 'Create campaign' }).click();
    await page.locator('#endsAt-error').getByText('The end date must be after the start date.').waitFor();
    await page.locator('#totalBudget-error').getByText('An amount can’t be below zero').waitFor();
    assert.doesNotMatch((await form.textContent()) ?? '', /startsAt|buttons say which way/);
    const listed = await world.advertiser.get('/api/advertiser/campaigns?archived=0');
    assert.equal(listed.json<unknown[]>().length, 1, 'nothing is sent while the form refuses');

    await form.getByLabel('Ends').fill('2027-01-01T09:00');
    await form.getByLabel('Lifetime budget').fill('1,000');
    await lookAt(page, 'campaign-form-create');
    await form.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { name: 'Phones only' }).waitFor();
    const id = Number(/\/advertiser\/campaigns\/(\d+)$/.exec(new URL(page.url()).pathname)?.[1]);
    const created = await campaignOf(id);
    assert.deepEqual(
      [created.totalBudget, created.maxmoney, created.maxclicks, created.devices, created.os],
      [1000, 1000, 1000, ['mobile'], ['android']],
    );
    assert.deepEqual([created.startsAt, created.endsAt], ['2026-12-10T09:00:00.000Z', '2027-01-01T09:00:00.000Z']);
    // The campaign's page edits the same form, filled from what was saved.
    const settings = page.getByRole('form', { name: 'Campaign settings' });
    assert.equal(await settings.getByLabel('Daily spend limit').inputValue(), '1000');
    assert.equal(await settings.getByRole('checkbox', { name: 'Phone' }).isChecked(), true);
    assert.deepEqual(await seriousViolations(page), []);
  });

  it('targets phones from the campaign form: a desktop visitor is not served, and explain says why for device and system', async () => {
    assert.deepEqual(
      (await served(DESKTOP_UA)).map((teaser) => teaser.id),
      [adId],
      'before: every device',
    );
    // A target of one version, set through the API, has no box in the form: saving keeps it.
    assert.equal((await world.advertiser.put(`/api/advertiser/campaigns/${campaignId}`, { os: ['ios:17'] })).status, 200);
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}`);
    const form = page.getByRole('form', { name: 'Campaign settings' });
    await form.getByText('Also targeted, by version').waitFor();
    await form.getByRole('group', { name: 'Devices' }).getByRole('checkbox', { name: 'Phone' }).check();
    await form.getByRole('group', { name: 'Operating systems' }).getByRole('checkbox', { name: 'Android' }).check();
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await form.getByText('Saved.').waitFor();
    assert.deepEqual(
      [(await campaignOf(campaignId)).devices, (await campaignOf(campaignId)).os],
      [['mobile'], ['android', 'ios:17']],
    );
    await engineOf(server).refresh();
    assert.deepEqual(await served(DESKTOP_UA), [], 'a phone-only campaign is not served to a desktop visitor');
    assert.deepEqual(
      (await served(MOBILE_UA)).map((teaser) => teaser.id),
      [adId],
      'it is served to an Android phone',
    );

    // "Why ads show" asks about the same things the campaign targets: device, system, browser.
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}/explain?block=${world.blockId}`);
    const explain = page.getByRole('form', { name: 'Impression to explain' });
    await explain.getByRole('button', { name: 'Explain' }).waitFor();
    const row = page.getByRole('row', { name: /^Ad / });
    await row.getByText('The campaign targets other devices').waitFor();
    await explain.getByLabel('Device').selectOption({ label: 'Phone' });
    await explain.getByRole('button', { name: 'Explain' }).click();
    await row.getByText('The campaign targets other operating systems').waitFor();
    await explain.getByLabel('Operating system').selectOption({ label: 'Android' });
    await explain.getByLabel('Browser').selectOption({ label: 'Chrome' });
    await explain.getByRole('button', { name: 'Explain' }).click();
    await row.getByText('Shows, place 1').waitFor();
    assert.match(page.url(), /os=android/);
    assert.match(page.url(), /browser=chrome/);
    await lookAt(page, 'campaign-form-explain');
  });

  it('one headline from the form to the served teaser; prices whole and bids signless, said in the form’s words', async () => {
    // An ad whose API text differs from its title: blocks show the title, so the form edits the title.
    const db = server.server.context.db;
    await db.updateTable('offers').set({ description: 'Text for exchanges' }).where('id', '=', adId).execute();
    const [before] = await served(MOBILE_UA);
    assert.ok(before);
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}`);
    const bid = page.getByRole('form', { name: `Bid of ${before.title}` });
    await bid.getByLabel('New bid per click').fill('-0.5');
    await bid.getByRole('button', { name: /^Save bid/ }).click();
    await bid.getByText('An amount can’t be below zero').waitFor();
    assert.doesNotMatch((await bid.textContent()) ?? '', /buttons say which way/);

    await page.getByRole('button', { name: `Edit content of ad ${before.title}` }).click();
    const form = page.getByRole('form', { name: `Content of ${before.title}` });
    assert.equal(await form.getByLabel('Headline').inputValue(), before.title, 'the headline is what blocks show');
    assert.equal(await form.getByLabel('Product title').count(), 0, 'one name for one thing');
    await form.getByText('Text for exchanges').waitFor();
    await form.getByLabel('Headline').fill('Boots that keep the snow out');
    await form.getByLabel('New price', { exact: true }).fill('49.99');
    await form.getByRole('button', { name: 'Save and send for moderation' }).click();
    await form.getByText('Write the price in whole units, like 1,990.').waitFor();
    const preview = form.getByRole('region', { name: `Preview of ${before.title}` });
    assert.doesNotMatch((await preview.textContent()) ?? '', /49\.99/, 'the preview shows no price the ad cannot have');
    // The preview shows the ad in a square block and in a wide one: the same headline in both.
    await preview.getByText('Boots that keep the snow out').first().waitFor();
    assert.equal(await preview.getByText('Boots that keep the snow out').count(), 2);
    await form.getByLabel('New price', { exact: true }).fill('1,990');
    await preview.getByText('1,990', { exact: false }).first().waitFor();
    await lookAt(page, 'campaign-form-headline');
    await form.getByRole('button', { name: 'Save and send for moderation' }).click();
    await form.waitFor({ state: 'detached' });

    const approved = await server.operator.put(`/api/admin/offers/${adId}`, { status: 1 });
    assert.equal(approved.status, 200, approved.text);
    await engineOf(server).refresh();
    const [after] = await served(MOBILE_UA);
    assert.equal(after?.title, 'Boots that keep the snow out', 'the served teaser shows the headline typed');
  });
});
