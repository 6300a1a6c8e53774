import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { insertCampaign, insertOffer, insertSite } from '../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

/**
 * Every e-mail Nativa writes is in its recipient account's language (docs/web-account.md,
 * "Languages"): read here through the operator's outbox API, as an operator sees them.
 */
const LOCALES = path.join(import.meta.dirname, '..', '..', '..', 'src', 'modules', 'mail', 'locales');
const LANGUAGES = ['en', 'ru'] as const;
const catalogue = (language: string): Record<string, string> =>
  JSON.parse(readFileSync(path.join(LOCALES, `${language}.json`), 'utf8'));

const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;
const baseKey = (key: string) => key.replace(PLURAL_SUFFIX, '');
const placeholders = (text: string) => [...text.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1]).sort();
const tags = (text: string) => [...text.matchAll(/<\/?(\w+)[^>]*>/g)].map((m) => m[0].replace(/"[^"]*"/g, '""')).sort();
const CYRILLIC = /[а-яё]/i;

describe('the e-mails’ catalogues', () => {
  it('have every key in both languages, the same placeholders and markup, every plural form', () => {
    const problems: string[] = [];
    const byLanguage = Object.fromEntries(LANGUAGES.map((language) => [language, catalogue(language)]));
    for (const language of LANGUAGES) {
      const entries = byLanguage[language] ?? {};
      const other = byLanguage[language === 'en' ? 'ru' : 'en'] ?? {};
      const otherBases = new Set(Object.keys(other).map(baseKey));
      const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
      for (const key of Object.keys(entries)) {
        if (!otherBases.has(baseKey(key))) problems.push(`${language} has ${key}, the other language lacks it`);
        if (entries[key]?.trim() === '') problems.push(`${language} ${key} is empty`);
        if (PLURAL_SUFFIX.test(key)) {
          for (const category of categories) {
            if (!(`${baseKey(key)}_${category}` in entries)) problems.push(`${language} lacks ${baseKey(key)}_${category}`);
          }
        }
      }
      assert.deepEqual(Object.keys(entries), Object.keys(entries).sort(), `${language}: keys sorted`);
    }
    const english = byLanguage.en ?? {};
    for (const [key, text] of Object.entries(byLanguage.ru ?? {})) {
      const source = english[key] ?? english[`${baseKey(key)}_other`] ?? '';
      if (placeholders(source).join() !== placeholders(text).join())
        problems.push(`ru ${key} has placeholders ${placeholders(text)} where English has ${placeholders(source)}`);
      if (tags(source).join() !== tags(text).join())
        problems.push(`ru ${key} has markup ${tags(text)} where English has ${tags(source)}`);
    }
    assert.deepEqual(problems, []);
  });
});

describe('e-mails in the account’s language', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());
  const db = () => server.server.context.db;

  interface OutboxMessage {
    kind: string;
    subject: string;
    text: string;
  }
  /** The account's newest message of `kind`, as the operator's outbox shows it. */
  const lastMessage = async (accountId: number, kind: string): Promise<OutboxMessage> => {
    const response = await server.operator.get(`/api/admin/outbox?userId=${accountId}`);
    assert.equal(response.status, 200, response.text);
    const message = response.json<OutboxMessage[]>().find((row) => row.kind === kind);
    assert.ok(message, `no ${kind} message for account ${accountId}`);
    return message;
  };
  const choose = async (client: TestServer['operator'], language: 'en' | 'ru') =>
    assert.equal((await client.put('/api/me/language', { language })).status, 204);

  it('writes a client’s registration in its advertiser’s language, and later links in the client’s own', async () => {
    const advertiser = await server.createAccount('advertiser', { name: 'Агентство «Восток»' });
    await choose(advertiser.client, 'ru');
    const created = await advertiser.client.post('/api/advertiser/users', { user: 'ru_client', email: 'ru.client@example.test' });
    assert.equal(created.status, 201, created.text);
    const client = created.json<{ id: number }>();

    const registration = await lastMessage(client.id, 'email_confirmation');
    assert.equal(registration.subject, 'Ваш аккаунт Nativa: подтвердите адрес электронной почты');
    assert.match(registration.text, /^Здравствуйте!/);
    assert.match(registration.text, /Агентство «Восток» открыл\(а\) для вас аккаунт рекламодателя в Nativa\./);
    assert.match(registration.text, /Логин: ru_client/);
    assert.match(registration.text, /Выберите пароль в течение 7 дней/);
    assert.doesNotMatch(registration.text, /[A-Za-z]{3,} your|Hello/);
    // The client starts in Russian: its own web pages and its next e-mails.
    const issued = await server.operator.post(`/api/admin/users/${client.id}/tokens`, { name: 'test' });
    const clientApi = server.operator.as(issued.json<{ token: string }>().token);
    assert.equal((await clientApi.get('/api/me')).json().language, 'ru');

    const resent = await server.operator.post(`/api/admin/users/${client.id}/confirmation`, {});
    assert.equal(resent.status, 201, resent.text);
    const russian = await lastMessage(client.id, 'email_confirmation');
    assert.equal(russian.subject, 'Nativa: подтвердите адрес электронной почты');
    assert.match(russian.text, /Подтвердите адрес электронной почты вашего аккаунта Nativa ru_client в течение 7 дней/);

    await choose(clientApi, 'en');
    await server.operator.post(`/api/admin/users/${client.id}/confirmation`, {});
    const english = await lastMessage(client.id, 'email_confirmation');
    assert.equal(english.subject, 'Nativa: confirm your e-mail');
    assert.match(english.text, /^Hello,/);
    assert.match(english.text, /Please confirm the e-mail address of your Nativa account ru_client within 7 days/);
    assert.doesNotMatch(english.text, CYRILLIC);
  });

  it('writes an English advertiser’s client registration in English', async () => {
    const advertiser = await server.createAccount('advertiser', { name: 'West Agency' });
    const created = await advertiser.client.post('/api/advertiser/users', { user: 'en_client', email: 'en.client@example.test' });
    const registration = await lastMessage(created.json<{ id: number }>().id, 'email_confirmation');
    assert.equal(registration.subject, 'Your Nativa account: confirm your e-mail');
    assert.match(registration.text, /West Agency has opened a Nativa advertiser account for you\./);
    assert.match(registration.text, /Choose your password within 7 days/);
    assert.doesNotMatch(registration.text, CYRILLIC);
  });

  it('writes a password reset in the account’s language', async () => {
    const russian = await server.createAccount('publisher');
    await choose(russian.client, 'ru');
    const english = await server.createAccount('publisher');
    for (const account of [russian, english]) {
      const login = (await account.client.get('/api/me')).json<{ username: string }>().username;
      assert.equal((await server.anonymous.post('/api/password-reset', { login })).status, 202);
    }
    const ru = await lastMessage(russian.id, 'password_reset');
    assert.equal(ru.subject, 'Nativa: сброс пароля');
    assert.match(ru.text, /Чтобы выбрать новый пароль, откройте эту ссылку в течение 60 минут \(она действует один раз\):/);
    assert.match(ru.text, /\/password\?token=…/);
    const en = await lastMessage(english.id, 'password_reset');
    assert.equal(en.subject, 'Nativa: reset your password');
    assert.match(en.text, /open this link within 60 minutes \(it works once\)/);
    assert.doesNotMatch(en.text, CYRILLIC);
  });

  it('writes an invitation in the language asked for, else in the creating operator’s language', async () => {
    const asked = await server.createAccount('advertiser', { language: 'ru' });
    assert.equal((await asked.client.get('/api/me')).json().language, 'ru');
    assert.equal((await lastMessage(asked.id, 'invitation')).subject, 'Ваш аккаунт Nativa: выберите пароль');

    const plain = await server.createAccount('advertiser');
    assert.equal((await plain.client.get('/api/me')).json().language, 'en');
    const english = await lastMessage(plain.id, 'invitation');
    assert.equal(english.subject, 'Your Nativa account: choose your password');
    assert.match(english.text, /Choose your password within 7 days/);

    await choose(server.operator, 'ru');
    try {
      const inherited = await server.createAccount('publisher');
      assert.equal((await inherited.client.get('/api/me')).json().language, 'ru');
      const russian = await lastMessage(inherited.id, 'invitation');
      assert.equal(russian.subject, 'Ваш аккаунт Nativa: выберите пароль');
      assert.match(russian.text, /Для вас открыт аккаунт Nativa\. Ваш логин: publisher/);
      assert.match(russian.text, /Выберите пароль в течение 7 дней/);
      const asEnglish = await server.createAccount('publisher', { language: 'en' });
      assert.equal((await lastMessage(asEnglish.id, 'invitation')).subject, 'Your Nativa account: choose your password');
    } finally {
      await choose(server.operator, 'en');
    }
    const refused = await server.operator.post('/api/admin/users', {
      type: 'advertiser',
      username: 'german_one',
      email: 'german@example.test',
      language: 'de',
    });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.json().errors[0].field, 'language');
  });

  it('tells of moderation decisions in the owner’s language, by e-mail and notification', async () => {
    const russian = await server.createAccount('advertiser');
    await choose(russian.client, 'ru');
    const campaign = await insertCampaign(db(), { advertiserId: russian.id, title: 'Телефоны' });
    const offer = await insertOffer(db(), { campaignId: campaign.id, title: 'Новый телефон', approved: false });
    const reason = 'Цена на странице <1990>, а не 990';
    assert.equal((await server.operator.put(`/api/admin/offers/${offer.id}`, { status: 2, reason })).status, 200);
    const rejected = await lastMessage(russian.id, 'moderation');
    assert.equal(rejected.subject, 'Nativa: ваше объявление отклонено');
    assert.equal(
      rejected.text,
      `Здравствуйте!\n\nВаше объявление «Новый телефон» отклонено: ${reason}. Исправьте его и снова отправьте на модерацию в своём аккаунте.\n`,
    );
    const [notice] = (await russian.client.get('/api/notifications')).json<{ text: string }[]>();
    assert.match(notice?.text ?? '', /^Ваше объявление «Новый телефон» отклонено: Цена на странице <1990>/);
    const html = await db()
      .selectFrom('mail_outbox')
      .select('body_html')
      .where('account_id', '=', russian.id)
      .where('kind', '=', 'moderation')
      .executeTakeFirstOrThrow();
    assert.match(html.body_html, /Цена на странице &lt;1990&gt;, а не 990/, 'the HTML version escapes what the operator wrote');

    const publisher = await server.createAccount('publisher');
    await choose(publisher.client, 'ru');
    const site = await insertSite(db(), { publisherId: publisher.id, url: 'https://news.example.test/ru', status: 0 });
    assert.equal((await server.operator.put(`/api/admin/sites/${site.id}`, { status: 1 })).status, 200);
    assert.equal((await lastMessage(publisher.id, 'moderation')).subject, 'Nativa: ваш сайт одобрен');

    const english = await server.createAccount('advertiser');
    const own = await insertCampaign(db(), { advertiserId: english.id, title: 'Phones', approved: false });
    assert.equal((await server.operator.put(`/api/admin/campaigns/${own.id}`, { status: 1 })).status, 200);
    const approved = await lastMessage(english.id, 'moderation');
    assert.equal(approved.subject, 'Nativa: your campaign was approved');
    assert.equal(approved.text, 'Hello,\n\nYour campaign “Phones” was approved.\n');
  });
});
