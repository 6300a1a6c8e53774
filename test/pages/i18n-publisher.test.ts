import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { sessionOf, setPassword, TEST_PASSWORD } from '../helpers/accounts.ts';
import { launchChromium, lookAt, SHOTS, skipWithoutChromium } from '../helpers/browser.ts';
import { insertBlock, insertSite } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const skip = skipWithoutChromium;

/**
 * Headings that come from the shared components (web/src/components, the `common` catalogue), not
 * from the publisher's pages; they are translated with the components, not here.
 */
const COMPONENT_HEADINGS = new Set<string>();

/**
 * The publisher's area in Russian (docs/web-account.md, "Languages"): chosen in
 * the header's picker, every page of the area speaks Russian, the teaser's own "Ad" mark stays as
 * the embed script writes it, and axe finds nothing serious at desktop and phone widths.
 */
describe('the publisher’s pages in Russian (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let siteId = 0;
  let blockId = 0;

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer({ env: { MIN_PAYOUT: '50' } });
    browser = await launchChromium();
    const publisher = await server.createAccount('publisher', { name: 'Новости дня' });
    const db = server.server.context.db;
    const site = await insertSite(db, { publisherId: publisher.id, url: 'https://novosti.example/' });
    siteId = site.id;
    blockId = (await insertBlock(db, { siteId, title: 'Под статьёй', teaserCount: 4 })).id;
    const waiting = await publisher.client.post('/api/webmaster/sites', { url: 'https://blog.example/', category_id: 101 });
    assert.equal(waiting.status, 201, waiting.text);

    await setPassword(db, publisher.id);
    const { username } = await db
      .selectFrom('accounts')
      .select('username')
      .where('id', '=', publisher.id)
      .executeTakeFirstOrThrow();
    const session = await server.anonymous.post(
      '/api/session',
      { login: username, password: TEST_PASSWORD },
      { headers: { Origin: server.url } },
    );
    assert.equal(session.status, 200, session.text);
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    await context.addCookies([{ name: 'nativa_session', value: sessionOf(session), url: server.url }]);
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Every heading of the page, which must be Russian: a heading without a Cyrillic letter is left in English. */
  async function englishHeadings(): Promise<string[]> {
    const headings = await page.locator('main h1, main h2, main h3').allTextContents();
    return headings
      .map((text) => text.trim())
      .filter((text) => !/[А-Яа-яЁё]/.test(text))
      .filter((text) => !/^[\w.-]+\.[a-z]{2,}(\/\S*)?$/.test(text)) // a site's address is its heading
      .filter((text) => !COMPONENT_HEADINGS.has(text));
  }

  async function open(path: string, heading: string) {
    await page.goto(`${server.url}${path}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  }

  it('switches to Russian from the header and keeps it for the account', async () => {
    await page.goto(`${server.url}/publisher`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const saved = page.waitForResponse((answer) => answer.url().endsWith('/api/me/language'));
    await page.getByLabel('Language').selectOption('ru');
    assert.equal((await saved).ok(), true);
    await page.getByRole('heading', { level: 1, name: 'Обзор' }).waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'ru');
    await page.getByRole('heading', { name: 'Сайты, на которых не показываются тизеры' }).waitFor();
    await page.getByText('На модерации').first().waitFor();
    assert.deepEqual(await englishHeadings(), []);
    // The choice is the account's (its e-mails and its other browsers follow it), not only this browser's.
    const me = await page.evaluate(() => fetch('/api/me').then((answer) => answer.json() as Promise<{ language?: string }>));
    assert.equal(me.language, 'ru');
    await lookAt(page, 'ru-publisher-overview');
  });

  it('shows the sites list and the add form in Russian', async () => {
    await open('/publisher/sites', 'Сайты');
    const table = page.getByRole('region', { name: 'Сайты' });
    await table.getByRole('columnheader', { name: 'Сайт' }).waitFor();
    await table.getByRole('columnheader', { name: 'Блоки' }).waitFor();
    await table.getByText('Оператор проверяет каждый новый сайт', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Добавить сайт' }).click();
    const form = page.getByRole('form', { name: 'Добавить сайт' });
    await form.getByLabel('Адрес').waitFor();
    await form.getByLabel('Уникальных посетителей в месяц (необязательно)').waitFor();
    assert.deepEqual(await englishHeadings(), []);
    await lookAt(page, 'ru-publisher-sites');
  });

  it('shows a site with its block, the block’s code, preview and explanation in Russian', async () => {
    await open(`/publisher/sites/${siteId}`, 'novosti.example/');
    await page.getByText('Одобрен: его блоки показывают тизеры', { exact: false }).waitFor();
    await page.getByRole('heading', { name: 'ads.txt и конфиденциальность' }).waitFor();
    await page.getByRole('form', { name: 'Безопасность бренда' }).waitFor();
    await page.getByText(`Блок ${blockId} · 4 тизера`).waitFor();
    await page.getByLabel('Код для вставки на вашу страницу').waitFor();
    await page.getByRole('link', { name: 'Статистика блока «Под статьёй»' }).waitFor();
    await page.getByRole('button', { name: 'Показать предпросмотр блока «Под статьёй»' }).click();
    const preview = page.getByRole('figure').filter({ hasText: 'Предпросмотр блока «Под статьёй»' });
    await preview.getByRole('radio', { name: 'Колонка статьи' }).waitFor();
    // The teaser's own disclosure as the embed script writes it on a page in the reader's language.
    assert.equal(await preview.locator('.nativa-ad-mark').first().textContent(), 'Реклама');
    // The server's product categories, named in Russian in the brand safety form.
    const safety = page.getByRole('form', { name: 'Безопасность бренда' });
    for (const name of ['Одежда и обувь', 'Смартфоны', 'Финансы и страхование'])
      await safety.getByRole('checkbox', { name, exact: true }).waitFor();
    assert.equal(await safety.getByRole('checkbox', { name: 'Clothing & Shoes' }).count(), 0);
    await page.getByRole('button', { name: 'Что показалось бы здесь сейчас в блоке «Под статьёй»' }).click();
    await page.getByRole('region', { name: 'Что показалось бы сейчас в блоке «Под статьёй»' }).waitFor();
    await page.getByText('Сейчас за этого посетителя не борется ни одно объявление', { exact: false }).waitFor();
    assert.deepEqual(await englishHeadings(), []);
    await lookAt(page, 'ru-publisher-site');
  });

  it('designs the block in Russian', async () => {
    await open(`/publisher/sites/${siteId}`, 'novosti.example/');
    await page.getByRole('button', { name: 'Оформление блока «Под статьёй»' }).click();
    const form = page.getByRole('form', { name: 'Оформление блока «Под статьёй»' });
    await form.getByLabel('Столбцы').fill('3');
    await form.getByLabel('Картинка').selectOption({ label: 'Широкая (16:9)' });
    await form.getByLabel('Метка «Реклама»').selectOption({ label: 'На картинке, вверху слева' });
    const preview = form.getByRole('img', { name: 'Предпросмотр блока' });
    assert.equal(await preview.getByText('Реклама', { exact: true }).count(), 3);
    await form.getByRole('button', { name: 'Сохранить оформление' }).click();
    await form.getByText('Сохранено. Если размер изменился, вставьте код блока заново.').waitFor();
    assert.deepEqual(await englishHeadings(), []);
    await lookAt(page, 'ru-publisher-block-design');
  });

  it('shows statistics in Russian, and its “not found” for another account’s block', async () => {
    await open('/publisher/statistics', 'Статистика');
    await page.getByLabel('Сайт', { exact: true }).waitFor();
    await page.getByLabel('Блок', { exact: true }).selectOption({ label: 'Под статьёй (novosti.example/)' });
    await page.getByRole('heading', { name: 'По дням' }).waitFor();
    await page.getByText('За этот период ничего не выдано.').waitFor();
    const totals = page.getByRole('region', { name: 'Итоги за период' });
    for (const label of ['Доход', 'Выдано', 'Видимые показы', 'Доход на 1000 выданных тизеров']) {
      await totals.getByText(label, { exact: true }).waitFor();
    }
    assert.deepEqual(await englishHeadings(), []);
    await lookAt(page, 'ru-publisher-statistics');
    await open(`/publisher/statistics?block=${blockId + 1000}`, 'Статистика');
    await page.getByText(`Не найдено: блока ${blockId + 1000} нет в вашем аккаунте.`).waitFor();
  });

  it('shows payouts and payout details in Russian', async () => {
    await open('/publisher/payouts', 'Выплаты');
    await page.getByRole('heading', { name: 'Реквизиты для выплат' }).waitFor();
    await page.getByLabel('Способ').selectOption({ label: 'Криптокошелёк' });
    await page.getByText('Адрес кошелька и его сеть.').waitFor();
    await page.getByText('Чтобы получать выплаты, укажите реквизиты ниже.').waitFor();
    await page.getByText('Выплат пока нет.').waitFor();
    assert.deepEqual(await englishHeadings(), []);
    await lookAt(page, 'ru-publisher-payouts');
  });

  it('shows the webhooks page and its form in Russian', async () => {
    await open('/publisher/webhooks', 'Вебхуки');
    await page.getByText('Адресов пока нет.').waitFor();
    await page.getByRole('button', { name: 'Добавить адрес' }).click();
    const form = page.getByRole('form', { name: 'Новый адрес' });
    const events = form.getByRole('group', { name: 'События' });
    await events.getByText('сайт одобрен, заблокирован или не подтверждён').waitFor();
    await form.getByLabel('Заметка (необязательно)').waitFor();
    assert.deepEqual(await englishHeadings(), []);
    await lookAt(page, 'ru-publisher-webhooks');
  });
});
