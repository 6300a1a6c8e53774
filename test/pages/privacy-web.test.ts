import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { sessionOf, setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
import { launchChromium, SHOTS, seriousViolations, skipWithoutChromium } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const skip = skipWithoutChromium;

// The privacy controls in the web app: a publisher's ads.txt line and "never personalise", the
// operator's ads.txt status on a site's moderation card, and an account's export and erasure.
describe('privacy in the web app (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let publisherId = 0;
  let siteId = 0;

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer({ env: { ADS_TXT_DOMAIN: 'ads.nativa.test' } });
    browser = await launchChromium();
    const publisher = await server.createAccount('publisher', { name: 'Daily News' });
    publisherId = publisher.id;
    const site = await publisher.client.post('/api/webmaster/sites', { url: 'https://dailynews.invalid/', category_id: 101 });
    assert.equal(site.status, 201, site.text);
    siteId = site.json<{ id: number }>().id;
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A browser context signed in as the account (a session opened through the API). */
  async function signedIn(accountId: number) {
    const db = server.server.context.db;
    await setPassword(db, accountId);
    const { username } = await db.selectFrom('accounts').select('username').where('id', '=', accountId).executeTakeFirstOrThrow();
    const answer = await server.anonymous.post(
      '/api/session',
      { login: username, password: TEST_PASSWORD },
      { headers: { Origin: server.url } },
    );
    assert.equal(answer.status, 200, answer.text);
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    await context.addCookies([{ name: 'nativa_session', value: sessionOf(answer), url: server.url }]);
    return context;
  }

  it('the publisher copies the ads.txt line and sets the site to never personalise', async () => {
    const context = await signedIn(publisherId);
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/publisher/sites/${siteId}`);
      const line = page.getByLabel('ads.txt line');
      await line.waitFor();
      assert.equal(await line.inputValue(), `ads.nativa.test, ${publisherId}, DIRECT`);
      const never = page.getByRole('switch', { name: 'Never personalise ads on this site' });
      assert.equal(await never.isChecked(), false);
      const saved = page.waitForResponse(
        (response) => response.url().includes('/privacy') && response.request().method() === 'PUT',
      );
      await never.click();
      assert.equal((await saved).status(), 200);
      assert.equal(await never.isChecked(), true);
      const db = server.server.context.db;
      const site = await db.selectFrom('sites').select('never_personalise').where('id', '=', siteId).executeTakeFirstOrThrow();
      assert.equal(site.never_personalise, true);
      await page.screenshot({ path: `${SHOTS}/publisher-site-privacy-1280.png`, fullPage: true });
      assert.deepEqual(await seriousViolations(page), []);
    } finally {
      await context.close();
    }
  });

  it("the operator sees the site's ads.txt on its moderation card, exports and erases the publisher", async () => {
    const operatorId = (
      await server.server.context.db
        .selectFrom('accounts')
        .select('id')
        .where('username', '=', 'operator')
        .executeTakeFirstOrThrow()
    ).id;
    const context = await signedIn(operatorId);
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/operator?queue=sites`);
      await page.getByText('not checked yet').waitFor();
      await page.getByRole('button', { name: `Check now the ads.txt of site ${siteId}` }).click();
      // dailynews.invalid resolves nowhere: the check says so rather than hanging.
      await page.getByText('could not be read').waitFor();
      assert.deepEqual(await seriousViolations(page), []);

      await page.goto(`${server.url}/operator/accounts/${publisherId}`);
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export data' }).click();
      const file = await download;
      assert.equal(file.suggestedFilename(), `nativa-account-${publisherId}.json`);
      await page.getByRole('button', { name: 'Erase account' }).click();
      await page.getByRole('button', { name: /for good/ }).click();
      await page.getByText('The account was erased.').waitFor();
      await page.screenshot({ path: `${SHOTS}/operator-account-data-1280.png`, fullPage: true });
      assert.deepEqual(await seriousViolations(page), []);
      const db = server.server.context.db;
      const account = await db
        .selectFrom('accounts')
        .select(['email', 'erased_at'])
        .where('id', '=', publisherId)
        .executeTakeFirstOrThrow();
      assert.equal(account.email, `erased-${publisherId}@erased.invalid`);
    } finally {
      await context.close();
    }
  });
});
