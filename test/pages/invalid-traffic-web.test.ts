import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { sessionOf, setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
import { launchChromium, lookAt, SHOTS, skipWithoutChromium } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { BOT_UA, createWorld, DESKTOP_UA, engineOf, pathOf, type World } from '../helpers/serving.ts';

const skip = skipWithoutChromium;

// Invalid traffic in the web app: the operators' page (the review queue with its evidence and
// actions, the invalid share by site, reason and network, the trend by day) and the publisher's
// statistics saying which clicks were not paid and why, in both languages.
describe('invalid traffic in the web app (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let world: World;
  let robots = 0;

  /** Serves the world's block `loads` times and follows every teaser's link with this user agent. */
  async function clickThrough(loads: number, userAgent: string): Promise<number> {
    let clicks = 0;
    for (let load = 0; load < loads; load += 1) {
      const response = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
        headers: { 'User-Agent': DESKTOP_UA },
      });
      for (const teaser of response.json<{ teasers: { url: string }[] }>().teasers) {
        assert.equal((await server.anonymous.get(pathOf(teaser.url), { headers: { 'User-Agent': userAgent } })).status, 302);
        clicks += 1;
      }
    }
    await engineOf(server).settled();
    return clicks;
  }

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer({ env: { IVT_REVIEW_MIN_CLICKS: '4', IVT_REVIEW_INTERVAL_SECONDS: '0' } });
    browser = await launchChromium();
    world = await createWorld(server);
    robots = await clickThrough(2, BOT_UA);
    await clickThrough(1, DESKTOP_UA);
    const flagged = await server.operator.post('/api/admin/invalid-traffic/reviews/evaluate', {});
    assert.equal(flagged.json().flagged.length, 1, flagged.text);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** The address's period: the test server's day. */
  const period = () => {
    const day = new Date(server.clock.now()).toISOString().slice(0, 10);
    return `?from=${day}&to=${day}`;
  };

  /** A browser context signed in as the account (a session opened through the API). */
  async function signedIn(accountId: number, locale = 'en-GB') {
    const db = server.server.context.db;
    await setPassword(db, accountId);
    const { username } = await db.selectFrom('accounts').select('username').where('id', '=', accountId).executeTakeFirstOrThrow();
    const answer = await server.anonymous.post(
      '/api/session',
      { login: username, password: TEST_PASSWORD },
      { headers: { Origin: server.url } },
    );
    assert.equal(answer.status, 200, answer.text);
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 }, locale });
    await context.addCookies([{ name: 'nativa_session', value: sessionOf(answer), url: server.url }]);
    return context;
  }

  it('shows the operator the review queue with its evidence, the shares and the trend, and warns the publisher', async () => {
    const db = server.server.context.db;
    const operator = await db.selectFrom('accounts').select('id').where('username', '=', 'operator').executeTakeFirstOrThrow();
    const context = await signedIn(operator.id);
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/operator`);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Invalid traffic' }).click();
      await page.getByRole('heading', { name: 'Invalid traffic', level: 1 }).waitFor();
      // The server's clock stands still in the test; the page's period is chosen around its day.
      await page.goto(`${server.url}/operator/invalid-traffic${period()}`);
      const queue = page.getByRole('region', { name: 'Review queue', exact: true });
      const review = queue.getByRole('article');
      await review.waitFor();
      assert.match(await review.innerText(), new RegExp(`refused: declared robot — ${robots}`));
      const shares = page.getByRole('region', { name: 'Share of invalid clicks', exact: true });
      await shares.getByRole('row').nth(1).waitFor();
      assert.match(await shares.innerText(), /Invalid share/);
      await shares.getByLabel('Broken down by').selectOption('reason');
      await shares.getByRole('rowheader', { name: 'declared robot' }).waitFor();
      const trend = page.getByRole('region', { name: 'Figures: Trend by day' });
      assert.equal(await trend.getByRole('row').count(), 2, 'one day of clicks under the heading row');
      await lookAt(page, 'operator-invalid-traffic');

      await review.getByRole('button', { name: 'Warn the publisher' }).click();
      await review.getByText('Send the publisher of').waitFor();
      assert.equal(
        (await world.publisher.get('/api/notifications'))
          .json()
          .filter((notice: { kind: string }) => notice.kind === 'traffic.warning').length,
        0,
        'nothing is sent before the operator confirms',
      );
      await review.getByRole('button', { name: 'Send the warning' }).click();
      await page.getByText('was warned').waitFor();
      const notices = await world.publisher.get('/api/notifications');
      assert.equal(notices.json()[0].kind, 'traffic.warning');
      await review.getByRole('button', { name: 'Dismiss', exact: true }).click();
      await review.getByRole('button', { name: 'Dismiss the review' }).click();
      await queue.getByText('No site waits for review.').waitFor();
      const audit = await server.operator.get('/api/admin/audit?objectType=site_review');
      assert.deepEqual(
        audit
          .json()
          .map((entry: { action: string }) => entry.action)
          .sort(),
        ['site_review.dismiss', 'site_review.warn'],
      );
    } finally {
      await context.close();
    }
  });

  it('shows the operator’s page in Russian', async () => {
    const db = server.server.context.db;
    const operator = await db.selectFrom('accounts').select('id').where('username', '=', 'operator').executeTakeFirstOrThrow();
    assert.equal((await server.operator.put('/api/me/language', { language: 'ru' })).status, 204);
    const context = await signedIn(operator.id, 'ru-RU');
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/operator/invalid-traffic${period()}`);
      await page.getByRole('heading', { name: 'Недействительный трафик', level: 1 }).waitFor();
      await page.getByRole('region', { name: 'Доля недействительных кликов', exact: true }).getByRole('row').nth(1).waitFor();
      await lookAt(page, 'operator-invalid-traffic-ru');
    } finally {
      assert.equal((await server.operator.put('/api/me/language', { language: 'en' })).status, 204);
      await context.close();
    }
  });

  it('tells the publisher on its statistics which clicks were not paid and why, without the rule', async () => {
    const context = await signedIn(world.publisherId);
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/publisher/statistics${period()}`);
      const unpaid = page.getByRole('region', { name: 'Clicks not paid', exact: true });
      const robotsRow = unpaid.getByRole('row', { name: /a declared robot/ });
      await robotsRow.waitFor();
      assert.match(await robotsRow.innerText(), new RegExp(`refused when it came\\s+${robots}`));
      assert.doesNotMatch(await unpaid.innerText(), /%|threshold/i);
      await lookAt(page, 'publisher-unpaid-clicks');
    } finally {
      await context.close();
    }
  });

  it("shows the advertiser what was filtered out of a campaign's clicks, and why", async () => {
    const day = new Date(server.clock.now()).toISOString().slice(0, 10);
    const filteredOf = async (campaignId: number) =>
      (
        await world.advertiser.get(`/api/advertiser/invalid-traffic?campaignId=${campaignId}&dateFrom=${day}&dateTo=${day}`)
      ).json<{ refusedClicks: number }>().refusedClicks;
    const counts = await Promise.all(world.campaignIds.map(filteredOf));
    const most = Math.max(...counts);
    assert.ok(most > 0, 'the robots clicked some campaign');
    const campaignId = world.campaignIds[counts.indexOf(most)];
    const context = await signedIn(world.advertiserId);
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/advertiser/campaigns/${campaignId}/traffic${period()}`);
      const filtered = page.getByRole('region', { name: 'Filtered clicks', exact: true });
      const robotsRow = filtered.getByRole('row', { name: /a declared robot/ });
      await robotsRow.waitFor();
      assert.match(await robotsRow.innerText(), new RegExp(`refused when it came\\s+${most}`));
      await lookAt(page, 'advertiser-filtered-clicks');
    } finally {
      await context.close();
    }
  });
});
