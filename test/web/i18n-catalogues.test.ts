import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

/**
 * The web app's catalogues (web/src/i18n, docs/web-account.md "Languages"): every key in both
 * languages, with the same placeholders and markup, every plural form a language needs, and every
 * key the code names present. A page's text that is not in a catalogue fails the last test.
 */
const SRC = path.join(import.meta.dirname, '..', '..', 'web', 'src');
const LOCALES = path.join(SRC, 'i18n', 'locales');
const LANGUAGES = ['en', 'ru'] as const;
const NAMESPACES = readdirSync(path.join(LOCALES, 'en')).map((file) => file.replace(/\.json$/, ''));

type Catalogue = Record<string, string>;
const catalogue = (language: string, namespace: string): Catalogue =>
  JSON.parse(readFileSync(path.join(LOCALES, language, `${namespace}.json`), 'utf8'));

const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;
const baseKey = (key: string) => key.replace(PLURAL_SUFFIX, '');
const placeholders = (text: string) => [...text.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1]).sort();
const tags = (text: string) => [...text.matchAll(/<\/?([\w]+)\s*\/?>/g)].map((m) => m[0].replace(/\s/g, '')).sort();

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('the web app’s catalogues', () => {
  it('has the same namespaces in every language', () => {
    for (const language of LANGUAGES) {
      const files = readdirSync(path.join(LOCALES, language)).map((file) => file.replace(/\.json$/, ''));
      assert.deepEqual(files.sort(), [...NAMESPACES].sort(), language);
    }
  });

  for (const namespace of NAMESPACES) {
    it(`${namespace}: every key in both languages, same placeholders and markup, all plural forms`, () => {
      const problems: string[] = [];
      const byLanguage = Object.fromEntries(LANGUAGES.map((language) => [language, catalogue(language, namespace)]));
      const bases = Object.fromEntries(
        LANGUAGES.map((language) => [language, new Set(Object.keys(byLanguage[language] ?? {}).map(baseKey))]),
      );
      for (const language of LANGUAGES) {
        const other = LANGUAGES.find((l) => l !== language) ?? 'en';
        for (const base of bases[language] ?? []) {
          if (!bases[other]?.has(base)) problems.push(`${other} lacks ${namespace}:${base}`);
        }
        const entries = byLanguage[language] ?? {};
        const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
        const plurals = new Set(
          Object.keys(entries)
            .filter((key) => PLURAL_SUFFIX.test(key))
            .map(baseKey),
        );
        for (const base of plurals) {
          for (const category of categories) {
            // i18next reads `_zero`/`_two` only when the language has the category; "other" and "one" are needed.
            if (!(`${base}_${category}` in entries))
              problems.push(`${language} lacks the ${category} form of ${namespace}:${base}`);
          }
        }
        for (const [key, text] of Object.entries(entries)) {
          if (typeof text !== 'string' || text.trim() === '') problems.push(`${language} ${namespace}:${key} is empty`);
        }
      }
      // Placeholders and markup: each translation names what its English text names.
      const english = byLanguage.en ?? {};
      for (const [key, text] of Object.entries(byLanguage.ru ?? {})) {
        const source = english[key] ?? english[`${baseKey(key)}_other`] ?? english[baseKey(key)];
        if (source === undefined) continue;
        const wanted = placeholders(source).filter((name) => name !== 'count');
        const found = placeholders(text).filter((name) => name !== 'count');
        if (wanted.join() !== [...new Set(found)].sort().join() && wanted.join() !== found.join())
          problems.push(`ru ${namespace}:${key} has placeholders ${found} where English has ${wanted}`);
        if (tags(source).join() !== tags(text).join())
          problems.push(`ru ${namespace}:${key} has markup ${tags(text)} where English has ${tags(source)}`);
      }
      assert.deepEqual(problems, []);
    });
  }

  it('has every key the code names, in the namespace the code names it in', () => {
    const missing: string[] = [];
    const english = Object.fromEntries(NAMESPACES.map((namespace) => [namespace, catalogue('en', namespace)]));
    const has = (namespace: string, key: string) => {
      const entries = english[namespace] ?? {};
      return key in entries || `${key}_other` in entries;
    };
    for (const file of sourceFiles(SRC)) {
      const text = readFileSync(file, 'utf8');
      const declared = /useTranslation\(\s*'(\w+)'/.exec(text)?.[1] ?? 'common';
      const used = [
        ...text.matchAll(/\bt\(\s*'([^'$]+)'/g),
        ...text.matchAll(/i18nKey="([^"]+)"/g),
        ...text.matchAll(/i18nKey=\{'([^']+)'\}/g),
      ].map((match) => match[1] ?? '');
      for (const name of used) {
        const [namespace, key] = name.includes(':') ? (name.split(':', 2) as [string, string]) : [declared, name];
        if (!has(namespace, key)) missing.push(`${path.relative(SRC, file)}: ${namespace}:${key}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it('leaves no page text outside the catalogues', () => {
    const found: string[] = [];
    for (const file of sourceFiles(SRC).filter((name) => name.endsWith('.tsx'))) {
      for (const text of untranslatedTexts(readFileSync(file, 'utf8'))) found.push(`${path.relative(SRC, file)}: ${text}`);
    }
    assert.deepEqual(found, []);
  });
});

/** A generic's `>` or a comparison, not a tag: what follows is code. */
const looksLikeCode = (text: string) => /^[,:;|&.)(=[\]]/.test(text) || /\b(return|const|export)\b|=>|\$\{/.test(text);

/** What is never translated: the product's name, code and field names, acronyms of the trade (CTR, CPC). */
const UNTRANSLATED = /^(Nativa|[A-Z]{2,5}|[\w.-]*[_.:/-][\w.:/-]*)$/;

/**
 * Text a person reads that the code writes in English: JSX text between tags and the string values
 * of attributes people read. Text inside <code>, <kbd> and <samp> is code, not words. A heuristic:
 * it reads the source, so a sentence built in a plain string elsewhere escapes it (the key check
 * above and review catch those).
 */
function untranslatedTexts(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const texts: string[] = [];
  // Text after a tag's end (`>`, not an arrow's `=>`) up to the next tag or expression.
  for (const match of code.matchAll(/(?:<(\w+)[^<>]*|<\/\w+|\/)(?<![=-])>([^<>{}]*?[A-Za-z]{2,}[^<>{}]*?)(?=[<{])/g)) {
    const [, tag, raw = ''] = match;
    const text = raw.trim().replace(/\s+/g, ' ');
    if (tag === 'code' || tag === 'kbd' || tag === 'samp' || UNTRANSLATED.test(text) || looksLikeCode(text)) continue;
    texts.push(text);
  }
  for (const match of code.matchAll(/\s(aria-label|title|placeholder|label|hint|alt)="([^"]*[A-Za-z]{2,}[^"]*)"/g)) {
    if (!UNTRANSLATED.test(match[2] ?? '')) texts.push(`${match[1]}="${match[2]}"`);
  }
  return texts;
}
