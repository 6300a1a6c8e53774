import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { asBrowser, sessionOf, setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
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

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    browser = await launchChromium();
    const db = server.server.context.db;
    const advertiser = await server.createAccount('advertiser', { name: 'Acme' });
    advertiserId = advertiser.id;
    await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount: 100, comment: 'opening' });
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
});
