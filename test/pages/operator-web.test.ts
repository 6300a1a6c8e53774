import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { createCampaign, createOffer } from '../helpers/advertiser.ts';
import { launchChromium, lookAt, SHOTS, skipWithoutChromium } from '../helpers/browser.ts';
import { Mailbox } from '../helpers/mailbox.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const skip = skipWithoutChromium;
const PASSWORD = 'the operator’s long password';
const LINK = /https:\/\/\S+\/password\?token=[A-Za-z0-9_-]+/;

/** The natural width of a loaded picture (0 when it failed to load). */
function loadedWidth(page: Page, selector: string): Promise<number> {
  return page
    .locator(selector)
    .first()
    .evaluate(
      (element) =>
        new Promise<number>((resolve) => {
          const image = element as unknown as { complete: boolean; naturalWidth: number; onload: unknown; onerror: unknown };
          if (image.complete) resolve(image.naturalWidth);
          image.onload = () => resolve(image.naturalWidth);
          image.onerror = () => resolve(0);
        }),
    );
}

describe('an operator in the web app (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const mailbox = new Mailbox();
  const cspErrors: string[] = [];
  let campaignId = 0;
  let secondCampaignId = 0;
  let offerId = 0;
  let siteId = 0;

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    await mailbox.start();
    server = await startTestServer({ env: { SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`, CURRENCY: 'EUR' } });
    browser = await launchChromium();
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
    });

    // What waits for moderation: a campaign with an ad (pictures and all), and a publisher's site.
    const advertiser = await server.createAccount('advertiser', { name: 'Acme Shoes' });
    campaignId = await createCampaign(advertiser.client, { title: 'Winter boots', geo: ['TH', 'VN'] });
    secondCampaignId = await createCampaign(advertiser.client, { title: 'Summer sandals' });
    offerId = await createOffer(advertiser.client, campaignId, { title: 'Boots at half price', price: 1990 });
    const publisher = await server.createAccount('publisher');
    const site = await publisher.client.post('/api/webmaster/sites', { url: 'https://dailynews.example/', category_id: 101 });
    assert.equal(site.status, 201, site.text);
    siteId = site.json<{ id: number }>().id;
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await mailbox.stop();
  });

  it('sets its password from the reset link and signs in as `operator`', async () => {
    const reset = await server.anonymous.post('/api/password-reset', { login: 'operator' });
    assert.equal(reset.status, 202);
    const mail = await mailbox.next('operator@localhost');
    await page.goto(LINK.exec(mail.text)?.[0] ?? '');
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Username or e-mail').fill('operator');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Moderation' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/operator');
  });

  it('approves a campaign by keyboard, an ad shown with its pictures, and a site, the queues updating', async () => {
    const campaign = page.getByRole('article', { name: 'campaign Winter boots' });
    await campaign.getByText('TH, VN').waitFor();
    await lookAt(page, 'operator-moderation');
    // Every control of the page is reachable with Tab.
    const reached = new Set<string>();
    for (let presses = 0; presses < 40; presses++) {
      await page.keyboard.press('Tab');
      reached.add(
        await page.locator('body').evaluate((body) => {
          const element = body.ownerDocument.activeElement;
          return `${element?.tagName}:${element?.getAttribute('aria-label') ?? element?.textContent?.trim() ?? ''}`;
        }),
      );
    }
    for (const wanted of [
      'A:Ads1',
      'A:Sites1',
      'ARTICLE:campaign Winter boots',
      'BUTTON:Approve Winter boots',
      'BUTTON:Sign out',
    ]) {
      assert.ok(reached.has(wanted), `${wanted} in ${[...reached].join(' | ')}`);
    }
    // One key decides: A on the focused item; the focus moves on to the next, where R rejects.
    // The queue drops a decided item at once (optimistically): the decision's PUT is what to wait for.
    const decided = (id: number, path = 'campaigns') =>
      page.waitForResponse(
        (response) => response.url().endsWith(`/api/admin/${path}/${id}`) && response.request().method() === 'PUT',
      );
    const approved = decided(campaignId);
    await campaign.focus();
    await page.keyboard.press('a');
    assert.equal((await approved).status(), 200);
    await page.getByText('Approved: Winter boots.').waitFor();
    await campaign.waitFor({ state: 'detached' });
    const next = page.getByRole('article', { name: 'campaign Summer sandals' });
    assert.ok(await next.evaluate((element) => element === element.ownerDocument.activeElement), 'the next item has the focus');
    // R asks why before it rejects: the owner reads the reason.
    await page.keyboard.press('r');
    await page
      .getByRole('form', { name: 'Reject Summer sandals' })
      .getByLabel(/In your words/)
      .fill('Sandals are out of season');
    const rejected = decided(secondCampaignId);
    await page.getByRole('form', { name: 'Reject Summer sandals' }).getByRole('button', { name: 'Reject' }).click();
    assert.equal((await rejected).status(), 200);
    await page.getByText('Rejected: Summer sandals.').waitFor();
    await page.getByText('No campaign is waiting').waitFor();

    await page.getByRole('navigation', { name: 'Queues' }).getByRole('link', { name: /Ads/ }).click();
    const ad = page.getByRole('article', { name: 'ad Boots at half price' });
    // The card draws the teaser as a block does (the embed script's code): the square picture.
    await ad.locator('.nativa-teaser img[src*="/328x328.jpg"]').waitFor();
    assert.ok((await loadedWidth(page, '.nativa-teaser img')) > 0, 'the ad’s square picture loads');
    assert.ok((await loadedWidth(page, 'img.wide')) > 0, 'the ad’s wide picture loads');
    await ad.locator('.nativa-price', { hasText: '€1,990.00' }).waitFor();
    await lookAt(page, 'operator-ads');
    const adDecided = decided(offerId, 'offers');
    await ad.getByRole('button', { name: 'Approve Boots at half price' }).click();
    assert.equal((await adDecided).status(), 200);
    await page.getByText('No ad is waiting').waitFor();

    await page.getByRole('navigation', { name: 'Queues' }).getByRole('link', { name: /Sites/ }).click();
    await page.getByRole('article', { name: /site https:\/\/dailynews\.example/ }).waitFor();
    await lookAt(page, 'operator-sites');
    const siteDecided = decided(siteId, 'sites');
    await page.getByRole('button', { name: /^Approve https:\/\/dailynews\.example/ }).click();
    assert.equal((await siteDecided).status(), 200);
    await page.getByText('No site is waiting').waitFor();

    // The decisions are the server's.
    const status = async (url: string) => (await server.operator.get(url)).json<{ id: number; status: number }[]>();
    assert.ok((await status('/api/admin/campaigns?status=1')).some((row) => row.id === campaignId));
    const rejectedWith = (await server.operator.get('/api/admin/campaigns?status=2')).json<{ id: number; reason?: string }[]>();
    assert.equal(rejectedWith.find((row) => row.id === secondCampaignId)?.reason, 'Sandals are out of season');
    assert.ok((await status('/api/admin/offers?status=1')).some((row) => row.id === offerId));
    assert.ok((await status('/api/admin/sites?status=1')).some((row) => row.id === siteId));
  });

  let publisherId = 0;
  /** A token of that publisher, issued by the operator on the account's page. */
  let publisherToken = '';

  it('creates a publisher (invited by e-mail), issues it a token and credits its balance, the ledger showing it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accounts' }).click();
    await page.getByRole('heading', { name: 'Accounts' }).waitFor();
    await page.getByRole('button', { name: 'New account' }).click();
    await page.getByLabel('Kind', { exact: true }).selectOption('publisher');
    await page.getByLabel('Username').fill('dailynews');
    await page.getByLabel('E-mail').fill('not an address');
    await page.getByRole('button', { name: 'Create and invite' }).click();
    await page.locator('#email-error').waitFor();
    await page.getByLabel('E-mail').fill('ads@dailynews.example');
    await page.getByRole('button', { name: 'Create and invite' }).click();
    await page.getByText('An invitation to choose a password').waitFor();
    const invitation = await mailbox.next('ads@dailynews.example');
    assert.match(invitation.text, LINK);
    await page.getByLabel('Kind of account').selectOption('publisher');
    await page.getByRole('row', { name: /dailynews/ }).waitFor();
    await lookAt(page, 'operator-accounts');

    await page.getByRole('link', { name: 'dailynews', exact: true }).first().click();
    await page.getByRole('heading', { name: /dailynews/ }).waitFor();
    publisherId = Number(new URL(page.url()).pathname.split('/').pop());
    await page.getByRole('link', { name: 'Set your Nativa password' }).or(page.locator('.plain-list a').first()).waitFor();

    await page.getByLabel('Name of the new token').fill('ad server');
    await page.getByRole('button', { name: 'Issue token' }).click();
    const token = (await page.locator('code.secret').textContent()) ?? '';
    assert.match(token, /^nv_/);
    publisherToken = token;
    assert.equal((await server.anonymous.get('/api/me', { token })).json().username, 'dailynews');
    await page.getByLabel('Name of the new token').fill('to revoke');
    await page.getByRole('button', { name: 'Issue token' }).click();
    await page.getByText('Token “to revoke” issued').waitFor();
    const revoked = (await page.locator('code.secret').textContent()) ?? '';
    await page.getByRole('button', { name: 'Revoke to revoke' }).click();
    await page.getByRole('button', { name: 'Revoke to revoke' }).waitFor({ state: 'detached' });
    assert.equal((await server.anonymous.get('/api/me', { token: revoked })).status, 401);
    assert.equal((await server.anonymous.get('/api/me', { token })).status, 200, 'the other token stays valid');

    await page.getByLabel('Amount').fill('abc');
    await page.getByRole('button', { name: 'Credit…' }).click();
    await page.locator('#amount-error').waitFor();
    // Money goes as the decimal string typed: 125.5 + 0.0001 would not survive a float round trip in every sum.
    await page.getByLabel('Amount').fill('125.5001');
    await page.getByLabel('Comment').fill('bank transfer 2026-11-23');
    await page.getByRole('button', { name: 'Credit…' }).click();
    await page.getByRole('button', { name: 'Credit €125.5001' }).click();
    await page.getByText('The balance is now €125.5001').waitFor();
    const row = page.getByRole('row', { name: /bank transfer 2026-11-23/ });
    await row.getByText('+€125.5001').waitFor();
    await row.getByText('Credit').waitFor();
    await lookAt(page, 'operator-account');
    const ledger = (await server.operator.get(`/api/admin/users/${publisherId}/ledger`)).json();
    assert.equal(ledger[0].amount, 125.5001);
    assert.equal(ledger[0].comment, 'bank transfer 2026-11-23');
  });

  it('records a payout for the publisher and marks it paid', async () => {
    const details = { method: 'bank_transfer', holder: 'Daily News Ltd', account: 'DE89 3704 0044 0532 0130 00' };
    const saved = await server.anonymous.put('/api/webmaster/payout-details', details, { token: publisherToken });
    assert.equal(saved.status, 200, saved.text);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payouts' }).click();
    await page.getByRole('heading', { name: 'Owed to publishers' }).waitFor();
    await page.getByRole('button', { name: 'Record payout to dailynews' }).click();
    assert.equal(await page.getByLabel('Amount').inputValue(), '125.5001');
    assert.equal(
      await page.getByLabel('Paid to').inputValue(),
      'Bank transfer to Daily News Ltd: DE89 3704 0044 0532 0130 00',
      "the publisher's own details",
    );
    // An empty destination is named before the confirmation, not after it.
    await page.getByLabel('Paid to').fill('');
    await page.getByRole('button', { name: 'Record payout…', exact: true }).click();
    await page.getByText('Say where the money goes').waitFor();
    assert.equal(await page.getByText('Record a pending payout').count(), 0, 'no confirmation of a payout the server refuses');
    await page.getByLabel('Amount').fill('100');
    await page.getByLabel('Paid to').fill('IBAN DE89 3704 0044 0532 0130 00');
    await page.getByRole('button', { name: 'Record payout…', exact: true }).click();
    await page.getByText('Record a pending payout of €100.00 to dailynews?').waitFor();
    await page.getByRole('button', { name: 'Record €100.00' }).click();
    await page.getByText('Payout of €100.00 to dailynews recorded (pending).').waitFor();
    const owed = page.getByRole('row', { name: /dailynews/ }).first();
    await owed.getByText('€25.5001').waitFor();
    const [payout] = (await server.operator.get(`/api/admin/payouts?userId=${publisherId}`)).json<{ id: number }[]>();
    await page.getByRole('button', { name: `Mark paid payout ${payout?.id}` }).click();
    await page.locator('.payout-status.paid').waitFor();
    await lookAt(page, 'operator-payouts');
    const stored = (await server.operator.get(`/api/admin/payouts/${payout?.id}`)).json();
    assert.equal(stored.status, 'paid');
    assert.equal(stored.amount, 100);
    assert.equal((await server.operator.get(`/api/admin/users/${publisherId}`)).json().balance, 25.5001);

    // A pending payout cancelled gives its amount back.
    await page.getByRole('button', { name: 'Record payout to dailynews' }).click();
    await page.getByLabel('Amount').fill('5.25');
    await page.getByLabel('Paid to').fill('PayPal news@dailynews.example');
    await page.getByRole('button', { name: 'Record payout…', exact: true }).click();
    await page.getByRole('button', { name: 'Record €5.25' }).click();
    await owed.getByText('€20.2501').waitFor();
    const [second] = (await server.operator.get(`/api/admin/payouts?userId=${publisherId}&status=pending`)).json<
      { id: number }[]
    >();
    await page.getByRole('button', { name: `Cancel payout ${second?.id}` }).click();
    await page.locator('.payout-status.cancelled').waitFor();
    await owed.getByText('€25.5001').waitFor();
    assert.equal((await server.operator.get(`/api/admin/users/${publisherId}`)).json().balance, 25.5001);

    // Paid in full, the publisher leaves the list of what is owed; its payouts still name it.
    await page.getByRole('button', { name: 'Record payout to dailynews' }).click();
    await page.getByLabel('Status', { exact: true }).selectOption('paid');
    await page.getByRole('button', { name: 'Record payout…', exact: true }).click();
    await page.getByRole('button', { name: 'Record €25.50' }).click();
    await page.getByText('Nothing is owed to any publisher.').waitFor();
    const payoutRows = page.getByRole('region', { name: 'Payouts' }).getByRole('row');
    await payoutRows.nth(3).waitFor();
    assert.deepEqual(
      [...new Set(await payoutRows.locator('td[data-label="Publisher"]').allTextContents())],
      ['dailynews'],
      'every payout names its publisher, not its number',
    );
  });

  it('reads the outbox and a message in it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Outbox' }).click();
    await page.getByRole('heading', { name: 'Outbox' }).waitFor();
    const invitation = page.getByRole('row', { name: /ads@dailynews.example/ });
    await invitation.waitFor();
    await lookAt(page, 'operator-outbox');
    await invitation.getByRole('link').click();
    await page.getByText('ads@dailynews.example').first().waitFor();
    await page.locator('.mail-status.sent').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Send again' }).count(), 0, 'a sent message is not sent again');
  });

  it('manages platform-wide webhook endpoints, a loopback address refused beside the URL', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('No endpoints yet.').waitFor();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('form', { name: 'New endpoint' });
    const events = form.getByRole('group', { name: 'Events' }).getByRole('checkbox');
    assert.equal(await events.count(), 11, 'an operator may subscribe to every event');
    await form.getByLabel('URL').fill('https://127.0.0.1/hooks');
    await form.getByRole('checkbox', { name: /site\.moderated/ }).check();
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    // The SSRF guard's refusal, in the API's words, beside the field.
    await page.locator('#url-error').waitFor();
    assert.equal(await form.getByLabel('URL').getAttribute('aria-invalid'), 'true');
    assert.deepEqual((await server.operator.get('/api/admin/webhooks')).json(), []);
    await lookAt(page, 'operator-webhooks');
  });

  it('shows an advertiser no operator page and no operator data', async () => {
    const advertiser = await server.createAccount('advertiser');
    const email = (await advertiser.client.get('/api/me')).json<{ email: string }>().email;
    const link = LINK.exec((await mailbox.next(email)).text)?.[0] ?? '';
    const token = new URL(link).searchParams.get('token');
    const confirm = await server.anonymous.post('/api/password-reset/confirm', { token, password: PASSWORD });
    assert.equal(confirm.status, 204, confirm.text);

    const other = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 390, height: 844 } });
    const otherPage = await other.newPage();
    await otherPage.goto(`${server.url}/sign-in`);
    await otherPage.getByLabel('Username or e-mail').fill(email);
    await otherPage.getByLabel('Password').fill(PASSWORD);
    await otherPage.getByRole('button', { name: 'Sign in' }).click();
    await otherPage.getByRole('heading', { name: 'Overview' }).waitFor();
    for (const pagePath of ['/operator', '/operator/accounts', `/operator/accounts/${publisherId}`, '/operator/outbox']) {
      await otherPage.goto(`${server.url}${pagePath}`);
      await otherPage.getByRole('heading', { name: 'Page not found' }).waitFor();
      assert.equal(await otherPage.getByText('dailynews').count(), 0, pagePath);
      assert.equal(await otherPage.getByRole('link', { name: 'Accounts' }).count(), 0, pagePath);
    }
    const refused = await otherPage.evaluate(async () => (await fetch('/api/admin/users')).status);
    assert.equal(refused, 403);
    await other.close();
    assert.deepEqual(cspErrors, [], 'the app runs under its Content-Security-Policy');
  });
});
