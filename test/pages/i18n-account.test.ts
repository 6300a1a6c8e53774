import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
import { launchChromium, lookAt, SHOTS, settledTexts, skipWithoutChromium } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const skip = skipWithoutChromium;

/**
 * The frame of the app and every account's own pages in Russian (docs/web-account.md
 * "Languages"): chosen on the sign-in page before signing in, kept for the account once signed in,
 * the header, menu, help links, account, notifications and tokens pages in Russian, numbers and
 * money written the Russian way, and axe finds nothing serious at desktop and phone widths.
 */
describe('the account’s own pages in Russian (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let username = '';

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    browser = await launchChromium();
    const advertiser = await server.createAccount('advertiser', { name: 'Магазин у дома' });
    const credit = await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, {
      amount: '1235',
      comment: 'счёт 17',
    });
    assert.equal(credit.status, 200, credit.text);
    // A comment as the server writes them for billed clicks (settlement: "2 clicks").
    const clicks = await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, {
      amount: '-0.5',
      comment: '2 clicks',
    });
    assert.equal(clicks.status, 200, clicks.text);
    const db = server.server.context.db;
    await setPassword(db, advertiser.id);
    username = (await db.selectFrom('accounts').select('username').where('id', '=', advertiser.id).executeTakeFirstOrThrow())
      .username;
    // An English-speaking browser: the language is what the person picks, not what the browser says.
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('picks Russian on the sign-in page, signs in in Russian, and the account keeps the choice', async () => {
    await page.goto(`${server.url}/sign-in`);
    await page.getByRole('heading', { level: 1, name: 'Sign in to Nativa' }).waitFor();
    await page.getByLabel('Language').selectOption('ru');
    await page.getByRole('heading', { level: 1, name: 'Вход в Nativa' }).waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'ru');
    await lookAt(page, 'ru-sign-in');
    await page.getByLabel('Логин или e-mail').fill(username);
    await page.getByLabel('Пароль').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Войти', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Обзор' }).waitFor();
    await page.getByRole('navigation', { name: 'Главное меню' }).getByRole('link', { name: 'Кампании' }).waitFor();
    await page.getByRole('button', { name: 'Выйти' }).waitFor();
    // Money by Russian rules: a comma before the kopecks, a space between thousands.
    const balance = (await page.locator('.balance').textContent()) ?? '';
    assert.match(balance.replace(/\s/g, ' '), /1 234,50/);
    await page.getByRole('complementary', { name: 'Об этой странице' }).waitFor();
  });

  it('writes the account page in Russian, the language kept with the account', async () => {
    await page.goto(`${server.url}/account`);
    await page.getByRole('heading', { level: 1, name: 'Ваш аккаунт' }).waitFor();
    await page.getByText('рекламодатель').waitFor();
    await page.getByRole('heading', { name: 'Сменить пароль' }).waitFor();
    await page.getByRole('heading', { name: 'Двухфакторный вход' }).waitFor();
    await page.getByRole('heading', { name: 'Ключи доступа' }).waitFor();
    await page.getByRole('heading', { name: 'Где выполнен вход' }).waitFor();
    // The language picked before signing in became the account's as it signed in.
    const me = await page.evaluate(() => fetch('/api/me').then((answer) => answer.json() as Promise<{ language: string }>));
    assert.equal(me.language, 'ru');
    assert.equal(await page.getByRole('banner').getByLabel('Язык').inputValue(), 'ru');
    await lookAt(page, 'ru-account');
  });

  it('writes notifications and tokens in Russian', async () => {
    await page.goto(`${server.url}/notifications`);
    await page.getByRole('heading', { level: 1, name: 'Уведомления' }).waitFor();
    await page.getByRole('heading', { name: 'Низкий баланс' }).waitFor();
    // Amounts are written as Russian writes them, here as on every money field: "25,5", not "25.50".
    const line = page.getByLabel('Сообщать, когда баланс опустится ниже');
    await page.getByText('например 25,5;', { exact: false }).waitFor();
    await line.fill('12,75');
    await page.getByRole('button', { name: 'Сохранить' }).first().click();
    await page.getByRole('status').filter({ hasText: '12,75' }).waitFor();
    assert.equal(await line.inputValue(), '12,75');
    await lookAt(page, 'ru-notifications');
    // The statement says the server's own comments in Russian.
    await page.goto(`${server.url}/advertiser/billing`);
    const comments = await settledTexts(page.locator('main table td.wrap'), (texts) => texts.length >= 2);
    assert.deepEqual(comments, ['2 клика', 'счёт 17']);
    await page.goto(`${server.url}/tokens`);
    await page.getByRole('heading', { level: 1, name: 'API-токены' }).waitFor();
    await page.getByLabel('Название нового токена').fill('отчёты');
    await page.getByRole('button', { name: 'Создать токен' }).click();
    await page.getByText('Токен «отчёты» создан', { exact: false }).waitFor();
    await lookAt(page, 'ru-tokens');
    assert.equal(await page.title(), 'API-токены · Nativa');
  });

  it('shows the app’s own not-found page in Russian', async () => {
    await page.goto(`${server.url}/no-such-page`);
    await page.getByRole('heading', { level: 1, name: 'Страница не найдена' }).waitFor();
    assert.equal(await page.title(), 'Страница не найдена · Nativa');
  });
});
