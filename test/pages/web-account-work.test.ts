import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
import { createCampaign, createOffer } from '../helpers/advertiser.ts';
import { launchChromium, lookAt, SHOTS, skipWithoutChromium } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const skip = skipWithoutChromium;

/** A name as long as the API takes (255 characters), with spaces only now and then. */
const LONG = (word: string) => `${word}-${'x'.repeat(120)} ${'y'.repeat(250)}`.slice(0, 255);

/**
 * The web account for day-to-day work (docs/adr/0038), in one browser on one server
 * with no mail server (SMTP_URL unset), its fixtures carrying 255-character names.
 */
describe('the web account for real work (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let operatorId = 0;
  let advertiser: { id: number; login: string };
  let publisher: { id: number; login: string };
  let campaignId = 0;
  let advertiserClient: Awaited<ReturnType<TestServer['createAccount']>>['client'];
  /** The URL of the test ad's square picture, which blocks show. */
  let squareUrl = '';

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer({ env: { CURRENCY: 'EUR' } });
    browser = await launchChromium();
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    page = await context.newPage();

    const db = server.server.context.db;
    operatorId = (await server.operator.get('/api/me')).json<{ id: number }>().id;
    await setPassword(db, operatorId);
    const adv = await server.createAccount('advertiser', { name: LONG('Acme') });
    advertiserClient = adv.client;
    advertiser = { id: adv.id, login: (await adv.client.get('/api/me')).json<{ username: string }>().username };
    await setPassword(db, adv.id);
    await server.operator.post(`/api/admin/users/${adv.id}/balance`, { amount: 500, comment: 'opening' });
    // A fraction of a cent, which the header once rounded and the pages did not.
    await server.operator.post(`/api/admin/users/${adv.id}/balance`, { amount: '0.007', comment: 'rounding' });
    campaignId = await createCampaign(adv.client, { title: LONG('Winter boots') });
    await createCampaign(adv.client, { title: 'Short one' });
    const offerId = await createOffer(adv.client, campaignId, { title: LONG('Boots'), price: 1990 });
    const offer = (await adv.client.get(`/api/advertiser/offers/${offerId}`)).json<{ img: { url: string } }>();
    squareUrl = offer.img.url;
    const client = await adv.client.post('/api/advertiser/users', {
      user: `client_${process.pid}`,
      email: `client_${process.pid}@example.test`,
      name: LONG('Client'),
    });
    assert.equal(client.status, 201, client.text);
    const pub = await server.createAccount('publisher');
    publisher = { id: pub.id, login: (await pub.client.get('/api/me')).json<{ username: string }>().username };
    await setPassword(db, pub.id);
    const site = await pub.client.post('/api/webmaster/sites', {
      url: `https://${'a'.repeat(60)}.${'b'.repeat(60)}.example/${'p'.repeat(120)}`,
      category_id: 101,
    });
    assert.equal(site.status, 201, site.text);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Signs in through the sign-in page (after ending any session), from wherever the page is. */
  async function signIn(login: string): Promise<void> {
    await page.getByLabel('Username or e-mail').fill(login);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function signOut(): Promise<void> {
    await context.clearCookies();
  }

  /** Every table of the page fits its box (1280 px), or the page does not scroll sideways and no name cell is wider than the screen (390 px). */
  async function assertNoTableOverflow(where: string): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(50);
      const found = await page.locator('body').evaluate((body, viewport) => {
        interface Box {
          scrollWidth: number;
          clientWidth: number;
          getAttribute(name: string): string | null;
          closest(selector: string): Box | null;
          getBoundingClientRect(): { width: number };
          querySelectorAll(selector: string): Iterable<Box>;
        }
        const document = body.ownerDocument as unknown as { documentElement: Box } & Box;
        const problems: string[] = [];
        if (document.documentElement.scrollWidth > viewport) {
          // Name the outermost elements that reach past the screen, to say what widened the page.
          const wide = [...document.querySelectorAll('body *')]
            .filter((element) => element.getBoundingClientRect().width > viewport && element.closest('.table-wrap') === null)
            .slice(-3)
            .map((element) => `${(element as unknown as { tagName: string }).tagName}.${element.getAttribute('class')}`);
          problems.push(`the page is ${document.documentElement.scrollWidth} px wide (${wide.join(', ')})`);
        }
        for (const wrap of document.querySelectorAll('.table-wrap')) {
          if (viewport >= 1280 && wrap.scrollWidth > wrap.clientWidth + 1) {
            problems.push(`${wrap.getAttribute('aria-label')}: ${wrap.scrollWidth} > ${wrap.clientWidth}`);
          }
          for (const cell of wrap.querySelectorAll('tbody th')) {
            const cellWidth = cell.getBoundingClientRect().width;
            if (cellWidth > viewport) problems.push(`a name cell is ${cellWidth} px`);
          }
        }
        return problems;
      }, width);
      assert.deepEqual(found, [], `${where} at ${width} px`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it('answers a browser the app’s own “not found” page at /login, /admin and any unknown address', async () => {
    for (const address of ['/login', '/admin', '/no/such/page']) {
      const response = await page.goto(`${server.url}${address}`);
      assert.equal(response?.status(), 404, address);
      assert.match(response?.headers()['content-type'] ?? '', /^text\/html/, address);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      assert.equal(await page.title(), 'Page not found · Nativa');
    }
    await lookAt(page, 'work-not-found');
    // Under an area of the app the app itself answers, and says the same.
    await page.goto(`${server.url}/operator/nothing-here`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    // A program (no text/html in Accept) keeps the API's error body.
    const api = await server.anonymous.get('/admin');
    assert.equal(api.status, 404);
    assert.equal(api.json<{ code: number }>().code, 1008);
    const apiPath = await server.anonymous.get('/api/nothing', { accept: 'text/html,application/xml;q=0.9,*/*;q=0.8' });
    assert.equal(apiPath.status, 404);
    assert.match(apiPath.header('content-type') ?? '', /xml/);
  });

  it('keeps a signed-out deep link through sign-in, and never leads off the site', async () => {
    await page.goto(`${server.url}/operator/accounts/${advertiser.id}`);
    await page.getByRole('heading', { name: 'Sign in to Nativa' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/sign-in');
    assert.equal(new URL(page.url()).searchParams.get('next'), `/operator/accounts/${advertiser.id}`);
    await signIn('operator');
    await page.getByRole('heading', { name: advertiser.login }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/operator/accounts/${advertiser.id}`);
    // A `next` to another site, or to an address the app does not have, leads to the home page.
    await signOut();
    await page.goto(`${server.url}/sign-in?next=${encodeURIComponent('//evil.example/operator')}`);
    await signIn('operator');
    await page.getByRole('heading', { name: 'Moderation' }).waitFor();
    assert.equal(new URL(page.url()).host, new URL(server.url).host);
  });

  it('reads money typed as “1,000” by the page’s language and confirms the amount before crediting', async () => {
    const balanceOf = async () =>
      (await server.operator.get(`/api/admin/users/${advertiser.id}`)).json<{ balance: number }>().balance;
    const before = await balanceOf();
    await page.goto(`${server.url}/operator/accounts/${advertiser.id}`);
    const form = page.getByRole('form', { name: 'Balance' });
    // Ambiguous in English (a decimal comma?): refused with how to write it, nothing sent.
    await form.getByLabel('Amount').fill('1,5');
    await form.getByLabel('Comment').fill('bank transfer');
    await form.getByRole('button', { name: 'Credit…' }).click();
    await form.getByText('Write the amount as you would 1,250.50').waitFor();
    assert.equal(await balanceOf(), before);
    // "1,000" is a thousand in en-GB: the confirmation says so, and only then does money move.
    await form.getByLabel('Amount').fill('1,000');
    await form.getByRole('button', { name: 'Credit…' }).click();
    const confirm = form.getByRole('group', { name: 'Confirm' });
    await confirm.getByText(`Credit €1,000.00 to ${advertiser.login}?`).waitFor();
    assert.equal(await balanceOf(), before, 'nothing moves before the confirmation');
    await lookAt(page, 'work-credit-confirm');
    await confirm.getByRole('button', { name: 'Credit €1,000.00' }).click();
    await form.getByText('Credited €1,000.00.').waitFor();
    assert.equal(await balanceOf(), before + 1000);
    // A debit is confirmed the same way; cancelling sends nothing.
    await form.getByLabel('Amount').fill('2.5');
    await form.getByLabel('Comment').fill('correction');
    await form.getByRole('button', { name: 'Debit…' }).click();
    await confirm.getByText(`Debit €2.50 from ${advertiser.login}?`).waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await balanceOf(), before + 1000);
  });

  /** The teaser a preview draws: its picture and price as the embed script writes them. */
  async function previewOf(scope: ReturnType<Page['locator']>) {
    const teaser = scope.locator('.nativa-teasers .nativa-teaser').first();
    await teaser.waitFor();
    return {
      image: await teaser.locator('img').getAttribute('src'),
      price: await teaser.locator('.nativa-price').textContent(),
      mark: await teaser.locator('.nativa-ad-mark').textContent(),
    };
  }

  it('shows the moderation card’s ad as a block shows it: square picture, price with currency', async () => {
    await page.goto(`${server.url}/operator`);
    await page.getByRole('link', { name: /^Ads/ }).click();
    const card = page.locator('.ad-review').first();
    assert.deepEqual(await previewOf(card), { image: squareUrl, price: '€1,990.00 (was €2,990.00) -33%', mark: 'Ad' });
    await lookAt(page, 'work-moderation-ad');
  });

  it('says an invitation is queued, not e-mailed, when no mail server is set up', async () => {
    await page.goto(`${server.url}/operator/accounts`);
    await page.getByRole('button', { name: 'New account' }).click();
    await page.getByLabel('Username').fill(`newbie_${process.pid}`);
    await page.getByLabel('E-mail').fill(`newbie_${process.pid}@example.test`);
    await page.getByRole('button', { name: 'Create and invite' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'created' });
    await notice.waitFor();
    const text = (await notice.textContent()) ?? '';
    assert.doesNotMatch(text, /e-mailed|on its way/);
    assert.match(text, /queued in the outbox/);
  });

  it('keeps every operator list inside its box with 255-character names', async () => {
    await page.goto(`${server.url}/operator/accounts`);
    await page.getByText(LONG('Acme')).first().waitFor();
    await assertNoTableOverflow('operator accounts');
    await lookAt(page, 'work-operator-accounts');
  });

  it('keeps the advertiser’s campaigns and clients lists inside their box, with 255-character names', async () => {
    await signOut();
    await page.goto(`${server.url}/advertiser/campaigns`);
    await signIn(advertiser.login);
    await page.getByRole('link', { name: LONG('Winter boots') }).waitFor();
    // One rule for money: the header writes the balance as every page does, to the API's 4 digits.
    const balance = await page.getByTitle('Balance').textContent();
    assert.match(balance ?? '', /^€[\d,]+\.007$/);
    await assertNoTableOverflow('campaigns');
    await lookAt(page, 'work-campaigns');
    await page.goto(`${server.url}/advertiser/clients`);
    await page.getByRole('link', { name: LONG('Client') }).waitFor();
    await assertNoTableOverflow('clients');
  });

  it('helps on the page itself, written for its user, and explains spend beside the figures', async () => {
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}`);
    const help = page.getByRole('complementary', { name: 'About this page' });
    await help.getByText('About this page').click();
    await help.getByText('One campaign: its figures, its ads as visitors will see them').waitFor();
    await help
      .getByText(/^Bid|bid \(the most you pay for a click\)/)
      .first()
      .waitFor();
    await help.getByRole('heading', { name: 'What happens next' }).waitFor();
    // No developers' document is offered to the page's user: no link into docs/, no Markdown.
    const links = await page.locator('main a[href]').evaluateAll((all) => all.map((link) => link.getAttribute('href') ?? ''));
    assert.deepEqual(
      links.filter((href) => href.startsWith('/docs/') || href.endsWith('.md')),
      [],
    );
    const helpLinks = await help.locator('a[href]').evaluateAll((all) => all.map((link) => link.getAttribute('href')));
    assert.deepEqual(helpLinks, ['/api/docs'], 'the help links nowhere outside the app but the API reference');
    await page.getByText('Your bid is the most a click may cost, not what it costs').waitFor();
    // The ad's card draws the teaser with the embed script's code: the square picture, the price in euros.
    assert.deepEqual(await previewOf(page.locator('.ads')), {
      image: squareUrl,
      price: '€1,990.00 (was €2,990.00) -33%',
      mark: 'Ad',
    });
    const guide = await page.request.get(`${server.url}/docs/advertiser-campaigns.md`);
    assert.equal(guide.status(), 200);
    assert.match(guide.headers()['content-type'] ?? '', /^text\/plain; charset=utf-8/);
    assert.match(await guide.text(), /^# /);
    assert.equal((await page.request.get(`${server.url}/docs/serving.md`)).status(), 200);
    // Only the documents of docs/: no other file of the server is reachable this way.
    for (const outside of ['/docs/..%2Fpackage.json', '/docs/adr', '/docs/nothing.md']) {
      assert.equal((await page.request.get(`${server.url}${outside}`)).status(), 404, outside);
    }
    await lookAt(page, 'work-campaign');
  });

  it('gives the ad form the API’s limits and human messages', async () => {
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}`);
    await page.getByRole('button', { name: 'New ad' }).click();
    const form = page.getByRole('form', { name: 'New ad' });
    const headline = form.getByLabel('Headline');
    await headline.fill('h'.repeat(77));
    assert.equal((await headline.inputValue()).length, 60, 'a 60-character field takes no more');
    assert.equal(await form.getByLabel('Square picture').getAttribute('accept'), 'image/png,image/jpeg');
    assert.equal(await form.getByLabel('Bid per click').getAttribute('inputmode'), 'decimal');
    await form.getByLabel('Landing page').fill('https://shop.example/boots');
    await form.getByLabel('Bid per click').fill('0,25');
    await form.getByRole('button', { name: 'Send for moderation' }).click();
    await form.getByText('Write the amount as you would 1,250.50').waitFor();
    // What the API refuses reads as a sentence for a person, not the validator's text.
    await form.getByLabel('Bid per click').fill('0.25');
    await form.getByRole('button', { name: 'Send for moderation' }).click();
    await form.getByText('Must be a PNG or JPEG picture', { exact: false }).first().waitFor();
    const text = (await form.textContent()) ?? '';
    assert.doesNotMatch(text, /must NOT|must be integer|data URI/i);
  });

  it('edits a campaign’s daily limits after creation, saying they need no moderation', async () => {
    const campaignOf = async () =>
      (await advertiserClient.get(`/api/advertiser/campaigns/${campaignId}`)).json<{ maxmoney: number; maxclicks: number }>();
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}`);
    const form = page.getByRole('form', { name: 'Campaign settings' });
    await form.getByText('keeps the campaign approved').waitFor();
    await form.getByLabel('Daily spend limit').fill('1,250.5');
    await form.getByLabel('Daily click limit').fill('1,300');
    await form.getByRole('button', { name: 'Save', exact: true }).click();
    await form.getByText('Saved.').waitFor();
    const saved = await campaignOf();
    assert.equal(saved.maxmoney, 1250.5);
    assert.equal(saved.maxclicks, 1300);
    await lookAt(page, 'work-campaign-limits');
  });

  it('changes an ad’s bid in place, saying the ad stays approved', async () => {
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}`);
    const form = page.getByRole('form', { name: `Bid of ${LONG('Boots')}` });
    await form.getByText('the ad stays approved').waitFor();
    await form.getByLabel('New bid per click').fill('0,3');
    await form.getByRole('button', { name: /^Save bid/ }).click();
    await form.getByText('Write the amount as you would 1,250.50').waitFor();
    await form.getByLabel('New bid per click').fill('0.3125');
    await form.getByRole('button', { name: /^Save bid/ }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    const [ad] = (await advertiserClient.get(`/api/advertiser/campaigns/${campaignId}?expand=offers`)).json<{
      offers: { stavka: number }[];
    }>().offers;
    assert.equal(ad?.stavka, 0.3125);
  });

  it('edits an ad’s content after creation, saying before saving that it goes back to moderation', async () => {
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}`);
    await page.getByRole('button', { name: `Edit content of ad ${LONG('Boots')}` }).click();
    const form = page.getByRole('form', { name: `Content of ${LONG('Boots')}` });
    await form.getByText('Saving sends this ad back to moderation').waitFor();
    await lookAt(page, 'work-ad-content');
    const headline = form.getByLabel('Headline');
    await headline.fill('n'.repeat(77));
    assert.equal((await headline.inputValue()).length, 60, 'a 60-character field takes no more');
    await headline.fill('Warm boots, new text');
    await form.getByLabel('Landing page', { exact: true }).fill('ftp://shop.example/boots');
    await form.getByRole('button', { name: 'Save and send for moderation' }).click();
    await form.getByText('Must be an absolute http or https URL', { exact: false }).waitFor();
    await form.getByLabel('Landing page', { exact: true }).fill('https://shop.example/new-boots');
    // A price is typed afresh: a mistyped one is said at once, a whole number goes.
    await form.getByLabel('New price', { exact: true }).fill('12,5');
    await form.getByRole('button', { name: 'Save and send for moderation' }).click();
    await form.getByText('Write the price in whole units, like 1,990.').waitFor();
    await form.getByLabel('New price', { exact: true }).fill('1495');
    await form.getByRole('button', { name: 'Save and send for moderation' }).click();
    await form.waitFor({ state: 'detached' });
    const [ad] = (await advertiserClient.get(`/api/advertiser/campaigns/${campaignId}?expand=offers`)).json<{
      offers: { opis: string; url: string; status: number; cost: string }[];
    }>().offers;
    assert.deepEqual([ad?.opis, ad?.url, ad?.status], ['Warm boots, new text', 'https://shop.example/new-boots', 0]);
    assert.match(ad?.cost ?? '', /^1495\b/);
  });

  it('edits a campaign’s category and countries, saying a new category goes back to moderation', async () => {
    const campaignOf = async () =>
      (await advertiserClient.get(`/api/advertiser/campaigns/${campaignId}`)).json<{
        category_id: number;
        geo: string[];
        status: number;
      }>();
    const before = await campaignOf();
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}`);
    const form = page.getByRole('form', { name: 'Campaign settings' });
    await form.getByText('keeps the campaign approved, except a new category').waitFor();
    const select = form.getByLabel('Category');
    const other = await select
      .locator('option')
      .evaluateAll(
        (options, current) =>
          options.map((option) => (option as unknown as { value: string }).value).find((value) => value !== current),
        String(before.category_id),
      );
    assert.ok(other, 'a second root category to choose');
    await select.selectOption(other);
    await form.getByText('Saving sends this campaign back to moderation').waitFor();
    await form.getByRole('button', { name: 'Save and send for moderation' }).click();
    await form.getByText('Saved.').waitFor();
    const after = await campaignOf();
    assert.deepEqual([after.category_id, after.status], [Number(other), 0]);
    await lookAt(page, 'work-campaign-settings');
  });

  it('keeps the publisher’s sites list inside its box with a long address', async () => {
    await signOut();
    await page.goto(`${server.url}/publisher/sites`);
    await signIn(publisher.login);
    await page.getByRole('link', { name: /a{60}/ }).waitFor();
    await assertNoTableOverflow('sites');
    await lookAt(page, 'work-sites');
  });
});
