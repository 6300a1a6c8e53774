import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
import { createCampaign, createOffer } from '../helpers/advertiser.ts';
import { launchChromium, lookAt, SHOTS, skipWithoutChromium } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const skip = skipWithoutChromium;
const LOCALES = path.join(import.meta.dirname, '..', '..', 'web', 'src', 'i18n', 'locales');
const catalogue = (language: string): Record<string, string> =>
  JSON.parse(readFileSync(path.join(LOCALES, language, 'operator.json'), 'utf8'));

/**
 * The operator's pages in Russian: every English text of the operator catalogue that Russian words
 * differently must be gone from the headings, labels and buttons once Russian is chosen.
 */
const russian = catalogue('ru');
const ENGLISH_ONLY = new Set(
  Object.entries(catalogue('en'))
    .filter(([key, text]) => russian[key] !== text && !text.includes('{{'))
    .map(([, text]) => text),
);

/** The texts of the page's headings, table headers, labels and buttons, trimmed. */
function namedTexts(page: Page): Promise<string[]> {
  return page
    .locator('main h1, main h2, main h3, main th[scope=col], main label, main button, main dt, main option, main .tabs a')
    .evaluateAll((elements) => elements.map((element) => (element.textContent ?? '').replace(/\s+/g, ' ').trim()));
}

describe('an operator in Russian (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let advertiserId = 0;
  let outboxId = 0;

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer({ env: { CURRENCY: 'RUB' } });
    const db = server.server.context.db;
    const operator = await server.createAccount('operator', { name: 'Мария' });
    await setPassword(db, operator.id);
    // Something in every queue and list: a campaign and its ad, a site, money, a payout, e-mails.
    const advertiser = await server.createAccount('advertiser', { name: 'ООО «Обувь»' });
    advertiserId = advertiser.id;
    const campaignId = await createCampaign(advertiser.client, { title: 'Зимние ботинки', geo: ['RU'] });
    await createOffer(advertiser.client, campaignId, { title: 'Ботинки за полцены', price: 1990 });
    const publisher = await server.createAccount('publisher');
    const site = await publisher.client.post('/api/webmaster/sites', { url: 'https://novosti.example/', category_id: 101 });
    assert.equal(site.status, 201, site.text);
    const credit = await server.operator.post(`/api/admin/users/${publisher.id}/balance`, { amount: '5000', comment: 'тест' });
    assert.equal(credit.status, 200, credit.text);
    const payout = await server.operator.post('/api/admin/payouts', {
      userId: publisher.id,
      amount: '1000',
      wallet: 'IBAN RU00 0000',
    });
    assert.equal(payout.status, 201, payout.text);
    const outbox = await server.operator.get(`/api/admin/outbox?userId=${advertiser.id}`);
    outboxId = outbox.json<{ id: number }[]>()[0]?.id ?? 0;
    assert.ok(outboxId > 0);

    browser = await launchChromium();
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: { width: 1280, height: 900 },
      locale: 'en-GB',
    });
    page = await context.newPage();
    await page.goto(`${server.url}/operator`);
    const login = (await operator.client.get('/api/me')).json<{ username: string }>().username;
    await page.getByLabel('Username or e-mail').fill(login);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Moderation' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function noEnglish(where: string) {
    const english = (await namedTexts(page)).filter((text) => ENGLISH_ONLY.has(text));
    assert.deepEqual(english, [], `English left on ${where}`);
  }

  /** Opens `address`, waits for `heading`, checks that no English text is left and that axe finds nothing serious. */
  async function look(address: string, heading: string | RegExp, name: string, ready?: string) {
    await page.goto(`${server.url}${address}`);
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    if (ready) await page.getByText(ready, { exact: false }).first().waitFor();
    await noEnglish(address);
    await lookAt(page, name);
  }

  it('chooses Russian in the header, and the account keeps the choice', async () => {
    await page.getByLabel('Language').selectOption('ru');
    await page.getByRole('heading', { name: 'Модерация', level: 1 }).waitFor();
    await page.getByLabel('Язык').waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'ru');
    // The account keeps it: its e-mails are written in it from now on.
    await page.reload();
    await page.getByRole('heading', { name: 'Модерация', level: 1 }).waitFor();
    const me = await page.evaluate(async () => (await fetch('/api/me')).json() as Promise<{ language: string }>);
    assert.equal(me.language, 'ru');
  });

  it('shows the moderation queues and the reasons in Russian', async () => {
    await look('/operator', 'Модерация', 'ru-operator-moderation', 'Зимние ботинки');
    await page.getByRole('button', { name: 'Одобрить Зимние ботинки' }).waitFor();
    await page.getByRole('link', { name: /Объявления/ }).waitFor();
    await look('/operator?queue=ads', 'Модерация', 'ru-operator-moderation-ads', 'Ставка за клик');
    await look('/operator?queue=sites', 'Модерация', 'ru-operator-moderation-sites', 'Посетителей в месяц');
    await page
      .getByRole('button', { name: /^Заблокировать/ })
      .first()
      .click();
    await page.getByLabel('Причина', { exact: true }).waitFor();
    await noEnglish('the form that bans a site');
    await look('/operator?queue=reasons', 'Модерация', 'ru-operator-reasons', 'Причины отклонения');
  });

  it('shows the accounts, an account, the payouts and the outbox in Russian', async () => {
    await look('/operator/accounts', 'Аккаунты', 'ru-operator-accounts', 'Зарегистрирован');
    await page.getByRole('button', { name: 'Новый аккаунт' }).click();
    await page.getByRole('button', { name: 'Создать и пригласить' }).waitFor();
    await noEnglish('the form that creates an account');
    await lookAt(page, 'ru-operator-new-account');
    await look(`/operator/accounts/${advertiserId}`, /^advertiser/, 'ru-operator-account', 'Зачисление и списание');
    await page.getByRole('heading', { name: 'Журнал операций' }).waitFor();
    await page.locator('h1 .tag').getByText('рекламодатель', { exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Персональные данные' }).waitFor();
    await look('/operator/payouts', 'Выплаты', 'ru-operator-payouts', 'Долг перед вебмастерами');
    await look('/operator/outbox', 'Исходящие', 'ru-operator-outbox', 'Кому');
    await look(`/operator/outbox/${outboxId}`, /аккаунт Nativa|Nativa/, 'ru-operator-outbox-message', 'Кому');
  });
});
