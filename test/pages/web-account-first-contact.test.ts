import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
import { createCampaign, createOffer } from '../helpers/advertiser.ts';
import { launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const skip = skipWithoutChromium;

/**
 * What a newcomer meets first, on a server with the scripts' rate limit as shipped (5 requests a
 * second per token): public pages ask nothing that must fail, and a person's pages never meet the
 * scripts' budget.
 */
describe('first contact with the web app (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const consoleErrors: string[] = [];
  const answers: { url: string; status: number }[] = [];
  let login = '';
  let campaignId = 0;

  before(async () => {
    buildWebIfStale();
    server = await startTestServer({ config: { rateLimitPerSecond: 5, sessionRateLimitPerSecond: 50 } });
    browser = await launchChromium();
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('response', (response: Response) => {
      answers.push({ url: new URL(response.url()).pathname, status: response.status() });
    });
    const advertiser = await server.createAccount('advertiser');
    login = (await advertiser.client.get('/api/me')).json<{ username: string }>().username;
    await setPassword(server.server.context.db, advertiser.id);
    await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount: 100, comment: 'opening' });
    campaignId = await createCampaign(advertiser.client, { title: 'Winter boots' });
    for (const title of ['Boots', 'Scarf', 'Gloves']) await createOffer(advertiser.client, campaignId, { title });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('asks nothing that must fail on the sign-in and password pages', async () => {
    for (const path of ['/sign-in', '/password?token=not-a-token', '/']) {
      answers.length = 0;
      await page.goto(`${server.url}${path}`);
      await page.getByRole('heading').first().waitFor();
      await page.waitForLoadState('networkidle');
      assert.deepEqual(
        answers.filter((answer) => answer.url.startsWith('/api/') && answer.status >= 400),
        [],
        `${path}: no API call answered an error`,
      );
      assert.ok(!answers.some((answer) => answer.url === '/api/me'), `${path}: no question about a session there is not`);
    }
    assert.deepEqual(consoleErrors, [], 'nothing red in the console');
  });

  it('lets an operator hand an invitation over without a mail server: copied once, it works once', async () => {
    // The tokens of this server have the scripts' five a second, and its clock is the test's.
    server.clock.advance(2000);
    const operatorId = (await server.operator.get('/api/me')).json<{ id: number }>().id;
    await setPassword(server.server.context.db, operatorId);
    const newcomer = await server.createAccount('publisher');
    const newcomerLogin = (await server.operator.get(`/api/admin/users/${newcomer.id}`)).json<{ username: string }>().username;
    const operatorContext = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-GB' });
    const operatorPage = await operatorContext.newPage();
    await operatorPage.goto(`${server.url}/sign-in`);
    await operatorPage.getByLabel('Username or e-mail').fill('operator');
    await operatorPage.getByLabel('Password').fill(TEST_PASSWORD);
    await operatorPage.getByRole('button', { name: 'Sign in' }).click();
    await operatorPage.getByRole('navigation').first().waitFor();
    await operatorPage.goto(`${server.url}/operator/accounts/${newcomer.id}`);
    await operatorPage.getByRole('button', { name: 'Copy invitation link' }).click();
    const link = await operatorPage.getByLabel('Invitation link').inputValue();
    assert.match(link, /^https:\/\/.+\/password\?token=[A-Za-z0-9_-]{43}$/);
    // Shown once: back on the page, it is gone.
    await operatorPage.reload();
    await operatorPage.getByRole('button', { name: 'Copy invitation link' }).waitFor();
    assert.equal(await operatorPage.getByText(link).count(), 0, 'the link is not shown again');
    await operatorContext.close();

    const newcomerContext = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-GB' });
    const newcomerPage = await newcomerContext.newPage();
    await newcomerPage.goto(link);
    await newcomerPage.getByLabel('New password').fill(TEST_PASSWORD);
    await newcomerPage.getByRole('button', { name: 'Set password' }).click();
    await newcomerPage.getByText('Your password is set.').waitFor();
    await newcomerPage.goto(link);
    await newcomerPage.getByLabel('New password').fill(TEST_PASSWORD);
    await newcomerPage.getByRole('button', { name: 'Set password' }).click();
    await newcomerPage.getByText(/This link is invalid, already used or expired/).waitFor();
    await newcomerContext.close();
    const signedIn = await server.anonymous.post(
      '/api/session',
      { login: newcomerLogin, password: TEST_PASSWORD },
      { headers: { Origin: server.url } },
    );
    assert.equal(signedIn.status, 200, signedIn.text);
  });

  it("loads a person's pages without ever meeting the scripts' rate limit", async () => {
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Username or e-mail').fill(login);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    answers.length = 0;
    // A person going back and forth between the overview, the campaigns and one campaign.
    for (let round = 0; round < 3; round++) {
      for (const path of ['/advertiser', '/advertiser/campaigns', `/advertiser/campaigns/${campaignId}`]) {
        await page.goto(`${server.url}${path}`);
        await page.waitForLoadState('networkidle');
        // The server's clock is the test's: a person opens a page every 400 ms, quicker than anyone reads.
        server.clock.advance(400);
      }
    }
    const api = answers.filter((answer) => answer.url.startsWith('/api/'));
    assert.ok(api.length > 30, `the pages made their calls (${api.length})`);
    assert.deepEqual(
      api.filter((answer) => answer.status === 429),
      [],
      'no page call was refused for the rate limit',
    );
    assert.deepEqual(consoleErrors, [], 'nothing red in the console');
  });
});
