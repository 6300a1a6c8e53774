import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
import { launchChromium, skipWithoutChromium } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// A new API token is a secret shown once (docs/security.md): leaving the page and coming back shows it no more.
describe('a new API token on the tokens page (headless Chromium)', { skip: skipWithoutChromium }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    buildWebIfStale();
    server = await startTestServer();
    browser = await launchChromium();
    const context = await browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-GB' });
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows the token once: not after going to another page and back, in the app or out of it', async () => {
    const created = await server.createAccount('advertiser');
    await setPassword(server.server.context.db, created.id);
    const username = (await created.client.get('/api/me')).json<{ username: string }>().username;
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Username or e-mail').fill(username);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();

    const shown = page.locator('code.secret');
    for (const leave of ['in the app', 'to another document'] as const) {
      await page.goto(`${server.url}/tokens`);
      await page.getByLabel('Name').fill(`laptop ${leave}`);
      await page.getByRole('button', { name: 'Create' }).click();
      await shown.waitFor();
      const token = (await shown.textContent()) ?? '';
      assert.ok(token.length > 20);
      if (leave === 'in the app') {
        // The next page's code is held back until the visitor has come back: React keeps this page,
        // hidden, while that one loads.
        let release = () => {};
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        await page.route(/\/assets\/campaigns-[^/]*\.js$/, async (route) => {
          await held;
          await route.continue();
        });
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Campaigns' }).click();
        await page.waitForURL(/\/advertiser\/campaigns$/);
        await page.goBack();
        await page.waitForURL(/\/tokens$/);
        release();
      } else {
        await page.goto(`${server.url}/api/openapi.json`);
        await page.goBack();
      }
      await page.getByRole('table').waitFor();
      assert.equal(await shown.count(), 0, `the token is not shown again after leaving ${leave}`);
      assert.equal((await page.content()).includes(token), false);
    }
  });
});
