import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { DEVICES, type TrafficEvent } from '../../src/modules/statistics/vocabulary.ts';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { launchChromium, lookAt, SHOTS, skipWithoutChromium } from '../helpers/browser.ts';
import { parseCsv } from '../helpers/csv.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../helpers/fixtures.ts';
import { Mailbox } from '../helpers/mailbox.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer, testTls } from '../helpers/server.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';

const skip = skipWithoutChromium;
const PASSWORD = 'a long enough password';
/** The server's clock day; the browser's clock is pinned to it, so the default period and a rule's window agree. */
const TODAY = new Date(TEST_EPOCH_MS).toISOString().slice(0, 10);

/**
 * Seeded traffic of today: site "wasteful" spends without converting, site "converting" converts.
 * A rule that pushes down sites spending more than €5 without a conversion changes only the first.
 * Publisher income has at most 4 fraction digits here: the JSON statistics round it to 4, the
 * export keeps every micro, and the two are compared as text.
 */
const WASTEFUL = { views: 1200, clicks: 40, spendMicros: 8_250_000, publisherIncomeMicros: 4_537_500, conversions: {} };
const CONVERTING = { views: 900, clicks: 15, spendMicros: 3_000_000, publisherIncomeMicros: 1_650_100, conversions: { 1: 2 } };

describe('an advertiser’s rules, webhooks and exports, and a publisher’s (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let receiver: WebhookReceiver;
  const mailbox = new Mailbox();
  const cspErrors: string[] = [];
  let advertiser: Account;
  let publisher: Account;
  let campaignId = 0;
  let wastefulSite = 0;
  let convertingSite = 0;

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    await mailbox.start();
    const tls = await testTls();
    receiver = await new WebhookReceiver(tls).start();
    // Loopback receivers are allowed here, and the receiver's self-signed certificate is trusted.
    // With TEST_REDIS_URL the sessions' rate limits and sign-in counts live in Redis, as deployed.
    const redis = process.env.TEST_REDIS_URL
      ? { redisUrl: process.env.TEST_REDIS_URL, redisKeyPrefix: `nativa-test:${randomBytes(6).toString('hex')}:` }
      : {};
    server = await startTestServer({
      env: { SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`, CURRENCY: 'EUR' },
      config: { webhookAllowPrivate: true, webhookCa: tls.cert, ...redis },
    });
    browser = await launchChromium();
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: { width: 1280, height: 900 },
      locale: 'en-GB',
      acceptDownloads: true,
    });
    await context.clock.setFixedTime(new Date(TEST_EPOCH_MS));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await context.newPage();
    // Bounded: a control that never appears fails the test in seconds, not in half a minute each.
    page.setDefaultTimeout(10_000);
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
    });

    advertiser = await withPassword('advertiser', 'Acme Shoes');
    publisher = await withPassword('publisher', 'Daily News');

    const db = server.server.context.db;
    campaignId = (await insertCampaign(db, { advertiserId: advertiser.id, title: 'Autumn boots' })).id;
    const offer = await insertOffer(db, { campaignId, title: 'Boots at half price' });
    const events: TrafficEvent[] = [];
    for (const figures of [WASTEFUL, CONVERTING]) {
      const site = await insertSite(db, { publisherId: publisher.id });
      const block = await insertBlock(db, { siteId: site.id });
      events.push({
        at: server.clock.now(),
        campaignId,
        offerId: offer.id,
        siteId: site.id,
        blockId: block.id,
        device: DEVICES.desktop,
        ...figures,
      });
      if (figures === WASTEFUL) wastefulSite = site.id;
      else convertingSite = site.id;
    }
    await recordTraffic(db, events);

    await signIn(advertiser);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await receiver?.close();
    await mailbox.stop();
  });

  /** An account whose invited password is set through the API (the advertiser web test walks that page). */
  async function withPassword(type: 'advertiser' | 'publisher', name: string): Promise<Account> {
    const account = await server.createAccount(type, { name });
    const me = (await account.client.get('/api/me')).json<{ email: string; username: string }>();
    const invitation = await mailbox.next(me.email);
    const token = /password\?token=([A-Za-z0-9_-]+)/.exec(invitation.text)?.[1] ?? '';
    const set = await server.anonymous.post('/api/password-reset/confirm', { token, password: PASSWORD });
    assert.equal(set.status, 204, set.text);
    return { id: account.id, token: account.token, username: me.username };
  }

  async function signIn(account: Account): Promise<void> {
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Username or e-mail').fill(account.username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }

  const siteCoefficient = async (siteId: number) =>
    (
      await server.anonymous.get(`/api/advertiser/campaigns/multipliers/${campaignId}/site/${siteId}`, {
        token: advertiser.token,
      })
    ).json<{ coef: number }[]>()[0]?.coef;

  it('creates a rule in the form, shows its dry run from the traffic, runs it and lists the change', async () => {
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}`);
    await page.getByRole('navigation', { name: 'Campaign' }).getByRole('link', { name: 'Rules' }).click();
    await page.getByText('No rules yet.').waitFor();
    await page.getByRole('button', { name: 'New rule' }).click();
    const form = page.getByRole('form', { name: 'New rule' });
    // The keyboard goes on in the form it opened.
    assert.equal(await focusedLabel(page), 'Name (optional)');
    await form.getByLabel('Name (optional)').fill('Cut waste');
    await form.getByLabel('Watch').selectOption({ label: 'Each site' });
    await form.getByLabel('Figure').selectOption({ label: 'Spend without a conversion' });
    await form.getByLabel('Comparison').selectOption({ label: '>' });
    await form.getByLabel('Threshold (EUR)').fill('5');
    await form.getByLabel('Window (days)').fill('7');
    await form.getByLabel('At least this many clicks').fill('10');
    await form.getByLabel('Action').selectOption({ label: 'Set the coefficient' });
    // Out of the API's range: its 422 stands beside the coefficient, and no rule is made.
    await form.getByLabel('New coefficient').fill('12');
    await form.getByLabel('Run on schedule').uncheck();
    await form.getByRole('button', { name: 'Create rule' }).click();
    const refusal = page.locator('#coef-error');
    await refusal.waitFor();
    assert.match((await refusal.textContent()) ?? '', /10/);
    assert.equal(await form.getByLabel('New coefficient').getAttribute('aria-invalid'), 'true');
    await lookAt(page, 'advertiser-rule-refused');
    const rulesOf = async () =>
      (await server.anonymous.get(`/api/advertiser/campaigns/rules/${campaignId}`, { token: advertiser.token })).json<
        { id: number; enabled: boolean; coef: number | null }[]
      >();
    assert.deepEqual(await rulesOf(), []);

    // Created disabled, so the scheduler (which would run a new rule at once) leaves it to this test.
    await form.getByLabel('New coefficient').fill('0.5');
    await form.getByRole('button', { name: 'Create rule' }).click();
    const row = page.getByRole('row', { name: /Cut waste/ });
    await row
      .getByText('Each site: Spend without a conversion > €5.00 over 7 days, at least 10 clicks → coefficient 0.5')
      .waitFor();
    const [rule] = await rulesOf();
    assert.deepEqual(rule && [rule.enabled, rule.coef], [false, 0.5]);

    await row.getByRole('button', { name: 'Dry run Cut waste' }).click();
    const dryRun = page.getByRole('region', { name: 'Dry run of Cut waste', exact: true });
    await dryRun.waitFor();
    const weekAgo = new Date(TEST_EPOCH_MS - 6 * 86_400_000);
    const day = (date: Date) =>
      new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' }).format(date);
    const window = `${day(weekAgo)} – ${day(new Date(TEST_EPOCH_MS))}`;
    assert.deepEqual(await rowsOf(dryRun), [
      [
        `Site ${wastefulSite}`,
        'Coefficient 1 → 0.5',
        WASTEFUL.views.toLocaleString('en-GB'),
        String(WASTEFUL.clicks),
        `€${(WASTEFUL.spendMicros / 1e6).toFixed(2)}`,
        '0',
        window,
      ],
    ]);
    assert.equal(await siteCoefficient(wastefulSite), 1, 'a dry run changes nothing');
    await lookAt(page, 'advertiser-rules');

    page.once('dialog', (dialog) => dialog.accept());
    await row.getByRole('button', { name: 'Run now Cut waste' }).click();
    await page.getByRole('heading', { name: 'Cut waste ran' }).waitFor();
    assert.equal(await siteCoefficient(wastefulSite), 0.5);
    assert.equal(await siteCoefficient(convertingSite), 1, 'the converting site keeps the default');
    const history = page.getByRole('region', { name: 'Applied changes', exact: true });
    await history.getByRole('row', { name: new RegExp(`Site ${wastefulSite}`) }).waitFor();
    const [applied] = await rowsOf(history);
    assert.deepEqual(applied?.slice(1), [
      `Site ${wastefulSite}`,
      'Coefficient 1 → 0.5',
      WASTEFUL.views.toLocaleString('en-GB'),
      String(WASTEFUL.clicks),
      `€${(WASTEFUL.spendMicros / 1e6).toFixed(2)}`,
      '0',
      window,
      'Cut waste, by hand',
    ]);
    // Filtered by rule: the same row; the history of the API agrees.
    await page.getByLabel('Rule', { exact: true }).selectOption({ label: 'Cut waste' });
    await history.getByRole('row', { name: new RegExp(`Site ${wastefulSite}`) }).waitFor();
    const changes = (
      await server.anonymous.get(`/api/advertiser/campaigns/rules/${campaignId}/changes`, { token: advertiser.token })
    ).json<{ siteId: number; before: number; after: number; trigger: string }[]>();
    assert.deepEqual(
      changes.map((change) => [change.siteId, change.before, change.after, change.trigger]),
      [[wastefulSite, 1, 0.5, 'manual']],
    );

    // Run again: the site is already at 0.5, so there is nothing to change.
    await row.getByRole('button', { name: 'Dry run Cut waste' }).click();
    await page.getByText(/^Nothing to change/).waitFor();

    // The switch shows the saved state: it turns on once the API has the rule enabled.
    await row.getByRole('switch', { name: 'Run Cut waste on schedule' }).click();
    await row.getByRole('switch', { name: 'Run Cut waste on schedule', checked: true }).waitFor();
    const [enabled] = await rulesOf();
    assert.equal(enabled?.enabled, true);
    assert.equal(enabled?.coef, 0.5, 'switching it on keeps the rest of the rule');

    // Edited (the API's PUT replaces the rule whole), then deleted: its change stays in the history.
    await row.getByRole('button', { name: 'Edit Cut waste' }).click();
    const edit = page.getByRole('form', { name: 'Edit rule “Cut waste”' });
    await edit.getByLabel('Name (optional)').fill('Cut waste on sites');
    await edit.getByLabel('Threshold (EUR)').fill('6.5');
    await edit.getByRole('button', { name: 'Save rule' }).click();
    const edited = page.getByRole('row', { name: /Cut waste on sites/ });
    await edited.getByText('> €6.50 over 7 days').waitFor();
    assert.equal(await focusedLabel(page), 'New rule', 'the keyboard is back where the form was opened');
    const [saved] = await rulesOf();
    assert.deepEqual(saved && [saved.enabled, saved.coef], [true, 0.5]);
    page.once('dialog', (dialog) => dialog.accept());
    await edited.getByRole('button', { name: 'Delete Cut waste on sites' }).click();
    await page.getByText('No rules yet.').waitFor();
    assert.deepEqual(await rulesOf(), []);
    // The filter keeps the deleted rule, under its last name and marked, and still filters by it.
    const filter = page.getByLabel('Rule', { exact: true });
    await filter.getByRole('option', { name: 'Cut waste on sites (deleted)' }).waitFor({ state: 'attached' });
    assert.equal(await filter.inputValue(), String(rule?.id), 'the filter stays on the deleted rule');
    await history.getByRole('cell', { name: 'Cut waste on sites (deleted), by hand' }).waitFor();
    await filter.selectOption({ label: 'Every rule' });
    await filter.selectOption({ label: 'Cut waste on sites (deleted)' });
    await history.getByRole('cell', { name: 'Cut waste on sites (deleted), by hand' }).waitFor();
    assert.equal((await rowsOf(history)).length, 1);
  });

  it('adds a webhook endpoint, shows its secret once, and its test event arrives signed with it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('No endpoints yet.').waitFor();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('form', { name: 'New endpoint' });
    const url = `${receiver.url}/nativa-events`;
    await form.getByLabel('URL').fill(url);
    await form.getByLabel('Note (optional)').fill('order system');
    // No event: the API's 422 beside the events.
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await page.locator('#events-error').waitFor();
    await form.getByRole('checkbox', { name: /campaign\.moderated/ }).check();
    await form.getByRole('checkbox', { name: /ad\.moderated/ }).check();
    await form.getByLabel('Balance threshold (EUR, optional)').fill('20.5');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.getByLabel('Signing secret').inputValue();
    assert.match(secret, /^whsec_/);
    const endpoints = (await server.anonymous.get('/api/advertiser/webhooks', { token: advertiser.token })).json<
      { id: number; url: string; events: string[]; balanceThreshold: number | null; description: string }[]
    >();
    assert.deepEqual(
      endpoints.map((endpoint) => [endpoint.url, endpoint.events.toSorted(), endpoint.balanceThreshold, endpoint.description]),
      [[url, ['ad.moderated', 'campaign.moderated'], 20.5, 'order system']],
    );
    const row = page.getByRole('row', { name: new RegExp(url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) });
    await row.getByText('Balance threshold €20.50').waitFor();

    await row.getByRole('button', { name: `Send test event to ${url}` }).click();
    const deliveries = page.getByRole('region', { name: 'Deliveries', exact: true });
    await deliveries.getByRole('cell', { name: 'Delivered' }).waitFor();
    const [test] = receiver.ofType('webhook.test');
    assert.ok(test, 'the receiver got the test event');
    const header = String(test.headers['nativa-signature']);
    const t = /t=(\d+)/.exec(header)?.[1] ?? '';
    const expected = createHmac('sha256', secret).update(`${t}.${test.body}`).digest('hex');
    assert.ok(header.includes(`v1=${expected}`), 'signed with the secret the page showed');
    await page.getByRole('region', { name: 'Attempts', exact: true }).getByRole('cell', { name: 'HTTP 200' }).waitFor();
    await lookAt(page, 'advertiser-webhooks');
    // The secret is shown once: a reload shows the endpoint without it.
    await page.reload();
    await row.waitFor();
    assert.equal(await page.getByLabel('Signing secret').count(), 0);

    // Sent again: the same event id a second time, a second attempt in the log.
    await row.getByRole('button', { name: `Deliveries to ${url}` }).click();
    await deliveries.getByRole('button', { name: `Send again ${test.event.id}` }).click();
    await deliveries.getByRole('cell', { name: '2', exact: true }).waitFor();
    assert.deepEqual(
      receiver.ofType('webhook.test').map((webhook) => webhook.event.id),
      [test.event.id, test.event.id],
    );
    // A new secret is shown once too, and signs beside the old one.
    page.once('dialog', (dialog) => dialog.accept());
    await row.getByRole('button', { name: `New secret for ${url}` }).click();
    await page.getByText(/A new signing secret for/).waitFor();
    const rotated = await page.getByLabel('Signing secret').inputValue();
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, secret);

    // Changed, then deleted.
    await row.getByRole('button', { name: `Change ${url}` }).click();
    const change = page.getByRole('form', { name: `Change endpoint ${url}` });
    await change.getByLabel('Note (optional)').fill('orders and stock');
    await change.getByRole('checkbox', { name: /ad\.moderated/ }).uncheck();
    await change.getByRole('button', { name: 'Save endpoint' }).click();
    await row.getByText('orders and stock').waitFor();
    const changed = (await server.anonymous.get('/api/advertiser/webhooks', { token: advertiser.token })).json<
      { events: string[]; description: string; balanceThreshold: number | null }[]
    >();
    assert.deepEqual(
      changed.map((endpoint) => [endpoint.events, endpoint.description, endpoint.balanceThreshold]),
      [[['campaign.moderated'], 'orders and stock', 20.5]],
    );
    page.once('dialog', (dialog) => dialog.accept());
    await row.getByRole('button', { name: `Delete ${url}` }).click();
    await page.getByText('No endpoints yet.').waitFor();
    assert.equal(
      (await server.anonymous.get('/api/advertiser/webhooks', { token: advertiser.token })).json<unknown[]>().length,
      0,
    );
  });

  it('downloads the statistics as CSV through a plain link, with the API’s figures', async () => {
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}/traffic`);
    const download = page.getByRole('region', { name: 'Download', exact: true });
    await download.getByRole('checkbox', { name: 'By site' }).check();
    await download.getByRole('radio', { name: 'CSV' }).check();
    const link = download.getByRole('link', { name: 'Download statistics' });
    const href = (await link.getAttribute('href')) ?? '';
    assert.match(href, /^\/api\/advertiser\/statistics\/export\?/);
    assert.equal(new URLSearchParams(href.split('?')[1]).get('campaignIds'), String(campaignId), 'this campaign only');
    const [file] = await Promise.all([page.waitForEvent('download'), link.click()]);
    assert.equal(file.suggestedFilename(), 'nativa-statistics.csv');
    const rows = parseCsv(readFileSync(await file.path(), 'utf8'));

    const figures = (
      await server.anonymous.get(
        `/api/advertiser/campaigns/multipliers/${campaignId}?dateFrom=${TODAY}&dateTo=${TODAY}&per-page=100`,
        { token: advertiser.token },
      )
    ).json<{ site_id: string; views: number; clicks: number; money: number }[]>();
    assert.equal(figures.length, 2);
    assert.deepEqual(
      rows.map((row) => [row.day, row.site, Number(row.views), Number(row.clicks), row.spend]).sort(),
      figures.map((site) => [TODAY, site.site_id, site.views, site.clicks, String(site.money)]).sort(),
    );
    assert.equal(
      rows.reduce((total, row) => total + Number(row.conversions_purchase), 0),
      2,
    );
    const clicks = download.getByRole('link', { name: 'Download click log' });
    assert.equal(
      await clicks.getAttribute('href'),
      `/api/advertiser/clicks/export?format=csv&dateFrom=${addDays(TODAY, -29)}&dateTo=${TODAY}&campaignIds=${campaignId}`,
      'the click log of this campaign only',
    );
    await lookAt(page, 'advertiser-export');
  });

  it('gives a publisher its own webhook events and a statistics download with the API’s figures', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Nativa' }).waitFor();
    await signIn(publisher);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('form', { name: 'New endpoint' });
    // A publisher is offered the publisher's events only, as the API allows.
    assert.equal(await form.getByRole('checkbox', { name: /campaign\.moderated/ }).count(), 0);
    await form.getByLabel('URL').fill(`${receiver.url}/payouts`);
    await form.getByRole('checkbox', { name: /payout\.paid/ }).check();
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    assert.match(await page.getByLabel('Signing secret').inputValue(), /^whsec_/);
    const endpoints = (await server.anonymous.get('/api/webmaster/webhooks', { token: publisher.token })).json<
      { url: string; events: string[] }[]
    >();
    assert.deepEqual(
      endpoints.map((endpoint) => [endpoint.url, endpoint.events]),
      [[`${receiver.url}/payouts`, ['payout.paid']]],
    );
    await lookAt(page, 'publisher-webhooks');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Statistics' }).click();
    const download = page.getByRole('region', { name: 'Download', exact: true });
    assert.equal(await download.getByRole('link', { name: 'Download click log' }).count(), 0, 'the click log is advertisers’');
    await download.getByRole('checkbox', { name: 'By day' }).uncheck();
    await download.getByRole('checkbox', { name: 'By site' }).check();
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      download.getByRole('link', { name: 'Download statistics' }).click(),
    ]);
    const rows = parseCsv(readFileSync(await file.path(), 'utf8'));
    const api = await Promise.all(
      [wastefulSite, convertingSite].map(async (siteId) => {
        const days = (
          await server.anonymous.get(`/api/webmaster/statistic?dateFrom=${TODAY}&dateTo=${TODAY}&siteIds=${siteId}`, {
            token: publisher.token,
          })
        ).json<{ views: number; clicks: number; income: number }[]>();
        assert.equal(days.length, 1);
        const [today = { views: 0, clicks: 0, income: 0 }] = days;
        return [String(siteId), today.views, today.clicks, String(today.income)];
      }),
    );
    assert.deepEqual(rows.map((row) => [row.site, Number(row.views), Number(row.clicks), row.income]).sort(), api.sort());
    await lookAt(page, 'publisher-export');
    assert.deepEqual(cspErrors, [], 'the app runs under its Content-Security-Policy');
  });
});

interface Account {
  id: number;
  token: string;
  username: string;
}

/** The accessible label of what has the keyboard focus: its label's text, or a button's. */
function focusedLabel(page: Page): Promise<string> {
  return page.locator('body').evaluate((body) => {
    const element = body.ownerDocument.activeElement;
    const label = element?.id ? body.ownerDocument.querySelector(`label[for="${element.id}"]`) : null;
    return (label ?? element)?.textContent?.trim() ?? '';
  });
}

function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** The text of each body row of the region's table, cell by cell. */
async function rowsOf(region: ReturnType<Page['getByRole']>): Promise<string[][]> {
  return region
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => (cell.textContent ?? '').replace(/\s+/g, ' ').trim())),
    );
}
