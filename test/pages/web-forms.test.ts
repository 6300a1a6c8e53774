import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { asBrowser, sessionOf, setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
import { createCampaign, createOffer } from '../helpers/advertiser.ts';
import { launchChromium, SHOTS, skipWithoutChromium } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const skip = skipWithoutChromium;

/**
 * What a newcomer's walk through the web app tripped on: the country picker, the site form's
 * address and number, pages at a phone's width, plain-http landing pages. One server, one
 * Chromium, a signed-in page per account and language.
 */
describe('forms and narrow screens of the web app (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let advertiserId = 0;
  let publisherId = 0;
  let operatorId = 0;
  let campaignId = 0;
  let advertiserClient: Awaited<ReturnType<TestServer['createAccount']>>['client'];

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    browser = await launchChromium();
    const db = server.server.context.db;
    const advertiser = await server.createAccount('advertiser', { name: 'Acme' });
    advertiserId = advertiser.id;
    advertiserClient = advertiser.client;
    await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount: 100, comment: 'opening' });
    campaignId = await createCampaign(advertiser.client, { title: 'Winter boots for the whole family' });
    await createOffer(advertiser.client, campaignId, { title: 'Warm boots' });
    publisherId = (await server.createAccount('publisher', { name: 'News' })).id;
    operatorId = (await server.operator.get('/api/me')).json<{ id: number }>().id;
    for (const id of [advertiserId, publisherId, operatorId]) await setPassword(db, id);
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.close();
  });

  /** A page signed in as `accountId`, the app in `language`, at `width` px. */
  async function signedIn(accountId: number, language: 'en' | 'ru', width = 1280): Promise<Page> {
    const { username } = await server.server.context.db
      .selectFrom('accounts')
      .select('username')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const session = await server.anonymous.post(
      '/api/session',
      { login: username, password: TEST_PASSWORD },
      { headers: { Origin: server.url } },
    );
    assert.equal(session.status, 200, session.text);
    // The app follows the signed-in account's language, so the account chooses it.
    const chosen = await asBrowser(server, sessionOf(session))('PUT', '/api/me/language', { language });
    assert.equal(chosen.status < 300, true, chosen.text);
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: { width, height: 844 },
      locale: language === 'en' ? 'en-GB' : 'ru-RU',
    });
    contexts.push(context);
    await context.addCookies([{ name: 'nativa_session', value: sessionOf(session), url: server.url }]);
    return context.newPage();
  }

  /** The countries the picker offers for what is typed, as it labels them. */
  async function offered(page: Page, typed: string): Promise<string[]> {
    await page.getByLabel(/^(Find a country|Найти страну)$/).fill(typed);
    const matches = page.getByRole('list', { name: /Matching countries|Подходящие страны/ });
    await matches.waitFor();
    return (await matches.getByRole('listitem').allTextContents()).map((text) => text.trim());
  }

  it('offers current countries only, found by common names and aliases in English and Russian', async () => {
    for (const language of ['en', 'ru'] as const) {
      const page = await signedIn(advertiserId, language);
      await page.goto(`${server.url}/advertiser/campaigns`);
      await page.getByRole('button', { name: language === 'en' ? 'New campaign' : 'Новая кампания' }).click();
      const us = language === 'en' ? 'United States (US)' : 'Соединенные Штаты (US)';
      const gb = language === 'en' ? 'United Kingdom (GB)' : 'Великобритания (GB)';
      const ru = language === 'en' ? 'Russia (RU)' : 'Россия (RU)';
      const de = language === 'en' ? 'Germany (DE)' : 'Германия (DE)';
      for (const [typed, first] of [
        ['USA', us],
        ['US', us],
        ['America', us],
        ['США', us],
        ['UK', gb],
        ['Britain', gb],
        ['Russia', ru],
        ['Россия', ru],
        ['Germany', de],
        ['Германия', de],
      ] as const) {
        assert.equal((await offered(page, typed))[0], first, `${typed} (${language})`);
      }
      // The withdrawn codes once named like current countries are not offered beside them.
      for (const [typed, code] of [
        ['Germany', 'DD'],
        ['Russia', 'SU'],
        ['Serbia', 'CS'],
        ['Serbia', 'YU'],
        ['Congo', 'ZR'],
        ['Myanmar', 'BU'],
      ] as const) {
        const names = await offered(page, typed);
        assert.equal(
          names.some((name) => name.endsWith(`(${code})`)),
          false,
          `${typed} offers ${names.join(', ')} (${language})`,
        );
      }
      // Chosen by an alias, saved as the code.
      await page.getByLabel(/^(Find a country|Найти страну)$/).fill('USA');
      await page.getByRole('checkbox', { name: us }).check();
      await page
        .getByRole('button', { name: language === 'en' ? 'Remove United States' : 'Убрать: Соединенные Штаты' })
        .waitFor();
    }
  });

  it('takes a site’s bare domain and grouped visitors, in English and Russian, and shows the stored address', async () => {
    for (const [language, domain, visitors, expected] of [
      ['en', 'news.example', '50,000', '50000'],
      ['ru', 'novosti.example', '50 000', '50000'],
      ['ru', 'pogoda.example', '1\u00a0250\u00a0000', '1250000'],
    ] as const) {
      const page = await signedIn(publisherId, language);
      await page.goto(`${server.url}/publisher/sites`);
      const add = language === 'en' ? 'Add a site' : 'Добавить сайт';
      await page.getByRole('button', { name: add }).click();
      const form = page.getByRole('form', { name: add });
      await form.getByLabel(language === 'en' ? 'Address' : 'Адрес', { exact: true }).fill(domain);
      await form.getByLabel(language === 'en' ? 'Category' : 'Категория').selectOption({ index: 1 });
      // Leaving the field shows the address as it will be stored.
      await form.getByLabel(/^(Monthly unique visitors|Уникальных посетителей)/).fill('50.5');
      assert.equal(
        await form.getByLabel(language === 'en' ? 'Address' : 'Адрес', { exact: true }).inputValue(),
        `https://${domain}`,
      );
      // A fraction is no count of visitors: refused beside the field, before anything is sent.
      await form.getByRole('button', { name: language === 'en' ? 'Add site' : 'Добавить сайт' }).click();
      await form
        .getByText(language === 'en' ? 'Write a whole number, like 50,000.' : 'Укажите целое число, например 50 000.')
        .waitFor();
      await form.getByLabel(/^(Monthly unique visitors|Уникальных посетителей)/).fill(visitors);
      await form.getByRole('button', { name: language === 'en' ? 'Add site' : 'Добавить сайт' }).click();
      await page.getByRole('heading', { level: 1, name: domain }).waitFor();
      await page.getByRole('link', { name: `https://${domain}` }).waitFor();
      const stored = await server.server.context.db
        .selectFrom('sites')
        .select(['url', 'monthly_uniq_users'])
        .where('publisher_id', '=', publisherId)
        .where('url', 'like', `%${domain}%`)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        { ...stored, monthly_uniq_users: String(stored.monthly_uniq_users) },
        { url: `https://${domain}`, monthly_uniq_users: expected },
      );
    }
  });

  /**
   * The words of the elements `selector` finds that the page breaks across lines: a word whose
   * range has boxes on two lines ("Rul" / "es").
   */
  async function brokenWords(page: Page, selector: string): Promise<string[]> {
    return page.locator(selector).evaluateAll((elements) => {
      const broken: string[] = [];
      for (const element of elements) {
        const document = element.ownerDocument;
        const walker = document.createTreeWalker(element, 4 /* NodeFilter.SHOW_TEXT */);
        for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
          const text = node.textContent ?? '';
          for (const match of text.matchAll(/\S+/g)) {
            const range = document.createRange();
            range.setStart(node, match.index);
            range.setEnd(node, match.index + match[0].length);
            const tops = new Set(
              [...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)),
            );
            if (tops.size > 1) broken.push(match[0]);
          }
        }
      }
      return broken;
    });
  }

  it('fits every page to a 390 px screen, breaking no word inside, in English and Russian', async () => {
    const problems: string[] = [];
    for (const language of ['en', 'ru'] as const) {
      // The pages the walk found too wide or broken first, then every other page of each area.
      const pages = [
        { account: operatorId, path: '/operator/payouts', heading: language === 'en' ? 'Payouts' : 'Выплаты' },
        { account: advertiserId, path: '/advertiser/campaigns', heading: language === 'en' ? 'Campaigns' : 'Кампании' },
        { account: advertiserId, path: `/advertiser/campaigns/${campaignId}`, heading: 'Winter boots for the whole family' },
        {
          account: advertiserId,
          path: `/advertiser/campaigns/${campaignId}/rules`,
          heading: 'Winter boots for the whole family',
        },
        ...[
          '/operator',
          '/operator/accounts',
          `/operator/accounts/${advertiserId}`,
          '/operator/invalid-traffic',
          '/operator/outbox',
          '/operator/webhooks',
        ].map((path) => ({ account: operatorId, path })),
        ...[
          '/advertiser',
          `/advertiser/campaigns/${campaignId}/traffic`,
          `/advertiser/campaigns/${campaignId}/explain`,
          '/advertiser/clients',
          '/advertiser/billing',
          '/advertiser/conversions',
          '/tokens',
          '/account',
          '/notifications',
        ].map((path) => ({ account: advertiserId, path })),
        ...['/publisher', '/publisher/sites', '/publisher/statistics', '/publisher/payouts'].map((path) => ({
          account: publisherId,
          path,
        })),
      ];
      // One signed-in context per account, a fresh page in it for each address.
      const contextOf = new Map<number, BrowserContext>();
      for (const { account, path, heading } of pages as { account: number; path: string; heading?: string }[]) {
        let context = contextOf.get(account);
        if (context === undefined) {
          const first = await signedIn(account, language, 390);
          context = first.context();
          await first.close();
          contextOf.set(account, context);
        }
        const page = await context.newPage();
        await page.goto(`${server.url}${path}`);
        await (heading === undefined
          ? page.locator('main h1').first()
          : page.getByRole('heading', { level: 1, name: heading })
        ).waitFor();
        await page.waitForLoadState('networkidle');
        await page.screenshot({ path: `${SHOTS}/narrow-${language}${path.replaceAll('/', '-')}.png`, fullPage: true });
        const width = await page.locator('html').evaluate((html) => html.scrollWidth);
        if (width > 390) problems.push(`${path} (${language}) is ${width} px wide`);
        const broken = await brokenWords(page, 'main h1, main h2, main .subnav a, main th, main button');
        if (broken.length > 0) problems.push(`${path} (${language}) breaks inside ${broken.join(', ')}`);
        if (path === '/advertiser/campaigns') {
          // The table is wider than the screen: it scrolls in its own box, which keyboard users
          // reach, and a shadow says on which side more columns wait.
          const wrap = page.locator('main .table-wrap').first();
          const box = () =>
            wrap.evaluate((element) => ({
              scrolls: element.scrollWidth > element.clientWidth && element.clientWidth <= 390,
              focusable: element.getAttribute('tabindex') === '0',
              cue: [...element.classList].filter((name) => name.startsWith('more-')).join(' '),
            }));
          const atStart = await box();
          await wrap.evaluate((element) => element.scrollTo({ left: element.scrollWidth }));
          // The cue follows the scroll event; if it never comes, the check below names what is missing.
          await wrap
            .and(page.locator('.more-left'))
            .waitFor()
            .catch(() => {});
          const atEnd = await box();
          const wanted = [
            { scrolls: true, focusable: true, cue: 'more-right' },
            { scrolls: true, focusable: true, cue: 'more-left' },
          ];
          if (JSON.stringify([atStart, atEnd]) !== JSON.stringify(wanted)) {
            problems.push(`the campaigns table (${language}) at its start and end: ${JSON.stringify([atStart, atEnd])}`);
          }
        }
        await page.close();
      }
      for (const context of contextOf.values()) await context.close();
    }
    assert.deepEqual(problems, []);
  });

  it('warns of a plain http:// landing page in the ad form, accepts it, and marks it for the moderator', async () => {
    const page = await signedIn(advertiserId, 'en');
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}`);
    await page.getByRole('button', { name: 'New ad' }).click();
    const form = page.getByRole('form', { name: 'New ad' });
    const landing = form.getByLabel('Landing page');
    const warning = form.getByText('This page is plain http://');
    await landing.fill('http://shop.example/boots');
    await warning.waitFor();
    assert.match((await landing.getAttribute('aria-describedby')) ?? '', /url-hint/);
    await landing.fill('https://shop.example/boots');
    await warning.waitFor({ state: 'detached' });
    await page.context().close();

    // The API takes it as before; the moderator sees which of the waiting ads is plain http.
    await createOffer(advertiserClient, campaignId, { title: 'Plain boots', url: 'http://shop.example/plain' });
    const moderator = await signedIn(operatorId, 'en');
    await moderator.goto(`${server.url}/operator?queue=ads`);
    const plain = moderator.locator('.ad-review', { hasText: 'http://shop.example/plain' });
    const secure = moderator.locator('.ad-review', { hasText: 'https://shop.example.test/headphones' }).first();
    await plain.waitFor();
    await secure.waitFor();
    assert.equal(await plain.getByText('plain http', { exact: true }).count(), 1);
    assert.equal(await secure.getByText('plain http', { exact: true }).count(), 0);
    await moderator.context().close();
  });
});
