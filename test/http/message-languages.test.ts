import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  MESSAGE_CATALOGUES,
  MESSAGE_LANGUAGES,
  messageText,
  negotiateMessageLanguage,
  translateMessage,
} from '../../src/http/message-languages.ts';
import { checkMoney, type MoneyRule } from '../../src/shared/money-input.ts';

/**
 * The catalogues of the API's human messages (src/http/locales): every key in every language,
 * with the same placeholders, plural forms where a language needs them, and every English
 * message the covered modules throw readable in Russian.
 */

const PLURAL_SUFFIX = /_(?:zero|one|two|few|many|other)$/;
const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((match) => match[1]).sort();
const baseKeys = (language: (typeof MESSAGE_LANGUAGES)[number]) =>
  new Set(Object.keys(MESSAGE_CATALOGUES[language]).map((key) => key.replace(PLURAL_SUFFIX, '')));

describe('the message catalogues', () => {
  it('have the same keys in every language', () => {
    const english = [...baseKeys('en')].sort();
    for (const language of MESSAGE_LANGUAGES) {
      assert.deepEqual([...baseKeys(language)].sort(), english, `${language}: keys differ from English`);
    }
  });

  it('give each plural key every form its language needs, and no other key a form', () => {
    for (const language of MESSAGE_LANGUAGES) {
      const catalogue = MESSAGE_CATALOGUES[language];
      const needed = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
      for (const key of baseKeys(language)) {
        const forms = Object.keys(catalogue).filter((full) => full.replace(PLURAL_SUFFIX, '') === key && full !== key);
        if (forms.length === 0) continue;
        assert.equal(catalogue[key], undefined, `${language}: ${key} is both plural and not`);
        for (const form of needed) assert.ok(`${key}_${form}` in catalogue, `${language}: ${key}_${form} is missing`);
        const english = Object.keys(MESSAGE_CATALOGUES.en).filter((full) => full.startsWith(`${key}_`));
        assert.ok(english.length > 0, `${key} is plural in ${language} only`);
      }
    }
  });

  it('use the same placeholders in every language', () => {
    for (const language of MESSAGE_LANGUAGES) {
      for (const [key, text] of Object.entries(MESSAGE_CATALOGUES[language])) {
        const base = key.replace(PLURAL_SUFFIX, '');
        const english = MESSAGE_CATALOGUES.en[key] ?? MESSAGE_CATALOGUES.en[`${base}_other`] ?? '';
        assert.deepEqual(placeholders(text), placeholders(english), `${language}: ${key}`);
        assert.notEqual(text.trim(), '', `${language}: ${key} is empty`);
      }
    }
  });

  it('are sorted by key, as the files are kept', () => {
    for (const language of MESSAGE_LANGUAGES) {
      const keys = Object.keys(MESSAGE_CATALOGUES[language]);
      assert.deepEqual(keys, [...keys].sort(), language);
    }
  });

  it('write lengths with the Russian plural forms', () => {
    const texts = [1, 2, 5, 21, 22, 25, 111].map((count) => messageText('ru', 'validation.maxLength', { count }));
    assert.deepEqual(
      texts.map((text) => text.replace(/^.* (\d+ \S+)\.$/, '$1')),
      ['1 символа', '2 символов', '5 символов', '21 символа', '22 символов', '25 символов', '111 символов'],
    );
    assert.equal(messageText('en', 'validation.maxLength', { count: 1 }), 'Must be at most 1 character long.');
    assert.equal(messageText('en', 'validation.maxLength', { count: 3 }), 'Must be at most 3 characters long.');
  });
});

describe('the language of a request', () => {
  const cases: [string | undefined, string][] = [
    [undefined, 'en'],
    ['', 'en'],
    ['ru', 'ru'],
    ['ru-RU', 'ru'],
    ['ru-RU;q=0.9', 'ru'],
    ['RU', 'ru'],
    ['en-US,en;q=0.9,ru;q=0.8', 'en'],
    ['ru;q=0.8, en;q=0.9', 'en'],
    ['ru-RU,ru;q=0.9,en-US;q=0.8', 'ru'],
    ['de-DE,de;q=0.9', 'en'],
    ['de, ru;q=0.5', 'ru'],
    ['*', 'en'],
    ['ru;q=0', 'en'],
    ['ru;q=abc', 'en'],
    ['garbage;;;,', 'en'],
  ];
  for (const [header, language] of cases) {
    it(`reads ${JSON.stringify(header)} as ${language}`, () => {
      assert.equal(negotiateMessageLanguage(header), language);
    });
  }
});

describe('English messages read back', () => {
  it('finds the key and values of an English text, plural forms included', () => {
    assert.equal(translateMessage('ru', { message: 'Campaign not found.' }), 'Кампания не найдена.');
    assert.equal(
      translateMessage('ru', { message: 'Site 12 is banned: no blocks can be added to it.' }),
      'Сайт 12 заблокирован: добавлять в него блоки нельзя.',
    );
    assert.equal(translateMessage('ru', { message: 'Must be at most 61 characters.' }), 'Должно быть не длиннее 61 символа.');
  });

  it('leaves a text no template matches, and English itself, alone', () => {
    assert.equal(translateMessage('ru', { message: 'Something nobody wrote down.' }), undefined);
    assert.equal(translateMessage('en', { message: 'Campaign not found.' }), undefined);
  });

  it('covers every literal message the account API throws outside serving and mail', () => {
    const missing = thrownMessages().filter(
      ({ message }) => translateMessage('ru', { message }) === undefined && !STAYS_ENGLISH.has(message),
    );
    assert.deepEqual(
      missing.map(({ file, message }) => `${file}: ${message}`),
      [],
      'add these to src/http/locales/{en,ru}.json',
    );
  });
});

describe('sentences assembled from parts', () => {
  it('translate every money rule and every entry point', () => {
    const rules: MoneyRule[] = [{}, { max: 1000 }];
    for (const sign of ['non-negative', 'positive', 'non-zero'] as const) rules.push({ sign }, { sign, max: 1000 });
    for (const rule of rules) {
      const checked = checkMoney('x', 'amount', rule);
      assert.equal(typeof checked, 'object');
      const { message } = checked as { message: string };
      assert.ok(translateMessage('ru', { message }), message);
    }
    for (const kind of ['advertisers', 'publishers', 'operators']) {
      assert.ok(translateMessage('ru', { message: `This entry point is for ${kind} only.` }), kind);
    }
  });
});

/**
 * Messages the scan above sees only in parts: they are assembled from pieces (checked whole in
 * the next test), or are the validator's own words for a keyword no schema uses, or are the
 * operator's category usage counts, joined into one sentence, which stay English.
 */
const STAYS_ENGLISH = new Set([
  'This entry point is for 7 only.',
  'Must be 77 with at most 4 fraction digits.',
  '77.',
  'Used by 7 campaign(s).',
  'Used by 7 ad(s).',
  'Has 7 subcategories.',
]);

const ROOT = path.resolve(import.meta.dirname, '../..');
const SKIPPED = ['src/modules/serving', 'src/modules/mail'];
const THROW_SITE =
  /(?:invalidField\(\s*[^,()]+(?:\([^)]*\))?,\s*|message:\s*|new DomainError\(\s*'[a-z_]+',\s*|(?:unauthenticated|forbidden|badRequest)\(\s*)(['`"])((?:(?!\1)[^\\]|\\.)*)\1/g;
const NOT_FOUND = /notFound\(\s*'([^']+)'\s*\)/g;

/** Every message written as a literal at a throw site, `${…}` filled with a sample value. */
function thrownMessages(): { file: string; message: string }[] {
  const found: { file: string; message: string }[] = [];
  for (const file of sourceFiles(path.join(ROOT, 'src/http')).concat(sourceFiles(path.join(ROOT, 'src/modules')))) {
    const relative = path.relative(ROOT, file);
    if (SKIPPED.some((skipped) => relative.startsWith(skipped))) continue;
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(THROW_SITE)) {
      const message = (match[2] ?? '').replace(/\$\{[^}]*\}/g, '7');
      // Only sentences: a capital or a lower-case start of a field's phrase, ending in a stop.
      if (/[.]$/.test(message)) found.push({ file: relative, message });
    }
    for (const match of text.matchAll(NOT_FOUND)) found.push({ file: relative, message: `${match[1]} not found.` });
  }
  return found;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}
