import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { DEVICES } from '../../src/modules/statistics/vocabulary.ts';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { launchChromium, lookAt, SHOTS, skipWithoutChromium } from '../helpers/browser.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite, recordTraffic } from '../helpers/fixtures.ts';
import { Mailbox } from '../helpers/mailbox.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const skip = skipWithoutChromium;
const PASSWORD = 'a long enough password';

/** The advertiser catalogue's sentences whose Russian differs: none of them may head a page shown in Russian. */
const LOCALES = path.join(import.meta.dirname, '..', '..', 'web', 'src', 'i18n', 'locales');
const catalogue = (language: string): Record<string, string> =>
  JSON.parse(readFileSync(path.join(LOCALES, language, 'advertiser.json'), 'utf8'));
const english = catalogue('en');
const russian = catalogue('ru');
const ENGLISH_ONLY = new Set(Object.entries(english).flatMap(([key, text]) => (russian[key] === text ? [] : [text])));

/** The page's headings (h1–h3 of its main part), as read. */
async function headings(page: Page): Promise<string[]> {
  return page
    .locator('main')
    .locator('h1, h2, h3')
    .evaluateAll((elements) => elements.map((element) => element.textContent?.trim() ?? ''));
}

describe('the advertiser’s pages in Russian (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const mailbox = new Mailbox();
  let username: string;
  let campaignId: number;

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    await mailbox.start();
    server = await startTestServer({ env: { SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`, CURRENCY: 'EUR' } });
    browser = await launchChromium();
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: { width: 1280, height: 900 },
      locale: 'en-GB',
    });
    page = await context.newPage();

    const account = await server.createAccount('advertiser', { name: 'Acme Shoes' });
    const me = (await account.client.get('/api/me')).json<{ email: string; username: string }>();
    username = me.username;
    await server.operator.post(`/api/admin/users/${account.id}/balance`, { amount: 250, comment: 'bank transfer' });
    const invitation = await mailbox.next(me.email);
    const token = /password\?token=([A-Za-z0-9_-]+)/.exec(invitation.text)?.[1] ?? '';
    const set = await server.anonymous.post('/api/password-reset/confirm', { token, password: PASSWORD });
    assert.equal(set.status, 204, set.text);

    // A campaign with an ad that showed on a block of a site, so the tables have rows to label.
    const db = server.server.context.db;
    const publisher = await server.createAccount('publisher');
    campaignId = (await insertCampaign(db, { advertiserId: account.id, title: 'Autumn boots' })).id;
    const offer = await insertOffer(db, { campaignId, title: 'Boots at half price' });
    const siteId = (await insertSite(db, { publisherId: publisher.id })).id;
    const blockId = (await insertBlock(db, { siteId })).id;
    await recordTraffic(db, [
      {
        at: Date.now(),
        campaignId,
        offerId: offer.id,
        siteId,
        blockId,
        device: DEVICES.mobile,
        views: 800,
        clicks: 12,
        spendMicros: 3_000_000,
        conversions: { 1: 2 },
      },
    ]);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await mailbox.stop();
  });

  it('switches to Russian in the header and keeps it for the account', async () => {
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Username or e-mail').fill(username);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await page.getByLabel('Language').selectOption({ label: 'Русский' });
    await page.getByRole('heading', { name: 'Обзор', level: 1 }).waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'ru');
    await page.getByText('Расход и клики по дням').waitFor();
  });

  /** Each main page of the area: its address and the Russian headings it must show. */
  const PAGES: { name: string; href: () => string; wanted: string[] }[] = [
    { name: 'overview', href: () => '/advertiser', wanted: ['Обзор', 'Расход и клики по дням'] },
    { name: 'campaigns', href: () => '/advertiser/campaigns', wanted: ['Кампании'] },
    {
      name: 'campaign',
      href: () => `/advertiser/campaigns/${campaignId}`,
      wanted: ['Autumn boots', 'Объявления', 'Настройки кампании', 'Основное', 'Расписание и бюджет', 'Таргетинг', 'По дням'],
    },
    {
      name: 'campaign-traffic',
      href: () => `/advertiser/campaigns/${campaignId}/traffic`,
      wanted: ['Устройства', 'Сайты и блоки', 'Задать коэффициент для сайта или блока'],
    },
    { name: 'campaign-explain', href: () => `/advertiser/campaigns/${campaignId}/explain`, wanted: ['Autumn boots'] },
    {
      name: 'campaign-rules',
      href: () => `/advertiser/campaigns/${campaignId}/rules`,
      wanted: ['Правила', 'Применённые изменения'],
    },
    { name: 'clients', href: () => '/advertiser/clients', wanted: ['Клиенты'] },
    { name: 'billing', href: () => '/advertiser/billing', wanted: ['Расчёты'] },
    {
      name: 'conversions',
      href: () => '/advertiser/conversions',
      wanted: ['Конверсии', '1. Добавьте id клика в адрес целевой страницы', '2. Сообщите о конверсии'],
    },
  ];

  for (const { name, href, wanted } of PAGES) {
    it(`shows the ${name} page in Russian, with no English heading of its own and nothing serious for axe`, async () => {
      await page.goto(`${server.url}${href()}`);
      for (const heading of wanted) await page.getByRole('heading', { name: heading, exact: true }).first().waitFor();
      assert.equal(await page.locator('html').getAttribute('lang'), 'ru');
      const shown = await headings(page);
      assert.deepEqual(
        shown.filter((text) => ENGLISH_ONLY.has(text)),
        [],
        `English headings on ${href()}: ${shown.join(' | ')}`,
      );
      await lookAt(page, `i18n-advertiser-${name}`);
    });
  }

  it('helps on every page in Russian, in the page user’s words, with no developers’ document', async () => {
    const help = (language: string): Record<string, string> =>
      JSON.parse(readFileSync(path.join(LOCALES, language, 'help.json'), 'utf8'));
    const [helpEnglish, helpRussian] = [help('en'), help('ru')];
    for (const { href } of PAGES) {
      await page.goto(`${server.url}${href()}`);
      const panel = page.getByRole('complementary', { name: 'Об этой странице' });
      await panel.getByText('Об этой странице').click();
      await panel.getByRole('heading', { name: 'Для чего эта страница' }).waitFor();
      const text = (await panel.textContent()) ?? '';
      const purpose = Object.entries(helpRussian).find(([key, value]) => key.endsWith('.purpose') && text.includes(value));
      assert.ok(purpose, `${href()}: a Russian purpose of its own`);
      const english = Object.values(helpEnglish).filter((value) => value.length > 20 && text.includes(value));
      assert.deepEqual(english, [], `${href()}: no English help`);
      const links = await page.locator('main a[href]').evaluateAll((all) => all.map((link) => link.getAttribute('href') ?? ''));
      assert.deepEqual(
        links.filter((link) => link.startsWith('/docs/') || link.endsWith('.md')),
        [],
        href(),
      );
    }
    // Each page has its own help: the campaign's is not the campaign list's.
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}/rules`);
    await page.getByText(helpRussian['campaignRules.purpose'] ?? '?').waitFor({ state: 'attached' });
  });

  it('writes the campaign page’s own words in Russian: tabs, ad facts, statuses and forms', async () => {
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}`);
    const tabs = page.getByRole('navigation', { name: 'Кампания' });
    for (const tab of ['Объявления и дни', 'Сайты и устройства', 'Почему показываются объявления', 'Правила'])
      await tabs.getByRole('link', { name: tab }).waitFor();
    await page.getByRole('switch', { name: 'Объявление «Boots at half price» включено' }).waitFor();
    await page.getByRole('button', { name: 'Изменить содержание объявления «Boots at half price»' }).waitFor();
    await page.getByLabel('Новая ставка за клик').waitFor();
    await page.getByRole('button', { name: 'Новое объявление' }).click();
    const form = page.getByRole('form', { name: 'Новое объявление' });
    await form.getByLabel('Заголовок').waitFor();
    await form.getByText('До 60 символов.').waitFor();
    await form.getByRole('button', { name: 'Отправить на модерацию' }).waitFor();
    for (const day of ['Понедельник', 'Воскресенье']) await page.getByRole('checkbox', { name: day }).waitFor();
    await lookAt(page, 'i18n-advertiser-campaign-new-ad');
  });

  it('names the product categories in Russian in the campaign forms', async () => {
    await page.goto(`${server.url}/advertiser/campaigns`);
    await page.getByRole('button', { name: 'Новая кампания' }).click();
    // The one campaign form; its categories come with their own request.
    const category = page.locator('#field-campaign-category');
    await category.locator('option', { hasText: 'Одежда и обувь' }).waitFor({ state: 'attached' });
    const options = await category.locator('option').allTextContents();
    for (const name of ['Одежда и обувь', 'Электроника', 'Игры и развлечения'])
      assert.ok(options.includes(name), options.join(' | '));
    assert.ok(!options.includes('Clothing & Shoes'), options.join(' | '));
  });

  it('writes a rule’s form and its sentence in Russian', async () => {
    await page.goto(`${server.url}/advertiser/campaigns/${campaignId}/rules`);
    await page.getByRole('button', { name: 'Новое правило' }).click();
    const form = page.getByRole('form', { name: 'Новое правило' });
    await form.getByLabel('Что отслеживать').selectOption({ label: 'Каждый сайт' });
    await form.getByLabel('Показатель').selectOption({ label: 'Расход без конверсий' });
    await form.getByLabel('Порог (EUR)').fill('5');
    await form.getByLabel('Окно (дней)').fill('3');
    await form.getByRole('button', { name: 'Создать правило' }).click();
    // Money in the reader's language (format.ts): the sentence is matched around it.
    await page.getByText(/^Каждый сайт: Расход без конверсий > .+ за 3 дня → коэффициент 0\.5$/).waitFor();
    await page.getByRole('button', { name: 'Пробный запуск «Правило' }).click();
    await page.getByRole('heading', { name: /^Пробный запуск «Правило \d+»$/ }).waitFor();
    await lookAt(page, 'i18n-advertiser-rule');
  });
});
